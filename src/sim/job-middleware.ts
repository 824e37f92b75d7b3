// What a job class declares beyond its options: its middleware() (8.11+) and ShouldBeUnique
// (8.14+), and how CallQueuedHandler::dispatchThroughMiddleware runs the middleware around
// handle(): a Pipeline, each middleware wrapping the next, so the first one's code before $next
// runs first and its code after $next (or its finally, or its catch) last. Sources, Laravel 8.83:
// Queue/Middleware/WithoutOverlapping.php:63-78, RateLimited.php:53-122, RateLimitedWithRedis.php:
// 49-90, ThrottlesExceptions.php:88-108, ThrottlesExceptionsWithRedis.php:36-61,
// Bus/UniqueLock.php:33-47, Queue/CallQueuedHandler.php:58-90 (research/cache-store.md §3, §4).
import { createHash } from 'node:crypto';
import type { Cache, CacheLock, LockBook, LockHolder } from './cache.ts';
import { durationLimiter, tooManyAttempts } from './cache-scripts.ts';
import { RateLimiter } from './rate-limiter.ts';
import type { RedisPort } from './redis-port.ts';
import type { JobException } from './exceptions.ts';
import { isA } from './exceptions.ts';

/** new WithoutOverlapping($key) with ->releaseAfter() / ->dontRelease() / ->expireAfter(). */
export interface WithoutOverlappingSpec {
  kind: 'without_overlapping';
  key: string;
  /** Seconds a refused job is released for; null: dontRelease() (the job is deleted unrun). */
  releaseAfter: number | null;
  /** The lock's TTL (0: none, SETNX). */
  expireAfter: number;
  /** ->shared() (9.32+): the lock is the key alone, not per class. */
  shared: boolean;
}

/** new RateLimited($name) / new RateLimitedWithRedis($name), maybe ->dontRelease() (8.12+). */
export interface RateLimitedSpec {
  kind: 'rate_limited';
  limiter: string;
  /** DurationLimiter on the default Redis connection (RateLimitedWithRedis), not the cache. */
  redis: boolean;
  /** false: ->dontRelease(), a limited job is deleted unrun. */
  release: boolean;
}

/** new ThrottlesExceptions($maxAttempts, $decayMinutes) (or …WithRedis), ->backoff(), ->by(), ->byJob(). */
export interface ThrottlesExceptionsSpec {
  kind: 'throttles_exceptions';
  redis: boolean;
  maxAttempts: number;
  decayMinutes: number;
  /** ->backoff($minutes): the release after a counted exception. */
  backoffMinutes: number;
  /** ->by($key); null: md5 of the class (or the job's uuid with byJob). */
  key: string | null;
  byJob: boolean;
  /** ->when(fn ($e) => $e instanceof A || ...): the classes that count; null: every exception. */
  when: readonly string[] | null;
}

export type JobMiddlewareSpec = WithoutOverlappingSpec | RateLimitedSpec | ThrottlesExceptionsSpec;

/** One Limit of a named limiter (RateLimiter::for): Limit::perMinute(N)->by($key) and its kin. */
export interface LimitSpec {
  /** ->by($key) ('' by default). */
  key: string;
  maxAttempts: number;
  decayMinutes: number;
}

/** ShouldBeUnique: uniqueId(), $uniqueFor, and whether ShouldBeUniqueUntilProcessing. */
export interface UniqueSpec {
  /** uniqueId(): a constant, or $this-><property> (each instance's own value). */
  id: string | { property: string };
  /** $uniqueFor, when the class declares it (null: not declared): the lock's TTL (0: none). */
  for: number | null;
  untilProcessing: boolean;
  /** uniqueVia(): the store the lock is taken in (null: the default store). */
  via: 'redis' | 'file' | null;
}

export interface JobClassRules {
  className: string;
  middleware: readonly JobMiddlewareSpec[];
  unique: UniqueSpec | null;
  /** RateLimiter::for's limiters, by name ('none': Limit::none()). */
  limiters: Readonly<Record<string, readonly LimitSpec[] | 'none'>>;
  /** The unique lock's owner the payload carries ($uniqueLockOwner, 13.24+); absent: none. */
  uniqueOwner?: string;
}

export const NO_RULES: JobClassRules = { className: '', middleware: [], unique: null, limiters: {} };

/**
 * WithoutOverlapping::getLockKey: $prefix . get_class($job) . ':' . $key, or with shared() (9.32+)
 * $prefix . $key (Queue/Middleware/WithoutOverlapping.php@v13.26.1:157-168; a job class has no
 * displayName(), whose xxh128 12.41+ would use instead of the class).
 */
export function overlapLockName(className: string, key: string, shared = false): string {
  return shared ? `laravel-queue-overlap:${key}` : `laravel-queue-overlap:${className}:${key}`;
}

const md5 = (s: string): string => createHash('md5').update(s, 'utf8').digest('hex');

/** RateLimited's key for a limit: md5($limiterName.$limit->key). */
export function rateLimiterKey(limiter: string, by: string): string {
  return md5(`${limiter}${by}`);
}

/** ThrottlesExceptions' key prefix (8.x). */
export const THROTTLE_PREFIX = 'laravel_throttles_exceptions:';

/**
 * ThrottlesExceptions::getKey as a run knows it before it starts: by(), else md5 of the class (8.x);
 * null when only the run knows it (byJob()'s uuid, 12.0+'s xxh128 of the class).
 */
export function throttleKeyOf(spec: ThrottlesExceptionsSpec, className: string, hash: 'md5' | 'xxh128'): string | null {
  if (spec.key) return THROTTLE_PREFIX + spec.key;
  if (spec.byJob || hash !== 'md5') return null;
  return THROTTLE_PREFIX + md5(className);
}

/** What a middleware works with, in the worker process running the job. */
export interface MiddlewareEnv {
  cache: Cache;
  /** Redis::connection(): the process's `default` connection (the queue's), for DurationLimiter. */
  redis(): Promise<RedisPort>;
  /** The connection's key prefix, which phpredis puts before DurationLimiter's key. */
  connectionPrefix: string;
  /** PHP's time() and microtime(true) now. */
  time(): number;
  instant(): number;
  rules: JobClassRules;
  /** The payload's uuid (byJob). */
  uuid: string | null;
  /** The job's label (SyncOrder#1), for whom a lock is held. */
  label: string;
  locks: LockBook;
  /** hash() of a job's name in ThrottlesExceptions' default key: md5 (8.x), xxh128 (12.0+). */
  hashJobName(name: string): Promise<string>;
  /** $job->release($delay). */
  release(delay: number): Promise<void>;
  trail(method: string): void;
}

/** How a middleware ended the job without handle(), or took a thrown exception upon itself. */
export interface MiddlewareOutcome {
  /** Its class: WithoutOverlapping, RateLimited… */
  middleware: string;
  /** The delay it released the job with; null: not released (CallQueuedHandler deletes it). */
  released: number | null;
  /** Why, for the step: "the lock … is held by worker-1 …". */
  why: string;
  /** A lock's holder, when a lock refused it. */
  holder?: LockHolder | null;
  /** The key it read. */
  key: string;
}

/** A middleware of the job, as the Pipeline runs it. */
interface RunningMiddleware {
  /** Its code before $next: null to go on, or how it ended the job. */
  before(): Promise<MiddlewareOutcome | null>;
  /** $next returned: its code after it (a finally, a limiter's clear). */
  returned(): Promise<void>;
  /** $next threw `e`: its finally, or its catch (null: the exception goes on; an outcome: it took it). */
  threw(e: JobException): Promise<MiddlewareOutcome | null>;
}

/**
 * CallQueuedHandler::dispatchThroughMiddleware: `enter` runs each middleware's code before $next
 * in order until one ends the job; then `returned` or `threw` run the code after $next of those
 * entered, innermost first. A middleware that takes the exception upon itself (ThrottlesExceptions)
 * returns normally to the ones outside it.
 */
export class MiddlewarePipeline {
  private readonly all: RunningMiddleware[];
  private entered: RunningMiddleware[] = [];

  constructor(private readonly env: MiddlewareEnv) {
    this.all = env.rules.middleware.map((spec) => running(spec, env));
  }

  /** Null: handle() runs next. Otherwise how a middleware ended the job (the ones entered have returned). */
  async enter(): Promise<MiddlewareOutcome | null> {
    this.env.trail('CallQueuedHandler::dispatchThroughMiddleware');
    for (const m of this.all) {
      const ended = await m.before();
      if (ended !== null) {
        await this.unwind(null);
        return ended;
      }
      this.entered.push(m);
    }
    return null;
  }

  /** handle() returned. */
  async returned(): Promise<void> {
    await this.unwind(null);
  }

  /** handle() threw `e`: the outcome of the middleware that took it, or null (it reaches the Worker). */
  async threw(e: JobException): Promise<MiddlewareOutcome | null> {
    return this.unwind(e);
  }

  private async unwind(thrown: JobException | null): Promise<MiddlewareOutcome | null> {
    let taken: MiddlewareOutcome | null = null;
    let throwing = thrown !== null;
    for (const m of this.entered.reverse()) {
      if (throwing) {
        taken = await m.threw(thrown!);
        if (taken !== null) throwing = false;
      } else await m.returned();
    }
    this.entered = [];
    return taken;
  }
}

function running(spec: JobMiddlewareSpec, env: MiddlewareEnv): RunningMiddleware {
  switch (spec.kind) {
    case 'without_overlapping':
      return withoutOverlapping(spec, env);
    case 'rate_limited':
      return spec.redis ? rateLimitedWithRedis(spec, env) : rateLimited(spec, env);
    case 'throttles_exceptions':
      return spec.redis ? throttlesExceptionsWithRedis(spec, env) : throttlesExceptions(spec, env);
  }
}

/** WithoutOverlapping::handle: `if ($lock->get()) try { $next } finally { $lock->release() }` else release. */
function withoutOverlapping(spec: WithoutOverlappingSpec, env: MiddlewareEnv): RunningMiddleware {
  let lock: CacheLock | null = null;
  const free = async () => {
    env.trail('WithoutOverlapping::handle → Lock::release');
    await lock?.release();
  };
  return {
    async before() {
      const l = env.cache.lock(
        overlapLockName(env.rules.className, spec.key, spec.shared),
        spec.expireAfter,
        `WithoutOverlapping (${env.label})`,
      );
      const holder = env.locks.holder(l.key);
      if (await l.get()) {
        lock = l;
        return null;
      }
      env.trail('WithoutOverlapping::handle');
      if (spec.releaseAfter !== null) await env.release(spec.releaseAfter);
      return {
        middleware: 'WithoutOverlapping',
        released: spec.releaseAfter,
        why: `the lock ${l.key} is held`,
        holder,
        key: l.key,
      };
    },
    returned: free,
    async threw() {
      await free();
      return null;
    },
  };
}

/** A limiter the scenario names (the loader checked it exists). */
function limitsOf(spec: RateLimitedSpec, env: MiddlewareEnv): readonly LimitSpec[] | 'none' {
  return env.rules.limiters[spec.limiter] ?? 'none';
}

/** RateLimited::handle on the cache's RateLimiter: each limit's tooManyAttempts, else its hit. */
function rateLimited(spec: RateLimitedSpec, env: MiddlewareEnv): RunningMiddleware {
  return {
    async before() {
      const limits = limitsOf(spec, env);
      if (limits === 'none') return null;
      const limiter = new RateLimiter(env.cache, env.time);
      for (const limit of limits) {
        const key = rateLimiterKey(spec.limiter, limit.key);
        if (await limiter.tooManyAttempts(key, limit.maxAttempts)) {
          env.trail('RateLimited::handle → RateLimiter::tooManyAttempts');
          const delay = spec.release ? (await limiter.availableIn(key)) + 3 : null;
          if (delay !== null) await env.release(delay);
          return {
            middleware: 'RateLimited',
            released: delay,
            why: `limiter ${spec.limiter} allows ${limit.maxAttempts} per ${limit.decayMinutes} min and its window is full`,
            key: env.cache.keyOf(key),
          };
        }
        await limiter.hit(key, limit.decayMinutes * 60);
      }
      return null;
    },
    returned: async () => undefined,
    threw: () => Promise.resolve(null),
  };
}

/** DurationLimiter on the default connection: its key has the connection's prefix only. */
class DurationLimiter {
  decaysAt = 0;
  remaining = 0;

  constructor(
    private readonly env: MiddlewareEnv,
    readonly name: string,
    private readonly maxLocks: number,
    private readonly decay: number,
  ) {}

  private args(): Array<string | number> {
    // microtime(true), PHP's float to string (precision 14): the virtual instant, to the millisecond.
    return [String(this.env.instant()), this.env.time(), this.decay, this.maxLocks];
  }

  async acquire(): Promise<boolean> {
    const port = await this.env.redis();
    const r = (await port.eval(durationLimiter, [this.env.connectionPrefix + this.name], this.args())) as unknown[];
    this.decaysAt = Number(r[1]);
    this.remaining = Math.max(0, Number(r[2]));
    return r[0] !== null && r[0] !== undefined && Number(r[0]) !== 0;
  }

  async tooManyAttempts(): Promise<boolean> {
    const port = await this.env.redis();
    const r = (await port.eval(tooManyAttempts, [this.env.connectionPrefix + this.name], this.args())) as unknown[];
    this.decaysAt = Number(r[0]);
    this.remaining = Number(r[1]);
    return this.remaining <= 0;
  }

  async clear(): Promise<void> {
    await (await this.env.redis()).del(this.env.connectionPrefix + this.name);
  }
}

/** RateLimitedWithRedis::handle: each limit's DurationLimiter::acquire (a refused one counts too). */
function rateLimitedWithRedis(spec: RateLimitedSpec, env: MiddlewareEnv): RunningMiddleware {
  return {
    async before() {
      const limits = limitsOf(spec, env);
      if (limits === 'none') return null;
      for (const limit of limits) {
        const key = rateLimiterKey(spec.limiter, limit.key);
        const limiter = new DurationLimiter(env, key, limit.maxAttempts, limit.decayMinutes * 60);
        if (!(await limiter.acquire())) {
          env.trail('RateLimitedWithRedis::handle → DurationLimiter::acquire');
          const delay = spec.release ? limiter.decaysAt - env.time() + 3 : null;
          if (delay !== null) await env.release(delay);
          return {
            middleware: 'RateLimitedWithRedis',
            released: delay,
            why: `limiter ${spec.limiter} allows ${limit.maxAttempts} per ${limit.decayMinutes} min and its window (until ${limiter.decaysAt}) is full`,
            key: env.connectionPrefix + key,
          };
        }
      }
      return null;
    },
    returned: async () => undefined,
    threw: () => Promise.resolve(null),
  };
}

/** ThrottlesExceptions::getKey: by(), byJob() (the uuid), else the class's name hashed. */
async function throttleKey(spec: ThrottlesExceptionsSpec, env: MiddlewareEnv): Promise<string> {
  if (spec.key) return THROTTLE_PREFIX + spec.key;
  if (spec.byJob) return THROTTLE_PREFIX + (env.uuid ?? '');
  return THROTTLE_PREFIX + (await env.hashJobName(env.rules.className));
}

/** ThrottlesExceptions::handle on the cache's RateLimiter: a circuit breaker over handle()'s exceptions. */
function throttlesExceptions(spec: ThrottlesExceptionsSpec, env: MiddlewareEnv): RunningMiddleware {
  // getKey() runs first in handle(); its hash may take a moment (xxh128), so it is made in before().
  let key = '';
  const limiter = new RateLimiter(env.cache, env.time);
  return {
    async before() {
      key = await throttleKey(spec, env);
      if (!(await limiter.tooManyAttempts(key, spec.maxAttempts))) return null;
      env.trail('ThrottlesExceptions::handle → RateLimiter::tooManyAttempts');
      const delay = (await limiter.availableIn(key)) + 3;
      await env.release(delay);
      return {
        middleware: 'ThrottlesExceptions',
        released: delay,
        why: `${spec.maxAttempts} exceptions within ${spec.decayMinutes} min opened the circuit`,
        key: env.cache.keyOf(key),
      };
    },
    async returned() {
      env.trail('ThrottlesExceptions::handle → RateLimiter::clear');
      await limiter.clear(key);
    },
    async threw(e) {
      // ->when(): an exception it does not count is rethrown, to the Worker.
      if (spec.when !== null && !spec.when.some((c) => isA(e.className, c))) return null;
      env.trail('ThrottlesExceptions::handle → RateLimiter::hit');
      await limiter.hit(key, spec.decayMinutes * 60);
      const delay = spec.backoffMinutes * 60;
      await env.release(delay);
      return {
        middleware: 'ThrottlesExceptions',
        released: delay,
        why: `the exception counts towards ${spec.maxAttempts} within ${spec.decayMinutes} min`,
        key: env.cache.keyOf(key),
      };
    },
  };
}

/** ThrottlesExceptionsWithRedis::handle: the same over DurationLimiter on the default connection. */
function throttlesExceptionsWithRedis(spec: ThrottlesExceptionsSpec, env: MiddlewareEnv): RunningMiddleware {
  let limiter = new DurationLimiter(env, '', spec.maxAttempts, spec.decayMinutes * 60);
  return {
    async before() {
      limiter = new DurationLimiter(env, await throttleKey(spec, env), spec.maxAttempts, spec.decayMinutes * 60);
      if (!(await limiter.tooManyAttempts())) return null;
      env.trail('ThrottlesExceptionsWithRedis::handle → DurationLimiter::tooManyAttempts');
      // decaysAt - currentTime(), without ThrottlesExceptions' + 3.
      const delay = limiter.decaysAt - env.time();
      await env.release(delay);
      return {
        middleware: 'ThrottlesExceptionsWithRedis',
        released: delay,
        why: `${spec.maxAttempts} exceptions within ${spec.decayMinutes} min opened the circuit`,
        key: env.connectionPrefix + limiter.name,
      };
    },
    async returned() {
      env.trail('ThrottlesExceptionsWithRedis::handle → DurationLimiter::clear');
      await limiter.clear();
    },
    async threw(e) {
      if (spec.when !== null && !spec.when.some((c) => isA(e.className, c))) return null;
      env.trail('ThrottlesExceptionsWithRedis::handle → DurationLimiter::acquire');
      await limiter.acquire();
      const delay = spec.backoffMinutes * 60;
      await env.release(delay);
      return {
        middleware: 'ThrottlesExceptionsWithRedis',
        released: delay,
        why: `the exception counts towards ${spec.maxAttempts} within ${spec.decayMinutes} min`,
        key: env.connectionPrefix + limiter.name,
      };
    },
  };
}
