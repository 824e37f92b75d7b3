// What the model knows beyond Redis: the dispatched job instances (by payload id), how often each
// ran, and the failed_jobs table (Laravel keeps it in SQL, not in Redis).
import type { JobException } from './exceptions.ts';
import type { FailedJob, JobInstance } from './state.ts';

/** What killed a worker process: its own --timeout alarm (Worker::kill), or SIGKILL from outside. */
export type KillCause = 'alarm' | 'outside';

export class JobRegistry {
  private readonly byId = new Map<string, JobInstance>();
  /** Every instance in dispatch order; live (outcomes and counts change as the run goes). */
  readonly list: JobInstance[] = [];
  private readonly counters = new Map<string, number>();
  readonly failed: FailedJob[] = [];
  private failedCopy: FailedJob[] | null = null;

  add(instance: Omit<JobInstance, 'label' | 'outcome' | 'executions'> & { baseName: string }): JobInstance {
    const n = (this.counters.get(instance.baseName) ?? 0) + 1;
    this.counters.set(instance.baseName, n);
    // A literal with every field, in the order exports print them: V8 gives all of them one shape.
    // Spread from a rest object gave each record a hidden class of its own (~360 bytes apiece,
    // 36 MB at 100,000 jobs: bench section 4's peak).
    const job: JobInstance = {
      id: instance.id,
      class: instance.class,
      dispatchedAt: instance.dispatchedAt,
      queue: instance.queue,
      connection: instance.connection,
      label: `${instance.baseName}#${n}`,
      outcome: 'pending',
      executions: 0,
    };
    this.byId.set(job.id, job);
    this.list.push(job);
    return job;
  }

  get(id: string): JobInstance | undefined {
    return this.byId.get(id);
  }

  /** Label of the job a payload belongs to, or null for a payload the model did not create. */
  labelOfPayload(raw: string): { job: string | null; attempts: number | null } {
    try {
      const p = JSON.parse(raw) as { id?: unknown; attempts?: unknown };
      const job = typeof p.id === 'string' ? (this.byId.get(p.id)?.label ?? null) : null;
      return { job, attempts: typeof p.attempts === 'number' ? p.attempts : null };
    } catch {
      return { job: null, attempts: null };
    }
  }

  /** The failed_jobs table as it is now; the same array until a job fails again. */
  failedSnapshot(): FailedJob[] {
    this.failedCopy ??= this.failed.slice();
    return this.failedCopy;
  }

  /** The job's handle() starts (Job::fire). */
  recordExecution(job: JobInstance): void {
    job.executions += 1;
  }

  /** Payload id → the worker whose handle() of it started and has not ended. */
  private readonly running = new Map<string, string>();
  /** Payload ids whose last handle() a kill ended, and which kill: the --timeout alarm or from outside. */
  private readonly killed = new Map<string, KillCause>();

  /** A worker's handle() of the job starts (Job::fire): it counts as an execution. */
  attemptStarted(id: string, worker: string): void {
    const job = this.byId.get(id);
    if (job) this.recordExecution(job);
    this.running.set(id, worker);
    this.killed.delete(id);
  }

  /** That handle() returned or threw. */
  attemptEnded(id: string): void {
    this.running.delete(id);
  }

  /** The process of `worker` was killed (Worker::kill on the alarm, or from outside): its handle() ended there. */
  killedOn(worker: string, cause: KillCause): void {
    for (const [id, w] of this.running) {
      if (w !== worker) continue;
      this.running.delete(id);
      this.killed.set(id, cause);
    }
  }

  /** How the job's last attempt is going: still running on a worker, killed (and how), or neither. */
  lastAttempt(id: string): { runningOn: string } | { killed: KillCause } | null {
    const worker = this.running.get(id);
    if (worker !== undefined) return { runningOn: worker };
    const cause = this.killed.get(id);
    return cause === undefined ? null : { killed: cause };
  }

  recordFailure(
    job: JobInstance | undefined,
    f: { id: string; connection: string; queue: string; exception: JobException; failedAt: number; payload: string },
  ) {
    if (job) job.outcome = 'failed';
    this.failedCopy = null;
    this.failed.push({
      job: job?.label ?? f.id,
      id: f.id,
      connection: f.connection,
      queue: f.queue,
      exception: f.exception.className,
      message: f.exception.message,
      failedAt: f.failedAt,
      payload: f.payload,
    });
  }
}
