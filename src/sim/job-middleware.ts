// What a job class declares beyond its options: its middleware() (8.11+: WithoutOverlapping) and
// ShouldBeUnique (8.14+), and what CallQueuedHandler::call does with them around handle().
// Queue/Middleware/WithoutOverlapping.php@v8.83.29:63-78 and 137-140, Bus/UniqueLock.php@v8.83.29:33-47,
// Queue/CallQueuedHandler.php@v8.83.29:58-90 and 197-214 (research/cache-store.md §3.1, §4).
import type { Cache, CacheLock } from './cache.ts';

/** new WithoutOverlapping($key) with ->releaseAfter() / ->dontRelease() / ->expireAfter(). */
export interface WithoutOverlappingSpec {
  kind: 'without_overlapping';
  key: string;
  /** Seconds a refused job is released for; null: dontRelease() (the job is deleted unrun). */
  releaseAfter: number | null;
  /** The lock's TTL (0: none, SETNX). */
  expireAfter: number;
}

export type JobMiddlewareSpec = WithoutOverlappingSpec;

/** ShouldBeUnique: uniqueId(), $uniqueFor, and whether ShouldBeUniqueUntilProcessing. */
export interface UniqueSpec {
  /** uniqueId(): a constant, or $this-><property> (each instance's own value). */
  id: string | { property: string };
  /** $uniqueFor, when the class declares it (null: not declared): the lock's TTL (0: none). */
  for: number | null;
  untilProcessing: boolean;
}

export interface JobClassRules {
  className: string;
  middleware: readonly JobMiddlewareSpec[];
  unique: UniqueSpec | null;
}

export const NO_RULES: JobClassRules = { className: '', middleware: [], unique: null };

/** WithoutOverlapping::$prefix . get_class($job) . ':' . $key (8.x; shared() is 9.32+). */
export function overlapLockName(className: string, key: string): string {
  return `laravel-queue-overlap:${className}:${key}`;
}

/** A middleware that let the job through holds this until handle() returns (its finally). */
export interface HeldMiddleware {
  spec: JobMiddlewareSpec;
  lock: CacheLock;
}

/** How the pipeline ended before handle(): a middleware refused the job. */
export interface Refused {
  spec: WithoutOverlappingSpec;
  lock: CacheLock;
}

/**
 * CallQueuedHandler::dispatchThroughMiddleware up to handle(): each middleware in order; the first
 * that does not call $next ends it. Returns what the passed ones hold, or the refusal.
 */
export async function throughMiddleware(
  cache: Cache,
  rules: JobClassRules,
  what: string,
): Promise<{ held: HeldMiddleware[]; refused: Refused | null }> {
  const held: HeldMiddleware[] = [];
  for (const spec of rules.middleware) {
    const lock = cache.lock(
      overlapLockName(rules.className, spec.key),
      spec.expireAfter,
      `WithoutOverlapping (${what})`,
    );
    if (!(await lock.get())) return { held, refused: { spec, lock } };
    held.push({ spec, lock });
  }
  return { held, refused: null };
}

/** The middlewares' finally blocks, innermost first: each lock released by its owner. */
export async function releaseHeld(held: readonly HeldMiddleware[]): Promise<void> {
  for (const h of [...held].reverse()) await h.lock.release();
}
