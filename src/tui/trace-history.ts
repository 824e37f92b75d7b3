// What the trace last showed of each job's payload before a given step (its rows mark what changed
// since: payload-diff.ts), for a window of steps that starts anywhere. A copy of the history every
// EVERY steps, shared with the one before while no payload was shown in between (a day of idle
// polls holds one), so the history before step s is the nearest copy and at most EVERY steps
// walked on: memory grows with the jobs, time with neither the session nor the jobs.
import type { Step } from '../scenarios/timeline.ts';
import type { ParsedPayload } from './payload-diff.ts';
import type { PayloadHistory, StepRows, TraceContext } from './trace-rows.ts';
import { advanceHistory } from './trace-rows.ts';

/** Steps between two stored histories: the most a history is walked on from the nearest one. */
export const EVERY = 128;

type History = Map<string, ParsedPayload>;

interface Checkpoints {
  start: number;
  /** kept[k]: the history before step k*EVERY. Never changed once stored (copied to be walked on). */
  kept: History[];
  /** guard[k]: the step just before k*EVERY when kept[k] was stored (a different run's steps miss it). */
  guard: Array<Step | undefined>;
}

const runs = new WeakMap<readonly Step[], Checkpoints>();

/** Rows a cache may already have built (their `sets` move the history on without building again). */
export type BuiltRows = (step: Step) => StepRows | undefined;

/** A new Map: the payloads last shown before steps[s], that the caller may change. */
export function historyBefore(steps: readonly Step[], s: number, ctx: TraceContext, built: BuiltRows): History {
  const cps = checkpointsOf(steps, ctx.start);
  const k = Math.floor(s / EVERY);
  extendTo(cps, steps, k, ctx, built);
  const history = new Map(cps.kept[k]);
  walk(steps, k * EVERY, s, ctx, built, history);
  return history;
}

/** Applies steps[from..to) to `history`. */
function walk(
  steps: readonly Step[],
  from: number,
  to: number,
  ctx: TraceContext,
  built: BuiltRows,
  history: PayloadHistory,
): void {
  for (let i = from; i < to; i++) {
    const step = steps[i]!;
    const entry = built(step);
    if (entry !== undefined) for (const [label, payload] of entry.sets) history.set(label, payload);
    else advanceHistory(step, ctx, history);
  }
}

function checkpointsOf(steps: readonly Step[], start: number): Checkpoints {
  let cps = runs.get(steps);
  if (cps === undefined || cps.start !== start) {
    cps = { start, kept: [new Map()], guard: [undefined] };
    runs.set(steps, cps);
  }
  return cps;
}

/** Stores the histories up to kept[k], from the last one still valid. */
function extendTo(cps: Checkpoints, steps: readonly Step[], k: number, ctx: TraceContext, built: BuiltRows): void {
  // A checkpoint whose step is no longer there (the array was rewritten) and every one after it go.
  let valid = 1;
  while (valid < cps.kept.length && steps[valid * EVERY - 1] === cps.guard[valid]) valid++;
  cps.kept.length = valid;
  cps.guard.length = valid;
  for (let j = valid; j <= k; j++) {
    const previous = cps.kept[j - 1]!;
    // Copied at the first payload shown: steps that show none share the history before them.
    let changed: History | null = null;
    const history: PayloadHistory = {
      get: (label) => (changed ?? previous).get(label),
      set: (label, payload) => (changed ??= new Map(previous)).set(label, payload),
    };
    walk(steps, (j - 1) * EVERY, j * EVERY, ctx, built, history);
    cps.kept.push(changed ?? previous);
    cps.guard.push(steps[j * EVERY - 1]);
  }
}
