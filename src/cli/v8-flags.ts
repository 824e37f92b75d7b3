// V8 flags a command sets for its own run, and V8's defaults put back after it: the CLI bundle's
// code cache (bin/load-bundle.js) is written only under the flags the process started with, since
// V8 rejects a cache made under others (v8.cachedDataVersionTag() differs). Every flag here has its
// default beside it; test/unit/v8-flags.test.ts checks that resetting gives back the starting tag.
import { setFlagsFromString } from 'node:v8';

export type V8Flag = { readonly set: string; readonly reset: string };

/**
 * Streaming `lqsim run`: what it keeps is small and flat (40 MB at 30,000 jobs), but by V8's
 * default heap growth the garbage of one long step (a request dispatching 100,000 jobs) lifted peak
 * RSS to 265 MB at 30,000 jobs; growing the heap in 10% steps keeps it at ~160 MB, at no measurable
 * cost in time. A growth rate, not a cap: a run that keeps more still gets the heap it needs.
 */
export const HEAP_GROWTH_10_PERCENT: V8Flag = { set: '--heap-growing-percent=10', reset: '--heap-growing-percent=0' };

/**
 * `lqsim explain`: the young generation kept at its first size. What explain makes either dies
 * within a line or a step (the line's strings, its args, the step's text) or is kept to the end
 * (each job, each address's liveness): V8's default of growing the semi-spaces to 16 MB as the
 * allocation rate climbs only holds more of the first kind between scavenges, up to 48 MB of a
 * 200 MB capture's peak (bench section 7b: 175 MB to 131 MB peak RSS, the same time). Read by V8
 * at each resize, so it takes effect when set, as the command starts.
 */
export const YOUNG_GENERATION_FIXED: V8Flag = {
  set: '--semi-space-growth-factor=1',
  reset: '--semi-space-growth-factor=2',
};

/** `run` with `flag` set (none: as it is), and V8's default back however it ends. */
export async function withV8Flag<T>(flag: V8Flag | null, run: () => Promise<T>): Promise<T> {
  if (flag === null) return run();
  setFlagsFromString(flag.set);
  try {
    return await run();
  } finally {
    setFlagsFromString(flag.reset);
  }
}
