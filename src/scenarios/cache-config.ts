// config/cache.php and config/database.php's redis connections as the run's processes read them:
// the scenario's `cache` section over the version's skeleton (profile.cache), and what a job class
// declares beyond its options (middleware(), ShouldBeUnique), in the model's terms.
import type { CacheConfig } from '../sim/cache.ts';
import type { JobClassRules, JobMiddlewareSpec, UniqueSpec } from '../sim/job-middleware.ts';
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

/** Whether the run's cache puts keys on Redis (and so in which dbs the run writes). */
export function usesRedisCache(spec: ScenarioSpec): boolean {
  return spec.cache?.store === 'redis';
}

/** The scenario's db of a Redis connection of config/database.php. */
export function databaseOf(spec: ScenarioSpec, connection: 'default' | 'cache'): number {
  return connection === 'cache' ? spec.redis.cache_database : spec.redis.database;
}

export function middlewareOf(job: JobClassSpec): JobMiddlewareSpec[] {
  return job.middleware.map((m) => {
    const o = m.without_overlapping;
    if (typeof o === 'string') return { kind: 'without_overlapping', key: o, releaseAfter: 0, expireAfter: 0 };
    return {
      kind: 'without_overlapping',
      key: o.key,
      releaseAfter: o.dont_release ? null : o.release_after,
      expireAfter: o.expire_after,
    };
  });
}

export function uniqueOf(job: JobClassSpec): UniqueSpec | null {
  const u = job.unique;
  if (u === undefined) return null;
  if (u === true) return { id: '', for: null, untilProcessing: false };
  return {
    id: u.id === undefined ? '' : typeof u.id === 'object' ? { property: u.id.property } : String(u.id),
    for: u.for ?? null,
    untilProcessing: u.until_processing,
  };
}

/** `uniqueId` resolved: the instance's own id when uniqueId() reads a property (the dispatch knew it). */
export function jobRules(job: JobClassSpec | undefined, uniqueId?: string): JobClassRules {
  if (job === undefined) return { className: '', middleware: [], unique: null };
  const unique = uniqueOf(job);
  return {
    className: job.class,
    middleware: middlewareOf(job),
    unique: unique === null || uniqueId === undefined ? unique : { ...unique, id: uniqueId },
  };
}
