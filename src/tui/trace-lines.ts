// The trace pane's rows laid out as screen lines. Rows of the step shown, and the selected row,
// wrap so that nothing a learner must read is cut (payload tags, the last arguments); older rows
// take one line each and end in `…`. Wide panes prefix command rows with their time and actor;
// narrow ones with a bar in the actor's colour. On a Redis Cluster a node column follows: `n2` in
// narrow panes, `node2 slot 5718` in wide ones, in the node's colour. Pure.
import { relTime } from '../output/describe.ts';
import { nodeAndSlot, nodeTag } from '../output/node-label.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import { displayWidth } from '../output/wrap.ts';
import type { Line } from './segments.ts';
import { actorSeg, lineWidth, nodeSeg, pad, seg, wrapLine } from './segments.ts';
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
 * A row's lines, kept per row object (trace-window.ts keeps the rows of the steps around the
 * cursor) and reused while what they depend on stays the same: moving the selection re-lays-out
 * only the rows it enters and leaves.
 */
const laidOut = new WeakMap<TraceRow, { key: string; lines: Line[] }>();

/**
 * The prefix's columns: time and actor (wide panes), the node's tag (narrow) or node and slot
 * (wide); 0 for a node column on a single server's trace, whose rows have none.
 */
export interface TraceWidths {
  time: number;
  actor: number;
  tag: number;
  node: number;
}

export function traceLines(rows: readonly TraceRow[], o: TraceLayout): TraceLine[] {
  const widths: TraceWidths = { time: 0, actor: 0, tag: 0, node: 0 };
  for (const r of rows) {
    const w = rowWidths(r.t, r.actor, o.start, r);
    widths.time = Math.max(widths.time, w.time);
    widths.actor = Math.max(widths.actor, w.actor);
    widths.tag = Math.max(widths.tag, w.tag);
    widths.node = Math.max(widths.node, w.node);
  }
  const out: TraceLine[] = [];
  rows.forEach((row, i) => {
    const wraps = row.step === o.step || i === o.selected;
    for (const line of rowLines(row, o, wraps, widths)) out.push({ row: i, line });
  });
  return out;
}

/** The columns a row's prefix takes: the prefix is as wide as the widest of the trace's. */
export function rowWidths(
  t: number,
  actor: string,
  start: number,
  at: { node?: string; slot?: number } = {},
): TraceWidths {
  return {
    time: relTime(t, start).length,
    actor: displayWidth(terminalSafe(actor)),
    tag: at.node === undefined ? 0 : displayWidth(terminalSafe(nodeTag(at.node))),
    node: displayWidth(terminalSafe(nodeAndSlot(at))),
  };
}

/**
 * One row's lines: wrapped (`wraps`: its step is shown, or it is selected) or cut to one line,
 * behind the time and actor columns `widths` wide.
 */
export function rowLines(
  row: TraceRow,
  o: Pick<TraceLayout, 'width' | 'start' | 'rowPrefix'>,
  wraps: boolean,
  widths: TraceWidths,
): Line[] {
  const key = `${o.width} ${o.start} ${o.rowPrefix} ${widths.time} ${widths.actor} ${widths.tag} ${widths.node} ${wraps}`;
  let cached = laidOut.get(row);
  if (cached?.key !== key) {
    cached = { key, lines: linesOf(row, o, wraps, widths) };
    laidOut.set(row, cached);
  }
  return cached.lines;
}

function linesOf(
  row: TraceRow,
  o: Pick<TraceLayout, 'width' | 'start' | 'rowPrefix'>,
  wraps: boolean,
  widths: TraceWidths,
): Line[] {
  const [prefix, body] = split(row, o, widths);
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

function split(row: TraceRow, o: Pick<TraceLayout, 'start' | 'rowPrefix'>, widths: TraceWidths): [Line, Line] {
  if (row.kind === 'step') return [[], row.segments];
  if (!o.rowPrefix)
    return [[actorSeg(row.actor, '▏'), seg(' '), ...nodeColumn(row, widths.tag, nodeTag)], row.segments];
  return [
    [
      seg(pad(relTime(row.t, o.start), widths.time + 1), 'dim'),
      actorSeg(row.actor, pad(terminalSafe(row.actor), widths.actor + 1)),
      seg(' '),
      ...nodeColumn(row, widths.node, () => nodeAndSlot(row)),
    ],
    row.segments,
  ];
}

/** The node's column, `width` wide and a space: nothing on a single server (width 0). */
function nodeColumn(row: TraceRow, width: number, text: (node: string) => string): Line {
  if (width === 0) return [];
  if (row.node === undefined) return [seg(' '.repeat(width + 1))];
  return [nodeSeg(row.node, pad(terminalSafe(text(row.node)), width)), seg(' ')];
}

/** The prefix of a continuation line: blank, but the actor's bar stays. */
function continuation(prefix: Line, row: TraceRow, rowPrefix: boolean): Line {
  if (row.kind === 'command' && !rowPrefix) {
    const bar: Line = [actorSeg(row.actor, '▏'), seg(' ')];
    const rest = lineWidth(prefix) - lineWidth(bar);
    return rest > 0 ? [...bar, seg(' '.repeat(rest))] : bar;
  }
  return [seg(' '.repeat(lineWidth(prefix)))];
}
