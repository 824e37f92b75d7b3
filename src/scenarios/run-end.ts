// When a run without `until` is over: one rule for the model's runner (runner.ts) and the real-Laravel
// coordinator (src/conformance/real-laravel.ts), so both traces end at the same step.

/** What the rule needs of a worker: the model's WorkerModel and conformance's WorkerProxy both have it. */
export interface WorkerLife {
  readonly spec: { readonly once: boolean };
  /** SIGTERM arrived (Worker::$shouldQuit): it exits after its current job, sleep or BLPOP. */
  readonly shouldQuit: boolean;
  /** Its supervisor returned: the process has exited and will not be restarted. */
  readonly exited: boolean;
  /** A job's handle() is running. */
  busy(): boolean;
  /** The daemon will leave its loop by itself: --stop-when-empty, or --max-jobs reached. */
  stopsByItself(): boolean;
}

/**
 * The worker will exit by itself and has not yet: --once (Worker::runNextJob polls once, BLPOP
 * included, then runs the job or sleeps --sleep, and returns), a daemon told to quit by SIGTERM,
 * one with --stop-when-empty (its next poll finds nothing once the queues are empty), or one that
 * has taken its --max-jobs (it exits after this job, and a supervisor's new process polls once).
 */
export function exitsOnItsOwn(w: WorkerLife): boolean {
  return !w.exited && (w.spec.once || w.shouldQuit || w.stopsByItself());
}

/**
 * The run is over once no entry or worker is still to start, every queue is empty (nothing ready,
 * delayed or reserved), no job's handle() is running, and no worker that will exit on its own is
 * still on its way there (blocked in BLPOP, sleeping --sleep). What is left then is daemon workers
 * polling empty queues: each poll, or each BLPOP that times out after block_for, is followed by
 * another, forever, and none changes anything, so the run ends there rather than at the step limit.
 * Their last BLPOP is shown being issued, not timing out. A scenario that wants more polls sets `until`.
 */
export function runIsOver(s: { pending: number; queuesEmpty: boolean; workers: readonly WorkerLife[] }): boolean {
  return s.pending === 0 && s.queuesEmpty && !s.workers.some((w) => w.busy() || exitsOnItsOwn(w));
}
