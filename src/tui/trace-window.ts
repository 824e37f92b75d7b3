// The lines the trace pane shows, built from the steps they belong to and no others: the cursor's
// step (its rows wrap, so they set where the trace ends), the selected row's, and those of the rows
// in view. Every row above the cursor's step takes one line but the selected one (it wraps), so
// where a row's lines fall is known from the row numbers (trace-index.ts) without laying out the
// rows in between: a render costs the pane's height, not the session's length, and only the rows of
// the last few hundred steps shown are kept. The rows ↑/↓ select are numbered over the whole trace,
// as the person sees them ("line 12/30"), however far back the selection goes. Pure but for the
// cache.
import type { Step } from '../scenarios/timeline.ts';
import { windowTop } from './scroll-window.ts';
import { historyBefore } from './trace-history.ts';
import { traceIndex } from './trace-index.ts';
import type { TraceLine } from './trace-lines.ts';
import { rowLines } from './trace-lines.ts';
import type { ParsedPayload } from './payload-diff.ts';
import type { StepRows, TraceContext, TraceRow } from './trace-rows.ts';
import { rowsOfStep } from './trace-rows.ts';

/** Steps whose rows are kept: a few screens' worth, whatever the pane's height. */
const KEPT_STEPS = 256;

/** The rows of the steps shown last, the least recently used dropped first. */
export class StepRowsCache {
  private readonly entries = new Map<Step, StepRows>();
  /** How many steps had their rows built rather than read back (what a test counts). */
  built = 0;

  constructor(readonly capacity = KEPT_STEPS) {}

  get(step: Step, start: number): StepRows | undefined {
    const entry = this.peek(step, start);
    if (entry !== undefined) {
      this.entries.delete(step);
      this.entries.set(step, entry);
    }
    return entry;
  }

  /** The entry without making it recent (a history walked through steps not shown). */
  peek(step: Step, start: number): StepRows | undefined {
    const entry = this.entries.get(step);
    return entry?.start === start ? entry : undefined;
  }

  put(step: Step, entry: StepRows): void {
    this.built++;
    this.entries.delete(step);
    this.entries.set(step, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  /** How many steps' rows are kept. */
  get size(): number {
    return this.entries.size;
  }
}

const shared = new StepRowsCache();

/** The rows of steps from..to, each built once while kept; the payload history walked on once. */
export function stepsRows(
  steps: readonly Step[],
  from: number,
  to: number,
  ctx: TraceContext,
  cache: StepRowsCache = shared,
): StepRows[] {
  const out: StepRows[] = [];
  let history: Map<string, ParsedPayload> | null = null;
  for (let s = from; s <= to; s++) {
    const step = steps[s]!;
    let entry = cache.get(step, ctx.start);
    if (entry === undefined) {
      history ??= historyBefore(steps, s, ctx, (st) => cache.peek(st, ctx.start));
      entry = rowsOfStep(step, ctx, history);
      cache.put(step, entry);
    } else if (history !== null) for (const [label, payload] of entry.sets) history.set(label, payload);
    out.push(entry);
  }
  return out;
}

export interface TraceWindowInput {
  steps: readonly Step[];
  /** The step shown: the trace runs to its last row. */
  cursor: number;
  ctx: TraceContext;
  raw: boolean;
  /** The selected row's number in the whole trace; null follows the newest. */
  selected: number | null;
  /** The pane's body. */
  width: number;
  height: number;
  rowPrefix: boolean;
  /** The first line shown at the last frame (the window moves as little as it can). */
  previousTop: number;
}

export interface TraceWindow {
  /** The lines in view, each with its row's number in the whole trace. */
  lines: TraceLine[];
  /** The first line in view, counted over the whole trace. */
  top: number;
  /** Rows of steps 0..cursor. */
  rows: number;
}

export function traceWindow(o: TraceWindowInput, cache: StepRowsCache = shared): TraceWindow {
  const { steps, ctx } = o;
  if (steps.length === 0) return { lines: [], top: 0, rows: 0 };
  const cursor = Math.max(0, Math.min(o.cursor, steps.length - 1));
  const index = traceIndex(steps, ctx.start);
  const rows = index.rows(cursor);
  const first = index.firstRow(cursor);
  const selected = o.selected === null ? null : Math.max(0, Math.min(o.selected, rows - 1));
  const widths = index.widths(cursor);
  const layout = { width: o.width, start: ctx.start, rowPrefix: o.rowPrefix };
  const rowsOf = (e: StepRows): TraceRow[] => (o.raw ? e.raw : e.rows);
  const rowAt = (row: number): TraceRow => {
    const at = index.rowAt(row);
    return rowsOf(stepsRows(steps, at.step, at.step, ctx, cache)[0]!)[at.command === null ? 0 : at.command + 1]!;
  };

  // The cursor's step: every row wraps.
  const current = rowsOf(stepsRows(steps, cursor, cursor, ctx, cache)[0]!).map((r) =>
    rowLines(r, layout, true, widths),
  );
  // A selected row above it wraps too: the lines below it move down by its extra lines.
  const above = selected !== null && selected < first ? selected : null;
  const extra = above === null ? 0 : rowLines(rowAt(above), layout, true, widths).length - 1;
  const lineOfRow = (row: number): number => row + (above !== null && row > above ? extra : 0);
  const currentFrom = lineOfRow(first);
  const count = currentFrom + current.reduce((n, l) => n + l.length, 0);
  let span: [number, number] | null = null;
  if (above !== null) span = [above, above + extra];
  else if (selected !== null) {
    let line = currentFrom;
    for (let k = 0; k < selected - first; k++) line += current[k]!.length;
    span = [line, line + current[selected - first]!.length - 1];
  }
  const top = windowTop(count, o.height, span, o.previousTop);
  const end = Math.min(top + o.height, count);

  const lines: TraceLine[] = [];
  if (top < currentFrom) {
    // Rows above the cursor's step in view: one line each, the selected one `extra` more.
    const rowOfLine = (line: number): number => (above !== null && line > above ? Math.max(above, line - extra) : line);
    const from = rowOfLine(top);
    const to = rowOfLine(Math.min(end, currentFrom) - 1);
    const built = stepsRows(steps, index.rowAt(from).step, index.rowAt(to).step, ctx, cache);
    const base = index.firstRow(index.rowAt(from).step);
    let k = 0;
    for (const entry of built)
      for (const row of rowsOf(entry)) {
        const n = base + k++;
        if (n < from || n > to) continue;
        rowLines(row, layout, n === selected, widths).forEach((line, j) => {
          const at = lineOfRow(n) + j;
          if (at >= top && at < end) lines.push({ row: n, line });
        });
      }
  }
  let at = currentFrom;
  current.forEach((rowLinesOf, k) => {
    for (const line of rowLinesOf) {
      if (at >= top && at < end) lines.push({ row: first + k, line });
      at++;
    }
  });
  return { lines, top, rows };
}

/** The step and command of trace row `selected` (null: the newest) up to the cursor's step. */
export function traceRowAt(
  steps: readonly Step[],
  start: number,
  cursor: number,
  selected: number | null,
): { step: number; command: number | null } | null {
  if (steps.length === 0) return null;
  const index = traceIndex(steps, start);
  const rows = index.rows(cursor);
  const row = selected ?? rows - 1;
  return row >= 0 && row < rows ? index.rowAt(row) : null;
}

/** Rows of steps 0..cursor. */
export function traceRowCount(steps: readonly Step[], start: number, cursor: number): number {
  return steps.length === 0 ? 0 : traceIndex(steps, start).rows(cursor);
}
