// Whether a worker went on after a moment of the capture, read only from what a Laravel worker
// sends for itself: its queue commands (a poll's migrates and pop, a delete, a release) and a
// process's start (phpredis' SELECT as it connects, a CLIENT SETNAME). Any other command on its
// address proves nothing: a job using the Redis facade sends commands there while it runs, and a
// later process can reuse the address (its start says so). Bounded: a few recent commands per
// address, and the moments still waiting for the next one.
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
  if (args[0]?.toLowerCase() === 'client' && args[1]?.toLowerCase() === 'setname') return 'start';
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

export class Liveness {
  private readonly recent = new Map<string, Next[]>();
  private readonly waiting = new Map<string, Watch[]>();
  // Queue commands since each address's last process start.
  private readonly sinceStart = new Map<string, number>();
  /** MONITOR's time of the last command heard: when the capture ends. */
  lastT = -Infinity;

  heard(actor: string, line: number, what: Heard, t: number): void {
    if (Number.isFinite(t)) this.lastT = Math.max(this.lastT, t);
    if (what === 'other') return;
    this.sinceStart.set(actor, what === 'start' ? 0 : (this.sinceStart.get(actor) ?? 0) + 1);
    const next: Next = { what, line, t };
    const waiting = this.waiting.get(actor);
    if (waiting !== undefined) {
      for (const w of waiting) if (line > w.line && w.next === undefined) w.next = next;
      const still = waiting.filter((w) => w.next === undefined);
      if (still.length === 0) this.waiting.delete(actor);
      else this.waiting.set(actor, still);
    }
    const list = this.recent.get(actor) ?? [];
    list.push(next);
    if (list.length > RECENT) list.shift();
    this.recent.set(actor, list);
  }

  /** How many queue commands the address has sent since its process started. */
  queueSinceStart(actor: string): number {
    return this.sinceStart.get(actor) ?? 0;
  }

  /** The first queue command or start of `actor` after `line` (now, if already heard; else when it comes). */
  watch(actor: string, line: number): Watch {
    const w: Watch = { actor, line };
    const heard = this.recent.get(actor)?.find((n) => n.line > line);
    if (heard !== undefined) w.next = heard;
    else this.waiting.set(actor, [...(this.waiting.get(actor) ?? []), w]);
    return w;
  }
}
