// Issue 12, bug 9: moving through a long trace must not rebuild it from step 0 on every render.
// Each step's rows are built once (they never change once the run has pushed the step), and a
// row's laid-out lines are reused while its width and wrapping stay the same: moving the selection
// lays out only the rows it enters and leaves. Structural checks, not timings (noisy machines).
import { describe, expect, it } from 'vitest';
import { jobLabels } from '../../src/output/describe.ts';
import { TraceRowCache, buildTraceRows } from '../../src/tui/trace-rows.ts';
import { traceLines } from '../../src/tui/trace-lines.ts';
import { START, timelineFixture } from '../fixtures/timeline-fixture.ts';

describe('trace rows and lines are built once', () => {
  const t = timelineFixture();
  const ctx = { start: START, labels: jobLabels(t) };

  it('builds each step once: the cursor moving on builds only the new step', () => {
    const cache = new TraceRowCache();
    const last = t.steps.length - 1;
    const first = buildTraceRows(t.steps, last - 1, ctx, false, cache);
    expect(cache.built).toBe(last);
    const again = buildTraceRows(t.steps, last, ctx, false, cache);
    expect(cache.built).toBe(last + 1); // one step more, nothing rebuilt
    // The rows of the steps before are the very same objects.
    expect(again.slice(0, first.length).every((r, i) => r === first[i])).toBe(true);
    buildTraceRows(t.steps, last, ctx, true, cache); // the raw view: the same cached steps
    buildTraceRows(t.steps, 0, ctx, false, cache); // going back
    expect(cache.built).toBe(last + 1);
  });

  it('moving the selection re-lays-out only the rows it leaves and enters', () => {
    const rows = buildTraceRows(t.steps, t.steps.length - 1, ctx);
    const layout = { width: 60, start: START, rowPrefix: false, step: t.steps.length - 1 };
    const a = traceLines(rows, { ...layout, selected: 1 });
    const b = traceLines(rows, { ...layout, selected: 2 });
    const lineOf = (lines: typeof a, row: number) => lines.find((l) => l.row === row)!.line;
    // A row the selection neither left nor entered keeps its laid-out line object.
    expect(lineOf(b, 0)).toBe(lineOf(a, 0));
    expect(lineOf(b, 3)).toBe(lineOf(a, 3));
  });
});
