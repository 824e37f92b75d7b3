// The scenario format. zod is the single source of truth: the loader validates with it, the
// JSON Schema shipped for editors is generated from it, and the runner uses its inferred types.
import { z } from 'zod';
import type { LaravelProfile, ProfileName } from '../sim/profiles/index.ts';
import { byProfile, DEFAULT_PROFILE, joinNames, PROFILE_NAMES, PROFILES } from '../sim/profiles/index.ts';
import { DEFAULT_EXCEPTION, exceptionClassProblem } from '../sim/exceptions.ts';
import { blockFor, lazy, name, retryAfter, seconds, virtualTime } from './fields.ts';
import { timelineEntrySchema } from './entries/index.ts';

/** "profiles 8 and 13": the profiles whose version has a feature, for the descriptions. */
const inProfiles = (has: (p: LaravelProfile) => boolean): string =>
  `profiles ${joinNames(PROFILE_NAMES.filter((n) => has(PROFILES[n])))}`;

/**
 * The format's schemas, built together the first time one is asked for (fields.ts' lazy): a run
 * whose scenario the spec cache holds builds none.
 */
const schemas = lazy(() => {
  /** A Throwable's class: one of PHP's, or the application's own (namespaced). */
  const ExceptionClass = z
    .string()
    .regex(
      /^\\?[A-Za-z_][A-Za-z0-9_]*(\\[A-Za-z_][A-Za-z0-9_]*)*$/,
      'a PHP class name such as RuntimeException or App\\Exceptions\\ApiDown',
    )
    .transform((c) => c.replace(/^\\/, ''))
    .superRefine((c, ctx) => {
      const problem = exceptionClassProblem(c);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

  /** What one execution (attempt) of a job does: run for `run` virtual seconds, then end one way. */
  const AttemptObject = z
    .object({
      run: seconds('virtual seconds the handle() method runs before its outcome').default(0),
      succeed: z.literal(true).optional().describe('handle() returns normally (the default outcome)'),
      throw: z.string().min(1).optional().describe('handle() throws an exception with this message'),
      release: seconds('the job calls $this->release(N)').optional(),
      fail: z
        .union([z.literal(true), z.string().min(1)])
        .optional()
        .describe('the job calls $this->fail() (a string becomes the exception message)'),
      delete: z.literal(true).optional().describe('the job calls $this->delete()'),
      exception: ExceptionClass.optional().describe(
        `the class of the exception thrown (throw) or given to $this->fail() (fail): one of PHP's (RuntimeException, InvalidArgumentException, TypeError...) or the application's own, namespaced (App\\Exceptions\\ApiDown); default ${DEFAULT_EXCEPTION}`,
      ),
    })
    .strict()
    .refine(
      (a) =>
        ['succeed', 'throw', 'release', 'fail', 'delete'].filter((k) => a[k as keyof typeof a] !== undefined).length <=
        1,
      { message: 'an attempt has at most one outcome: succeed, throw, release, fail or delete' },
    )
    .refine((a) => a.exception === undefined || a.throw !== undefined || a.fail !== undefined, {
      message: 'exception names the class of a throw or a fail; this attempt has neither',
      path: ['exception'],
    });

  const Attempt = z
    .union([z.enum(['succeed', 'fail', 'delete']), AttemptObject])
    .describe('succeed | fail | delete | { run, throw | release | fail | delete | succeed, exception }');

  /**
   * `new WithoutOverlapping($key)` in the job's middleware() (8.11+): the key, or its options. A job
   * refused the lock is released (releaseAfter, default 0), or dropped with dont_release.
   */
  const WithoutOverlapping = z.union([
    z.string().describe('the key (new WithoutOverlapping($key))'),
    z
      .object({
        key: z.string().default('').describe('new WithoutOverlapping($key): the lock is per class and key'),
        release_after: seconds('->releaseAfter($seconds): the refused job is released with this delay (default 0)')
          .nullable()
          .default(0),
        expire_after: seconds('->expireAfter($seconds): the lock expires (default 0: it never does)').default(0),
        dont_release: z
          .boolean()
          .default(false)
          .describe('->dontRelease(): a refused job is deleted, not released (it never runs)'),
        shared: z
          .boolean()
          .default(false)
          .describe('->shared() (9.32+): the lock is the key alone, shared by every job class that names it'),
      })
      .strict()
      .refine((o) => !(o.dont_release && o.release_after !== 0), {
        message: 'dont_release drops a refused job; release_after would release it: give one',
        path: ['dont_release'],
      }),
  ]);

  /** new RateLimited($limiter) (8.11+), ->dontRelease() (8.12+): a limiter of `limiters`. */
  const RateLimited = z.union([
    name().describe('the limiter (RateLimiter::for its name)'),
    z
      .object({
        limiter: name().describe('the limiter (RateLimiter::for its name)'),
        dont_release: z.boolean().default(false).describe('->dontRelease(): a limited job is deleted, not released'),
      })
      .strict(),
  ]);

  /** new ThrottlesExceptions($maxAttempts, $decayMinutes) (8.32+) and its options. */
  const ThrottlesExceptions = z
    .object({
      max_attempts: z
        .number()
        .int()
        .min(1)
        .max(100_000)
        .default(10)
        .describe('exceptions before the circuit opens (10)'),
      decay_minutes: z.number().int().min(1).max(525_600).default(10).describe('the window, in minutes (10)'),
      backoff: z
        .number()
        .int()
        .min(0)
        .max(525_600)
        .default(0)
        .describe('->backoff($minutes): the release after a counted exception (0)'),
      by: z.string().min(1).optional().describe('->by($key): the limiter key (default: md5 of the class)'),
      by_job: z.boolean().default(false).describe("->byJob(): the job's uuid as the key"),
      when: z
        .array(ExceptionClass)
        .min(1)
        .optional()
        .describe(
          '->when(fn ($e) => $e instanceof A || ...): only these exceptions count; any other goes on to the Worker (default: every one counts)',
        ),
    })
    .strict()
    .refine((o) => !(o.by !== undefined && o.by_job), { message: 'give by or by_job, not both', path: ['by_job'] });

  /** One entry of the job's middleware() array, in order. */
  const Middleware = z
    .union([
      z.object({ without_overlapping: WithoutOverlapping }).strict(),
      z.object({ rate_limited: RateLimited }).strict(),
      z.object({ rate_limited_with_redis: RateLimited }).strict(),
      z.object({ throttles_exceptions: ThrottlesExceptions }).strict(),
      z.object({ throttles_exceptions_with_redis: ThrottlesExceptions }).strict(),
    ])
    .describe(
      'a job middleware: without_overlapping, rate_limited, rate_limited_with_redis, throttles_exceptions or throttles_exceptions_with_redis',
    );

  /** One Limit a named limiter returns: Limit::perMinute(N) and its kin, ->by($key). */
  const Limit = z
    .object({
      per_minute: z.number().int().min(1).optional().describe('Limit::perMinute(N)'),
      per_hour: z.number().int().min(1).optional().describe('Limit::perHour(N)'),
      per_day: z.number().int().min(1).optional().describe('Limit::perDay(N)'),
      max_attempts: z.number().int().min(1).optional().describe('new Limit($key, N, $decayMinutes)'),
      decay_minutes: z.number().int().min(1).optional().describe('with max_attempts: the window, in minutes (1)'),
      by: z.string().optional().describe("->by($key): the limit's key (default '')"),
    })
    .strict()
    .refine((l) => [l.per_minute, l.per_hour, l.per_day, l.max_attempts].filter((x) => x !== undefined).length === 1, {
      message: 'give one of per_minute, per_hour, per_day or max_attempts',
    })
    .refine((l) => l.decay_minutes === undefined || l.max_attempts !== undefined, {
      message: 'decay_minutes goes with max_attempts (per_minute, per_hour and per_day have their own)',
      path: ['decay_minutes'],
    });

  /** ShouldBeUnique (8.14+): uniqueId() and $uniqueFor; ShouldBeUniqueUntilProcessing (8.16+). */
  const Unique = z.union([
    z.literal(true).describe('implements ShouldBeUnique, with no uniqueId()'),
    z
      .object({
        id: z
          .union([
            z.string(),
            z.number().int(),
            z
              .object({ property: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a PHP property name such as orderId') })
              .strict()
              .describe('uniqueId() returns $this-><property>: each instance its own (set by the dispatch)'),
          ])
          .optional()
          .describe(
            "uniqueId(): what it returns, or { property: orderId } for $this->orderId (the lock is per class and id; default: none, '')",
          ),
        for: seconds('public $uniqueFor: the lock expires after this many seconds (default: never)').optional(),
        until_processing: z
          .boolean()
          .default(false)
          .describe('ShouldBeUniqueUntilProcessing: the lock is released before the job is processed'),
        via: z
          .enum(['redis', 'file'])
          .optional()
          .describe(
            "uniqueVia(): Cache::store('redis') or ('file'), the store the lock is taken in (default: the app's default store)",
          ),
      })
      .strict(),
  ]);

  const JobClass = z
    .object({
      class: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*(\\[A-Za-z_][A-Za-z0-9_]*)*$/, 'a PHP class name such as App\\Jobs\\SendEmail')
        .describe(
          'PHP class name (write it unquoted or single-quoted in YAML: backslashes are escapes in double quotes)',
        ),
      tries: z.number().int().min(0).max(1000).nullable().default(null).describe('public $tries (overrides --tries)'),
      timeout: z
        .number()
        .int()
        .min(0)
        .max(86400)
        .nullable()
        .default(null)
        .describe('public $timeout (overrides --timeout)'),
      retry_until: seconds('retryUntil(): seconds after dispatch; becomes the payload timeoutAt (retryUntil in 8.x)')
        .nullable()
        .default(null),
      backoff: z
        .union([seconds('seconds'), z.array(seconds('seconds')).min(1)])
        .nullable()
        .default(null)
        .describe('public $backoff (8.x): seconds before a retry, or one per attempt, e.g. [5, 10]'),
      max_exceptions: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .nullable()
        .default(null)
        .describe('public $maxExceptions (8.x)'),
      fail_on_timeout: z
        .boolean()
        .default(false)
        .describe('public $failOnTimeout (8.x): fail instead of retrying after a timeout'),
      properties: z
        .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.union([z.string(), z.number(), z.boolean(), z.null()]))
        .default({})
        .describe(
          "the job's own public properties, serialized into data.command (the options have fields of their own: tries, not properties.tries)",
        ),
      declared: z
        .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a PHP property name such as invoiceId or maxExceptions'))
        .min(1)
        .optional()
        .describe(
          'the order the class declares its own properties in, which is the order serialize() writes them: every name of properties and every option set, by its PHP name (tries, timeout, backoff, maxExceptions, failOnTimeout), e.g. [invoiceId, tries, backoff]; default: the options first, then properties',
        ),
      command: z
        .string()
        .nullable()
        .default(null)
        .describe('verbatim data.command (PHP serialize() output) instead of the generated one'),
      attempts: z
        .array(Attempt)
        .min(1)
        .default(['succeed'])
        .describe('behaviour per attempt: attempt N uses entry N, the last entry repeats'),
      middleware: z
        .array(Middleware)
        .default([])
        .describe(
          "the job's middleware(), in order (8.11+): without_overlapping, rate_limited(_with_redis), throttles_exceptions(_with_redis) (8.32+)",
        ),
      unique: Unique.optional().describe(
        'implements ShouldBeUnique (8.14+): a dispatch takes a lock in the cache first, and pushes nothing while another holds it',
      ),
    })
    .strict();

  const Connection = z
    .object({
      queue: z.string().min(1).default('default').describe("the connection's default queue"),
      retry_after: retryAfter('seconds a reserved job may run before it is migrated back').default(90),
      block_for: blockFor('BLPOP timeout; null polls with the pop script').default(null),
    })
    .strict();

  const Worker = z
    .object({
      name: name(),
      connection: name().optional().describe('queue connection (default: the first one)'),
      queue: z
        .string()
        .regex(/^[^,\s]+(,[^,\s]+)*$/, 'comma-separated queue names without spaces, e.g. high,default')
        .optional()
        .describe('--queue=high,default (default: the connection queue)'),
      tries: z
        .number()
        .int()
        .min(0)
        .max(1000)
        .optional()
        .describe(`--tries (0: unlimited; default: the version's, ${byProfile((p) => String(p.worker.defaultTries))})`),
      timeout: z.number().int().min(0).max(86400).default(60).describe('--timeout (0: no alarm)'),
      sleep: z.number().int().min(0).max(3600).default(3).describe('--sleep when no job is available'),
      delay: z
        .number()
        .int()
        .min(0)
        .max(86400)
        .default(0)
        .describe('--delay before a failed job is retried (deprecated in 8.x, where --backoff replaces it)'),
      backoff: z
        .union([z.number().int().min(0).max(86400), z.array(z.number().int().min(0).max(86400)).min(1).max(100)])
        .optional()
        .describe(
          `--backoff (${inProfiles((p) => p.worker.backoff === 'list')}): seconds before a job that threw is retried, or one per attempt, the last repeating: [1, 5, 10] is --backoff=1,5,10 (a job's own $backoff wins)`,
        ),
      once: z.boolean().default(false).describe('--once: process a single job (or none) and exit'),
      stop_when_empty: z
        .boolean()
        .optional()
        .describe(
          `--stop-when-empty (${inProfiles((p) => p.worker.workOptions.stopWhenEmpty)}): exit after a poll finds no job (and its --sleep); no supervisor restarts it`,
        ),
      max_jobs: z
        .number()
        .int()
        .min(0)
        .max(100_000)
        .optional()
        .describe(
          `--max-jobs (${inProfiles((p) => p.worker.workOptions.maxJobs)}): exit after this many jobs (0: no limit); the supervisor starts a new process if restart`,
        ),
      max_time: z
        .number()
        .int()
        .min(0)
        .max(10 * 365 * 24 * 3600)
        .optional()
        .describe(
          `--max-time (${inProfiles((p) => p.worker.workOptions.maxTime)}): exit after the loop that ends this many seconds after the process started (0: no limit); the supervisor starts a new process if restart`,
        ),
      rest: z
        .number()
        .int()
        .min(0)
        .max(86400)
        .optional()
        .describe(
          `--rest (${inProfiles((p) => p.worker.workOptions.rest)}): Worker::sleep this many seconds after each job (the job's --timeout alarm still runs)`,
        ),
      start: virtualTime('virtual seconds at which the process starts, to the millisecond (0.5)').default(0),
      late: z
        .boolean()
        .optional()
        .describe(
          "starts after everything else at its start instant (by default before what arises then): the lab writes a worker started at a step's instant so",
        ),
      restart: z
        .boolean()
        .default(true)
        .describe(
          "supervisord's autorestart: a new process (a new connection) after a kill, and after a clean exit by --max-jobs or --max-time",
        ),
    })
    .strict();

  const Scenario = z
    .object({
      name: name().describe('scenario name, as used by lqsim run <name>'),
      title: z.string().min(1).describe('one line shown in lqsim list'),
      description: z.string().optional(),
      laravel: z
        .union([
          z.enum(PROFILE_NAMES),
          // `laravel: 8` unquoted is a number to YAML; the loader refuses one whose text YAML lost (5.10).
          z.literal(PROFILE_NAMES.map(Number)).transform((n) => String(n) as ProfileName),
        ])
        // prefault, not default: the JSON Schema keeps an input default where a transform is inside.
        .prefault(DEFAULT_PROFILE)
        .describe(`Laravel version profile: ${joinNames(PROFILE_NAMES, 'or')}`),
      start: z.number().int().min(0).max(4_102_444_800).default(1_700_000_000).describe('virtual unix time of t=0'),
      until: virtualTime(
        'stop the simulation at this virtual time, to the millisecond (default: when every job has finished and every --once or SIGTERMed worker has exited)',
      ).optional(),
      seed: z
        .number()
        .int()
        .min(0)
        .max(2 ** 32 - 1)
        .default(1)
        .describe('seed for the random job ids (0 to 2^32-1)'),
      redis: z
        .object({
          client: z.enum(['predis', 'phpredis']).optional().describe("Laravel's Redis client (default: the profile's)"),
          database: z.number().int().min(0).max(15).default(0).describe('database.redis.default.database (REDIS_DB)'),
          cache_database: z
            .number()
            .int()
            .min(0)
            .max(15)
            .default(1)
            .describe(
              "database.redis.cache.database (REDIS_CACHE_DB): the cache store's db when it uses connection cache",
            ),
          prefix: z
            .string()
            .optional()
            .describe(
              `key prefix applied to every key (default: the version's skeleton, ${byProfile((p) => p.defaultPrefix || "''")})`,
            ),
          cluster: z
            .boolean()
            .optional()
            .describe(
              "database.redis.clusters.default: the queue's connection is a Redis Cluster (phpredis' RedisCluster; lqsim starts a local 3-master cluster). Give the queue a hash tag, queue: '{default}', or its scripts' keys span slots",
            ),
        })
        .strict()
        .default({ database: 0, cache_database: 1 }),
      cache: z
        .object({
          store: z
            .enum(['redis', 'file'])
            .describe("cache.default (CACHE_DRIVER): redis puts the cache's keys on Redis; file (the skeleton's) none"),
          connection: z
            .enum(['default', 'cache'])
            .optional()
            .describe(
              `stores.redis.connection: the Redis connection of config/database.php it uses (default: the version's skeleton, ${byProfile((p) => p.cache.connection)})`,
            ),
          lock_connection: z
            .enum(['default', 'cache'])
            .nullable()
            .optional()
            .describe(
              `stores.redis.lock_connection (8.20+): where locks go; null: the store's connection (default: the version's skeleton, ${byProfile((p) => p.cache.lockConnection ?? 'null')})`,
            ),
          prefix: z
            .string()
            .optional()
            .describe(
              `cache.prefix (CACHE_PREFIX), after the connection's key prefix (default: the version's skeleton, ${byProfile((p) => p.cache.prefix)})`,
            ),
        })
        .strict()
        .optional()
        .describe("config/cache.php (absent: the skeleton's file store, which puts nothing on Redis)"),
      connections: z
        .record(name(), Connection)
        .refine((c) => Object.keys(c).length > 0, 'define at least one connection')
        .default({ redis: { queue: 'default', retry_after: 90, block_for: null } })
        .describe('config/queue.php redis connections; the first is the default'),
      workers: z.array(Worker).default([]),
      jobs: z
        .record(name(), JobClass)
        .default({})
        .describe('the job classes the timeline dispatches (none: workers poll empty queues)'),
      limiters: z
        .record(name(), z.union([z.literal('none'), Limit, z.array(Limit).min(1)]))
        .default({})
        .describe(
          "RateLimiter::for($name, fn ($job) => ...) in the app's service provider (8.11+): a Limit, a list of them, or none (Limit::none())",
        ),
      timeline: z.array(timelineEntrySchema()).min(1),
    })
    .strict();

  return { Attempt, JobClass, Connection, Worker, Scenario };
});
type Schemas = ReturnType<typeof schemas>;

/** The scenario format: what a scenario file holds, validated (zod's parse and safeParse). */
export const scenarioSchema = (): Schemas['Scenario'] => schemas().Scenario;

export type ScenarioInput = z.input<Schemas['Scenario']>;
export type ScenarioSpec = z.output<Schemas['Scenario']>;
export type JobClassInput = z.input<Schemas['JobClass']>;
export type JobClassSpec = z.output<Schemas['JobClass']>;
export type WorkerInput = z.input<Schemas['Worker']>;
export type WorkerSpec = z.output<Schemas['Worker']>;
export type ConnectionInput = z.input<Schemas['Connection']>;
export type ConnectionSpec = z.output<Schemas['Connection']>;
export type { TimelineEntrySpec } from './entries/index.ts';
export type AttemptSpec = z.output<Schemas['Attempt']>;
export type { StepKind } from '../sim/state.ts';
