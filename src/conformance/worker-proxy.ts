// A `queue:work` process of real Laravel under supervisord, driven on the virtual clock: see
// real-laravel.ts for the whole picture and conformance/laravel/README.md for what is Laravel's.
import { isBlocked } from '../redis/port.ts';
import type { ScenarioSpec, WorkerSpec } from '../scenarios/schema.ts';
import type { ActorContext, BlockingOp } from '../sim/scheduler.ts';
import { interruptibleSleep } from '../sim/scheduler.ts';
import { later, secondsBetween } from '../sim/clock.ts';
import type { Answer, PhpActor, Yield } from './php-actor.ts';
import { clockAnswer } from './php-actor.ts';
import { getProfile } from '../sim/profiles/index.ts';
import { CONFORMANCE_PROFILE } from './profile.ts';
import type { ProcessEnd } from '../sim/supervisor.ts';
import { Supervisor } from '../sim/supervisor.ts';
import type { ExitReason, RestartOptions } from '../sim/worker-input.ts';
import { backoffOption, restartedOptions } from '../sim/worker-input.ts';
import type { AddressBook, KnownConnection } from './address-book.ts';

export interface WorkerEnv {
  defaultConnection: string;
  /** config/queue.php's connections as they read now (a process reads them when it starts). */
  connections(): ScenarioSpec['connections'];
  startActor(actor: string, role: Record<string, unknown>): Promise<{ php: PhpActor; name: string }>;
  nextYield(php: PhpActor, name: string): Promise<Yield>;
  book: AddressBook;
  /** The next uuid of the model's stream (a chain's next job, pushed by this worker). */
  uuid(): string;
  /** The restart signal `php artisan queue:restart` last wrote (null: never): the model's restartSignal. */
  restartSignal(): string | null;
}

/**
 * A `queue:work` process under supervisord, for real: the coordinator answers each of Laravel's
 * waits on the virtual clock, raises SIGALRM when the alarm Laravel armed is due, delivers
 * SIGTERM for a stop entry, and restarts the process after a kill, as the model's supervisor does.
 */
export class WorkerProxy {
  /** SIGTERM was sent (the end-of-run rule, src/scenarios/run-end.ts, asks, as it asks the model). */
  shouldQuit = false;
  /** The supervisor has returned: the process exited and will not be restarted. */
  get exited(): boolean {
    return this.supervisor.exited;
  }
  /** The model's "busy": a job's handle() is running (Worker::process until it returns). */
  private handling = false;
  private termPending = false;
  private wake: (() => void) | null = null;
  /** supervisord, running the program's processes: the model's loop (src/sim/supervisor.ts). */
  private readonly supervisor = new Supervisor({
    autorestart: () => this.spec.restart,
    shouldQuit: () => this.shouldQuit,
    runProcess: (ctx) => this.runProcess(ctx),
    startAgain: (ctx, _ended, changed) => this.startAgain(ctx, changed),
  });
  /** The running PHP process (null: none). */
  private php: PhpActor | null = null;
  /** Jobs the running process has taken (each JobProcessing), as Worker::daemon's $jobsProcessed. */
  private jobsProcessed = 0;
  /** The block_for the running process read at its start (its BLPOP's timeout). */
  private blockFor = 0;
  /**
   * The restart signal the running daemon read when it started (Worker::daemon's $lastRestart;
   * undefined: no daemon running, or --once, which never reads it), as the model's.
   */
  private lastRestart: string | null | undefined = undefined;

  constructor(
    /** The program's options; a restart with other options replaces them. */
    public spec: WorkerSpec,
    private readonly env: WorkerEnv,
  ) {}

  signalTerm(): void {
    this.shouldQuit = true;
    this.termPending = true;
    this.wake?.();
  }

  /** SIGKILL to the PHP process from outside: it dies where it waits; the coordinator forgets its waits. */
  async killFromOutside(ctx: ActorContext): Promise<boolean> {
    const php = this.php;
    if (php === null || !this.supervisor.running()) {
      ctx.describe({ kind: 'kill', title: `SIGKILL to ${this.spec.name}: nothing to kill` });
      return false;
    }
    // The process first: a wait of the coordinator's cancelled while it lives could let it go on.
    await php.killAndWait();
    await this.supervisor.abandon();
    this.php = null;
    this.lastRestart = undefined;
    this.handling = false;
    ctx.describe({ kind: 'kill', title: `SIGKILL to ${this.spec.name} (from outside)` });
    return true;
  }

  /** SIGTERM, then supervisord starts the program again with `changed` (the model's restartWith). */
  restartWith(changed: RestartOptions): void {
    this.supervisor.restartWith(changed);
    this.signalTerm();
  }

  restartsAfterKill(): boolean {
    return this.supervisor.restartsAfterKill();
  }

  restartAfterKill(ctx: ActorContext): Promise<void> {
    return this.supervisor.restartAfterKill(ctx);
  }

  /**
   * supervisord starts a new process, a step of its own, as the model's: with a restart under
   * way's options (and no SIGTERM pending) when one is.
   */
  private async startAgain(ctx: ActorContext, changed: RestartOptions | null): Promise<void> {
    if (changed !== null) {
      this.spec = restartedOptions(this.spec, changed);
      this.shouldQuit = false;
      this.termPending = false;
    }
    await ctx.sleep(0);
    ctx.describe({ kind: 'restart', title: `supervisor restarts ${this.spec.name}` });
    await ctx.sleep(0);
  }

  busy(): boolean {
    return this.handling;
  }

  /** The model's rule (WorkerModel.stopsByItself): --stop-when-empty, --max-jobs reached, or a new restart signal. */
  stopsByItself(): boolean {
    const maxJobs = this.spec.max_jobs ?? 0;
    return (
      !this.spec.once &&
      (this.spec.stop_when_empty === true || (maxJobs > 0 && this.jobsProcessed >= maxJobs) || this.restartChanged())
    );
  }

  /** Worker::queueShouldRestart: the signal differs from the one the daemon read at its start. */
  private restartChanged(): boolean {
    return this.lastRestart !== undefined && this.lastRestart !== this.env.restartSignal();
  }

  /** As the model's supervisor: a new process after a kill, and after a --max-jobs/--max-time exit (restartsAfterExit). */
  supervise(ctx: ActorContext): Promise<void> {
    return this.supervisor.supervise(ctx);
  }

  /**
   * Why queue:work returned: SIGTERM and --once the coordinator knows; else stopIfNecessary stopped
   * it for --stop-when-empty (the loop popped nothing, as the harness reports), or for --max-time
   * or --max-jobs, which the supervisor treats alike (the label only names the one configured).
   */
  private reasonForExit(idle: boolean | null | undefined): ExitReason {
    if (this.shouldQuit) return 'SIGTERM';
    if (this.spec.once) return '--once';
    // stopIfNecessary's order: $shouldQuit, memory, queueShouldRestart, --stop-when-empty...
    if (this.restartChanged()) return 'queue:restart';
    if (this.spec.stop_when_empty && idle === true) return '--stop-when-empty';
    return this.spec.max_jobs && this.jobsProcessed >= this.spec.max_jobs ? '--max-jobs' : '--max-time';
  }

  /** One queue:work process, start to exit, for the supervisor. */
  private async runProcess(ctx: ActorContext): Promise<ProcessEnd> {
    const name = this.spec.name;
    const connection = this.spec.connection ?? this.env.defaultConnection;
    // startActor gives the process the connections as they read now; it keeps them while it runs.
    this.blockFor = this.env.connections()[connection]?.block_for ?? 0;
    const started = await this.env.startActor(name, {
      role: 'worker',
      connection,
      queue: this.spec.queue ?? null,
      // queue:work's --tries default: the compared profile's.
      tries: this.spec.tries ?? getProfile(CONFORMANCE_PROFILE).worker.defaultTries,
      timeout: this.spec.timeout,
      sleep: this.spec.sleep,
      // WorkerOptions::$backoff as WorkCommand builds it: `max(--backoff, --delay)` (one is 0).
      backoff: backoffOption(this.spec),
      once: this.spec.once,
      stopWhenEmpty: this.spec.stop_when_empty ?? false,
      maxJobs: this.spec.max_jobs ?? 0,
      maxTime: this.spec.max_time ?? 0,
      rest: this.spec.rest ?? 0,
    });
    const { php } = started;
    this.php = php;
    this.jobsProcessed = 0;
    // Worker::daemon reads the signal before its loop, in the step the process starts with.
    this.lastRestart = this.spec.once ? undefined : this.env.restartSignal();
    let answer: Answer = clockAnswer(ctx);
    for (;;) {
      if (this.termPending) {
        answer = { ...answer, signal: 'TERM' };
        this.termPending = false;
      }
      php.answer(answer);
      const y = await this.next(php, started.name);
      const now = ctx.instant();
      this.handling = y.y === 'busy';
      switch (y.y) {
        case 'exit':
          if (y.signal === 'SIGKILL') {
            ctx.describe({ kind: 'kill', title: `${name} is killed (Worker::kill)` });
            this.php = null;
            this.lastRestart = undefined;
            return { killed: true };
          }
          throw new Error(`real Laravel ${name} exited unexpectedly: ${describeExit(y)}`);
        case 'done': {
          const reason = this.reasonForExit(y.idle);
          ctx.describe({ kind: 'stop', title: `${name} exits` });
          await php.close();
          this.php = null;
          this.lastRestart = undefined;
          return { killed: false, reason };
        }
        case 'step':
          if (y.job) this.jobsProcessed += 1;
          ctx.describe({ kind: 'process', title: `${name}: next step` });
          await ctx.sleep(0);
          answer = clockAnswer(ctx);
          break;
        case 'sleep': {
          ctx.describe({ kind: 'pop', title: `${name} sleeps ${y.s}s` });
          const wakeAt = later(now, y.s);
          if (y.alarm !== null && y.alarm <= wakeAt) {
            const interrupted = await this.sleep(ctx, secondsBetween(now, y.alarm));
            answer = { ...clockAnswer(ctx), signal: interrupted ? 'TERM' : 'ALRM' };
            if (interrupted) this.termPending = false;
          } else {
            const interrupted = await this.sleep(ctx, y.s);
            answer = clockAnswer(ctx);
            if (interrupted) {
              answer.signal = 'TERM';
              this.termPending = false;
            }
          }
          break;
        }
        case 'busy': {
          ctx.describe({ kind: 'process', title: `${name}: handle() runs ${y.s}s` });
          if (y.alarm !== null && y.alarm <= later(now, y.s)) {
            await ctx.sleep(secondsBetween(now, y.alarm));
            answer = { ...clockAnswer(ctx), signal: 'ALRM' };
          } else {
            await ctx.sleep(y.s);
            answer = clockAnswer(ctx);
          }
          break;
        }
        case 'blocking':
          answer = await this.blockingPop(ctx, php, started.name, y.alarm);
          break;
        case 'unblocked':
        case 'ready':
        case 'uuid':
          throw new Error(`real Laravel ${name}: unexpected ${y.y}`);
      }
    }
  }

  /** The process's next wait; a Str::uuid() on the way (a chain's next job) is answered at once. */
  private async next(php: PhpActor, name: string): Promise<Yield> {
    for (;;) {
      const y = await this.env.nextYield(php, name);
      if (y.y !== 'uuid') return y;
      php.answer({ uuid: this.env.uuid() });
    }
  }

  /** Worker::sleep: a signal (SIGTERM) cuts it short, as PHP's sleep() returns early. */
  private sleep(ctx: ActorContext, seconds: number): Promise<boolean> {
    return interruptibleSleep(ctx, seconds, (wake) => (this.wake = wake));
  }

  /**
   * Laravel is about to BLPOP. Wait until the server has it blocked (or already answered), then
   * block in virtual time as the model does: a push wakes it; at the virtual deadline CLIENT
   * UNBLOCK ... TIMEOUT ends it; harness.php lets Laravel go on only when answered.
   */
  private async blockingPop(ctx: ActorContext, php: PhpActor, name: string, alarm: number | null): Promise<Answer> {
    const blockFor = this.blockFor;
    let settled = false;
    const unblocked = this.env.nextYield(php, name).then((y) => {
      settled = true;
      return y;
    });
    // The process's connection the server holds in BLPOP (the queue's, not its cache's; on a
    // cluster, the one to the queue's node).
    let blocked: KnownConnection | null = null;
    for (let i = 0; !settled && (blocked = await this.blockedConnection(name)) === null; i++) {
      if (i > 5000) throw new Error(`real Laravel ${this.spec.name}: BLPOP did not reach the server`);
      await new Promise((r) => setImmediate(r));
    }
    if (!settled) {
      ctx.describe({ kind: 'block', title: `${this.spec.name} waits in BLPOP` });
      let limit: number | null = blockFor === 0 ? null : blockFor;
      if (alarm !== null) limit = Math.min(limit ?? Infinity, Math.max(0, secondsBetween(ctx.instant(), alarm)));
      const op: BlockingOp<Yield> = {
        label: `BLPOP (${this.spec.name})`,
        expiresInRealTime: blockFor > 0,
        result: unblocked,
        stillBlocked: async () => !settled && blocked !== null && (await isBlocked(blocked.observer, blocked.id)),
        cancel: async () => {
          if (!settled && blocked !== null)
            await blocked.observer.sendCommand(['CLIENT', 'UNBLOCK', blocked.id, 'TIMEOUT']);
        },
      };
      await ctx.block(op, limit);
    }
    const y = await unblocked;
    if (y.y !== 'unblocked')
      throw new Error(`real Laravel ${this.spec.name}: expected the BLPOP's answer, got ${describeExit(y)}`);
    const answer: Answer = clockAnswer(ctx);
    if (alarm !== null && ctx.instant() >= alarm) answer.signal = 'ALRM';
    return answer;
  }

  /** The process's connection blocked in BLPOP now, or null (none yet). */
  private async blockedConnection(name: string): Promise<KnownConnection | null> {
    await this.env.book.learn(name);
    const known = this.env.book.connectionsOf(name);
    if (known.length === 0) throw new Error(`could not find connection ${name} in CLIENT LIST`);
    for (const c of known) if (await isBlocked(c.observer, c.id)) return c;
    return null;
  }
}

export function describeExit(y: Yield): string {
  if (y.y !== 'exit') return `"${y.y}"`;
  const how = y.signal ? `signal ${y.signal}` : `exit code ${y.code}`;
  return `${how}${y.stderr ? `: ${y.stderr.split('\n').slice(-3).join(' ')}` : ''}`;
}
