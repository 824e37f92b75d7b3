// A version profile: the data and the small rule switches that make one Laravel version's wire
// traffic. One engine runs every profile; a profile is never a copied simulator.
import type { CaughtError } from '../exceptions.ts';
import type { LuaScript, ScriptName } from '../lua.ts';
import type { PhpValue } from '../php.ts';
import type { ProfileName } from './index.ts';

export type RedisClientName = 'predis' | 'phpredis';

/**
 * A job object as serialize() sees it: the class's declared properties and Bus\Queueable's state.
 * What data.command holds, and what Queueable::chain() serializes for each job of a chain.
 */
export interface JobObject {
  className: string;
  tries: number | null;
  timeout: number | null;
  /** The job's own public properties (the scenario's), in the order it lists them. */
  properties: Array<[string, PhpValue]>;
  /**
   * The order the class declares its own properties in, by PHP name (the options it sets among
   * them: tries, timeout, backoff, maxExceptions, failOnTimeout); absent or null: the options
   * first, then `properties`.
   */
  declared?: readonly string[] | null;
  /** Queueable state set by the dispatch: onConnection / onQueue / delay. */
  connection: string | null;
  queue: string | null;
  delay: number | null;
  /** The job's $backoff as declared, for serialize(). */
  backoffDeclared: number | number[] | null;
  maxExceptions: number | null;
  failOnTimeout: boolean;
  /** ShouldBeUnique's `public $uniqueFor` (8.x declares it as a property), or null. */
  uniqueFor?: number | null;
  /** Bus\Queueable's $uniqueLockOwner (13.24+): the unique lock's owner, set when it was taken. */
  uniqueLockOwner?: string | null;
  /** Queueable's chain state (5.5+); absent: its defaults ($chained = [], the rest null). */
  chain?: ChainProperties;
}

/** Bus\Queueable's chain properties, as ->chain(), Bus::chain() or dispatchNextJobInChain set them. */
export interface ChainProperties {
  /** $chained: serialize() of each job still to run after this one, in order. */
  chained: string[];
  /** $chainConnection / $chainQueue: Bus::chain()->onConnection() / ->onQueue() (8.0+), else null. */
  chainConnection: string | null;
  chainQueue: string | null;
  /** $chainCatchCallbacks (8.0+): null after ->chain(); [] after Bus::chain(), which always sets it. */
  chainCatchCallbacks: [] | null;
}

export interface PayloadInput extends JobObject {
  /** Absolute unix time from retryUntil(), or null. */
  timeoutAt: number | null;
  /** Verbatim data.command, replacing the generated serialize() output. */
  command: string | null;
  id: string;
  /** Str::uuid() (7.x+ payloads). */
  uuid: string;
  /** The job's $backoff as Laravel writes it: "5,10" for [5, 10] (8.x+). */
  backoff: string | null;
  /** Carbon::now() at dispatch: the payload's createdAt (12.11+). Profiles before 12 ignore it. */
  createdAt?: number;
}

export interface LaravelProfile {
  /** Its key in PROFILES. */
  name: ProfileName;
  title: string;
  /** Laravel's default Redis client in config/database.php for this version. */
  defaultClient: RedisClientName;
  /**
   * Every LuaScripts method, decided per version: the text this version's RedisQueue EVALs, or
   * null where the version has no such script (push: 5.8+, clear: 8.4+, later: 12.45+).
   */
  scripts: Record<ScriptName, LuaScript | null>;
  /** The skeleton's database.redis.options.prefix for this version. */
  defaultPrefix: string;
  /** json_encode of a payload (8.82+ adds JSON_UNESCAPED_UNICODE). */
  encodePayload(payload: Record<string, unknown>): string;
  queue: QueueRules;
  /** The ready-list payload, keys in PHP array order (json_encode keeps it). */
  buildPayload(input: PayloadInput): Record<string, unknown>;
  /** serialize($job) of a make:job class of this version: data.command, and each string of $chained. */
  serializeJob(job: JobObject): string;
  bus: BusRules;
  worker: WorkerRules;
  /** The cache store on Redis (CACHE_DRIVER=redis): the skeleton's config and what the framework does with it. */
  cache: CacheRules;
}

/** A Redis connection of config/database.php the cache store may use. */
export type RedisConnectionName = 'default' | 'cache';

/**
 * config/cache.php's redis store as the version's skeleton writes it (APP_NAME=Laravel), and the
 * cache features the framework has. research/cache-store.md has the sources.
 */
export interface CacheRules {
  /** stores.redis.connection: 'default' (5.3) or 'cache' (5.7+, its own db REDIS_CACHE_DB). */
  connection: RedisConnectionName;
  /** stores.redis.lock_connection: 'default' in the 8.x skeleton from v8.5.6 on; null: none (the store's connection). */
  lockConnection: RedisConnectionName | null;
  /** The framework reads lock_connection (CacheManager, 8.20.0+). */
  lockConnectionOption: boolean;
  /** cache.prefix: 'laravel' (5.3), Str::slug(APP_NAME, '_').'_cache' (5.7-10.x), ... */
  prefix: string;
  /** RedisStore::setPrefix adds ':' after a non-empty prefix (to 10.x); 11.0+ adds nothing. */
  separator: ':' | '';
  /**
   * Why the version has no job middleware (null: it has WithoutOverlapping, 8.11.0+), as the
   * loader's refusal says it.
   */
  middleware: string | null;
  /** Why the version's jobs cannot be unique (null: ShouldBeUnique, 8.14.0+). */
  unique: string | null;
  /** UniqueLock's key for a job class and its uniqueId(). */
  uniqueKey(className: string, id: string): string;
  /**
   * How a unique job's lock is freed: `force` (forceRelease, a plain DEL: the owner is thrown away,
   * 8.x) or `owner` (13.24+: UniqueLock::acquire keeps the owner in the job, $uniqueLockOwner,
   * serialized into the payload, and release() frees it with the releaseLock script).
   */
  uniqueRelease: 'force' | 'owner';
  /**
   * When a ShouldBeUniqueUntilProcessing lock is freed: before any middleware (8.x), or in the
   * pipeline's `then`, just before handle(), and in its `finally` when a middleware ends the job
   * without releasing it (11.40+, 12.21+).
   */
  untilProcessing: 'before-middleware' | 'before-handle';
  /** WithoutOverlapping::shared() (9.32.0+, PR #44227). */
  sharedOverlap: boolean;
  /** ThrottlesExceptions' default key hashes the job's name: md5 (8.32.1+), xxh128 (12.0.0+, PR #52301). */
  throttleKeyHash: 'md5' | 'xxh128';
  /**
   * Worker::getNextJob reads the queue-pause keys on the cache before every pop (12.40+): the
   * global switch then one MGET (13.25+).
   */
  pauseChecks: boolean;
}

/** Which job chains the version's Bus has; the scenario loader refuses the others, naming the version. */
export interface BusRules {
  /** ->chain([...]) on a dispatch: Queueable::chain and dispatchNextJobInChain (5.5.0+). */
  chain: boolean;
  /** Bus::chain([...])->dispatch(): Bus\Dispatcher::chain and PendingChain::dispatch (8.0.0+). */
  busChain: boolean;
}

export interface QueueRules {
  /** push(): a plain RPUSH (to 5.7) or the push script that also RPUSHes :notify (5.8+). */
  push: 'rpush' | 'script';
  /** migrate and pop take queues:<q>:notify as their last key (5.8+). */
  notify: boolean;
  /**
   * RedisConnector::connect: `$config['retry_after'] ?? 60` (5.5+) turns a configured null into 60;
   * `Arr::get($config, 'retry_after', 60)` (5.3-5.4) keeps it, so RedisQueue skips the :reserved
   * migration and reserves with score now (a RedisQueue built with null directly, as Laravel's own
   * tests do, keeps it in every version).
   */
  retryAfterNullMeans60: boolean;
  /** laterRaw(): a plain ZADD to :delayed (to 12.44), or the later script doing that ZADD (12.45+, #58235). */
  later: 'zadd' | 'script';
  /** migrateExpiredJobs passes migration_batch_size as ARGV[2] (9.23+, #43310; the script reads `'limit', 0, ARGV[2]`). */
  migrationBatchSize: boolean;
}

export interface WorkerRules {
  /** queue:work's --tries default: 0 (unlimited) to 5.8, 1 from 6.0. */
  defaultTries: number;
  /** On SIGALRM: just kill (to 5.8.27), or first fail the job if this was its last attempt (5.8.28+). */
  onTimeout: 'kill' | 'fail-last-attempt-then-kill';
  /** 6.13+: resetTimeoutHandler (pcntl_alarm(0)) after every job or sleep, so no alarm outlives them. */
  resetAlarm: boolean;
  /** 5.3: runNextJob catches the job's exception and then sleeps --sleep before the next poll. */
  sleepAfterException: boolean;
  /** 8.15+: when retryUntil is set, --tries no longer fails the job after an exception. */
  retryUntilIgnoresTries: boolean;
  /** Release delay after an exception: --delay (to 5.7) or calculateBackoff over a "1,5,10" list (8.x). */
  backoff: 'delay' | 'list';
  /** RedisJob::attempts(): 5.4+ original attempts + 1; 5.3 the original value (which started at 1). */
  attemptsOf(originalAttempts: number): number;
  /** Job-level $tries / $timeout override the worker options (5.4+). */
  jobLevelOptions: boolean;
  /** Job timeoutAt / retryUntil() is honoured (5.5+). */
  timeoutAt: boolean;
  /** 5.3 arms pcntl_alarm(timeout + sleep) at the top of each loop; 5.4+ arms the job's timeout after the pop. */
  alarm: 'timeout-plus-sleep' | 'job-timeout';
  /**
   * block_for: 5.6-5.7 BLPOP the ready list, then ZADD from PHP; 5.8+ run the pop script first and
   * BLPOP :notify only when it found nothing; null: not supported.
   */
  blockingPop: 'list' | 'notify' | null;
  /**
   * pop($queue, $index) (11.27+, #52826): with --queue=a,b only the first queue's pop may block on
   * :notify, and not while a later queue had a job since the first was last polled. False: every
   * queue's pop blocks in turn.
   */
  blockOnlyFirstQueue: boolean;
  /** MaxAttemptsExceededException's message. */
  maxAttemptsMessage(displayName: string): string;
  /**
   * What the timeout handler fails a job with: null, MaxAttemptsExceededException with
   * maxAttemptsMessage (5.8.28-10.9); else TimeoutExceededException (10.10+, #46968, a subclass)
   * with this message.
   */
  timedOutMessage: ((displayName: string) => string) | null;
  /**
   * The queue:work options this version's WorkCommand takes beyond --delay, --sleep, --tries,
   * --timeout and --once (the --backoff list is `backoff: 'list'`): --stop-when-empty (5.7.2+),
   * --max-jobs and --max-time (8.0.0+), --rest (8.32.0+). Worker::daemon checks them.
   */
  workOptions: { stopWhenEmpty: boolean; maxJobs: boolean; maxTime: boolean; rest: boolean };
  /** How Worker::process passes on an Error (not an Exception) the job threw (exceptions.ts caughtByWorker). */
  caughtError: CaughtError;
  /**
   * $this->fail($e): Job::fail / FailingJob::handle deletes the job and logs failed_jobs (5.4+);
   * 5.3's InteractsWithQueue::fail only calls the job's failed() (Job::failed), and
   * CallQueuedHandler::call then deletes the job as after a success.
   */
  manualFail: 'fail' | 'failed-method-only';
  /** Predis sends SELECT <db> on every new connection; phpredis only for a non-zero db. */
  selectOnConnect(client: RedisClientName, database: number): boolean;
}
