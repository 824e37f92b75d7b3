// Laravel 8 (8.83, as Debian bookworm ships it): the :notify list (push script, 3-key migrate and
// pop), phpredis selecting the configured db on every connection, payloads with uuid, backoff,
// maxExceptions, failOnTimeout and retryUntil, and a timeout handler that fails the job on its last
// attempt before killing the worker. Every wire fact here was observed from the real framework:
// conformance/laravel/FINDINGS.md.
import type { PhpObject, PhpValue } from '../php.ts';
import { phpJsonEncode, phpSerialize } from '../php.ts';
import { clear89, migrateExpiredJobs58, pop58, push58, release58, size58 } from './scripts-5.8.ts';
import { chainCatchCallbacksValue, chainedValue } from './queueable.ts';
import { inDeclaredOrder } from './declared.ts';
import type { JobObject, LaravelProfile } from './types.ts';

/**
 * serialize(clone $job) for a make:job class in 8.x: InteractsWithQueue's $job is public now.
 * Bus\Queueable's properties in declaration order (Bus/Queueable.php@v8.83.26:17-73), the chain's
 * among them: ->chain() fills $chained (:185-192), Bus::chain() also $chainQueue,
 * $chainConnection and $chainCatchCallbacks = [] (Foundation/Bus/PendingChain.php@v8.83.26:146-161).
 */
export function serializeJob8(input: JobObject): string {
  const own: PhpObject['properties'] = [];
  if (input.tries !== null) own.push({ name: 'tries', visibility: 'public', value: input.tries });
  if (input.timeout !== null) own.push({ name: 'timeout', visibility: 'public', value: input.timeout });
  if (input.backoffDeclared !== null) {
    const b = input.backoffDeclared;
    const value: PhpValue = Array.isArray(b) ? { kind: 'array', entries: b.map((v, i) => [i, v]) } : b;
    own.push({ name: 'backoff', visibility: 'public', value });
  }
  if (input.maxExceptions !== null)
    own.push({ name: 'maxExceptions', visibility: 'public', value: input.maxExceptions });
  if (input.failOnTimeout) own.push({ name: 'failOnTimeout', visibility: 'public', value: true });
  if (input.uniqueFor != null) own.push({ name: 'uniqueFor', visibility: 'public', value: input.uniqueFor });
  for (const [name, value] of input.properties) own.push({ name, visibility: 'public', value });
  const empty: PhpValue = { kind: 'array', entries: [] };
  return phpSerialize({
    kind: 'object',
    className: input.className,
    properties: [
      ...inDeclaredOrder(own, input.declared),
      { name: 'job', visibility: 'public', value: null },
      { name: 'connection', visibility: 'public', value: input.connection },
      { name: 'queue', visibility: 'public', value: input.queue },
      { name: 'chainConnection', visibility: 'public', value: input.chain?.chainConnection ?? null },
      { name: 'chainQueue', visibility: 'public', value: input.chain?.chainQueue ?? null },
      { name: 'chainCatchCallbacks', visibility: 'public', value: chainCatchCallbacksValue(input.chain) },
      { name: 'delay', visibility: 'public', value: input.delay },
      { name: 'afterCommit', visibility: 'public', value: null },
      { name: 'middleware', visibility: 'public', value: empty },
      { name: 'chained', visibility: 'public', value: chainedValue(input.chain) },
    ],
  });
}

export const laravel8: LaravelProfile = {
  name: '8',
  title: 'Laravel 8.83 (:notify list, 3-key scripts, phpredis, fails the last attempt on timeout)',
  defaultClient: 'phpredis',
  defaultPrefix: 'laravel_database_',
  scripts: {
    push: push58,
    later: null,
    pop: pop58,
    release: release58,
    migrateExpiredJobs: migrateExpiredJobs58,
    size: size58,
    clear: clear89,
  },
  // Queue::createObjectPayload (8.43+ key order) + RedisQueue::createPayloadArray (id, attempts 0).
  buildPayload: (input) => ({
    uuid: input.uuid,
    displayName: input.className,
    job: 'Illuminate\\Queue\\CallQueuedHandler@call',
    maxTries: input.tries,
    maxExceptions: input.maxExceptions,
    failOnTimeout: input.failOnTimeout,
    backoff: input.backoff,
    timeout: input.timeout,
    retryUntil: input.timeoutAt,
    data: { commandName: input.className, command: input.command ?? serializeJob8(input) },
    id: input.id,
    attempts: 0,
  }),
  // Queue::createPayload: json_encode($payload, JSON_UNESCAPED_UNICODE) since 8.82.
  encodePayload: (payload) => phpJsonEncode(payload, { unescapedUnicode: true }),
  serializeJob: serializeJob8,
  queue: { push: 'script', notify: true, retryAfterNullMeans60: true, later: 'zadd', migrationBatchSize: false },
  // Bus/Queueable.php@v8.83.26:185 chain(), :222 dispatchNextJobInChain(); Bus/Dispatcher.php@v8.83.26:163 chain().
  bus: { chain: true, busChain: true },
  // config/cache.php@v8.6.12 (skeleton v8.5.6+): connection 'cache', lock_connection 'default',
  // prefix Str::slug(APP_NAME, '_').'_cache'; RedisStore::setPrefix adds ':' (Cache/RedisStore.php@v8.83.29:321);
  // UniqueLock's key has no separator (Bus/UniqueLock.php@v8.83.29:43). research/cache-store.md §1, §4.
  cache: {
    connection: 'cache',
    lockConnection: 'default',
    lockConnectionOption: true,
    prefix: 'laravel_cache',
    separator: ':',
    middleware: null,
    unique: null,
    uniqueKey: (className, id) => `laravel_unique_job:${className}${id}`,
    uniqueRelease: 'force',
    untilProcessing: 'before-middleware',
    throttleKeyHash: 'md5',
    sharedOverlap: false,
    pauseChecks: false,
  },
  worker: {
    attemptsOf: (original) => original + 1,
    jobLevelOptions: true,
    timeoutAt: true,
    alarm: 'job-timeout',
    blockingPop: 'notify',
    defaultTries: 1,
    onTimeout: 'fail-last-attempt-then-kill',
    resetAlarm: true,
    sleepAfterException: false,
    retryUntilIgnoresTries: true,
    backoff: 'list',
    blockOnlyFirstQueue: false,
    // WorkCommand.php (Debian's 8.83.26):28-36: --stop-when-empty, --max-jobs, --max-time (8.0.0+),
    // --rest (8.32.0+); Worker::daemon/stopIfNecessary, Worker.php:127-195 and 294-310.
    workOptions: { stopWhenEmpty: true, maxJobs: true, maxTime: true, rest: true },
    // Worker::process catches Throwable and passes it on as it is (7.0+).
    caughtError: 'as-is',
    manualFail: 'fail',
    timedOutMessage: null,
    maxAttemptsMessage: (displayName) =>
      `${displayName} has been attempted too many times or run too long. The job may have previously timed out.`,
    // PhpRedisConnector: `if (isset($config['database'])) $client->select(...)`: always, with the skeleton.
    selectOnConnect: () => true,
  },
};
