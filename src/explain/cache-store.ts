// What `lqsim explain` knows of the cache store's traffic on Redis (research/cache-store.md): the
// restart signal (`queue:restart`, the worker's check), locks (WithoutOverlapping, unique jobs),
// maxExceptions' counters and the rate limiters, each by the exact key shape or script text
// Laravel sends. A key is `<connection prefix><cache prefix><name>`: the part before Laravel's own
// name is kept whole as the key's prefix (configuration.ts splits it against the queue's). Pure.
import { commandName } from '../sim/command-name.ts';
import { ownCopy } from '../redis/own-string.ts';
import { add, durationLimiter, releaseLock, tooManyAttempts } from '../sim/cache-scripts.ts';

// The cache store's scripts, byte for byte as the model sends them (src/sim/cache-scripts.ts, each
// text the same from the version that brought it to 13.x; research §1.3, §3.2, §3.4).
export const RELEASE_LOCK = releaseLock.source;
export const CACHE_ADD = add.source;
export const DURATION_ACQUIRE = durationLimiter.source;
/** Its heredoc begins with a newline. */
export const DURATION_TOO_MANY = tooManyAttempts.source;

/** What a cache key is for, by the name Laravel gives it. */
export type CacheKeyKind =
  /** `illuminate:queue:restart`: queue:restart writes it, a daemon worker reads it. */
  | 'restart'
  /** `laravel-queue-overlap:<class>:<key>`: WithoutOverlapping's lock (8.11+). */
  | 'overlap'
  /** `laravel_unique_job:<class><id>` (8.x; `<class>:<id>` from 11.0): ShouldBeUnique's lock (8.14+). */
  | 'unique'
  /** `job-exceptions:<uuid>`: the worker's maxExceptions count (7.0+). */
  | 'exceptions'
  /** `laravel_throttles_exceptions:<key>[:timer]`: ThrottlesExceptions (8.32+). */
  | 'throttle'
  /** `<md5>[:timer]`: a RateLimiter key (RateLimited's md5 of the limiter's name and key), or a DurationLimiter's. */
  | 'limiter';

export interface CacheKey {
  kind: CacheKeyKind;
  /** Everything before Laravel's name: the connection's prefix and, but for a DurationLimiter's, the cache's. */
  prefix: string;
  /** Laravel's name after its marker: `App\Jobs\SyncOrder:order-1`, `App\Jobs\Foo42`, a uuid, an md5. */
  name: string;
  /** A RateLimiter's `<key>:timer` (when the window ends). */
  timer: boolean;
}

const MARKERS: ReadonlyArray<[string, CacheKeyKind]> = [
  ['laravel-queue-overlap:', 'overlap'],
  ['laravel_unique_job:', 'unique'],
  ['job-exceptions:', 'exceptions'],
  ['laravel_throttles_exceptions:', 'throttle'],
];
const RESTART = 'illuminate:queue:restart';
const MD5 = /^(.*?)([0-9a-f]{32})(:timer)?$/;

/** Keys read lately: a capture names the same few keys on every line (shared: never to be changed). */
const KEYS = new Map<string, CacheKey | null>();
const KEYS_KEPT = 4096;

/** The cache key `key` is, by Laravel's name in it, or undefined. */
export function parseCacheKey(key: string): CacheKey | undefined {
  const known = KEYS.get(key);
  if (known !== undefined) return known ?? undefined;
  const own = ownCopy(key);
  const parsed = readKey(own);
  if (KEYS.size < KEYS_KEPT) KEYS.set(own, parsed);
  return parsed ?? undefined;
}

function readKey(key: string): CacheKey | null {
  if (key.endsWith(RESTART)) return { kind: 'restart', prefix: key.slice(0, -RESTART.length), name: '', timer: false };
  for (const [marker, kind] of MARKERS) {
    const at = key.indexOf(marker);
    if (at < 0) continue;
    let name = key.slice(at + marker.length);
    const timer = kind === 'throttle' && name.endsWith(':timer');
    if (timer) name = name.slice(0, -':timer'.length);
    if (name === '') return null;
    return { kind, prefix: key.slice(0, at), name, timer };
  }
  const m = MD5.exec(key);
  return m === null ? null : { kind: 'limiter', prefix: m[1]!, name: m[2]!, timer: m[3] !== undefined };
}

/** What a cache command does, in Laravel's terms. */
export type CacheAction =
  /** queue:restart's `Cache::forever` (a plain SET of the time). */
  | 'restart-write'
  /** The worker's `getTimestampOfLastQueueRestart` (a GET). */
  | 'restart-read'
  /** `RedisLock::acquire`: `SET k owner EX n NX`, or `SETNX k owner` without expiry. */
  | 'lock-acquire'
  /** `RedisLock::release`: EVAL releaseLock 1 k owner. */
  | 'lock-release'
  /** `RedisLock::forceRelease`: DEL k (a unique job's lock, 8.x). */
  | 'lock-force-release'
  /** maxExceptions: GET of the count. */
  | 'exceptions-read'
  /** maxExceptions: `put(k, 0, a day)`, SETEX k 86400 0. */
  | 'exceptions-start'
  /** maxExceptions: INCRBY k 1. */
  | 'exceptions-count'
  /** maxExceptions reached: DEL k, then the job fails. */
  | 'exceptions-forget'
  /** RateLimiter::attempts (GET k) or availableIn / has (GET k:timer). */
  | 'limiter-read'
  /** RateLimiter::hit: EVAL add (k:timer, k), INCRBY k, SETEX k. */
  | 'limiter-hit'
  /** RateLimiter::clear / resetAttempts, DurationLimiter::clear: DEL. */
  | 'limiter-clear'
  /** DurationLimiter::acquire (Redis::throttle, RateLimitedWithRedis, ThrottlesExceptionsWithRedis' hit). */
  | 'duration-acquire'
  /** DurationLimiter::tooManyAttempts (ThrottlesExceptionsWithRedis' check). */
  | 'duration-check';

export interface CacheCommand {
  action: CacheAction;
  key: CacheKey;
}

/**
 * The cache command of a MONITOR line's args, or undefined. Only the shapes Laravel sends: a GET
 * of another key, or a SET with other options, is not claimed. `argc` is how many args the line
 * has when `args` holds only the first (the first pass's reading).
 */
export function recogniseCacheCommand(args: readonly string[], argc = args.length): CacheCommand | undefined {
  const name = args[0] === undefined ? undefined : commandName(args[0]);
  if (name === undefined || args[1] === undefined) return undefined;
  if (name === 'EVAL') return cacheScript(args, argc);
  const key = parseCacheKey(args[1]);
  if (key === undefined) return undefined;
  const is = (action: CacheAction): CacheCommand => ({ action, key });
  switch (key.kind) {
    case 'restart':
      if (name === 'GET' && argc === 2) return is('restart-read');
      if (name === 'SET' && argc === 3) return is('restart-write');
      return undefined;
    case 'overlap':
    case 'unique':
      if ((name === 'SET' && argc === 6) || (name === 'SETNX' && argc === 3)) return is('lock-acquire');
      if (name === 'DEL' && argc === 2) return is('lock-force-release');
      return undefined;
    case 'exceptions':
      if (name === 'GET' && argc === 2) return is('exceptions-read');
      if (name === 'SETEX' && argc === 4) return is('exceptions-start');
      if (name === 'INCRBY' && argc === 3) return is('exceptions-count');
      if (name === 'DEL' && argc === 2) return is('exceptions-forget');
      return undefined;
    case 'throttle':
    case 'limiter':
      if (name === 'GET' && argc === 2) return is('limiter-read');
      if ((name === 'INCRBY' && argc === 3) || (name === 'SETEX' && argc === 4)) return is('limiter-hit');
      if (name === 'DEL' && argc === 2) return is('limiter-clear');
      return undefined;
  }
}

function cacheScript(args: readonly string[], argc: number): CacheCommand | undefined {
  const [, source, numkeys, k] = args;
  if (numkeys !== '1' || k === undefined) return undefined;
  const action: CacheAction | undefined =
    source === RELEASE_LOCK
      ? 'lock-release'
      : source === CACHE_ADD
        ? 'limiter-hit'
        : source === DURATION_ACQUIRE
          ? 'duration-acquire'
          : source === DURATION_TOO_MANY
            ? 'duration-check'
            : undefined;
  if (
    action === undefined ||
    (action === 'lock-release' ? argc !== 5 : action === 'limiter-hit' ? argc !== 6 : argc !== 8)
  )
    return undefined;
  const key = parseCacheKey(k);
  // An app's own Cache::lock sends the same release: only the queue's locks are claimed.
  if (action === 'lock-release') return key?.kind === 'overlap' || key?.kind === 'unique' ? { action, key } : undefined;
  if (key === undefined || (key.kind !== 'limiter' && key.kind !== 'throttle')) return undefined;
  return { action, key };
}

/** A cache key as the trace names it: Laravel's name, without the prefixes ("laravel-queue-overlap:App\\Jobs\\X:order-1"). */
export function cacheKeyName(k: CacheKey): string {
  switch (k.kind) {
    case 'restart':
      return RESTART;
    case 'overlap':
      return `laravel-queue-overlap:${k.name}`;
    case 'unique':
      return `laravel_unique_job:${k.name}`;
    case 'exceptions':
      return `job-exceptions:${k.name}`;
    case 'throttle':
      return `laravel_throttles_exceptions:${k.name}${k.timer ? ':timer' : ''}`;
    case 'limiter':
      return `${k.name}${k.timer ? ':timer' : ''}`;
  }
}
