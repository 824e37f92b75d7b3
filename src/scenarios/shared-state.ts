// A kept step's state shares what has not changed since the step before: the queues, and each
// worker's state, are the previous step's objects when they are equal to them. Most steps of a
// long run change little (a day of a worker polling an empty queue: 28,800 steps, none changing
// the queue and each changing one worker's `until`), and a step is never changed once made.
import type { ListEntry, QueueState, WorkerState, ZsetEntry } from './timeline.ts';

export class SharedState {
  private queues: QueueState[] | null = null;
  private workers: WorkerState[] = [];
  /** Each previous worker state as JSON, to compare the next one with. */
  private workerJson: string[] = [];

  queuesLike(next: QueueState[]): QueueState[] {
    const prev = this.queues;
    if (prev !== null && prev.length === next.length && prev.every((q, i) => sameQueue(q, next[i]!))) return prev;
    this.queues = next;
    return next;
  }

  workersLike(next: WorkerState[]): WorkerState[] {
    let changed = next.length !== this.workers.length;
    const out = next.map((w, i) => {
      const json = JSON.stringify(w);
      if (this.workerJson[i] === json) return this.workers[i]!;
      changed = true;
      this.workerJson[i] = json;
      return w;
    });
    this.workerJson.length = next.length;
    if (!changed) return this.workers;
    this.workers = out;
    return out;
  }
}

function sameQueue(a: QueueState, b: QueueState): boolean {
  return (
    a.name === b.name &&
    a.sizes.ready === b.sizes.ready &&
    a.sizes.delayed === b.sizes.delayed &&
    a.sizes.reserved === b.sizes.reserved &&
    a.sizes.notify === b.sizes.notify &&
    sameEntries(a.ready, b.ready) &&
    sameEntries(a.delayed, b.delayed) &&
    sameEntries(a.reserved, b.reserved)
  );
}

function sameEntries(a: readonly (ListEntry | ZsetEntry)[], b: readonly (ListEntry | ZsetEntry)[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.raw !== y.raw || x.job !== y.job || x.attempts !== y.attempts) return false;
    if ((x as ZsetEntry).score !== (y as ZsetEntry).score) return false;
  }
  return true;
}
