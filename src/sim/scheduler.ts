// A discrete-event scheduler over a virtual clock. Actors (the dispatcher, each worker process)
// are coroutines; exactly one runs at a time, from the moment it is woken until it sleeps, blocks
// or ends. Each such activation is one *step*. Equal instants run in the order they were
// scheduled (a coroutine spawned `late` after all the rest of its instant), so a run is deterministic. No I/O here: a blocking operation (BLPOP) is handed in as
// a BlockingOp whose real waiting the caller implements.
//
// The clock is exact, to the millisecond (kept as integer milliseconds: clock.ts), because a
// scenario may order events within one second (a push half a second after a worker blocked in
// BLPOP). Laravel's clock is not: PHP's time() and Carbon::now()->getTimestamp() are whole
// seconds. So an actor sees two readings, and there is deliberately no plain `now()` to reach
// for: every use of the clock says which it means.
//   ctx.time()     whole seconds, floor of the instant: everything Laravel *reads* from the clock
//                  and may send or store (availableAt, the pop script's expiry, migrate's now, a
//                  release's or later()'s score, the payload's retryUntil/createdAt, the worker's
//                  retryUntil checks, failed_jobs.failed_at).
//   ctx.instant()  the exact instant: everything a process *waits* for is timed from it
//                  (Worker::sleep(3) begun at t+0.5 ends at t+3.5; pcntl_alarm, a BLPOP's
//                  block_for, handle()'s running time likewise), and what the views show.
// Deadlines are instants: compute them with later(ctx.instant(), seconds) (clock.ts), which
// keeps them canonical, so `ctx.instant() >= deadline` holds exactly when it is due.
import { phpTime, relativeTime, toMs } from './clock.ts';
import type { StepKind } from './state.ts';

export interface StepDescription {
  kind: StepKind;
  title: string;
  /** Laravel methods, in call order. */
  methods?: string[];
  /** Why, in Laravel's terms. */
  explain?: string;
  /** The scenario author's note for this step. */
  note?: string;
}

export interface BlockingOp<T> {
  /** What it is (e.g. "BLPOP queues:default 5"), for warnings. */
  readonly label?: string;
  /** The server ends it on its own after a real-time timeout (a BLPOP with a timeout > 0). */
  readonly expiresInRealTime?: boolean;
  readonly result: Promise<T | null>;
  stillBlocked(): Promise<boolean>;
  /**
   * False where the model knows it is still blocked: no push it saw served it and no reply has
   * come (a BLPOP checked by the model, check.ts). Redis is then not asked (stillBlocked, a round
   * trip); a reply the model did not expect ends the run when it comes. Absent: ask Redis.
   */
  mayHaveEnded?(): boolean;
  cancel(): Promise<void>;
}

export interface ActorContext {
  readonly actor: string;
  /**
   * PHP's time() (Carbon::now()->getTimestamp()): the whole unix second of the current instant.
   * Whatever Laravel reads from its clock, and so whatever reaches Redis or a payload.
   */
  time(): number;
  /**
   * The exact virtual instant (unix seconds, to the millisecond): when waits start and end, and
   * when a step happened. Never what Laravel sends: that is time().
   */
  instant(): number;
  /** What this activation did; the last description before the actor yields names the step. */
  describe(d: StepDescription): void;
  /** Yield until instant() + seconds (0: a new step at the same instant). */
  sleep(seconds: number): Promise<void>;
  /** Yield until `op` completes or `seconds` pass from instant() (null: no limit); null means it timed out. */
  block<T>(op: BlockingOp<T>, seconds: number | null): Promise<T | null>;
  /**
   * This coroutine dies where it waits (a process killed from outside): its pending wake-ups are
   * cancelled and its blocking operation too, so it never resumes. Called by another activation.
   */
  abandon(): Promise<void>;
}

export interface CompletedStep {
  /** The exact instant of the step (unix seconds, to the millisecond). */
  t: number;
  actor: string;
  description: StepDescription | null;
}

export class SimulationLimitError extends Error {}

/** What run's onStep may ask about the step after the one just completed. */
export interface NextEvent {
  /** The run ends after this step (nothing left, until reached, or isDone). */
  isLast(): Promise<boolean>;
  /** When the next step happens (exact unix seconds), or null when the run ends after this one. */
  at(): Promise<number | null>;
}

interface Event {
  /** Integer milliseconds: equal instants are equal numbers. */
  at: number;
  /**
   * After every event at its instant that is not late, those scheduled while the instant runs
   * too (a coroutine spawned `late`: an entry meant to come after what else happens then).
   */
  late: boolean;
  /**
   * An event planned before the run (scheduleRun's entries and workers): its place in the plan,
   * compared as a tuple. At one instant the planned events come first, in the plan's order: a
   * run that takes on more of the plan while it runs (the lab's actions) orders them as a run
   * planned with them from the start would. Null for what the run schedules as it goes.
   */
  plan: readonly number[] | null;
  seq: number;
  actor: string;
  /** The coroutine (spawn) it wakes. */
  owner: number;
  fire: () => void | Promise<void>;
  cancelled: boolean;
}

interface Blocked {
  actor: string;
  owner: number;
  op: BlockingOp<unknown>;
  resolve: (v: unknown) => void;
  deadline: Event | null;
  /** The server ended it (in real time) before its virtual deadline: wait for the deadline anyway. */
  endedEarly?: boolean;
}

export interface SchedulerOptions {
  /** Virtual unix time of t=0 (whole seconds). */
  start: number;
  /**
   * Stop before any event later than start + until (seconds, to the millisecond); null runs
   * until isDone() or nothing is left.
   */
  until: number | null;
  maxSteps: number;
  /** Checked after every step when `until` is null: the scenario has played out. */
  isDone?: () => boolean;
  /** Something made the run differ from what Laravel would do (reported, not fatal). */
  onWarning?: (message: string) => void;
  /**
   * Called when the clock is about to move forward to `at` (unix seconds, to the millisecond),
   * before the event there fires: what runs out in virtual time runs out now (Redis keys whose
   * TTL the run keeps in virtual time, src/redis/virtual-expiry.ts). Not called for an event at
   * the current instant, nor for one past `until`.
   */
  beforeInstant?: (at: number) => Promise<void>;
  /**
   * Called when an activation has yielded, before its step goes to run's onStep: a promise to wait
   * for first, or undefined. The runner's lets the step's commands sent ahead be written before
   * its end is worked out and the next activation starts (ConnectionHub.flushed).
   */
  afterActivation?: () => Promise<void> | undefined;
}

export class Scheduler {
  private readonly heap: Event[] = [];
  private seq = 0;
  /** The virtual clock in integer milliseconds. */
  private clock: number;
  private current: CompletedStep | null = null;
  private yieldSignal: { resolve: () => void; reject: (e: unknown) => void } | null = null;
  private readonly blocked = new Set<Blocked>();
  private steps = 0;
  private coroutines = 0;
  /** Of the events run so far, the one the others all come before (fitsAfterNow). */
  private latest: Event | null = null;
  private maxSteps: number;

  constructor(private readonly opts: SchedulerOptions) {
    this.clock = toMs(opts.start);
    this.maxSteps = opts.maxSteps;
  }

  /** The exact instant (see ActorContext.instant). */
  instant(): number {
    return this.clock / 1000;
  }

  /** PHP's time() now (see ActorContext.time). */
  time(): number {
    return phpTime(this.instant());
  }

  /**
   * Whether an actor waits on an operation the server will end by itself in real time: holding
   * the run between steps now (a paused UI) would let it expire before its virtual deadline.
   */
  /** The instant of the step running now (exact unix seconds), or null before the first. */
  currentInstant(): number | null {
    return this.current?.t ?? null;
  }

  /** Some actor waits in a blocking operation (a BLPOP) that a step may serve. */
  hasBlocked(): boolean {
    return this.blocked.size > 0;
  }

  /** Some actor's blocking operation may have ended in the last step (served, or timed out): see BlockingOp.mayHaveEnded. */
  blockedMayHaveEnded(): boolean {
    for (const b of this.blocked) if (!b.endedEarly && b.op.mayHaveEnded?.() !== false) return true;
    return false;
  }

  hasRealTimeWait(): boolean {
    for (const b of this.blocked) if (b.op.expiresInRealTime && !b.endedEarly && b.deadline) return true;
    return false;
  }

  /**
   * Start a coroutine at the instant `at` (absolute unix seconds, to the millisecond); `late`, after
   * everything else that happens at that instant (not only what was scheduled before it).
   */
  spawn(
    actor: string,
    at: number,
    body: (ctx: ActorContext) => Promise<void>,
    late = false,
    plan: readonly number[] | null = null,
  ): void {
    const owner = ++this.coroutines;
    const ctx = this.contextFor(actor, owner);
    this.push(
      toMs(at),
      actor,
      owner,
      () => {
        body(ctx).then(
          () => this.signalYield(),
          (e: unknown) => this.signalError(e),
        );
      },
      late,
      plan,
    );
  }

  /**
   * Whether a planned event at `at` (unix seconds) spawned now runs where it would have run had it
   * been planned from the start. Up to then the run is the same either way; planned from the
   * start, it would have run in place of the first event run so far that it comes before. So it
   * fits when every event run so far comes before it: the latest of them does (`latest`). Not
   * merely the last one run: a late event's actor goes on at its instant with events that are
   * not late, which come before other late ones.
   */
  fitsAfterNow(at: number, late: boolean, plan: readonly number[]): boolean {
    const latest = this.latest;
    return latest === null || before(latest, { at: toMs(at), late, plan, seq: Infinity });
  }

  /** Raises the step limit (a run that took on more of its plan: scheduleRun's RunPlan). */
  raiseLimit(maxSteps: number): void {
    this.maxSteps = Math.max(this.maxSteps, maxSteps);
  }

  /**
   * Runs the events in order; `onStep` sees each completed step. It may ask `next.isLast()`
   * whether the run ends after this step (nothing left, until reached, or isDone): that first
   * wakes the actors whose blocking operation the step served, as every step does before the
   * next event is chosen, so the answer is the loop's own.
   */
  async run(onStep: (step: CompletedStep, next: NextEvent) => Promise<void>): Promise<void> {
    const end = this.opts.until === null ? null : toMs(this.opts.start) + toMs(this.opts.until);
    try {
      for (;;) {
        if (end === null && this.opts.isDone?.()) break;
        const ev = this.pop();
        if (!ev || (end !== null && ev.at > end)) break;
        if (++this.steps > this.maxSteps) {
          throw new SimulationLimitError(
            `the scenario did not finish within ${this.maxSteps} steps; set "until" to bound it`,
          );
        }
        if (this.latest === null || before(this.latest, ev)) this.latest = ev;
        if (ev.at > this.clock && this.opts.beforeInstant !== undefined) await this.opts.beforeInstant(ev.at / 1000);
        this.clock = ev.at;
        this.current = { t: this.instant(), actor: ev.actor, description: null };
        const yielded = new Promise<void>((resolve, reject) => (this.yieldSignal = { resolve, reject }));
        await ev.fire();
        await yielded;
        const flushed = this.opts.afterActivation?.();
        if (flushed !== undefined) await flushed;
        let woken = false;
        const wake = async (): Promise<void> => {
          if (woken) return;
          woken = true;
          await this.wakeServedBlockers();
        };
        await onStep(this.current, {
          isLast: async () => {
            await wake();
            return this.endsNow(end);
          },
          at: async () => {
            await wake();
            return this.endsNow(end) ? null : this.peek();
          },
        });
        await wake();
      }
    } finally {
      // Whatever is still blocked at the end is released; those coroutines never resume.
      for (const b of this.blocked) {
        if (b.deadline) b.deadline.cancelled = true;
        await b.op.cancel().catch(() => undefined);
      }
      this.blocked.clear();
    }
  }

  private contextFor(actor: string, owner: number): ActorContext {
    return {
      actor,
      time: () => this.time(),
      instant: () => this.instant(),
      describe: (d) => {
        if (this.current && this.current.actor === actor) this.current.description = d;
      },
      sleep: (seconds) =>
        new Promise<void>((resolve) => {
          this.push(this.clock + Math.max(0, toMs(seconds)), actor, owner, resolve);
          this.signalYield();
        }),
      block: <T>(op: BlockingOp<T>, seconds: number | null) =>
        new Promise<T | null>((resolve) => {
          const entry: Blocked = { actor, owner, op, resolve: resolve as (v: unknown) => void, deadline: null };
          if (seconds !== null) {
            entry.deadline = this.push(this.clock + Math.max(0, toMs(seconds)), actor, owner, async () => {
              this.blocked.delete(entry);
              await op.cancel();
              resolve(await op.result);
            });
          }
          this.blocked.add(entry);
          this.signalYield();
        }),
      abandon: async () => {
        for (const ev of this.heap) if (ev.owner === owner) ev.cancelled = true;
        for (const b of [...this.blocked]) {
          if (b.owner !== owner) continue;
          this.blocked.delete(b);
          if (b.deadline) b.deadline.cancelled = true;
          await b.op.cancel().catch(() => undefined);
        }
      },
    };
  }

  /** A blocked actor that the last step served (an RPUSH woke its BLPOP) resumes now. */
  private async wakeServedBlockers(): Promise<void> {
    for (const entry of [...this.blocked]) {
      if (entry.endedEarly || entry.op.mayHaveEnded?.() === false || (await entry.op.stillBlocked())) continue;
      const value = await entry.op.result;
      if (value === null && entry.deadline && !entry.deadline.cancelled) {
        // Nothing served it: the server's own (real-time) timeout ran out while the run was held
        // longer than the timeout (a paused TUI, --pace). The worker still wakes at its virtual
        // deadline, but a push before then can no longer reach it.
        entry.endedEarly = true;
        const due = relativeTime(entry.deadline.at / 1000, this.opts.start);
        this.opts.onWarning?.(
          `at ${relativeTime(this.instant(), this.opts.start)} ${entry.op.label ?? 'a blocking command'} of ${entry.actor} timed out on the server ` +
            `in real time before its virtual deadline ${due} (the run was held longer than its timeout); ` +
            `a job pushed before ${due} would not have woken it, so the trace may differ from Laravel's from here`,
        );
        continue;
      }
      this.blocked.delete(entry);
      if (entry.deadline) entry.deadline.cancelled = true;
      this.push(this.clock, entry.actor, entry.owner, () => entry.resolve(value));
    }
  }

  private signalYield(): void {
    const s = this.yieldSignal;
    this.yieldSignal = null;
    s?.resolve();
  }

  private signalError(e: unknown): void {
    const s = this.yieldSignal;
    this.yieldSignal = null;
    s?.reject(e);
  }

  /** The instant of the next event (unix seconds), without taking it off the heap. */
  private peek(): number | null {
    const next = this.pop();
    if (next === undefined) return null;
    this.insert(next);
    return next.at / 1000;
  }

  /** Whether the loop would stop before another event (the checks at the top of run's loop). */
  private endsNow(end: number | null): boolean {
    if (end === null && this.opts.isDone?.()) return true;
    const next = this.pop();
    if (next === undefined) return true;
    this.insert(next); // back in its place: same instant, same sequence number
    return end !== null && next.at > end;
  }

  private push(
    at: number,
    actor: string,
    owner: number,
    fire: Event['fire'],
    late = false,
    plan: readonly number[] | null = null,
  ): Event {
    const ev: Event = { at, late, plan, seq: this.seq++, actor, owner, fire, cancelled: false };
    return this.insert(ev);
  }

  private insert(ev: Event): Event {
    const h = this.heap;
    h.push(ev);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
    return ev;
  }

  private pop(): Event | undefined {
    const h = this.heap;
    while (h.length > 0) {
      const top = h[0]!;
      const last = h.pop()!;
      if (h.length > 0) {
        h[0] = last;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < h.length && before(h[l]!, h[m]!)) m = l;
          if (r < h.length && before(h[r]!, h[m]!)) m = r;
          if (m === i) break;
          [h[i], h[m]] = [h[m]!, h[i]!];
          i = m;
        }
      }
      if (!top.cancelled) return top;
    }
    return undefined;
  }
}

/**
 * Earlier instants first; at one instant, what is not late first, then what was planned before
 * the run in the plan's order, then in the order scheduled. (A run planned whole schedules its
 * plan first, so the plan's order is also the order scheduled: the plan's place makes it so for
 * events planned while the run goes on.)
 */
function before(
  a: Pick<Event, 'at' | 'late' | 'plan' | 'seq'>,
  b: Pick<Event, 'at' | 'late' | 'plan' | 'seq'>,
): boolean {
  if (a.at !== b.at) return a.at < b.at;
  if (a.late !== b.late) return b.late;
  if (a.plan !== b.plan) {
    if (a.plan === null) return false;
    if (b.plan === null) return true;
    for (let i = 0; i < a.plan.length && i < b.plan.length; i++)
      if (a.plan[i] !== b.plan[i]) return a.plan[i]! < b.plan[i]!;
    return a.plan.length < b.plan.length;
  }
  return a.seq < b.seq;
}

/**
 * Worker::sleep on the virtual clock. A signal cuts it short, as PHP's sleep() returns early when
 * one arrives: `setWaker` is handed the function that does that (and null once the sleep is over).
 * True if it was cut short.
 */
export async function interruptibleSleep(
  ctx: ActorContext,
  seconds: number,
  setWaker: (wake: (() => void) | null) => void,
): Promise<boolean> {
  let interrupted = false;
  let resolve!: (v: 'signal' | null) => void;
  const result = new Promise<'signal' | null>((r) => (resolve = r));
  setWaker(() => {
    interrupted = true;
    resolve('signal');
  });
  try {
    const op: BlockingOp<'signal'> = {
      label: `sleep(${seconds})`,
      result,
      stillBlocked: async () => !interrupted,
      mayHaveEnded: () => interrupted,
      cancel: async () => resolve(null),
    };
    return (await ctx.block(op, seconds)) === 'signal';
  } finally {
    setWaker(null);
  }
}
