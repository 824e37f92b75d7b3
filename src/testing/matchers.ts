// Matchers for Vitest and Jest (both take them with `expect.extend(matchers)`): the trace's Redis
// commands, its failed jobs and how often each job's handle() ran. Each is assertTrace() or a
// plain check underneath; the message on failure is the same readable diff.
import { terminalSafe } from '../output/terminal-safe.ts';
import type { Timeline } from '../scenarios/timeline.ts';
import type { ExpectedTrace, TraceOptions, TraceSubject } from './expected.ts';
import { traceMismatch } from './assert-trace.ts';

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
}

function isTimeline(value: unknown): value is TraceSubject {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as Timeline).steps) &&
    typeof (value as Timeline).start === 'number'
  );
}

function notATimeline(value: unknown): MatcherResult {
  return {
    pass: false,
    message: () => `expected a Timeline from runScenario(), got ${value === null ? 'null' : typeof value}`,
  };
}

export const matchers = {
  toMatchRedisCommands(received: unknown, expected: ExpectedTrace, options?: TraceOptions): MatcherResult {
    if (!isTimeline(received)) return notATimeline(received);
    const diff = traceMismatch(received, expected, options);
    return diff === null
      ? { pass: true, message: () => 'expected the Redis commands not to match, but every command matched' }
      : { pass: false, message: () => diff };
  },

  toHaveFailedJob(received: unknown, job: string, exception?: string | RegExp): MatcherResult {
    if (!isTimeline(received)) return notATimeline(received);
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

  toHaveExecuted(received: unknown, job: string, times: number): MatcherResult {
    if (!isTimeline(received)) return notATimeline(received);
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
};
