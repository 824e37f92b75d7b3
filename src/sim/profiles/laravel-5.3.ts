// Laravel 5.3: the version of the real MONITOR capture in seed 003. Payloads start at attempts 1,
// a null retry_after stays null, and job-level tries/timeout do not exist yet. The config key is
// retry_after already (RedisConnector.php@v5.3.0:49 `Arr::get($config, 'retry_after', 60)`);
// `expire` is only RedisQueue's property that holds it (5.2's connector read an 'expire' key).
import { phpJsonEncode, phpSerialize } from '../php.ts';
import { inDeclaredOrder } from './declared.ts';
import { migrateExpiredJobs53, pop53, release53, size53 } from './scripts-5.3.ts';
import type { JobObject, LaravelProfile } from './types.ts';

/** serialize(clone $job) with 5.3's Queueable (connection, queue, delay). */
export function serializeJob53(input: JobObject): string {
  return phpSerialize({
    kind: 'object',
    className: input.className,
    properties: [
      // 5.3 never reads $tries/$timeout, but a class that declares them still serializes them.
      ...inDeclaredOrder(
        [
          ...(input.tries !== null ? [{ name: 'tries', visibility: 'public' as const, value: input.tries }] : []),
          ...(input.timeout !== null ? [{ name: 'timeout', visibility: 'public' as const, value: input.timeout }] : []),
          ...input.properties.map(([name, value]) => ({ name, visibility: 'public' as const, value })),
        ],
        input.declared,
      ),
      { name: 'job', visibility: 'protected', value: null },
      { name: 'connection', visibility: 'public', value: input.connection },
      { name: 'queue', visibility: 'public', value: input.queue },
      { name: 'delay', visibility: 'public', value: input.delay },
    ],
  });
}

export const laravel53: LaravelProfile = {
  name: '5.3',
  title: 'Laravel 5.3 (first Lua scripts, attempts start at 1, alarm at timeout + sleep)',
  defaultClient: 'predis',
  scripts: {
    push: null,
    later: null,
    pop: pop53,
    release: release53,
    migrateExpiredJobs: migrateExpiredJobs53,
    size: size53,
    clear: null,
  },
  defaultPrefix: '',
  encodePayload: (payload) => phpJsonEncode(payload),
  serializeJob: serializeJob53,
  // RedisConnector::connect (v5.3.0 to v5.3.31, line 49): `Arr::get($config, 'retry_after', 60)`.
  queue: { push: 'rpush', notify: false, retryAfterNullMeans60: false, later: 'zadd', migrationBatchSize: false },
  // No chains: Bus/Queueable.php@v5.3.31 has only $connection, $queue and $delay (chains: 5.5.0).
  bus: { chain: false, busChain: false },
  // Queue::createPayload, then RedisQueue::setMeta(id) and setMeta(attempts, 1).
  buildPayload: (input) => ({
    job: 'Illuminate\\Queue\\CallQueuedHandler@call',
    data: { commandName: input.className, command: input.command ?? serializeJob53(input) },
    id: input.id,
    attempts: 1,
  }),
  // config/cache.php@v5.3.30: the redis store on connection 'default', prefix 'laravel' (no
  // APP_NAME); no lock connection, no job middleware, no unique jobs (research/cache-store.md §1, §3).
  cache: {
    connection: 'default',
    lockConnection: null,
    lockConnectionOption: false,
    prefix: 'laravel',
    separator: ':',
    middleware: 'job middleware arrived in Laravel 6.0.0 and WithoutOverlapping in 8.11.0',
    unique: 'ShouldBeUnique arrived in Laravel 8.14.0',
    uniqueKey: (className, id) => `laravel_unique_job:${className}${id}`,
    uniqueRelease: 'force',
    untilProcessing: 'before-middleware',
    throttleKeyHash: 'md5',
    sharedOverlap: false,
    pauseChecks: false,
  },
  worker: {
    defaultTries: 0,
    onTimeout: 'kill',
    resetAlarm: false,
    sleepAfterException: true,
    retryUntilIgnoresTries: false,
    backoff: 'delay',
    attemptsOf: (original) => original,
    jobLevelOptions: false,
    timeoutAt: false,
    alarm: 'timeout-plus-sleep',
    blockingPop: null,
    blockOnlyFirstQueue: false,
    // WorkCommand.php@v5.3.31:22-30: none of --stop-when-empty, --max-jobs, --max-time, --rest.
    workOptions: { stopWhenEmpty: false, maxJobs: false, maxTime: false, rest: false },
    // Worker.php@v5.3.31:206-211 wraps an Error in FatalThrowableError; symfony/debug 3.1.* (composer.json)
    // prefixes a TypeError's message with "Type error: ".
    caughtError: 'fatal-throwable-error-type-prefix',
    // InteractsWithQueue.php@v5.3.31:44-48: `$this->job->failed($exception ?: new ManuallyFailedException)`.
    manualFail: 'failed-method-only',
    timedOutMessage: null,
    maxAttemptsMessage: () => 'A queued job has been attempted too many times. The job may have previously timed out.',
    selectOnConnect: (client, database) => client === 'predis' || database !== 0,
  },
};
