// What a worker is given: queue:work's options, the world it runs in, and what each attempt of a
// job does. The model's own types: the scenario format (src/scenarios/schema.ts) is checked
// against them where the runner builds a WorkerModel, not imported here.
import type { Dispatcher } from './dispatcher.ts';
import type { LaravelProfile } from './profiles/types.ts';
import type { ConnectionFactory } from './redis-port.ts';
import type { QueueConfig } from './redis-queue.ts';
import type { JobRegistry } from './registry.ts';

/** `php artisan queue:work <connection>` with its options (Illuminate\Queue\WorkerOptions), and its supervisor. */
export interface WorkerOptions {
  /** The actor's name (worker-1...). */
  name: string;
  /** The queue connection, a key of config/queue.php's connections. */
  connection: string;
  /** --queue=high,default; the connection's queue when absent. */
  queue?: string;
  /** --tries (0: unlimited). */
  tries: number;
  /** --timeout (0: no alarm). */
  timeout: number;
  /** --sleep when no job is available. */
  sleep: number;
  /** --delay (--backoff in 8.x) before a job that threw is retried. */
  delay: number;
  /** --once: runNextJob instead of daemon. */
  once: boolean;
  /** Virtual second at which the process starts. */
  start: number;
  /** A supervisor restarts the process after the alarm kills it. */
  restart: boolean;
}

/** What one attempt of a job does: an outcome alone, or handle() running `run` seconds then ending one way. */
export type Attempt =
  | 'succeed'
  | 'fail'
  | 'delete'
  | { run?: number; succeed?: true; throw?: string; release?: number; fail?: true | string; delete?: true };

export interface WorkerEnv {
  profile: LaravelProfile;
  connect: ConnectionFactory;
  /** Queue connection config by name. */
  connections: Record<string, QueueConfig>;
  registry: JobRegistry;
  /** The cache store Worker::setCache gives the workers (7.x+ counts maxExceptions there); shared. */
  cache: Map<string, number>;
  /** Virtual unix time of t=0, for narration. */
  start: number;
  /** Behaviour of attempt N of the job with this payload id. */
  behaviourOf(jobId: string, attempt: number): Attempt;
  /**
   * The Bus dispatcher CallQueuedHandler dispatches the next job of a chain with, and config
   * queue.default, the connection a job without one goes to. Absent: no job carries a chain.
   */
  bus?: { dispatcher: Dispatcher; defaultConnection: string };
}

/** An attempt as the worker plays it: handle() runs `run` virtual seconds, then ends with `outcome`. */
export interface AttemptBehaviour {
  run: number;
  outcome: 'succeed' | 'throw' | 'release' | 'fail' | 'delete';
  /** The exception's message (throw; fail with a message). */
  message?: string;
  /** The seconds of $this->release(N). */
  release?: number;
}

/** The behaviour an attempt describes: a bare outcome runs 0s; an object has at most one outcome (succeed if none). */
export function attemptBehaviour(a: Attempt): AttemptBehaviour {
  if (typeof a === 'string') return { run: 0, outcome: a };
  const run = a.run ?? 0;
  if (a.throw !== undefined) return { run, outcome: 'throw', message: a.throw };
  if (a.release !== undefined) return { run, outcome: 'release', release: a.release };
  if (a.fail !== undefined) return { run, outcome: 'fail', message: typeof a.fail === 'string' ? a.fail : undefined };
  if (a.delete !== undefined) return { run, outcome: 'delete' };
  return { run, outcome: 'succeed' };
}
