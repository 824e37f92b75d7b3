// Field types shared by the scenario schema (schema.ts) and the timeline entry kinds (entries/):
// names, virtual seconds, the `at` and `note` of every entry, and what a queue name may be.
import { z } from 'zod';
import { byProfile } from '../sim/profiles/index.ts';
import { show } from './schema-issues.ts';

const TEN_YEARS = 10 * 365 * 24 * 3600;

/**
 * A schema built the first time it is asked for, then the same object every time. zod spends
 * ~10 ms building the whole scenario format's schemas, and a run whose scenario its spec cache
 * holds (spec-cache.ts) never asks for one; so no schema is built as its module loads
 * (docs/performance.md).
 */
export function lazy<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

/** A duration in whole virtual seconds (Laravel's own options: --sleep, retry_after, a job's run...). */
export const seconds = (what: string) => z.number().int().min(0).max(TEN_YEARS).describe(what);

/** At most three decimals: the virtual clock counts milliseconds (src/sim/clock.ts). */
function toTheMillisecond(x: number): boolean {
  return /^-?\d+(\.\d{1,3})?$/.test(String(x)); // a negative time is min(0)'s to report
}

/**
 * An instant in virtual seconds after the start, to the millisecond (0, 0.5, 2.25, 0.001): when
 * an entry happens, when a worker starts, when the run stops. A fraction orders events within one
 * second; Laravel still reads whole seconds (PHP's time()), so it never reaches Redis.
 */
export const virtualTime = (what: string) =>
  z
    .number()
    .min(0)
    .max(TEN_YEARS)
    .refine(toTheMillisecond, {
      error: (issue) => `expected at most 3 decimals (the virtual clock counts milliseconds), got ${show(issue.input)}`,
    })
    .describe(what);

/**
 * config/queue.php's retry_after, as a connection declares it and as a `config` entry changes it:
 * one definition, so both accept and refuse alike. null is what RedisConnector reads it as.
 */
export const retryAfter = (what: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(86400)
    .nullable()
    .describe(`${what}; null: ${byProfile((p) => (p.queue.retryAfterNullMeans60 ? 'read as 60' : 'never expires'))}`);

/**
 * config/queue.php's block_for (the BLPOP timeout; null polls with the pop script), as a connection
 * declares it and as a `config` entry changes it: one definition, as retryAfter.
 */
export const blockFor = (what: string) => z.number().int().min(0).max(3600).nullable().describe(what);

export const name = lazy(() =>
  z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'use letters, digits, "_", "-" or "." and start with a letter'),
);

/** When an entry happens: virtual seconds after the start, to the millisecond. */
export const at = lazy(() => virtualTime('virtual seconds after the start, to the millisecond (0.5, 2.25)'));

/** The author's teaching note on a step. */
export const note = lazy(() => z.string().min(1).optional().describe('teaching note shown with the step'));

/** The actor the web requests are shown as; workers may not take its name. */
export { WEB_ACTOR as DISPATCHER } from '../sim/web-request.ts';

/** One queue name: Laravel splits --queue on commas, and a key with a space is a typo. */
export function isQueueName(queue: string): boolean {
  return /^[^,\s]+$/.test(queue);
}

export function singleQueue(queue: string): string {
  return `expected one queue name without commas or spaces, got ${show(queue)}`;
}
