// When each call of a `request` is made: a call's `offset` (seconds after the request began) and a
// dispatch call's `every` (one instance every N seconds) let one request, or one artisan command,
// go on for a while: one PHP process, one Redis connection, sleep() between its calls. A request
// without either makes every call at once, as one step.
import { exactInstant, later, secondsBetween } from '../../sim/clock.ts';
import type { Path, Problem } from '../schema-issues.ts';

/** What this module reads of a call: its offset, and a dispatch call's count and every. */
export interface TimedCallInput {
  offset?: number;
  count?: number;
  every?: number;
}

/** One call as made: at `offset` seconds into the request; a dispatch's `every` is one per instance. */
export interface TimedCall<C> {
  offset: number;
  /** The call written (its index in `request`), with count 1 and `first` when it is one of `every`'s instances. */
  call: C & { first?: number };
  index: number;
}

/** Calls made at one offset: one step of the request, after a sleep() when it is not the first. */
export interface RequestPart<C> {
  offset: number;
  /** Seconds the process sleeps before these calls, from the part before (0 for the first: it starts the request). */
  wait: number;
  calls: TimedCall<C>[];
}

/** Each call when made: an offset defaults to the end of the call before (0 for the first). */
export function timedCalls<C extends TimedCallInput>(calls: readonly C[]): TimedCall<C>[] {
  const out: TimedCall<C>[] = [];
  let now = 0;
  calls.forEach((c, index) => {
    const start = c.offset ?? now;
    if (c.every === undefined) {
      out.push({ offset: start, call: c, index });
      now = start;
      return;
    }
    const every = c.every;
    for (let i = 0; i < (c.count ?? 1); i++) {
      now = exactInstant(start + i * every);
      out.push({ offset: now, call: { ...c, count: 1, first: i }, index });
    }
  });
  return out;
}

/** The request's parts: its calls grouped by the offset they are made at, in order. */
export function requestParts<C extends TimedCallInput>(calls: readonly C[]): RequestPart<C>[] {
  const parts: RequestPart<C>[] = [];
  for (const t of timedCalls(calls)) {
    const last = parts.at(-1);
    if (last !== undefined && last.offset === t.offset) last.calls.push(t);
    else
      parts.push({
        offset: t.offset,
        wait: last === undefined ? 0 : secondsBetween(last.offset, t.offset),
        calls: [t],
      });
  }
  return parts;
}

/** Whether the request waits between its calls (more than one part). */
export function goesOn(calls: readonly TimedCallInput[]): boolean {
  return requestParts(calls).length > 1;
}

/**
 * Offsets in the order the calls are written (a request makes its calls one after another), and
 * every call made by `until` when the scenario has one. `at`: the entry's; `path`: the entry's.
 */
export function checkOffsets(
  calls: readonly TimedCallInput[],
  at: number,
  until: number | undefined,
  path: Path,
): Problem[] {
  const problems: Problem[] = [];
  let now = 0;
  let from = -1;
  let reported = false;
  calls.forEach((c, i) => {
    if (c.offset !== undefined && c.offset < now)
      problems.push({
        path: [...path, 'request', i, 'offset'],
        detail: `offset ${c.offset} is before request.${from}'s (${now}): a request makes its calls in the order written`,
      });
    const start = Math.max(c.offset ?? now, now);
    const end = c.every === undefined ? start : exactInstant(start + ((c.count ?? 1) - 1) * c.every);
    // The first call the run stops before; an entry itself after until is the loader's to report.
    if (!reported && until !== undefined && at <= until && later(at, end) > until) {
      reported = true;
      problems.push({
        path: [...path, 'request', i, c.every === undefined ? 'offset' : 'every'],
        detail: `this call is made at ${later(at, end)} (at ${at} + ${end}), after until (${until}); the run stops before it`,
      });
    }
    now = end;
    from = i;
  });
  return problems;
}
