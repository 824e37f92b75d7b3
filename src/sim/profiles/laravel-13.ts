// Laravel 13 (13.x, current in 2026; the wire of 13.26.1). One engine: what differs from the 8
// profile is data and the rule switches below. Sources: laravel/framework at v13.26.1, and at the
// tags that introduced each change (named below, each checked against the tag before it); the
// application skeleton's config/*.php from laravel/laravel at v12.11.2 (its 12.x branch as of
// January 2026 has the same lines; no 13.x skeleton was available to read). Paths are under
// src/Illuminate/ unless they start with config/.
//
// What changed on the wire between 8.83 and 13.x, and where it is modelled:
// - migrateExpiredJobs sends ARGV[2] = migration_batch_size, "-1" by default (9.23.0+):
//   Queue/LuaScripts.php@v13.26.1:126 `'limit', 0, ARGV[2]`, Queue/RedisQueue.php@v13.26.1:449,
//   Queue/Connectors/RedisConnector.php@v13.26.1:50 `$config['migration_batch_size'] ?? -1`.
//   Modelled in scripts-12.ts and queue.migrationBatchSize.
// - later() EVALs a one-key script instead of a plain ZADD (12.45.0+): Queue/LuaScripts.php@v13.26.1:51,
//   Queue/RedisQueue.php@v13.26.1:370 `LuaScripts::later(), 1, ...':delayed'`. scripts-12.ts, queue.later.
// - payloads gain createdAt (12.11.0), a trailing delay (12.11.0), data.batchId (12.51.0) and
//   deleteWhenMissingModels (13.0.0): Queue/Queue.php@v13.26.1:173-191 (createObjectPayload) and
//   :132 (`$value['delay'] = isset($delay) ...`). buildPayload below.
// - data.command: SerializesModels::__serialize skips every property still equal to its declared
//   default (9.4.0+, #41348; Queue/SerializesModels.php@v13.26.1:46), so a make:job class
//   serializes as O:<n>:"App\Jobs\X":0:{}: serializeJob13 below.
// - the key prefix is laravel-database- (laravel/laravel #6636; config/database.php@v12.11.2:151
//   `Str::slug((string) env('APP_NAME', 'laravel')).'-database-'`).
// - the timeout handler fails the last attempt with TimeoutExceededException "<Job> has timed out."
//   (10.10.0+; Queue/TimeoutExceededException.php@v13.26.1:15), and MaxAttemptsExceededException
//   says "<Job> has been attempted too many times." (Queue/MaxAttemptsExceededException.php@v13.26.1:24).
// - with --queue=a,b and block_for, only the first queue's pop blocks (11.27.0+;
//   Queue/RedisQueue.php@v13.26.1:404 `$block = ! $this->secondaryQueueHadJob && $index === 0`).
// - Job::backoff() falls back to the payload's delay (Queue/Jobs/Job.php@v13.26.1:326
//   `$this->payload()['backoff'] ?? $this->payload()['delay'] ?? null`), the dispatch delay since 12.11.
// Not on the wire of a single-node run, so not modelled:
// - Redis Cluster hash tags (13.5.0, PR #59533): RedisQueue::getQueueRedisKey() wraps the name as
//   queues:{default} only when the connection is a cluster and the name has no hash tag yet
//   (Queue/RedisQueue.php@v13.26.1:558). The scenario format has no cluster connection (the tool
//   runs one redis-server), so every key stays queues:<name>, exactly as 13.x sends it to a
//   non-cluster server.
// - cache-store traffic (illuminate:queue:restart, job-exceptions:<uuid>, paused queues): the
//   skeleton's cache store is the database, not Redis (config/cache.php@v12.11.2:18).
import type { PhpObject, PhpValue } from '../php.ts';
import { phpJsonEncode, phpSerialize } from '../php.ts';
import { clear12, later1245, migrateExpiredJobs923, pop12, push12, release12, size12 } from './scripts-12.ts';
import { chainCatchCallbacksValue, chainedValue } from './queueable.ts';
import { inDeclaredOrder } from './declared.ts';
import type { JobObject, LaravelProfile } from './types.ts';

/**
 * serialize(clone $job) for a 13.x make:job class (stub: `use Queueable;`, the Foundation trait
 * that uses Dispatchable, InteractsWithQueue, Bus\Queueable and SerializesModels:
 * Foundation/Queue/Queueable.php@v13.26.1:12).
 *
 * SerializesModels::__serialize walks ReflectionClass::getProperties() (the class's own, then the
 * traits' in `use` order) and (9.4.0+, not in 8.83) does `if ($property->hasDefaultValue() && $value
 * === $property->getDefaultValue()) continue;` (Queue/SerializesModels.php@v13.26.1:46). So:
 * - $tries, $timeout, $backoff, $maxExceptions, $failOnTimeout are declared with their value
 *   (`public $tries = 3;`): equal to the default, never serialized;
 * - the scenario's own `properties` are constructor-promoted (no default): always serialized;
 * - InteractsWithQueue's $job (null) and Bus\Queueable's properties, in their declaration order
 *   at v13.26.1 (Bus/Queueable.php:22-106): connection, queue, messageGroup, deduplicator,
 *   debounceOwner (= '', 13.6.0+, #59507), uniqueLockOwner (= '', 13.24.0+, #60906), delay,
 *   afterCommit, middleware (= []), chained (= []), chainConnection, chainQueue,
 *   chainCatchCallbacks, appear only when set: onConnection/onQueue/delay, and a chain's
 *   $chained (not []), $chainConnection, $chainQueue and $chainCatchCallbacks (Bus::chain()'s []
 *   is not the default null, so it is written). debounceOwner is set only by a debounced dispatch,
 *   which the scenario format has none of; uniqueLockOwner by a unique job's lock
 *   (UniqueLock::acquire, 13.24+), after $queue (Bus/Queueable.php@v13.26.1:50-57).
 */
export function serializeJob13(input: JobObject): string {
  // Only the scenario's properties are written (the options equal their defaults), in the class's order.
  const own = inDeclaredOrder(
    input.properties.map(([name, value]) => ({ name, visibility: 'public' as const, value })),
    input.declared,
  );
  const chain = input.chain;
  const queueable: Array<[string, PhpValue]> = [
    ['connection', input.connection],
    ['queue', input.queue],
    ['uniqueLockOwner', input.uniqueLockOwner ?? null],
    ['delay', input.delay],
    ['chained', chain && chain.chained.length > 0 ? chainedValue(chain) : null],
    ['chainConnection', chain?.chainConnection ?? null],
    ['chainQueue', chain?.chainQueue ?? null],
    ['chainCatchCallbacks', chainCatchCallbacksValue(chain)],
  ];
  const set: PhpObject['properties'] = queueable
    .filter(([, value]) => value !== null)
    .map(([name, value]) => ({ name, visibility: 'public', value }));
  return phpSerialize({ kind: 'object', className: input.className, properties: [...own, ...set] });
}

export const laravel13: LaravelProfile = {
  name: '13',
  title:
    'Laravel 13 (later script, migrate batch limit, createdAt, TimeoutExceededException, laravel-database- prefix)',
  // config/database.php@v12.11.2:147 (laravel/laravel): 'client' => env('REDIS_CLIENT', 'phpredis').
  defaultClient: 'phpredis',
  // config/database.php@v12.11.2:151 (laravel/laravel #6636): 'prefix' => env('REDIS_PREFIX',
  // Str::slug((string) env('APP_NAME', 'laravel')).'-database-'); APP_NAME=Laravel → "laravel-database-".
  defaultPrefix: 'laravel-database-',
  scripts: {
    push: push12,
    later: later1245,
    pop: pop12,
    release: release12,
    migrateExpiredJobs: migrateExpiredJobs923,
    size: size12,
    clear: clear12,
  },
  // Queue::createObjectPayload (Queue/Queue.php@v13.26.1:173-191) + RedisQueue::createPayloadArray (id,
  // attempts 0) + Queue::createPayload's `$value['delay'] = isset($delay) ? secondsUntil($delay)
  // : null` (12.11+, PR #55529), appended last. data.batchId is `$job->batchId ?? null` (12.51+),
  // kept after commandName/command by the array_merge that fills them in.
  buildPayload: (input) => {
    if (input.createdAt === undefined)
      throw new Error('a Laravel 13 payload needs createdAt (Carbon::now() at dispatch)');
    return {
      uuid: input.uuid,
      displayName: input.className,
      job: 'Illuminate\\Queue\\CallQueuedHandler@call',
      maxTries: input.tries,
      maxExceptions: input.maxExceptions,
      failOnTimeout: input.failOnTimeout,
      backoff: input.backoff,
      timeout: input.timeout,
      retryUntil: input.timeoutAt,
      // $job->deleteWhenMissingModels ?? false (or #[DeleteWhenMissingModels]); the schema has no such option.
      deleteWhenMissingModels: false,
      data: { commandName: input.className, command: input.command ?? serializeJob13(input), batchId: null },
      createdAt: input.createdAt,
      id: input.id,
      attempts: 0,
      delay: input.delay,
    };
  },
  // Queue::createPayload: json_encode($value, JSON_UNESCAPED_UNICODE), unchanged since 8.82.
  encodePayload: (payload) => phpJsonEncode(payload, { unescapedUnicode: true }),
  serializeJob: serializeJob13,
  // Chains as in 8: Bus/Queueable.php@v13.26.1:266 chain(), :337 dispatchNextJobInChain();
  // Bus/Dispatcher.php@v13.26.1:207 chain(); Foundation/Bus/PendingChain.php@v13.26.1:186-214 dispatch();
  // Queue/CallQueuedHandler.php@v13.26.1:95-102 (the next link before the delete).
  bus: { chain: true, busChain: true },
  // RedisConnector::connect (Queue/Connectors/RedisConnector.php@v13.26.1:47-50): retry_after ?? 60,
  // block_for ?? null, after_commit ?? null, migration_batch_size ?? -1.
  queue: { push: 'script', notify: true, retryAfterNullMeans60: true, later: 'script', migrationBatchSize: true },
  // config/cache.php (skeleton master, 12.1+): connection 'cache', lock_connection 'default', prefix
  // Str::slug(APP_NAME).'-cache-' and no ':' added (11.0+, PR #47380); the unique key has ':' (11.0+,
  // PR #47164); Worker::getNextJob reads the pause keys first (12.40+). research/cache-store.md.
  cache: {
    connection: 'cache',
    lockConnection: 'default',
    lockConnectionOption: true,
    prefix: 'laravel-cache-',
    separator: '',
    middleware: null,
    // Bus/UniqueLock.php@v13.26.1:34-86: the owner kept in $uniqueLockOwner, released by it.
    unique: null,
    uniqueKey: (className, id) => `laravel_unique_job:${className}:${id}`,
    uniqueRelease: 'owner',
    untilProcessing: 'before-handle',
    throttleKeyHash: 'xxh128',
    sharedOverlap: true,
    pauseChecks: true,
  },
  worker: {
    attemptsOf: (original) => original + 1,
    jobLevelOptions: true,
    timeoutAt: true,
    alarm: 'job-timeout',
    blockingPop: 'notify',
    // WorkCommand: --tries=1, --sleep=3, --timeout=60 (Queue/Console/WorkCommand.php@v13.26.1:49-52).
    defaultTries: 1,
    // Worker::registerTimeoutHandler (Queue/Worker.php@v13.26.1:302-326): markJobAsFailedIfWillExceedMaxAttempts,
    // ...IfWillExceedMaxExceptions, ...IfItShouldFailOnTimeout, then kill.
    onTimeout: 'fail-last-attempt-then-kill',
    resetAlarm: true,
    sleepAfterException: false,
    retryUntilIgnoresTries: true,
    backoff: 'list',
    blockOnlyFirstQueue: true,
    // MaxAttemptsExceededException::forJob (10.10+, PR #46968).
    maxAttemptsMessage: (displayName) => `${displayName} has been attempted too many times.`,
    // TimeoutExceededException::forJob (10.10+; 10.30 keeps the job on $e->job).
    // Queue/Console/WorkCommand.php@v13.26.1:41-50 (+ --stop-when-empty-for, 11.x, not modelled); Worker::daemon and
    // stopIfNecessary (Queue/Worker.php@v13.26.1:218-293, 395-408) check them in 8.x's order.
    workOptions: { stopWhenEmpty: true, maxJobs: true, maxTime: true, rest: true },
    caughtError: 'as-is',
    manualFail: 'fail',
    timedOutMessage: (displayName) => `${displayName} has timed out.`,
    // PhpRedisConnector::createClient: `if (isset($config['database'])) $client->select(...)`
    // (Redis/Connectors/PhpRedisConnector.php@v13.26.1:117-118), and the skeleton sets 'database' =>
    // env('REDIS_DB', '0') (config/database.php@v12.11.2:161): SELECT on every connection.
    selectOnConnect: () => true,
  },
};
