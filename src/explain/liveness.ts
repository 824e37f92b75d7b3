// Whether a worker went on after a moment of the capture, read only from what a Laravel worker
// sends for itself: its queue commands (a poll's migrates and pop, a delete, a release) and a
// process's start (phpredis' SELECT as it connects, a CLIENT SETNAME). Any other command on its
// address proves nothing: a job using the Redis facade sends commands there while it runs, and a
// later process can reuse the address (its start says so). Bounded: a few recent commands per
// address, and the moments still waiting for the next one.
import { commandName } from '../sim/command-name.ts';
import type { Operation } from './recognise.ts';

/** What one command tells of its sender's process. */
export type Heard = 'queue' | 'start' | 'other';

const QUEUE: ReadonlySet<Operation> = new Set([
  'migrate delayed',
  'migrate reserved',
  'pop',
  'block',
  'reserve',
  'delete',
  'release',
]);

export function heardOf(op: Operation | undefined, args: readonly string[]): Heard {
  if (op !== undefined && QUEUE.has(op)) return 'queue';
  if (op === 'select') return 'start';
  if (args.length >= 2 && commandName(args[0]!) === 'CLIENT' && commandName(args[1]!) === 'SETNAME') return 'start';
  return 'other';
}

/** What came next from an address after a moment: a queue command (the process went on) or a start (a new process). */
export interface Next {
  what: 'queue' | 'start';
  line: number;
  t: number;
}

/** A moment whose sequel is awaited: `next` is set by the first queue command or start after it. */
export interface Watch {
  actor: string;
  line: number;
  next?: Next;
}

/** The steps of a capture are closed a little after their lines are read: this many recent commands per address cover it. */
const RECENT = 4;
const WHAT: ReadonlyArray<Next['what']> = ['queue', 'start'];

/**
 * Per address, in columns (a real capture has an address per request and per `--once` worker,
 * 63,532 in the bench's 200 MB): its slot, and in typed arrays its last RECENT queue commands or
 * starts (line, time, what: a ring) and its queue commands since its process started. An object
 * per command heard was 4 objects and an array per address, kept to the end.
 */
class Recent {
  private readonly slots = new Map<string, number>();
  private lines = new Int32Array(RECENT * 1024);
  private times = new Float64Array(RECENT * 1024);
  private whats = new Uint8Array(RECENT * 1024);
  /** How many are kept (up to RECENT), and where the next goes. */
  private counts = new Uint8Array(1024);
  private sinceStart = new Int32Array(1024);

  add(actor: string, what: Next['what'], line: number, t: number): void {
    const slot = this.slotOf(actor);
    const count = this.counts[slot]!;
    // The ring's oldest goes first: kept in order by shifting (RECENT is tiny).
    const base = slot * RECENT;
    if (count === RECENT) {
      this.lines.copyWithin(base, base + 1, base + RECENT);
      this.times.copyWithin(base, base + 1, base + RECENT);
      this.whats.copyWithin(base, base + 1, base + RECENT);
    } else this.counts[slot] = count + 1;
    const at = base + Math.min(count, RECENT - 1);
    this.lines[at] = line;
    this.times[at] = t;
    this.whats[at] = what === 'queue' ? 0 : 1;
    this.sinceStart[slot] = what === 'start' ? 0 : this.sinceStart[slot]! + 1;
  }

  /** The first kept after `line`, or undefined. */
  after(actor: string, line: number): Next | undefined {
    const slot = this.slots.get(actor);
    if (slot === undefined) return undefined;
    const base = slot * RECENT;
    for (let k = 0; k < this.counts[slot]!; k++)
      if (this.lines[base + k]! > line)
        return { what: WHAT[this.whats[base + k]!]!, line: this.lines[base + k]!, t: this.times[base + k]! };
    return undefined;
  }

  queueSinceStart(actor: string): number {
    const slot = this.slots.get(actor);
    return slot === undefined ? 0 : this.sinceStart[slot]!;
  }

  private slotOf(actor: string): number {
    let slot = this.slots.get(actor);
    if (slot !== undefined) return slot;
    slot = this.slots.size;
    this.slots.set(actor, slot);
    if (slot === this.counts.length) this.grow();
    return slot;
  }

  private grow(): void {
    const size = this.counts.length * 2;
    const bigger = <T extends Int32Array | Float64Array | Uint8Array>(a: T, n: number): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.lines = bigger(this.lines, size * RECENT);
    this.times = bigger(this.times, size * RECENT);
    this.whats = bigger(this.whats, size * RECENT);
    this.counts = bigger(this.counts, size);
    this.sinceStart = bigger(this.sinceStart, size);
  }
}

export class Liveness {
  private readonly recent = new Recent();
  private readonly waiting = new Map<string, Watch[]>();
  /** MONITOR's time of the last command heard: when the capture ends. */
  lastT = -Infinity;

  heard(actor: string, line: number, what: Heard, t: number): void {
    if (Number.isFinite(t) && t > this.lastT) this.lastT = t;
    if (what === 'other') return;
    const waiting = this.waiting.get(actor);
    if (waiting !== undefined) {
      const next: Next = { what, line, t };
      let still = 0;
      for (const w of waiting) {
        if (line > w.line && w.next === undefined) w.next = next;
        if (w.next === undefined) still++;
      }
      if (still === 0) this.waiting.delete(actor);
      else if (still < waiting.length)
        this.waiting.set(
          actor,
          waiting.filter((w) => w.next === undefined),
        );
    }
    this.recent.add(actor, what, line, t);
  }

  /** How many queue commands the address has sent since its process started. */
  queueSinceStart(actor: string): number {
    return this.recent.queueSinceStart(actor);
  }

  /** The first queue command or start of `actor` after `line` (now, if already heard; else when it comes). */
  watch(actor: string, line: number): Watch {
    const w: Watch = { actor, line };
    const heard = this.recent.after(actor, line);
    if (heard !== undefined) w.next = heard;
    else {
      const list = this.waiting.get(actor);
      if (list === undefined) this.waiting.set(actor, [w]);
      else list.push(w);
    }
    return w;
  }
}
