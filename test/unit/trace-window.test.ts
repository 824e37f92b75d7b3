// Issue 25: the trace pane builds and keeps the rows of the steps it can show, not of every step
// run, so a day-long session costs a render what a short one does. What it shows must be what the
// whole trace laid out showed (the reference below: every row of steps 0..cursor, laid out, the
// window moved as scroll-window.ts moves it), for every key that moves the selection.
import { describe, expect, it } from 'vitest';
import { jobLabels } from '../../src/output/describe.ts';
import type { Step } from '../../src/scenarios/timeline.ts';
import { windowTop } from '../../src/tui/scroll-window.ts';
import { lineText } from '../../src/tui/segments.ts';
import { traceLines } from '../../src/tui/trace-lines.ts';
import type { TraceContext, TraceRow } from '../../src/tui/trace-rows.ts';
import { buildTraceRows } from '../../src/tui/trace-rows.ts';
import type { TraceWindowInput } from '../../src/tui/trace-window.ts';
import { StepRowsCache, traceRowAt, traceRowCount, traceWindow } from '../../src/tui/trace-window.ts';
import type { Action, UiState, View } from '../../src/tui/ui-state.ts';
import { initialUiState, reduce } from '../../src/tui/ui-state.ts';
import { longSession } from '../fixtures/long-session.ts';
import { timelineFixture } from '../fixtures/timeline-fixture.ts';

type Shown = { top: number; lines: Array<{ row: number; text: string }> };

/** What the pane showed when it laid out every row of steps 0..cursor (`rows`, if built already). */
function reference(
  steps: readonly Step[],
  o: TraceWindowInput,
  rows = buildTraceRows(steps, o.cursor, o.ctx, o.raw),
): Shown {
  const all = traceLines(rows, {
    width: o.width,
    start: o.ctx.start,
    rowPrefix: o.rowPrefix,
    step: o.cursor,
    selected: o.selected,
  });
  const of = all.flatMap((l, i) => (l.row === o.selected ? [i] : []));
  const span: [number, number] | null = o.selected === null ? null : [of[0]!, of[of.length - 1]!];
  const top = windowTop(all.length, o.height, span, o.previousTop);
  return { top, lines: all.slice(top, top + o.height).map((l) => ({ row: l.row, text: lineText(l.line) })) };
}

function windowed(o: TraceWindowInput, cache: StepRowsCache): Shown {
  const w = traceWindow(o, cache);
  return { top: w.top, lines: w.lines.map((l) => ({ row: l.row, text: lineText(l.line) })) };
}

interface Pane {
  width: number;
  height: number;
  rowPrefix: boolean;
}

/** The View the App gives the reducer, from the trace's row numbers (not its rows). */
function view(steps: readonly Step[], ctx: TraceContext, s: UiState, pane: Pane): View {
  const cursor = Math.min(s.target, steps.length - 1);
  return {
    steps: steps.length,
    finished: true,
    rows: traceRowCount(steps, ctx.start, cursor),
    page: pane.height,
    stateLines: 0,
    statePage: 0,
    overlayLines: 0,
    overlayPage: 0,
    selectedRow: traceRowAt(steps, ctx.start, cursor, s.selected),
  };
}

/** Presses `keys` from the step `target`, comparing the pane with the reference after each one. */
function compareAlong(
  steps: readonly Step[],
  ctx: TraceContext,
  target: number,
  keys: Action[],
  pane: Pane,
  raw = false,
) {
  const cache = new StepRowsCache();
  let s: UiState = { ...initialUiState, target, raw };
  let previousTop = 0;
  let previousRef = 0;
  // Every row of steps 0..target, in each view: built once, as the pane did before issue 25.
  const built = new Map<boolean, TraceRow[]>();
  const allRows = (r: boolean): TraceRow[] => {
    if (!built.has(r)) built.set(r, buildTraceRows(steps, target, ctx, r));
    return built.get(r)!;
  };
  for (const key of ['follow' as Action, ...keys]) {
    s = reduce(s, key, view(steps, ctx, s, pane));
    const o = { steps, cursor: s.target, ctx, raw: s.raw, selected: s.selected, ...pane };
    const got = windowed({ ...o, previousTop }, cache);
    const want = reference(steps, { ...o, previousTop: previousRef }, allRows(s.raw));
    expect(got, `after ${key} (selected ${s.selected})`).toEqual(want);
    previousTop = got.top;
    previousRef = want.top;
    // Enter opens the row the pane shows inverse.
    const sel = view(steps, ctx, s, pane).selectedRow;
    const row = s.selected ?? traceRowCount(steps, ctx.start, s.target) - 1;
    const rows = allRows(s.raw);
    expect(sel).toEqual({ step: rows[row]!.step, command: rows[row]!.command ?? null });
  }
}

const repeat = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);

describe('the trace pane shows what the whole trace laid out showed', () => {
  const panes: Pane[] = [
    { width: 46, height: 8, rowPrefix: false },
    { width: 90, height: 12, rowPrefix: true },
  ];

  it.each(panes)('the fixture, at every step, moving the selection every way (%o)', (pane) => {
    const t = timelineFixture();
    const ctx = { start: t.start, labels: jobLabels(t) };
    const keys: Action[] = [
      'up',
      'up',
      'up',
      'pageUp',
      'down',
      'top',
      'down',
      'down',
      'pageDown',
      'raw',
      'up',
      'follow',
    ];
    for (let target = 0; target < t.steps.length; target++) compareAlong(t.steps, ctx, target, keys, pane);
  });

  it.each(panes)('a session of 3,000 steps: payload diffs from far back, stale copies, widths (%o)', (pane) => {
    const t = longSession(3_000);
    const ctx = { start: t.start, labels: jobLabels(t) };
    const up: Action[] = [
      ...repeat(30, 'up' as Action),
      ...repeat(4, 'pageUp' as Action),
      ...repeat(6, 'down' as Action),
    ];
    // Steps whose rows show a payload diff (0→1), a stale copy and the step before each.
    for (const target of [700, 701, 800, 900, 1_707, 2_900, 2_999]) compareAlong(t.steps, ctx, target, up, pane);
    compareAlong(t.steps, ctx, 1_710, [...up, 'raw', 'up', 'top', 'down'], pane);
  });
});

describe('a long session', () => {
  const t = longSession(20_000);
  const ctx = { start: t.start, labels: jobLabels(t) };
  const pane: Pane = { width: 60, height: 26, rowPrefix: true };

  it('builds rows for a bounded number of steps per render, and selecting up reaches step 0', () => {
    const cache = new StepRowsCache();
    let s: UiState = { ...initialUiState, target: t.steps.length - 1 };
    let previousTop = 0;
    const render = (): ReturnType<typeof traceWindow> => {
      const before = cache.built;
      const w = traceWindow(
        { steps: t.steps, cursor: s.target, ctx, raw: s.raw, selected: s.selected, ...pane, previousTop },
        cache,
      );
      // A page shows at most a pane's height of steps: a render builds no more than those.
      expect(cache.built - before).toBeLessThanOrEqual(pane.height + 2);
      previousTop = w.top;
      return w;
    };
    const press = (key: Action): void => {
      s = reduce(s, key, view(t.steps, ctx, s, pane));
    };
    render();
    // PgUp from the newest row to the first: about 5,000 pages, every one drawn.
    let pages = 0;
    do {
      press('pageUp');
      const w = render();
      pages++;
      expect(w.lines.some((l) => l.row === s.selected)).toBe(true);
    } while (s.selected !== 0 && pages < 100_000);
    expect(s.selected).toBe(0);
    const top = render();
    expect(top.lines[0]).toMatchObject({ row: 0 });
    expect(lineText(top.lines[0]!.line)).toMatch(/^#0 t\+0s /);
    expect(view(t.steps, ctx, s, pane).selectedRow).toEqual({ step: 0, command: null });
    expect(cache.size).toBeLessThanOrEqual(cache.capacity);
    // Down again a few rows, then back to the newest (End): the same lines as the whole trace's.
    for (const key of ['down', 'down', 'down'] as Action[]) press(key);
    const o = { steps: t.steps, cursor: s.target, ctx, raw: false, selected: s.selected, ...pane };
    expect(windowed({ ...o, previousTop }, cache)).toEqual(reference(t.steps, { ...o, previousTop }));
  });

  it('→ and ← at the end of it build the step they reach, not the session', () => {
    const cache = new StepRowsCache();
    const at = (cursor: number) =>
      traceWindow({ steps: t.steps, cursor, ctx, raw: false, selected: null, ...pane, previousTop: 0 }, cache);
    at(t.steps.length - 1);
    const before = cache.built;
    at(t.steps.length - 2);
    at(t.steps.length - 3);
    expect(cache.built - before).toBeLessThanOrEqual(2);
    const o = { steps: t.steps, cursor: 19_707, ctx, raw: false, selected: null, ...pane, previousTop: 0 };
    expect(windowed(o, new StepRowsCache())).toEqual(reference(t.steps, o));
    // The payloads it shows are compared with those shown hundreds of steps before.
    const text = (cursor: number): string =>
      windowed({ ...o, cursor, width: 200 }, new StepRowsCache())
        .lines.map((l) => l.text)
        .join('\n');
    expect(text(19_700)).toContain('‹LongJob#20 attempts:0→1›');
    expect(text(19_900)).toContain('‹LongJob#20 attempts:1 stale copy (now 2)›');
  });
});
