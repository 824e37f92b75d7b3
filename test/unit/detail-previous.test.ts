// Issue 25: the details of a payload compare it with the same job's payload the trace showed last,
// looked for backwards from the line opened (not walked from step 0 at every frame): found 700
// steps back, a stale copy told apart, a first time said.
import { describe, expect, it } from 'vitest';
import { jobLabels } from '../../src/output/describe.ts';
import type { DetailContext } from '../../src/tui/detail-lines.ts';
import { detailLines } from '../../src/tui/detail-lines.ts';
import { lineText } from '../../src/tui/segments.ts';
import { longSession } from '../fixtures/long-session.ts';

describe('the details of a payload', () => {
  const t = longSession(2_000);
  const ctx: DetailContext = {
    timeline: { start: t.start, steps: t.steps },
    labels: jobLabels(t),
    scripts: {},
    narration: { start: t.start, atEnd: false, jobs: t.jobs, warnings: [] },
  };
  const summary = (step: number): string => {
    const command = t.steps[step]!.commands.findIndex((c) => c.args.some((a) => a.startsWith('{')));
    return detailLines({ step, command }, ctx, 200, false)
      .map(lineText)
      .find((l) => l.includes('job payload of'))!;
  };

  it('says what changed since the trace showed the job, however far back', () => {
    expect(summary(1_007)).toContain('job payload of LongJob#2');
    expect(summary(1_007)).toContain('first time in the trace');
    expect(summary(1_700)).toContain('attempts 0→1');
    expect(summary(1_800)).toContain('attempts 1→2');
    expect(summary(1_900)).toContain('a stale copy: the one this worker reserved (attempts 1)');
  });
});
