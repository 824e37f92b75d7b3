// After each step of a run: its MONITOR lines, attributed to the actors whose connections sent
// them, made into the Step and handed on. Two ways, one interface (StepCollector):
//   BarrierSteps    after every step a barrier on the observer (ECHO, then wait for its line):
//                   every line before it is the step's. With the queues read in the same round
//                   trip, for views that hold the run or show the queues.
//   StreamingSteps  nothing holds the run and nothing keeps its steps (`lqsim run --format
//                   ndjson | text`): a step's end is a mark that goes out ahead of the next
//                   command, and the step is finished when the mark's line comes back. A step a
//                   BLPOP waits across, or whose end reads the queues, still takes the barrier.
// attributedAtBarrier is the barrier itself, which conformance's real-Laravel run takes too.
import type { ConnectionHub } from '../redis/connections.ts';
import { isMonitorOk, parseMonitorLine } from '../redis/monitor-line.ts';
import type { MonitorCapture, TraceCapture } from '../redis/monitor.ts';
import type { QueueKeys } from '../sim/keys.ts';
import type { ModelCheck } from '../sim/model/check.ts';
import type { JobRegistry } from '../sim/registry.ts';
import type { CompletedStep, NextEvent, Scheduler } from '../sim/scheduler.ts';
import { copyWorkerState } from '../sim/state.ts';
import type { WorkerModel } from '../sim/worker.ts';
import { relativeTime } from '../sim/clock.ts';
import type { ActorDirectory } from './attribute.ts';
import { attributeLines, LineAttributor } from './attribute.ts';
import { ForeignUseError } from './foreign-watch.ts';
import type { RunResources } from './run-resources.ts';
import { exitsOnItsOwn } from './run-end.ts';
import { queuesAreEmpty, snapshotQueues } from './snapshot.ts';
import type { StepMaker } from './step-maker.ts';
import type { CacheKeyState, QueueState, TraceCommand } from './timeline.ts';

/** The lines MONITOR gave up to a barrier, and the commands of the run's actors among them. */
export async function attributedAtBarrier(
  capture: TraceCapture,
  observer: Parameters<MonitorCapture['barrier']>[0],
  book: ActorDirectory,
  step: { index: number; t: number },
  scriptNames: ReadonlyMap<string, string>,
): Promise<{ lines: string[]; commands: TraceCommand[] }> {
  const lines = await capture.barrier(observer);
  return { lines, commands: attributeLines(lines, book, step, scriptNames).commands };
}

export interface StepCollector {
  /** Throws what went wrong while earlier steps were being finished (a streaming run's). */
  throwIfFaulted(): void;
  /** Step `index` has completed: its lines are collected, and the step made and handed on. */
  collect(done: CompletedStep, next: NextEvent, index: number): Promise<void>;
  /** The steps still waiting for their lines are finished; the first fault among them thrown. */
  drain(): Promise<void>;
  /** Whether the queues were empty at the last step that read them (run-end.ts). */
  queuesEmpty(): boolean;
}

/** What a run's collector works with. */
export interface CollectorContext {
  hub: ConnectionHub;
  capture: TraceCapture;
  held: RunResources;
  queues: readonly QueueKeys[];
  registry: JobRegistry;
  /** 5.8+: the queues' :notify lists are counted too. */
  notify: boolean;
  /** Entries of each list a step's snapshot reads (0: the sizes alone). */
  snapshotLimit: number;
  workers: readonly WorkerModel[];
  scheduler: Scheduler;
  check: ModelCheck;
  maker: StepMaker;
  start: number;
  /** The run goes on after the scenario has played out (the lab's). */
  open: boolean;
  /** The cache store's keys after a step, read from Redis and checked (a run whose cache is there). */
  cacheState?: (index: number) => Promise<CacheKeyState[]>;
  /** Entries and workers not started yet. */
  pending(): number;
  settled(): boolean;
  paceMs?: number;
}

export class BarrierSteps implements StepCollector {
  protected lastQueues: QueueState[] | null = null;

  constructor(protected readonly ctx: CollectorContext) {}

  async collect(done: CompletedStep, next: NextEvent, index: number): Promise<void> {
    const { ctx } = this;
    // The step's commands have all been answered, so nothing after it need wait for another:
    // the TTL sweep of a run that keeps them in virtual time (its line then comes before the
    // barrier's: virtual-expiry.ts), the barrier, the queues' snapshot and the cache's keys all go
    // out together on the observer, in that order, one round trip instead of three.
    const swept = ctx.held.afterStep(done.t);
    const barrier = ctx.capture.barrier(ctx.hub.observer);
    const snapshot = snapshotQueues(
      ctx.hub.router,
      ctx.queues,
      ctx.registry,
      ctx.notify,
      this.snapshotLimit(),
      ctx.hub.nodes.length === 0 ? undefined : (key) => ctx.hub.nodeOfKey(key)!,
    );
    const reads = ctx.cacheState?.(index);
    // Awaited in the order they were sent: the first to fail is the one reported.
    for (const later of [barrier, snapshot, reads]) later?.catch(() => undefined);
    await swept;
    const lines = await barrier;
    const queues = await snapshot;
    this.lastQueues = queues;
    const cache = await reads;
    // A push in this step may have answered a worker's BLPOP: its status says so (the worker resumes later).
    for (const w of ctx.workers) await w.noteAnsweredBlpop();
    await this.before();
    await ctx.maker.make(
      {
        index,
        done,
        info: {
          mayHold: this.mayHold(),
          isLast: next.isLast,
          nextAt: next.at,
          settled: ctx.settled,
        },
        workers: ctx.workers.map((w) => copyWorkerState(w.state)),
        failed: ctx.registry.failedSnapshot(),
        ...(cache !== undefined ? { cache } : {}),
      },
      lines,
      this.shownQueues(queues),
    );
    // The step is shown (with the sizes that differ), then the run stops.
    ctx.check.compareSizes(queues, `at the end of step ${index} (${relativeTime(done.t, ctx.start)}, ${done.actor})`);
    if (ctx.paceMs) await new Promise((r) => setTimeout(r, ctx.paceMs));
  }

  throwIfFaulted(): void {}

  async drain(): Promise<void> {}

  queuesEmpty(): boolean {
    return this.lastQueues !== null && queuesAreEmpty(this.lastQueues);
  }

  /** Entries of each list the snapshot reads. */
  protected snapshotLimit(): number {
    return this.ctx.snapshotLimit;
  }

  /** Whether a view may hold the run after this step (not while a BLPOP would time out in real time). */
  protected mayHold(): boolean {
    return !this.ctx.scheduler.hasRealTimeWait();
  }

  /** The queues the step shows. */
  protected shownQueues(queues: QueueState[]): QueueState[] {
    return queues;
  }

  /** Before a step is made: what must come first (a streaming run's earlier steps). */
  protected async before(): Promise<void> {}
}

export class StreamingSteps extends BarrierSteps {
  private finishing: Promise<void> = Promise.resolve();
  private deferredError: unknown = null;
  /** Tells the streaming attribution (onCommand) that step `index` has ended at `t`. */
  private endStep: (index: number, t: number) => void = () => undefined;

  constructor(
    ctx: CollectorContext,
    o: {
      onCommand?: (cmd: TraceCommand) => void;
      scriptNames: ReadonlyMap<string, string>;
      scriptSources: ReadonlyMap<string, string>;
    },
  ) {
    super(ctx);
    const cap = ctx.capture;
    ctx.hub.takeMarks = () => cap.takeMarks();
    const onCommand = o.onCommand;
    if (onCommand === undefined) return;
    // Lines are attributed as they come: to the step they belong to, which is the oldest one
    // whose barrier or mark has not passed (`lineStep`), ended (its instant in `endedAt`) or
    // still running.
    let lineStep = 0;
    const endedAt = new Map<number, number>();
    this.endStep = (index, t) => endedAt.set(index, t);
    const attributor = new LineAttributor(ctx.hub, o.scriptNames);
    cap.onBoundary = () => endedAt.delete(lineStep++);
    cap.sink = (raw) => {
      if (this.deferredError !== null || isMonitorOk(raw)) return;
      try {
        const line = parseMonitorLine(raw);
        const use = ctx.held.seeLine(line);
        if (use !== null) throw new ForeignUseError([use], ctx.held.db);
        const t = endedAt.get(lineStep) ?? ctx.scheduler.currentInstant() ?? ctx.start;
        const cmd = attributor.pushParsed(line, { index: lineStep, t });
        if (cmd === null) return;
        if (cmd.script !== undefined) cmd.args[1] = o.scriptSources.get(cmd.script) ?? cmd.args[1]!;
        onCommand(cmd);
      } catch (e) {
        this.deferredError = e;
      }
    };
  }

  override throwIfFaulted(): void {
    if (this.deferredError !== null) throw this.deferredError;
  }

  override async collect(done: CompletedStep, next: NextEvent, index: number): Promise<void> {
    const { ctx } = this;
    this.endStep(index, done.t);
    // The run's end depends on the queues only where runIsOver's other conditions hold.
    const endReadsQueues = !ctx.open && ctx.pending() === 0 && !ctx.workers.some((w) => w.busy() || exitsOnItsOwn(w));
    // A run with TTLs in virtual time sweeps them after each step: its end is a barrier too.
    if (ctx.scheduler.hasBlocked() || endReadsQueues || ctx.held.expiry !== null)
      return super.collect(done, next, index);
    const end = {
      index,
      done,
      info: { mayHold: false, isLast: next.isLast, nextAt: next.at, settled: ctx.settled },
      workers: ctx.workers.map((w) => copyWorkerState(w.state)),
      failed: ctx.registry.failedSnapshot(),
    };
    const lines = ctx.capture.mark();
    lines.catch(() => undefined);
    this.finishing = this.finishing
      .then(async () => ctx.maker.make(end, await lines, []))
      .catch((e: unknown) => void (this.deferredError ??= e));
  }

  /** A barrier sends what is unsent and passes every mark before it. */
  override async drain(): Promise<void> {
    await this.ctx.capture.barrier(this.ctx.hub.observer);
    await this.before();
  }

  /** A streaming run's steps show no queues: the sizes alone are read, where the run's end needs them. */
  protected override snapshotLimit(): number {
    return 0;
  }

  protected override mayHold(): boolean {
    return false;
  }

  protected override shownQueues(): QueueState[] {
    return [];
  }

  /** The steps before this one come first (their marks' lines came before this barrier's). */
  protected override async before(): Promise<void> {
    await this.finishing;
    if (this.deferredError !== null) throw this.deferredError;
  }
}
