// The rules of lqsim explain's findings (src/explain/findings.ts), on hand-made event sequences.
// Times are MONITOR seconds from 1000; retry_after is the reservation's `until` minus the pop's second.
import { describe, expect, it } from 'vitest';
import type { QueueEvent } from '../../src/explain/findings.ts';
import { findings } from '../../src/explain/findings.ts';

const reserve = (
  job: string,
  actor: string,
  line: number,
  o: { attempts?: number; maxTries?: number | null; t?: number; retryAfter?: number; redisClock?: boolean } = {},
): QueueEvent => {
  const t = o.t ?? 1000;
  return {
    kind: 'reserve',
    job,
    label: `Job#${job}`,
    actor,
    line,
    t,
    until: Math.floor(t) + (o.retryAfter ?? 90),
    redisClock: o.redisClock ?? true,
    attempts: o.attempts ?? 1,
    maxTries: o.maxTries ?? null,
  };
};
const done = (kind: 'delete' | 'release', job: string, actor: string, line: number, t = 1001): QueueEvent => ({
  kind,
  job,
  label: `Job#${job}`,
  actor,
  line,
  t,
});
/** Each actor's last command line. */
const last = (o: Record<string, number>) => new Map(Object.entries(o));

describe('findings', () => {
  it('say nothing of jobs reserved and deleted or released in time by the worker that reserved them', () => {
    expect(
      findings([
        reserve('1', 'worker-1', 3),
        done('delete', '1', 'worker-1', 4),
        reserve('2', 'worker-1', 5),
        done('release', '2', 'worker-1', 6),
      ]),
    ).toEqual([]);
  });

  it('point out a job reserved again while its first worker, heard from later, still ran it', () => {
    const events = [
      reserve('1', 'worker-1', 10, { retryAfter: 30 }),
      reserve('1', 'worker-2', 38, { t: 1031, attempts: 2, retryAfter: 30 }),
      done('delete', '1', 'worker-2', 40, 1032),
      done('delete', '1', 'worker-1', 50, 1045),
    ];
    const f = findings(events, last({ 'worker-1': 50, 'worker-2': 40 }));
    expect(f.map((x) => x.lines)).toEqual([
      [10, 38],
      [10, 50],
    ]);
    expect(f[0]!.title).toMatch(
      /^Job#1 reserved again by worker-2 \(attempt 2\) while worker-1 still ran it \(attempt 1\): it ran twice at once \(worker-1's reservation ended after retry_after \(30 s\)/,
    );
    // worker-1 deleted 45 s after its pop, past its 30 s reservation: timeout >= retry_after.
    expect(f[1]!.title).toMatch(
      /^worker-1 finished Job#1 \(attempt 1\) 45 s after its pop, past its reservation \(retry_after 30 s\): the worker's timeout is not shorter than retry_after/,
    );
  });

  it('tell a killed worker from a slow one by its silence after the pop', () => {
    const events = [
      reserve('1', 'worker-1', 10, { retryAfter: 2 }),
      reserve('1', 'worker-2', 25, { t: 1003, attempts: 2 }),
    ];
    // worker-1's last command is its pop (line 9, before the ZADD on line 10): killed.
    const f = findings(events, last({ 'worker-1': 9, 'worker-2': 23 }));
    expect(f.map((x) => x.title.replace(/:.*/, ''))).toEqual([
      'worker-1 popped Job#1 (attempt 1) and was never heard from again',
      'worker-2 popped Job#1 (attempt 2) and was never heard from again',
    ]);
    expect(f.map((x) => x.lines)).toEqual([[10, 25], [25]]);
    expect(f[0]!.title).toContain('then worker-2 reserved it (attempt 2)');
  });

  it('point out a pop never followed by its delete or release', () => {
    expect(findings([reserve('1', 'worker-1', 7)], last({ 'worker-1': 6 }))).toEqual([
      {
        title: expect.stringMatching(
          /^worker-1 popped Job#1 \(attempt 1\) and was never heard from again: killed mid-job, or the capture ended/,
        ),
        lines: [7],
      },
    ]);
    expect(findings([reserve('1', 'worker-1', 7)], last({ 'worker-1': 30 }))[0]!.title).toMatch(
      /never sent its delete or release, though it sent other commands after/,
    );
  });

  it('point out a job deleted right after a pop past its maxTries (MaxAttemptsExceededException)', () => {
    const f = findings([
      reserve('1', 'worker-2', 20, { attempts: 3, maxTries: 2 }),
      done('delete', '1', 'worker-2', 21, 1000.002),
    ]);
    expect(f).toEqual([
      {
        title: expect.stringMatching(/^Job#1 reserved for attempt 3 of 2 and deleted at once/),
        lines: [20, 21],
        // The job's life says it at the delete.
        failed: { line: 21, how: expect.stringMatching(/^failed with MaxAttemptsExceededException without running/) },
      },
    ]);
    // Within its tries: nothing to say.
    expect(
      findings([reserve('1', 'worker-2', 20, { attempts: 2, maxTries: 2 }), done('delete', '1', 'worker-2', 21)]),
    ).toEqual([]);
  });

  it('without $tries in the payload, say what a delete at once after a killed attempt means under each --tries', () => {
    const events = [
      reserve('1', 'worker-1', 13, { retryAfter: 2 }),
      reserve('1', 'worker-2', 25, { t: 1003.5, attempts: 2 }),
      done('delete', '1', 'worker-2', 27, 1003.502),
    ];
    const f = findings(events, last({ 'worker-1': 11, 'worker-2': 32 }));
    expect(f.map((x) => x.lines)).toEqual([
      [13, 25],
      [25, 27],
    ]);
    expect(f[1]!.title).toMatch(
      /^Job#1 deleted 2 ms after worker-2 reserved it \(attempt 2\) from killed worker-1: with --tries below 2/,
    );
    // A delete seconds later: the job ran; nothing to say about tries.
    const slow = [...events.slice(0, 2), done('delete', '1', 'worker-2', 27, 1010)];
    expect(findings(slow, last({ 'worker-1': 11, 'worker-2': 32 })).map((x) => x.lines)).toEqual([[13, 25]]);
  });

  it("point out a last attempt failed by the worker's timeout: deleted seconds in, then silence", () => {
    const events = [
      reserve('1', 'worker-2', 25, { t: 1000.5, attempts: 2, maxTries: 2, retryAfter: 4 }),
      done('delete', '1', 'worker-2', 27, 1002.5),
    ];
    expect(findings(events, last({ 'worker-2': 27 }))).toEqual([
      {
        title: expect.stringMatching(
          /^worker-2 deleted Job#1 2\.0 s into attempt 2 of 2 and was never heard from again: its timeout \(about 2\.0 s\) failed the job/,
        ),
        lines: [25, 27],
        failed: { line: 27, how: expect.stringMatching(/^failed by its worker's timeout/) },
      },
    ]);
    // The same delete by a worker that polls again afterwards: a failure or success like any other.
    expect(findings(events, last({ 'worker-2': 30 }))).toEqual([]);
  });

  it("read no timings off a worker whose clock is not Redis'", () => {
    const events = [
      reserve('1', 'worker-1', 10, { retryAfter: 30, redisClock: false }),
      done('delete', '1', 'worker-1', 50, 1045),
    ];
    expect(findings(events, last({ 'worker-1': 50 }))).toEqual([]);
  });

  it('point out a large migration, and BLPOP on the ready list once', () => {
    const f = findings([
      { kind: 'migrate', moved: 999, line: 1, from: 'queues:default:delayed' },
      { kind: 'migrate', moved: 1000, line: 2, from: 'queues:default:delayed' },
      { kind: 'block-ready', actor: 'worker-1', line: 3, key: 'queues:default' },
      { kind: 'block-ready', actor: 'worker-1', line: 9, key: 'queues:default' },
    ]);
    expect(f.map((x) => x.lines)).toEqual([[2], [3]]);
    expect(f[0]!.title).toMatch(/^1000 due jobs moved from queues:default:delayed/);
  });
});
