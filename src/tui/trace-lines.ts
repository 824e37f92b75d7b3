// The trace pane's rows laid out as screen lines. Rows of the step shown, and the selected row,
// wrap so that nothing a learner must read is cut (payload tags, the last arguments); older rows
// take one line each and end in `…`. Wide panes prefix command rows with their time and actor;
// narrow ones with a bar in the actor's colour. Pure.
import { relTime } from '../output/describe.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import { displayWidth } from '../output/wrap.ts';
import type { Line } from './segments.ts';
import { actorSeg, lineWidth, pad, seg, wrapLine } from './segments.ts';
import type { TraceRow } from './trace-rows.ts';

const MAX_ROW_LINES = 4;

export interface TraceLine {
  /** Index of the row this line belongs to. */
  row: number;
  line: Line;
}

export interface TraceLayout {
  width: number;
  start: number;
  rowPrefix: boolean;
  /** The step shown: its rows wrap. */
  step: number;
  selected: number | null;
}

/**
 * A row's lines, kept per row object (rows are cached per step, see trace-rows.ts) and reused while
 * what they depend on stays the same: moving the selection re-lays-out only the rows it enters and
 * leaves, not every row of the run.
 */
const laidOut = new WeakMap<TraceRow, { key: string; lines: Line[] }>();

export function traceLines(rows: readonly TraceRow[], o: TraceLayout): TraceLine[] {
  let timeWidth = 0;
  let actorWidth = 0;
  for (const r of rows) {
    const w = widthsOf(r, o.start);
    timeWidth = Math.max(timeWidth, w.time);
    actorWidth = Math.max(actorWidth, w.actor);
  }
  const out: TraceLine[] = [];
  rows.forEach((row, i) => {
    const wraps = row.step === o.step || i === o.selected;
    const key = `${o.width} ${o.start} ${o.rowPrefix} ${timeWidth} ${actorWidth} ${wraps}`;
    let cached = laidOut.get(row);
    if (cached?.key !== key) {
      cached = { key, lines: linesOf(row, o, wraps, timeWidth, actorWidth) };
      laidOut.set(row, cached);
    }
    for (const line of cached.lines) out.push({ row: i, line });
  });
  return out;
}

/** The columns a row's time and actor take (for the prefix widths), kept per row. */
const widths = new WeakMap<TraceRow, { start: number; time: number; actor: number }>();

function widthsOf(row: TraceRow, start: number): { time: number; actor: number } {
  let w = widths.get(row);
  if (w?.start !== start) {
    w = { start, time: relTime(row.t, start).length, actor: displayWidth(terminalSafe(row.actor)) };
    widths.set(row, w);
  }
  return w;
}

function linesOf(row: TraceRow, o: TraceLayout, wraps: boolean, timeWidth: number, actorWidth: number): Line[] {
  const [prefix, body] = split(row, o, timeWidth, actorWidth);
  const indent = lineWidth(prefix) + (row.source === 'lua' ? 8 : row.kind === 'command' ? 2 : 3);
  const full = [...prefix, ...body];
  if (!wraps || lineWidth(full) <= o.width) return [full];
  const wrapped = wrapLine(body, o.width - lineWidth(prefix), indent - lineWidth(prefix));
  // A long payload in the raw view would fill the pane: its row stops at MAX_ROW_LINES (enter shows it all).
  const lines =
    wrapped.length <= MAX_ROW_LINES
      ? wrapped
      : [...wrapped.slice(0, MAX_ROW_LINES - 1), [...wrapped[MAX_ROW_LINES - 1]!, seg('…', 'dim')]];
  return lines.map((l, k) => [...(k === 0 ? prefix : continuation(prefix, row, o.rowPrefix)), ...l]);
}

function split(row: TraceRow, o: TraceLayout, timeWidth: number, actorWidth: number): [Line, Line] {
  if (row.kind === 'step') return [[], row.segments];
  if (!o.rowPrefix) return [[actorSeg(row.actor, '▏'), seg(' ')], row.segments];
  return [
    [
      seg(pad(relTime(row.t, o.start), timeWidth + 1), 'dim'),
      actorSeg(row.actor, pad(terminalSafe(row.actor), actorWidth + 1)),
      seg(' '),
    ],
    row.segments,
  ];
}

/** The prefix of a continuation line: blank, but the actor's bar stays. */
function continuation(prefix: Line, row: TraceRow, rowPrefix: boolean): Line {
  if (row.kind === 'command' && !rowPrefix) return [actorSeg(row.actor, '▏'), seg(' ')];
  return [seg(' '.repeat(lineWidth(prefix)))];
}

/** First and last screen line of a row. */
export function linesOfRow(lines: readonly TraceLine[], row: number): [number, number] {
  let first = -1;
  let last = -1;
  lines.forEach((l, i) => {
    if (l.row !== row) return;
    if (first < 0) first = i;
    last = i;
  });
  return [first, last];
}
