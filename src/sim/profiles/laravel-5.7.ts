// Laravel 5.7 (the wire of 5.4-5.7; the profile the seeds document). One 5.5+ rule: a null
// retry_after in config/queue.php becomes 60 (5.4 kept it null).
import type { PhpObject } from '../php.ts';
import { phpJsonEncode, phpSerialize } from '../php.ts';
import { chainedValue } from './queueable.ts';
import { inDeclaredOrder } from './declared.ts';
import { migrateExpiredJobs54, pop54, release54, size54 } from './scripts-5.4.ts';
import type { JobObject, LaravelProfile } from './types.ts';

/**
 * serialize(clone $job) for a job using Dispatchable, InteractsWithQueue, Queueable, SerializesModels.
 * Queueable's properties (Bus/Queueable.php@v5.7.29:12-47) have no $chainCatchCallbacks yet: a
 * chain is only ->chain() (or withChain()), which fills $chained; $chainConnection and
 * $chainQueue stay null unless ->allOnConnection() / ->allOnQueue(), which the format does not offer.
 */
export function serializeJob57(input: JobObject): string {
  const own: PhpObject['properties'] = [];
  if (input.tries !== null) own.push({ name: 'tries', visibility: 'public', value: input.tries });
  if (input.timeout !== null) own.push({ name: 'timeout', visibility: 'public', value: input.timeout });
  for (const [name, value] of input.properties) own.push({ name, visibility: 'public', value });
  // Trait properties follow the class's own, in `use` order: InteractsWithQueue, then Queueable.
  return phpSerialize({
    kind: 'object',
    className: input.className,
    properties: [
      ...inDeclaredOrder(own, input.declared),
      { name: 'job', visibility: 'protected', value: null },
      { name: 'connection', visibility: 'public', value: input.connection },
      { name: 'queue', visibility: 'public', value: input.queue },
      { name: 'chainConnection', visibility: 'public', value: input.chain?.chainConnection ?? null },
      { name: 'chainQueue', visibility: 'public', value: input.chain?.chainQueue ?? null },
      { name: 'delay', visibility: 'public', value: input.delay },
      { name: 'chained', visibility: 'public', value: chainedValue(input.chain) },
    ],
  });
}

export const laravel57: LaravelProfile = {
  name: '5.7',
  title: 'Laravel 5.7 (5.4-5.7 wire: 2-key scripts, retry_after, BLPOP with block_for)',
  defaultClient: 'predis',
  scripts: {
    push: null,
    later: null,
    pop: pop54,
    release: release54,
    migrateExpiredJobs: migrateExpiredJobs54,
    size: size54,
    clear: null,
  },
  defaultPrefix: '',
  encodePayload: (payload) => phpJsonEncode(payload),
  serializeJob: serializeJob57,
  // RedisConnector::connect (v5.5.0 to v5.7.29, line 48): `$config['retry_after'] ?? 60`.
  queue: { push: 'rpush', notify: false, retryAfterNullMeans60: true, later: 'zadd', migrationBatchSize: false },
  // Chains arrived in 5.5.0 (Bus/Queueable.php@v5.5.0:80 chain(), :94 dispatchNextJobInChain();
  // Queue/CallQueuedHandler.php@v5.5.0:53). Bus::chain() did not exist until 8.0.0: 5.7 has
  // Dispatchable::withChain() (Foundation/Bus/Dispatchable.php@v5.7.29:35), which is ->chain().
  bus: { chain: true, busChain: false },
  // Queue::createObjectPayload + RedisQueue::createPayloadArray (id, attempts 0).
  buildPayload: (input) => ({
    displayName: input.className,
    job: 'Illuminate\\Queue\\CallQueuedHandler@call',
    maxTries: input.tries,
    timeout: input.timeout,
    timeoutAt: input.timeoutAt,
    data: { commandName: input.className, command: input.command ?? serializeJob57(input) },
    id: input.id,
    attempts: 0,
  }),
  // config/cache.php@v5.7.28: the redis store on connection 'cache' (REDIS_CACHE_DB, 1), prefix
  // str_slug(APP_NAME, '_').'_cache'; no lock connection, middleware or unique jobs (research/cache-store.md §1).
  cache: {
    connection: 'cache',
    lockConnection: null,
    lockConnectionOption: false,
    prefix: 'laravel_cache',
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
    sleepAfterException: false,
    retryUntilIgnoresTries: false,
    backoff: 'delay',
    attemptsOf: (original) => original + 1,
    jobLevelOptions: true,
    timeoutAt: true,
    alarm: 'job-timeout',
    blockingPop: 'list',
    blockOnlyFirstQueue: false,
    // WorkCommand.php@v5.7.29:26 `--stop-when-empty` (since v5.7.2), checked by Worker::stopIfNecessary
    // (Worker.php@v5.7.29:207) after the sleep of an empty poll; --max-jobs/--max-time/--rest are 8.x.
    workOptions: { stopWhenEmpty: true, maxJobs: false, maxTime: false, rest: false },
    // Worker.php@v5.7.29:330-335 wraps an Error in FatalThrowableError (symfony/debug ^4.1 keeps the message).
    caughtError: 'fatal-throwable-error',
    // InteractsWithQueue.php@v5.4.0:44-48 (and 5.7.29): FailingJob::handle deletes and logs the job.
    manualFail: 'fail',
    timedOutMessage: null,
    maxAttemptsMessage: (displayName) =>
      `${displayName} has been attempted too many times or run too long. The job may have previously timed out.`,
    selectOnConnect: (client, database) => client === 'predis' || database !== 0,
  },
};
