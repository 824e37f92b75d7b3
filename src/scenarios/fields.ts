// Field types shared by the scenario schema (schema.ts) and the timeline entry kinds (entries/):
// names, virtual seconds, the `at` and `note` of every entry, and what a queue name may be.
import { z } from 'zod';
import { show } from './schema-issues.ts';

export const seconds = (what: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(10 * 365 * 24 * 3600)
    .describe(what);

export const name = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'use letters, digits, "_", "-" or "." and start with a letter');

/** When an entry happens: virtual seconds after the start. */
export const at = seconds('virtual seconds after the start');

/** The author's teaching note on a step. */
export const note = z.string().min(1).optional().describe('teaching note shown with the step');

/** The actor the web requests are shown as; workers may not take its name. */
export { WEB_ACTOR as DISPATCHER } from '../sim/web-request.ts';

/** One queue name: Laravel splits --queue on commas, and a key with a space is a typo. */
export function isQueueName(queue: string): boolean {
  return /^[^,\s]+$/.test(queue);
}

export function singleQueue(queue: string): string {
  return `expected one queue name without commas or spaces, got ${show(queue)}`;
}
