// Matchers for Vitest and Jest (both take them with `expect.extend(matchers)`): the trace's Redis
// commands, its failed jobs, how often each job's handle() ran, and its golden file. Each is
// assertTrace(), checkGolden() or a plain check underneath; the message on failure is the same
// readable diff. A timeline whose run ended with an error fails every matcher (negated ones too),
// with that error as its message: what it holds is not what the scenario does.
import { resolve } from 'node:path';
import { terminalSafe } from '../output/terminal-safe.ts';
import type { Timeline } from '../scenarios/timeline.ts';
import type { DbOptions } from '../trace/database.ts';
import type { ExpectedTrace, TraceOptions, TraceSubject } from './expected.ts';
import { traceMismatch } from './assert-trace.ts';
import type { GoldenUpdate } from './golden.ts';
import { goldenOutcome } from './golden.ts';

export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/** The matchers' signatures as seen on `expect(timeline)`; R is the framework's return type. */
export interface TraceMatchers<R = unknown> {
  /** The run's Redis commands, in order (or step by step), match these exact commands or patterns. */
  toMatchRedisCommands(expected: ExpectedTrace, options?: TraceOptions): R;
  /** A job (its label, `ImportCsv#1`) ended in failed_jobs, optionally with this exception class or message. */
  toHaveFailedJob(job: string, exception?: string | RegExp): R;
  /** The job's handle() started exactly `times` times. */
  toHaveExecuted(job: string, times: number): R;
  /**
   * The run's normalised trace equals the golden file (relative to the working directory). A missing file
   * is written, one that differs is rewritten under `vitest -u` (`jest -u`), never when CI is set.
   */
  toMatchGolden(file: string, options?: DbOptions): R;
}

/** What the matchers read of the framework's `this` (Vitest's and Jest's MatcherState). */
interface MatcherContext {
  isNot?: boolean;
  /** Vitest's and Jest's SnapshotState: its `_updateSnapshot` (all, new, none) is read. */
  snapshotState?: unknown;
}

/** The framework's `this`; a direct call (`matchers.toHaveExecuted(...)`) gives none of its fields. */
function context(self: unknown): MatcherContext | undefined {
  return typeof self === 'object' && self !== null ? (self as MatcherContext) : undefined;
}

type SnapshotStateLike = { _updateSnapshot?: unknown } | undefined;

function isTimeline(value: unknown): value is TraceSubject {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as Timeline).steps) &&
    typeof (value as Timeline).start === 'number'
  );
}

/** Why the matcher cannot pass on `value`, or null: not a timeline, or a run that ended with an error. */
function unusable(ctx: MatcherContext | undefined, value: unknown): MatcherResult | null {
  // pass = isNot makes the assertion fail whether or not it is negated.
  const fail = (message: string): MatcherResult => ({ pass: ctx?.isNot === true, message: () => message });
  if (!isTimeline(value))
    return fail(`expected a Timeline from runScenario(), got ${value === null ? 'null' : typeof value}`);
  const error = (value as Partial<Timeline>).error;
  if (error !== undefined) return fail(terminalSafe(`the run ended with an error: ${error}`));
  return null;
}

/** Vitest's (and Jest's) snapshot update mode, else LQSIM_UPDATE_GOLDENS=1, else 'new'. */
function updateMode(ctx: MatcherContext | undefined): GoldenUpdate {
  const state = (ctx?.snapshotState as SnapshotStateLike)?._updateSnapshot;
  if (state === 'all' || state === 'new' || state === 'none') return state;
  const env = process.env.LQSIM_UPDATE_GOLDENS;
  return env !== undefined && env !== '' && env !== '0' && env !== 'false' ? 'all' : 'new';
}

export const matchers = {
  toMatchRedisCommands(
    this: unknown,
    received: unknown,
    expected: ExpectedTrace,
    options?: TraceOptions,
  ): MatcherResult {
    const ctx = context(this);
    if (!isTimeline(received)) return unusable(ctx, received)!;
    const diff = traceMismatch(received, expected, options);
    // An error fails it negated too: the diff says what the run did before it ended.
    if (received.error !== undefined) return { pass: ctx?.isNot === true, message: () => diff! };
    return diff === null
      ? { pass: true, message: () => 'expected the Redis commands not to match, but every command matched' }
      : { pass: false, message: () => diff };
  },

  toHaveFailedJob(this: unknown, received: unknown, job: string, exception?: string | RegExp): MatcherResult {
    const bad = unusable(context(this), received);
    if (bad !== null) return bad;
    const failed = (received as Partial<Timeline>).failed ?? [];
    const mine = failed.filter((f) => f.job === job);
    const fits = mine.find(
      (f) =>
        exception === undefined ||
        (typeof exception === 'string'
          ? f.exception === exception || f.exception.endsWith(`\\${exception}`)
          : exception.test(`${f.exception}: ${f.message}`)),
    );
    const all = failed.map((f) => `${f.job} (${f.exception})`).join(', ') || 'none';
    const wanted = `${job}${exception === undefined ? '' : ` with ${String(exception)}`}`;
    return fits !== undefined
      ? { pass: true, message: () => terminalSafe(`expected ${wanted} not to have failed, but it did`) }
      : { pass: false, message: () => terminalSafe(`expected ${wanted} in the failed jobs; failed jobs: ${all}`) };
  },

  toHaveExecuted(this: unknown, received: unknown, job: string, times: number): MatcherResult {
    const bad = unusable(context(this), received);
    if (bad !== null) return bad;
    const jobs = (received as Partial<Timeline>).jobs ?? [];
    const found = jobs.find((j) => j.label === job);
    const got = found?.executions;
    const known = jobs.map((j) => `${j.label} ${j.executions}×`).join(', ') || 'none';
    return got === times
      ? { pass: true, message: () => terminalSafe(`expected ${job} not to have run ${times} times, but it did`) }
      : {
          pass: false,
          message: () =>
            terminalSafe(
              `expected ${job} to have run ${times} times, ${found ? `it ran ${got}` : 'but there is no such job'} (jobs: ${known})`,
            ),
        };
  },

  toMatchGolden(this: unknown, received: unknown, file: string, options?: DbOptions): MatcherResult {
    const ctx = context(this);
    const bad = unusable(ctx, received);
    if (bad !== null) return bad;
    if (typeof (received as Partial<Timeline>).scenario !== 'object')
      return { pass: false, message: () => 'toMatchGolden needs a whole Timeline from runScenario()' };
    // Relative to the working directory, as `lqsim check --golden` and `lqsim run --golden` read it.
    const path = resolve(file);
    // `.not.toMatchGolden` asks that the run differs: it never writes the file.
    const update = ctx?.isNot === true ? 'none' : updateMode(ctx);
    const o = goldenOutcome(received as Timeline, path, { ...options, update });
    if ('message' in o) {
      const message =
        o.status === 'differs'
          ? `toMatchGolden: ${path} differs from this run (vitest -u rewrites it)\n${o.message}`
          : o.message;
      // Negated, only a differing golden passes: a missing file or a run error is no "does not match".
      return { pass: ctx?.isNot === true && o.status !== 'differs', message: () => message };
    }
    return { pass: true, message: () => `expected ${path} not to match this run, but ${o.summary}` };
  },
};
