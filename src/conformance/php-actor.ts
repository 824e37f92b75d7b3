// One actor process of real Laravel (conformance/laravel/harness.php): a PHP process with its
// own Redis connection that runs Laravel's code until Laravel would wait, then prints a yield and
// waits for the coordinator's answer. Thin I/O: spawn, JSON lines both ways, kill on every exit path.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { registerCleanup } from '../cleanup.ts';
import { exactInstant } from '../sim/clock.ts';
import type { ActorContext } from '../sim/scheduler.ts';

/**
 * What the harness prints when Laravel waits (see harness.php). `alarm` is the exact instant the
 * pcntl_alarm Laravel armed is due (canonical, as the scheduler's instants: clock.ts).
 */
export type Yield =
  | { y: 'ready' | 'blocking' | 'unblocked' | 'uuid'; alarm: number | null }
  /** `job`: JobProcessing (a popped job is processed), not the Looping after one. */
  | { y: 'step'; alarm: number | null; job?: boolean }
  /**
   * `idle`: the worker's loop that stopped had popped nothing (stopIfNecessary's $job was null).
   * `threw`: a request's call threw this to the app, and the request ended there.
   */
  | { y: 'done'; alarm: number | null; idle?: boolean | null; threw?: { class: string; message: string } }
  | { y: 'sleep' | 'busy'; s: number; alarm: number | null }
  /** The process ended without saying done: SIGKILL from Worker::kill, or a crash. */
  | { y: 'exit'; code: number | null; signal: NodeJS.Signals | null; stderr: string };

export interface Answer {
  /** Laravel's clock, whole unix seconds: Carbon::setTestNow. */
  now: number;
  /** The exact instant (to the millisecond): what the harness times the alarm from. */
  instant: number;
  signal?: 'ALRM' | 'TERM';
}

/** The answer to a {"y":"uuid"}: Str::uuid()'s value; the actor goes on at once. */
export interface UuidAnswer {
  uuid: string;
}

/** An answer's clock at the actor's current instant: both readings, so neither is sent for the other. */
export function clockAnswer(ctx: Pick<ActorContext, 'time' | 'instant'>): Answer {
  return { now: ctx.time(), instant: ctx.instant() };
}

export class PhpActor {
  private readonly queue: Yield[] = [];
  private waiter: ((y: Yield) => void) | null = null;
  private stderr = '';
  private exited = false;
  private readonly unregister: () => void;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      let y: Yield;
      try {
        y = JSON.parse(line) as Yield;
      } catch {
        this.stderr += `${line}\n`; // PHP printed something that is not ours (a warning on stdout)
        return;
      }
      if ('alarm' in y && typeof y.alarm === 'number') y.alarm = exactInstant(y.alarm);
      this.deliver(y);
    });
    child.stderr.on('data', (d: Buffer) => {
      if (this.stderr.length < 20_000) this.stderr += d.toString();
    });
    child.on('exit', (code, signal) => {
      this.exited = true;
      this.unregister();
      this.deliver({ y: 'exit', code, signal, stderr: this.stderr.trim() });
    });
    child.stdin.on('error', () => undefined); // the process may die (SIGKILL) while we write
    this.unregister = registerCleanup(() => this.kill());
  }

  static start(php: string, harness: string, configFile: string, roleFile: string): PhpActor {
    const child = spawn(php, [harness, configFile, roleFile], { stdio: ['pipe', 'pipe', 'pipe'] });
    return new PhpActor(child);
  }

  private deliver(y: Yield): void {
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w(y);
    } else this.queue.push(y);
  }

  /** The next yield (or the exit). */
  next(): Promise<Yield> {
    const y = this.queue.shift();
    if (y) return Promise.resolve(y);
    if (this.waiter) throw new Error('PhpActor.next() called twice');
    return new Promise((resolve) => (this.waiter = resolve));
  }

  answer(a: Answer | UuidAnswer): void {
    if (!this.exited) this.child.stdin.write(`${JSON.stringify(a)}\n`);
  }

  /** Ends the actor: closes its stdin (it exits), SIGKILL if it has not within a second. */
  async close(): Promise<void> {
    if (this.exited) return;
    this.child.stdin.end();
    const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
    const timer = setTimeout(() => this.kill(), 1000);
    await gone;
    clearTimeout(timer);
  }

  /** SIGKILL, and the process is gone when this resolves. */
  async killAndWait(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.kill();
    await gone;
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}
