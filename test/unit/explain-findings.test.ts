// The rules of lqsim explain's findings (src/explain/findings.ts), on hand-made event sequences.
import { describe, expect, it } from 'vitest';
import type { QueueEvent } from '../../src/explain/findings.ts';
import { findings } from '../../src/explain/findings.ts';

const reserve = (
  job: string,
  actor: string,
  line: number,
  attempts = 1,
  maxTries: number | null = null,
): QueueEvent => ({
  kind: 'reserve',
  job,
  label: `Job#${job}`,
  actor,
  line,
  attempts,
  maxTries,
});
const done = (kind: 'delete' | 'release', job: string, actor: string, line: number): QueueEvent => ({
  kind,
  job,
  label: `Job#${job}`,
  actor,
  line,
});

describe('findings', () => {
  it('say nothing of jobs reserved and deleted or released by the worker that reserved them', () => {
    expect(
      findings([
        reserve('1', 'worker-1', 3),
        done('delete', '1', 'worker-1', 4),
        reserve('2', 'worker-1', 5),
        done('release', '2', 'worker-1', 6),
      ]),
    ).toEqual([]);
  });

  it('point out a job reserved again while its first worker still holds it, citing both pops', () => {
    const f = findings([
      reserve('1', 'worker-1', 10),
      reserve('1', 'worker-2', 38),
      done('delete', '1', 'worker-2', 40),
      done('delete', '1', 'worker-1', 50),
    ]);
    expect(f).toEqual([
      {
        title: expect.stringMatching(/^Job#1 reserved again by worker-2 while worker-1 still had it/),
        lines: [10, 38],
      },
    ]);
  });

  it('point out a pop never followed by its delete or release', () => {
    expect(findings([reserve('1', 'worker-1', 7)])).toEqual([
      { title: expect.stringMatching(/^worker-1 popped Job#1 and never sent its delete or release/), lines: [7] },
    ]);
  });

  it('point out a job deleted right after a pop past its maxTries (MaxAttemptsExceededException)', () => {
    const f = findings([reserve('1', 'worker-2', 20, 3, 2), done('delete', '1', 'worker-2', 21)]);
    expect(f).toEqual([
      { title: expect.stringMatching(/^Job#1 reserved for attempt 3 of 2 and deleted at once/), lines: [20, 21] },
    ]);
    // Within its tries: nothing to say.
    expect(findings([reserve('1', 'worker-2', 20, 2, 2), done('delete', '1', 'worker-2', 21)])).toEqual([]);
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
