// What a worker is given: queue:work's options, the world it runs in, and what each attempt of a
// job does. The model's own types: the scenario format (src/scenarios/schema.ts) is checked
// against them where the runner builds a WorkerModel, not imported here.
import type { Dispatcher } from './dispatcher.ts';
import type { LaravelProfile } from './profiles/types.ts';
import type { ConnectionFactory } from './redis-port.ts';
import type { QueueConfig } from './redis-queue.ts';
import type { JobRegistry } from './registry.ts';
import type { Cache, LockBook, ProcessRedis } from './cache.ts';
import type { JobClassRules } from './job-middleware.ts';

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
  /** --delay before a job that threw is retried (5.x; deprecated in 8.x, where it counts as --backoff). */
  delay: number;
  /** --backoff=1,5,10 (8.x): seconds per attempt, or one for all; unset: --delay's. */
  backoff?: number | number[];
  /** --once: runNextJob instead of daemon. */
  once: boolean;
  /** --stop-when-empty (5.7.2+): exit after a loop whose pop found nothing. */
  stopWhenEmpty?: boolean;
  /** --max-jobs (8.x; 0: no limit): exit after this many jobs. */
  maxJobs?: number;
  /** --max-time (8.x; 0: no limit): exit after a loop that ends this many seconds after the start. */
  maxTime?: number;
  /** --rest (8.32+; 0: none): Worker::sleep after each job. */
  rest?: number;
  /** Virtual second at which the process starts. */
  start: number;
  /** A supervisor restarts the process after a kill, and after a clean exit by --max-jobs or --max-time. */
  restart: boolean;
}

/**
 * The queue:work options a restart may change (supervisorctl restart after editing the program's
 * command line): the rest, and the connection, stay the worker's.
 */
export type RestartOptions = Partial<
  Pick<WorkerOptions, 'queue' | 'tries' | 'timeout' | 'sleep' | 'delay' | 'backoff'>
>;

/**
 * The options of the process a restart starts: the old ones with `changed` given; a retry delay
 * given (--delay or --backoff) replaces the other kind, which queue:work would take the max of.
 */
export function restartedOptions<T extends { delay: number; backoff?: number | number[] }>(
  old: T,
  changed: RestartOptions,
): T {
  const next = { ...old, ...changed };
  if (changed.delay !== undefined && changed.backoff === undefined) delete next.backoff;
  if (changed.backoff !== undefined && changed.delay === undefined) next.delay = 0;
  return next;
}

/** Why Worker::stop ended a daemon, by the check that stopped it, or how --once / SIGTERM ended it. */
export type ExitReason = 'SIGTERM' | '--once' | '--stop-when-empty' | '--max-time' | '--max-jobs' | 'queue:restart';

/**
 * Whether supervisord starts a new process after a process that exited cleanly (status 0). Laravel's
 * docs configure `autorestart=true`, which restarts any exit: that is the point of --max-jobs and
 * --max-time (a fresh process, its memory returned), so those restart when the worker's `restart`
 * is on. A SIGTERM comes from supervisorctl stop (or a deploy), which also stops the restarting.
 * queue:restart (the restart signal) is the same: a deploy's `php artisan queue:restart` relies on
 * autorestart for the new code. --once and --stop-when-empty run once to drain a queue (a cron entry, a Kubernetes Job, a CI
 * step), not under autorestart: restarted, a --stop-when-empty worker would poll the empty queue,
 * sleep and exit, forever. So those exits are final.
 */
export function restartsAfterExit(reason: ExitReason, restart: boolean): boolean {
  return restart && (reason === '--max-jobs' || reason === '--max-time' || reason === 'queue:restart');
}

/** WorkerOptions::$backoff as queue:work builds it, `max(--backoff, --delay)`: "1,5,10", or --delay's seconds. */
export function backoffOption(o: Pick<WorkerOptions, 'backoff' | 'delay'>): string {
  return o.backoff === undefined ? String(o.delay) : [o.backoff].flat().join(',');
}

/** What one attempt of a job does: an outcome alone, or handle() running `run` seconds then ending one way. */
export type Attempt =
  | 'succeed'
  | 'fail'
  | 'delete'
  | {
      run?: number;
      succeed?: true;
      throw?: string;
      release?: number;
      fail?: true | string;
      delete?: true;
      /** The class thrown (throw) or given to $this->fail() (fail); Exception by default. */
      exception?: string;
    };

export interface WorkerEnv {
  profile: LaravelProfile;
  connect: ConnectionFactory;
  /**
   * Queue connection config by name, as config/queue.php reads now: each worker process reads it
   * when it starts and keeps what it read (a `config` entry replaces an entry for later processes).
   */
  connections: Record<string, QueueConfig>;
  registry: JobRegistry;
  /**
   * The cache store Worker::setCache gives a worker process (the restart signal, 7.x+ maxExceptions),
   * on that process's Redis connections when it is Redis.
   */
  cacheFor(redis: ProcessRedis): Cache;
  /** The job class's middleware() and ShouldBeUnique, by payload id. */
  jobRulesOf(jobId: string): JobClassRules;
  /** The locks held in the cache: who holds one a job is refused (narration). */
  locks: LockBook;
  /** hash() of a job's name for ThrottlesExceptions' default key (the profile's: md5 or xxh128). */
  hashJobName(name: string): Promise<string>;
  /**
   * The restart signal the last `php artisan queue:restart` of the run wrote (null: none yet): a
   * daemon that read another is on its way out (the end-of-run rule waits for it).
   */
  restartSignal: { value: string | null };
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
  /** The exception's class (throw; fail with a message or a class). */
  exception?: string;
  /** The seconds of $this->release(N). */
  release?: number;
}

/** The behaviour an attempt describes: a bare outcome runs 0s; an object has at most one outcome (succeed if none). */
export function attemptBehaviour(a: Attempt): AttemptBehaviour {
  if (typeof a === 'string') return { run: 0, outcome: a };
  const run = a.run ?? 0;
  const exception = a.exception;
  if (a.throw !== undefined) return { run, outcome: 'throw', message: a.throw, exception };
  if (a.release !== undefined) return { run, outcome: 'release', release: a.release };
  if (a.fail !== undefined) {
    const message = typeof a.fail === 'string' ? a.fail : exception !== undefined ? '' : undefined;
    return { run, outcome: 'fail', message, exception };
  }
  if (a.delete !== undefined) return { run, outcome: 'delete' };
  return { run, outcome: 'succeed' };
}
