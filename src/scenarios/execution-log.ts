// How many times each job's handle() started, as of every step, without a copy per step: a run of
// N jobs has ~3N steps, and a full record in each would cost O(N²) memory. Executions are logged
// once, as they happen; a step's `state.executions` is an enumerable getter that counts the log up
// to that step, so it reads (and serialises, and structuredClones) as the plain record it was.
import type { JobInstance, StateSnapshot } from './timeline.ts';
import { JobRegistry } from '../sim/registry.ts';

/**
 * A step's state whose `executions` is an own, enumerable getter reading the log (so the state
 * reads, serialises and structuredClones as the plain record it was). One getter function for
 * every state, reading the log and the step from private fields: V8 keeps such objects in one
 * shape, where a getter of each object's own (a closure, or a literal's `get`) turns each into a
 * dictionary four times its size, and a day-long lab wait keeps 28,800 of them.
 */
class LoggedState implements StateSnapshot {
  readonly t: number;
  readonly queues: StateSnapshot['queues'];
  readonly workers: StateSnapshot['workers'];
  readonly failed: StateSnapshot['failed'];
  declare readonly executions: Record<string, number>;
  declare readonly cache?: StateSnapshot['cache'];
  readonly #log: ExecutionLog;
  readonly #index: number;

  static readonly #executions = function (this: LoggedState): Record<string, number> {
    return this.#log.upTo(this.#index);
  };

  constructor(state: Omit<StateSnapshot, 'executions'>, log: ExecutionLog, index: number) {
    this.t = state.t;
    this.queues = state.queues;
    this.workers = state.workers;
    this.failed = state.failed;
    // Only a run whose cache is on Redis has the field (the others' exports stay as they were).
    if (state.cache !== undefined) Object.defineProperty(this, 'cache', { value: state.cache, enumerable: true });
    this.#log = log;
    this.#index = index;
    Object.defineProperty(this, 'executions', { get: LoggedState.#executions, enumerable: true });
  }
}

export class ExecutionLog {
  /** Job labels in the order their handle() started, and the step index each belongs to. */
  private readonly labels: string[] = [];
  private readonly steps: number[] = [];
  private pending = 0;

  record(label: string): void {
    this.labels.push(label);
    this.steps.push(-1);
    this.pending++;
  }

  /** The executions recorded since the last commit belong to step `index`. */
  commit(index: number): void {
    for (let i = this.labels.length - this.pending; i < this.labels.length; i++) this.steps[i] = index;
    this.pending = 0;
  }

  /** job label → executions, for the jobs that ran by the end of step `index` (committed ones). */
  upTo(index: number): Record<string, number> {
    const out: Record<string, number> = {};
    for (let i = 0; i < this.labels.length && this.steps[i] !== -1 && this.steps[i]! <= index; i++) {
      const label = this.labels[i]!;
      out[label] = (out[label] ?? 0) + 1;
    }
    return out;
  }

  /** The state with `executions` reading this log as of step `index` (LoggedState). */
  attach(state: Omit<StateSnapshot, 'executions'>, index: number): StateSnapshot {
    return new LoggedState(state, this, index);
  }

  /** A JobRegistry that logs every execution here as well. */
  registry(): JobRegistry {
    const record = (label: string): void => this.record(label);
    return new (class extends JobRegistry {
      override recordExecution(job: JobInstance): void {
        super.recordExecution(job);
        record(job.label);
      }
    })();
  }
}
