// config/cache.php and config/database.php's redis connections as the run's processes read them:
// the scenario's `cache` section over the version's skeleton (profile.cache), and what a job class
// declares beyond its options (middleware(), ShouldBeUnique), in the model's terms.
import type { CacheConfig } from '../sim/cache.ts';
import type { JobClassRules, JobMiddlewareSpec, LimitSpec, UniqueSpec } from '../sim/job-middleware.ts';
import { overlapLockName, rateLimiterKey, THROTTLE_PREFIX, throttleKeyOf } from '../sim/job-middleware.ts';
import type { RunDb } from './run-resources.ts';
import type { LaravelProfile } from '../sim/profiles/types.ts';
import type { JobClassSpec, ScenarioSpec } from './schema.ts';

export function cacheConfig(spec: ScenarioSpec, profile: LaravelProfile, connectionPrefix: string): CacheConfig {
  const c = spec.cache;
  const connection = c?.connection ?? profile.cache.connection;
  // A framework without lock_connection (before 8.20) takes locks on the store's connection; the
  // loader refuses one set for it.
  const lock = profile.cache.lockConnectionOption
    ? c?.lock_connection === undefined
      ? profile.cache.lockConnection
      : c.lock_connection
    : null;
  const prefix = c?.prefix ?? profile.cache.prefix;
  return {
    store: c?.store ?? 'file',
    connection,
    lockConnection: lock ?? connection,
    storePrefix: prefix === '' ? '' : `${prefix}${profile.cache.separator}`,
    connectionPrefix,
  };
}

/** Whether the run's cache puts keys on Redis: its default store, or a unique job's uniqueVia(). */
export function usesRedisCache(spec: ScenarioSpec): boolean {
  if (spec.cache?.store === 'redis') return true;
  // uniqueVia() the redis store, and the *WithRedis middleware (DurationLimiter on the queue's own
  // connection, whatever the cache store) put keys on Redis too.
  return Object.values(spec.jobs).some(
    (j) =>
      (typeof j.unique === 'object' && j.unique.via === 'redis') ||
      middlewareOf(j).some((m) => m.kind !== 'without_overlapping' && m.redis),
  );
}

type MiddlewareInput = JobClassSpec['middleware'][number];

function middlewareSpec(m: MiddlewareInput): JobMiddlewareSpec {
  if ('without_overlapping' in m) {
    const o = m.without_overlapping;
    if (typeof o === 'string')
      return { kind: 'without_overlapping', key: o, releaseAfter: 0, expireAfter: 0, shared: false };
    return {
      kind: 'without_overlapping',
      key: o.key,
      releaseAfter: o.dont_release ? null : o.release_after,
      expireAfter: o.expire_after,
      shared: o.shared,
    };
  }
  if ('rate_limited' in m || 'rate_limited_with_redis' in m) {
    const redis = 'rate_limited_with_redis' in m;
    const o = redis ? m.rate_limited_with_redis : m.rate_limited;
    return typeof o === 'string'
      ? { kind: 'rate_limited', limiter: o, redis, release: true }
      : { kind: 'rate_limited', limiter: o.limiter, redis, release: !o.dont_release };
  }
  const redis = 'throttles_exceptions_with_redis' in m;
  const o = redis ? m.throttles_exceptions_with_redis : m.throttles_exceptions;
  return {
    kind: 'throttles_exceptions',
    redis,
    maxAttempts: o.max_attempts,
    decayMinutes: o.decay_minutes,
    backoffMinutes: o.backoff,
    key: o.by ?? null,
    byJob: o.by_job,
    when: o.when ?? null,
  };
}

export function middlewareOf(job: JobClassSpec): JobMiddlewareSpec[] {
  return job.middleware.map(middlewareSpec);
}

type LimitInput = Exclude<ScenarioSpec['limiters'][string], 'none' | unknown[]>;

/** Limit::perMinute(N) = new Limit('', N, 1); perHour(N) 60 minutes; perDay(N) 1440. */
function limitSpec(l: LimitInput): LimitSpec {
  const [maxAttempts, decayMinutes] =
    l.per_minute !== undefined
      ? [l.per_minute, 1]
      : l.per_hour !== undefined
        ? [l.per_hour, 60]
        : l.per_day !== undefined
          ? [l.per_day, 60 * 24]
          : [l.max_attempts!, l.decay_minutes ?? 1];
  return { key: l.by ?? '', maxAttempts, decayMinutes };
}

export function limitersOf(spec: ScenarioSpec): Record<string, readonly LimitSpec[] | 'none'> {
  return Object.fromEntries(
    Object.entries(spec.limiters).map(([n, l]) => [n, l === 'none' ? 'none' : [l].flat().map(limitSpec)]),
  );
}

export function uniqueOf(job: JobClassSpec): UniqueSpec | null {
  const u = job.unique;
  if (u === undefined) return null;
  if (u === true) return { id: '', for: null, untilProcessing: false, via: null };
  return {
    id: u.id === undefined ? '' : typeof u.id === 'object' ? { property: u.id.property } : String(u.id),
    for: u.for ?? null,
    untilProcessing: u.until_processing,
    via: u.via ?? null,
  };
}

/** `uniqueId` resolved: the instance's own id when uniqueId() reads a property (the dispatch knew it). */
export function jobRules(
  job: JobClassSpec | undefined,
  limiters: Record<string, readonly LimitSpec[] | 'none'>,
  uniqueId?: string,
  uniqueOwner?: string,
): JobClassRules {
  if (job === undefined) return { className: '', middleware: [], unique: null, limiters };
  const unique = uniqueOf(job);
  return {
    className: job.class,
    middleware: middlewareOf(job),
    unique: unique === null || uniqueId === undefined ? unique : { ...unique, id: uniqueId },
    limiters,
    ...(uniqueOwner !== undefined ? { uniqueOwner } : {}),
  };
}

/** The keys a run with this cache may create in one Redis connection's db, and the beginnings of those it names as it goes. */
interface DbKeys {
  keys: Set<string>;
  prefixes: Set<string>;
}

/**
 * The dbs a run writes to, the queue's first, each with the keys its cache store, locks and
 * limiters may create there (what a run on someone else's server marks as its own and deletes at
 * the end): config/database.php's `default` (the queue's, and DurationLimiter's) and, when the
 * store or its locks use it, `cache`. Keys known from the scenario are listed; those named as the
 * run goes (job-exceptions:<uuid>, a unique job's id read from a property, byJob's uuid) by their
 * narrow beginnings.
 */
export function runDbs(
  spec: ScenarioSpec,
  profile: LaravelProfile,
  connectionPrefix: string,
  queueKeys: readonly string[],
): RunDb[] {
  const queueDb = { db: spec.redis.database, keys: [...queueKeys] };
  if (!usesRedisCache(spec)) return [queueDb];
  const config = cacheConfig(spec, profile, connectionPrefix);
  const on: Record<'default' | 'cache', DbKeys> = {
    default: { keys: new Set(), prefixes: new Set() },
    cache: { keys: new Set(), prefixes: new Set() },
  };
  const store = on[config.connection];
  const locks = on[config.lockConnection];
  const inCache = (name: string) => `${config.connectionPrefix}${config.storePrefix}${name}`;
  const onRedis = config.store === 'redis';
  if (onRedis) {
    store.keys.add(inCache('illuminate:queue:restart'));
    store.prefixes.add(inCache('job-exceptions:'));
  }
  const limiters = limitersOf(spec);
  for (const job of Object.values(spec.jobs)) {
    const unique = uniqueOf(job);
    // uniqueVia(): a lock in the redis store even when the default store is not, or not on Redis.
    if (unique !== null && (unique.via ?? config.store) === 'redis') {
      if (typeof unique.id === 'string') locks.keys.add(inCache(profile.cache.uniqueKey(job.class, unique.id)));
      else locks.prefixes.add(inCache(profile.cache.uniqueKey(job.class, '')));
    }
    // The cache store's middleware put nothing on Redis with a file store; the *WithRedis ones do.
    for (const m of middlewareOf(job).filter((x) => onRedis || (x.kind !== 'without_overlapping' && x.redis))) {
      if (m.kind === 'without_overlapping') locks.keys.add(inCache(overlapLockName(job.class, m.key, m.shared)));
      else if (m.kind === 'rate_limited') {
        const limits = limiters[m.limiter];
        for (const l of limits === undefined || limits === 'none' ? [] : limits) {
          const key = rateLimiterKey(m.limiter, l.key);
          if (m.redis) on.default.keys.add(`${config.connectionPrefix}${key}`);
          else store.keys.add(inCache(key)).add(inCache(`${key}:timer`));
        }
      } else {
        const key = throttleKeyOf(m, job.class, profile.cache.throttleKeyHash);
        const target = m.redis ? on.default : store;
        const full = (k: string) => (m.redis ? `${config.connectionPrefix}${k}` : inCache(k));
        if (key === null) target.prefixes.add(full(THROTTLE_PREFIX));
        else if (m.redis) target.keys.add(full(key));
        else target.keys.add(full(key)).add(full(`${key}:timer`));
      }
    }
  }
  const cacheDb = spec.redis.cache_database;
  const usesCache = on.cache.keys.size > 0 || on.cache.prefixes.size > 0;
  const dbs: RunDb[] = [
    { db: spec.redis.database, keys: [...queueKeys, ...on.default.keys], prefixes: [...on.default.prefixes] },
  ];
  if (!usesCache) return dbs;
  if (cacheDb === spec.redis.database) {
    dbs[0] = {
      ...dbs[0]!,
      keys: [...dbs[0]!.keys!, ...on.cache.keys],
      prefixes: [...dbs[0]!.prefixes!, ...on.cache.prefixes],
    };
    return dbs;
  }
  return [
    ...dbs,
    { db: cacheDb, keys: [...on.cache.keys], prefixes: [...on.cache.prefixes], field: 'redis.cache_database' },
  ];
}
