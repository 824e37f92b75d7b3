// The model's own state, as plain data: what a worker is doing, the dispatched job instances, the
// failed_jobs rows, and the kinds of step an actor can take. The timeline (src/scenarios) records
// snapshots of these; the model never reads the timeline.

/** The kinds of step an actor's activation can be (a scenario note may attach to one by kind). */
export const STEP_KINDS = [
  'dispatch',
  'size',
  'pop',
  'block',
  'process',
  'delete',
  'release',
  'fail',
  'kill',
  'restart',
  'stop',
  'rest',
  /** A timeline `config` entry: config/queue.php changed (no process runs, nothing is sent). */
  'config',
  /** A `php artisan` command of the app's (queue:restart). */
  'artisan',
] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** Times in a status are exact instants (unix seconds, to the millisecond), as the views show them. */
export type WorkerStatus =
  | { kind: 'starting' }
  /** Worker::sleep: --sleep after an empty poll (why absent), or --rest after a job. */
  | { kind: 'idle'; until?: number; why?: '--rest' | 'pop threw' }
  | { kind: 'polling' }
  /** getNextJob returned a job (reserved with attempts N); Worker::process has not started handle(). */
  | { kind: 'reserved'; job: string; attempt: number }
  /** The job's outcome was sent; the loop goes on: a daemon polls next, a --once worker exits. */
  | { kind: 'done'; job: string }
  | { kind: 'blocked'; queue: string; until: number | null }
  /**
   * The BLPOP was answered (a push served it) and the worker has not run since: 5.6-5.7 hold the
   * popped payload (`job`) only in PHP's memory until their ZADD to :reserved; 5.8+ were woken by
   * a :notify entry (`job` null) and run the pop script next.
   */
  | { kind: 'woken'; queue: string; list: 'ready' | 'notify'; job: string | null }
  /**
   * handle() is running. `ends`: when it returns if nothing interrupts it (the scenario's run
   * time); `alarm`: when SIGALRM fires (--timeout or the job's $timeout), absent if none is armed.
   */
  | { kind: 'running'; job: string; since: number; attempt: number; ends?: number; alarm?: number }
  | { kind: 'killed'; job?: string }
  | { kind: 'stopped'; reason: string };

export interface WorkerState {
  name: string;
  /** How many processes this worker has had (1 + restarts). */
  generation: number;
  status: WorkerStatus;
  connection: string;
  queue: string;
  options: {
    tries: number;
    timeout: number;
    sleep: number;
    delay: number;
    once: boolean;
    /** --backoff as queue:work is given it ("1,5,10"); absent: --delay's. */
    backoff?: string;
    stopWhenEmpty?: boolean;
    maxJobs?: number;
    maxTime?: number;
    rest?: number;
  };
  retryAfter: number | null;
  blockFor: number | null;
}

/**
 * A copy of a worker's state that later changes to the worker do not reach (a step keeps one per
 * worker). Its nested objects, `status` and `options`, are flat, so one level of copying is a deep
 * copy, at well under a tenth of structuredClone's cost (paid once per worker per step).
 */
export function copyWorkerState(s: WorkerState): WorkerState {
  return { ...s, status: { ...s.status }, options: { ...s.options } };
}

export interface FailedJob {
  job: string;
  id: string;
  connection: string;
  queue: string;
  exception: string;
  message: string;
  /** failed_jobs.failed_at: Laravel's Date::now(), whole unix seconds. */
  failedAt: number;
  /** The payload Laravel logs to failed_jobs (the reserved copy). */
  payload: string;
}

export interface JobInstance {
  label: string;
  id: string;
  class: string;
  /** The instant of the dispatch (to the millisecond). */
  dispatchedAt: number;
  queue: string;
  connection: string;
  /** not-queued: its push threw in the dispatcher (a Redis Cluster client refusing the script). */
  outcome: 'pending' | 'succeeded' | 'failed' | 'deleted' | 'not-queued';
  executions: number;
}
