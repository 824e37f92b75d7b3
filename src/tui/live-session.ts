// The gate between a live run and the UI. The runner awaits `onStep` after every step, so the
// promise returned here, resolved only once the UI wants another step, holds the real run
// exactly between two steps: steps run against Redis as the person advances (except while a
// worker waits in a BLPOP with a timeout: the run goes on to where it can be held safely). Going back, and
// forward again over steps already run, reads the stored steps and never touches the run.
// Stopping makes the pending `onStep` throw; the runner then ends, closing its connections.
import type { Step, Timeline } from '../scenarios/timeline.ts';

export type SessionStatus = 'starting' | 'running' | 'waiting' | 'finished' | 'stopped';

export interface SessionSnapshot {
  status: SessionStatus;
  /**
   * The steps so far: the run's own array, which only ever grows (copying it at every step made a
   * run of N steps cost O(N²)). The snapshot object is new whenever a step arrives.
   */
  steps: readonly Step[];
  /** The run's timeline (scenario, start, jobs...), once the first step or the end arrived. */
  timeline: Timeline | null;
  /** Set when the run ended with an error (not when the user stopped it). */
  error?: string;
  /** While held: when the next step will happen (exact unix seconds); null when none will. */
  nextAt?: number | null;
}

/**
 * How far to run before holding again, beyond a number of steps: until the next step would be at
 * or after an instant (unix seconds), or until the scenario has played out (only idle polls left);
 * either way, `within` that many steps of the run at most (a run can go on at one instant for
 * ever: a job that throws, released with no delay and retried at once with no --tries).
 */
export type Goal = { until: number; within?: number } | { settle: true; within: number };

/**
 * Whether `source` is the lab's session. By a field, not instanceof: the lab's modules (the scenario
 * schema, YAML) are imported only when a lab opens, after the first frame.
 */
export function isLabSession<L extends { kind: 'lab' }>(source: object): source is L {
  return (source as { kind?: unknown }).kind === 'lab';
}

/** What the UI reads and asks of a session; a recorded timeline can stand in for a live run. */
export interface StepSource {
  subscribe(listener: () => void): () => void;
  getSnapshot(): SessionSnapshot;
  /** The UI wants at least `count` steps (Infinity: all of them). */
  request(count: number): void;
}

import type { OnStep } from '../scenarios/on-step.ts';

export type { OnStep };

export class SessionStopped extends Error {
  constructor() {
    super('stopped from the terminal UI');
  }
}

export class LiveSession implements StepSource {
  private snapshot: SessionSnapshot = { status: 'starting', steps: [], timeline: null };
  private readonly listeners = new Set<() => void>();
  private wanted = 1;
  private stopped = false;
  private wake: (() => void) | null = null;
  private ended: Promise<Timeline> | null = null;
  private notify: NodeJS.Immediate | null = null;
  private goal: Goal | null = null;
  private held: Array<() => void> = [];
  /** The run is held while a worker waits in a BLPOP that the server times out in real time. */
  private heldOverRealTime = false;
  private settledAtHold = false;
  /** What the run said of itself at the hold it is in (refresh asks it again). */
  private heldInfo: Parameters<OnStep>[2] | null = null;

  /**
   * `run` starts the scenario with this session's `onStep` (e.g. runScenario(spec, {..., onStep})).
   * `holdAlways`: hold even where a worker waits in a real-time BLPOP (the lab: an open run would
   * otherwise never be held); `heldOverRealTimeWait` then tells the owner that going on from this
   * hold may differ from Laravel, so it replays instead.
   */
  constructor(
    private readonly run: (onStep: OnStep) => Promise<Timeline>,
    private readonly opts: { holdAlways?: boolean } = {},
  ) {}

  /** Runs on, beyond the steps requested, until `goal`; resolves once the run is held or has ended. */
  advance(goal: Goal): Promise<void> {
    // Held where the goal is already met (the next step is at or after `until`, or the scenario
    // has played out): nothing to run.
    if (this.snapshot.status === 'waiting' && this.wake !== null) {
      const next = this.snapshot.nextAt;
      if (next === null) return Promise.resolve();
      if ('until' in goal && next !== undefined && next >= goal.until) return Promise.resolve();
      if ('settle' in goal && this.settledAtHold) return Promise.resolve();
    }
    this.goal = goal;
    const held = this.whenHeld();
    this.release();
    return held;
  }

  /** Stops going on toward the goal: the run holds at its next step (those asked for so far stay). */
  cancel(): void {
    this.goal = null;
  }

  /**
   * Held, the run took on more of its scenario (OpenRun.extend): when the next step happens and
   * whether it has played out are asked again.
   */
  async refresh(): Promise<void> {
    const info = this.heldInfo;
    if (this.snapshot.status !== 'waiting' || this.wake === null || info === null || info === undefined) return;
    this.settledAtHold = info.settled?.() === true;
    if (info.nextAt !== undefined) this.set({ ...this.snapshot, nextAt: await info.nextAt() });
  }

  /** Resolves at the next hold, or at once when the run is held or has ended. */
  whenHeld(): Promise<void> {
    const s = this.snapshot.status;
    if (s === 'finished' || s === 'stopped' || (s === 'waiting' && this.goal === null && this.wake !== null))
      return Promise.resolve();
    return new Promise((resolve) => this.held.push(resolve));
  }

  /** Whether the run is held where a worker waits in a real-time BLPOP (see the constructor). */
  get heldOverRealTimeWait(): boolean {
    return this.heldOverRealTime;
  }

  /** Starts the run (once); the promise settles when it has ended, however it ended. */
  start(): Promise<Timeline> {
    this.ended ??= this.run(this.onStep).then(
      (timeline) => {
        const error = this.stopped ? undefined : timeline.error;
        this.set({ status: this.stopped ? 'stopped' : 'finished', steps: timeline.steps, timeline, error });
        this.settleHeld();
        return timeline;
      },
      (e: unknown) => {
        const error = e instanceof Error ? e.message : String(e);
        this.set({
          ...this.snapshot,
          status: this.stopped ? 'stopped' : 'finished',
          error: this.stopped ? undefined : error,
        });
        this.settleHeld();
        throw e;
      },
    );
    return this.ended;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  getSnapshot = (): SessionSnapshot => this.snapshot;

  request = (count: number): void => {
    if (count <= this.wanted) return;
    this.heldOverRealTime = false;
    this.wanted = count;
    this.release();
  };

  /** Ends the run at the next step boundary and waits for it to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.release();
    await this.ended?.catch(() => undefined);
  }

  private readonly onStep: OnStep = async (_step, timeline, info) => {
    if (this.stopped) throw new SessionStopped();
    const steps = timeline.steps;
    // While a worker waits in a BLPOP the server would time out in real time, holding the run
    // for the reader would change what Redis does: run on, and show those steps as recorded.
    // The last step: nothing is left to hold the run for, so it ends now and reads as finished.
    if (
      steps.length < this.wanted ||
      (await this.goalAhead(info)) ||
      (info?.mayHold === false && this.opts.holdAlways !== true) ||
      (await info?.isLast?.()) === true
    ) {
      this.set({ status: 'running', steps, timeline });
      return;
    }
    this.wanted = Math.max(this.wanted, steps.length);
    this.heldInfo = info;
    this.heldOverRealTime = info?.mayHold === false;
    this.settledAtHold = info?.settled?.() === true;
    const nextAt = info?.nextAt === undefined ? undefined : await info.nextAt();
    this.set({ status: 'waiting', steps, timeline, ...(nextAt === undefined ? {} : { nextAt }) });
    for (;;) {
      const woken = new Promise<void>((resolve) => (this.wake = resolve));
      this.settleHeld();
      await woken;
      if (this.stopped || timeline.steps.length < this.wanted || this.goal !== null) break;
    }
    if (this.stopped) throw new SessionStopped();
    this.set({ ...this.snapshot, status: 'running' });
  };

  /** Whether the goal asks for more steps after this one; a goal reached is cleared. */
  private async goalAhead(info: Parameters<OnStep>[2]): Promise<boolean> {
    const goal = this.goal;
    if (goal === null) return false;
    const next = info?.nextAt === undefined ? null : await info.nextAt();
    const ahead =
      next !== null &&
      (goal.within === undefined || this.snapshot.steps.length < goal.within) &&
      ('until' in goal ? next < goal.until : info?.settled === undefined || !info.settled());
    if (!ahead) this.goal = null;
    return ahead;
  }

  private settleHeld(): void {
    const held = this.held;
    this.held = [];
    for (const resolve of held) resolve();
  }

  private release(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /**
   * The snapshot changes at once; listeners hear of it once the event loop is free. Running many
   * steps in a row (G, play) then draws once per batch instead of once per step: a redraw takes
   * tens of milliseconds, a step against Redis about one.
   */
  private set(next: SessionSnapshot): void {
    this.snapshot = next;
    this.notify ??= setImmediate(() => {
      this.notify = null;
      for (const l of this.listeners) l();
    });
  }
}

/** A finished run, for viewing a recorded timeline (and for tests). */
export function recordedSession(timeline: Timeline): StepSource {
  const snapshot: SessionSnapshot = {
    status: 'finished',
    steps: timeline.steps.slice(),
    timeline,
    error: timeline.error,
  };
  return { subscribe: () => () => {}, getSnapshot: () => snapshot, request: () => {} };
}
