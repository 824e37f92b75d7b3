// supervisord running a `queue:work` program: a new process after a kill (autorestart) and after a
// --max-jobs/--max-time exit (restartsAfterExit), and a restart under way (supervisorctl restart,
// a stop entry's `restart`) that starts the program again with changed options however its process
// ended. One loop for the model's WorkerModel and conformance's WorkerProxy (real Laravel), so the
// two restart by the same rule; each says what a process is and what starting one again shows.
import type { ActorContext } from './scheduler.ts';
import type { ExitReason, RestartOptions } from './worker-input.ts';
import { restartsAfterExit } from './worker-input.ts';

/** How a process ended: SIGKILL (the alarm's Worker::kill), or why queue:work returned (null: not known). */
export type ProcessEnd = { killed: true } | { killed: false; reason: ExitReason | null };

/** The program supervisord runs: a worker's processes. */
export interface Program {
  /** The worker's `restart` (supervisord's autorestart). */
  autorestart(): boolean;
  /** SIGTERM was sent to the running process (Worker::$shouldQuit): no autorestart after a kill. */
  shouldQuit(): boolean;
  /** Runs one process from its start to its end. */
  runProcess(ctx: ActorContext): Promise<ProcessEnd>;
  /**
   * supervisord starts the program again: `changed` is a restart under way's options, to start the
   * new process with (null: the same); `ended` how the last process ended (null: killed from outside).
   */
  startAgain(ctx: ActorContext, ended: ProcessEnd | null, changed: RestartOptions | null): Promise<void>;
}

export class Supervisor {
  /** The supervisor has returned: the process exited and will not be restarted. */
  exited = false;
  /** The supervisor's coroutine (null: none runs). */
  private ctx: ActorContext | null = null;
  /** A restart under way: the options the next process starts with once this one has ended. */
  private restartOptions: RestartOptions | null = null;

  constructor(private readonly program: Program) {}

  /** A restart under way (the caller sends the SIGTERM): later changes add to earlier ones. */
  restartWith(changed: RestartOptions): void {
    this.restartOptions = { ...(this.restartOptions ?? {}), ...changed };
  }

  /** Whether a process runs under this supervisor. */
  running(): boolean {
    return this.ctx !== null;
  }

  /** SIGKILL from outside: the supervisor's coroutine is dropped where it waits; restartAfterKill may start another. */
  async abandon(): Promise<void> {
    const ctx = this.ctx;
    if (ctx === null) return;
    await ctx.abandon();
    this.ctx = null;
    this.exited = true;
  }

  /** supervisord's autorestart, unless the process was asked to stop (SIGTERM) before it died; or a restart under way. */
  restartsAfterKill(): boolean {
    return this.restartOptions !== null || (this.program.autorestart() && !this.program.shouldQuit());
  }

  /** After a kill from outside: a new process (autorestart, or a restart under way), supervised on `ctx`. */
  async restartAfterKill(ctx: ActorContext): Promise<void> {
    await this.program.startAgain(ctx, null, this.takeRestartOptions());
    await this.supervise(ctx);
  }

  /** Runs processes until one ends for good. */
  async supervise(ctx: ActorContext): Promise<void> {
    this.ctx = ctx;
    this.exited = false;
    try {
      for (;;) {
        const ended = await this.program.runProcess(ctx);
        const reason = ended.killed ? null : ended.reason;
        // A restart under way starts the program again however the process ended.
        const underWay = this.restartOptions !== null && (ended.killed || reason === 'SIGTERM');
        const restarts =
          underWay ||
          (ended.killed ? this.restartsAfterKill() : restartsAfterExit(reason ?? '--once', this.program.autorestart()));
        if (!restarts) return;
        await this.program.startAgain(ctx, ended, this.takeRestartOptions());
      }
    } finally {
      this.exited = true;
    }
  }

  private takeRestartOptions(): RestartOptions | null {
    const changed = this.restartOptions;
    this.restartOptions = null;
    return changed;
  }
}
