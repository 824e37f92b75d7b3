// Where each step's rows sit in the whole trace, without building them: a step has a header row
// and one row per command, so the trace's row numbers (what ↑/↓ move through, what "line 12/30"
// counts) are a running sum; and the widths of the time and actor columns (the widest of every
// row so far, as the whole trace laid out would have them). Kept per steps array, which a run
// only ever appends to, and extended as it grows: a few numbers per step, no rows.
import type { Step } from '../scenarios/timeline.ts';
import type { TraceWidths } from './trace-lines.ts';
import { rowWidths } from './trace-lines.ts';

export interface TraceIndex {
  /** Rows of steps 0..upTo. */
  rows(upTo: number): number;
  /** The row number of step's header. */
  firstRow(step: number): number;
  /** The step and command (null: its header) of a row number. */
  rowAt(row: number): { step: number; command: number | null };
  /** The prefix's columns' widths (time, actor, a cluster's node) for the rows of steps 0..upTo. */
  widths(upTo: number): TraceWidths;
}

class StepIndex implements TraceIndex {
  /** first[s]: the row number of step s's header; first[count]: every row counted. */
  private first = new Int32Array(1024);
  private time = new Uint16Array(1024);
  private actor = new Uint16Array(1024);
  /** A cluster's node column: its tag (narrow panes), its node and slot (wide); 0 on a single server. */
  private tag = new Uint16Array(1024);
  private node = new Uint16Array(1024);
  private count = 0;
  private last: Step | undefined;
  private readonly actorWidths = new Map<string, number>();
  private readonly nodeWidths = new Map<string, { tag: number; node: number }>();

  constructor(readonly start: number) {}

  /** Whether this index was built from `steps` as they are (a run appends; it never rewrites). */
  fits(steps: readonly Step[]): boolean {
    return this.count <= steps.length && (this.count === 0 || steps[this.count - 1] === this.last);
  }

  extend(steps: readonly Step[]): void {
    if (steps.length + 1 > this.first.length) this.grow(Math.max(steps.length + 1, this.first.length * 2));
    for (let s = this.count; s < steps.length; s++) {
      const step = steps[s]!;
      this.first[s + 1] = this.first[s]! + 1 + step.commands.length;
      let time = s === 0 ? 0 : this.time[s - 1]!;
      let actor = s === 0 ? 0 : this.actor[s - 1]!;
      let tag = s === 0 ? 0 : this.tag[s - 1]!;
      let node = s === 0 ? 0 : this.node[s - 1]!;
      let t = NaN;
      const widen = (rowT: number, rowActor: string): void => {
        // A step's commands share a few instants: the width of one is worked out once.
        if (rowT !== t) {
          t = rowT;
          time = Math.max(time, rowWidths(rowT, '', this.start).time);
        }
        actor = Math.max(actor, this.actorWidth(rowActor));
      };
      widen(step.t, step.actor);
      for (const c of step.commands) {
        widen(c.t, c.actor);
        if (c.node !== undefined) {
          const w = this.nodeWidth(c.node, c.slot);
          tag = Math.max(tag, w.tag);
          node = Math.max(node, w.node);
        }
      }
      this.time[s] = time;
      this.actor[s] = actor;
      this.tag[s] = tag;
      this.node[s] = node;
    }
    this.count = steps.length;
    this.last = steps[steps.length - 1];
  }

  rows(upTo: number): number {
    return this.first[this.clamp(upTo) + 1]!;
  }

  firstRow(step: number): number {
    return this.first[this.clamp(step)]!;
  }

  rowAt(row: number): { step: number; command: number | null } {
    // The last step whose header is at or before `row`.
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.first[mid]! <= row) lo = mid;
      else hi = mid - 1;
    }
    const k = row - this.first[lo]!;
    return { step: lo, command: k === 0 ? null : k - 1 };
  }

  widths(upTo: number): TraceWidths {
    const s = this.clamp(upTo);
    return { time: this.time[s]!, actor: this.actor[s]!, tag: this.tag[s]!, node: this.node[s]! };
  }

  private clamp(step: number): number {
    return Math.max(0, Math.min(step, this.count - 1));
  }

  private actorWidth(actor: string): number {
    let w = this.actorWidths.get(actor);
    if (w === undefined) {
      w = rowWidths(0, actor, 0).actor;
      this.actorWidths.set(actor, w);
    }
    return w;
  }

  /** A cluster command's node columns: a few nodes and slots per run, each worked out once. */
  private nodeWidth(node: string, slot: number | undefined): { tag: number; node: number } {
    const key = `${node} ${slot ?? ''}`;
    let w = this.nodeWidths.get(key);
    if (w === undefined) {
      w = rowWidths(0, '', 0, { node, ...(slot === undefined ? {} : { slot }) });
      this.nodeWidths.set(key, w);
    }
    return w;
  }

  private grow(size: number): void {
    const first = new Int32Array(size);
    first.set(this.first);
    const time = new Uint16Array(size);
    time.set(this.time);
    const actor = new Uint16Array(size);
    actor.set(this.actor);
    const tag = new Uint16Array(size);
    tag.set(this.tag);
    const node = new Uint16Array(size);
    node.set(this.node);
    this.first = first;
    this.time = time;
    this.actor = actor;
    this.tag = tag;
    this.node = node;
  }
}

const indexes = new WeakMap<readonly Step[], StepIndex>();

/** The index of `steps` as they are now, for a run that started at `start`. */
export function traceIndex(steps: readonly Step[], start: number): TraceIndex {
  let index = indexes.get(steps);
  if (index === undefined || index.start !== start || !index.fits(steps)) {
    index = new StepIndex(start);
    indexes.set(steps, index);
  }
  index.extend(steps);
  return index;
}
