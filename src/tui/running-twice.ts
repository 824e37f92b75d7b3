// The alert a presenter points at: the same job in handle() on two workers at once (seed 001: a
// retry_after shorter than the job lets another worker's migrate put it back and pop it again
// while the first still runs it). Derived from the snapshot's worker statuses only. Pure.
import { terminalSafe } from '../output/terminal-safe.ts';
import type { WorkerState } from '../scenarios/timeline.ts';
import type { Line } from './segments.ts';
import { kept, seg } from './segments.ts';

export interface RunningTwice {
  job: string;
  runs: Array<{ worker: string; attempt: number }>;
}

/** Jobs whose handle() is running on more than one worker, in the order the workers are listed. */
export function runningTwice(workers: readonly WorkerState[]): RunningTwice[] {
  const byJob = new Map<string, RunningTwice['runs']>();
  for (const w of workers) {
    if (w.status.kind !== 'running') continue;
    const runs = byJob.get(w.status.job) ?? [];
    runs.push({ worker: w.name, attempt: w.status.attempt });
    byJob.set(w.status.job, runs);
  }
  return [...byJob].filter(([, runs]) => runs.length > 1).map(([job, runs]) => ({ job, runs }));
}

/** "GenerateReport#1 is running twice: worker-1 attempt 1, worker-2 attempt 2". */
export function runningTwiceText(r: RunningTwice): string {
  const times = r.runs.length === 2 ? 'twice' : `${r.runs.length} times`;
  return `${r.job} is running ${times}: ${r.runs.map((x) => `${x.worker} attempt ${x.attempt}`).join(', ')}`;
}

/**
 * The state pane's top lines, pinned above what scrolls (StatePane) for as long as both runs
 * last: `!!` marks them without colour too. Narrow (80 columns), the short
 * form: the workers below say which attempts; the narration has the whole sentence.
 */
export function runningTwiceLines(workers: readonly WorkerState[], width: number): Line[] {
  return runningTwice(workers).map((r): Line => {
    const text =
      width >= 60 ? runningTwiceText(r) : `${r.job} running ${r.runs.length === 2 ? 'twice' : `${r.runs.length}×`}`;
    // Inverse and bold (white on red in colour): a red `!!` in yellow text is lost on a projector.
    return [kept('!! ', 'alert'), seg(terminalSafe(text), 'alert')];
  });
}
