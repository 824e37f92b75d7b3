// After each step of a run: its MONITOR lines, attributed to the actors whose connections sent
// them, made into the Step and handed on. Two ways, one interface (StepCollector):
//   BarrierSteps    after every step a barrier on the observer (ECHO, then wait for its line):
//                   every line before it is the step's. With the queues, the cache's keys and
//                   the BLPOPs' state read in the same round trip, for views that hold the run.
//   StreamingSteps  nothing holds the run: a step's end is a mark that goes out ahead of the next
//                   command, and the step is finished when the mark's line comes back. A run
//                   that keeps its steps (runScenario without a view) reads each step's queues
//                   and cache keys ahead of that command too, and checks them against the model
//                   of the step's end once they come. A step that may have ended a BLPOP (a kept
//                   run asks the model; a streaming run takes any a BLPOP waits across), one
//                   that may have given a TTL (a kept run's foresight; a streaming run's every
//                   step, with TTLs in virtual time), or whose end a streaming run decides on the
//                   queues, still takes the barrier.
// attributedAtBarrier is the barrier itself, which conformance's real-Laravel run takes too.
import type { ConnectionHub, Sender } from '../redis/connections.ts';
import { isMonitorOk, parseMonitorLine } from '../redis/monitor-line.ts';
import type { MonitorCapture, TraceCapture } from '../redis/monitor.ts';
import type { QueueKeys } from '../sim/keys.ts';
import type { ModelCheck, ModelSizes } from '../sim/model/check.ts';
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
import { commandMayGiveTtl } from '../redis/virtual-expiry.ts';
import type { StepMaker } from './step-maker.ts';
import type { CacheKeyState, QueueState, TraceCommand } from './timeline.ts';

/** What the model held of the run's keys at a step's end: its queue keys' version, its cache keys (ModelCheck.stringsAt). */
interface ModelMarks {
  version: number;
  strings: string;
}

/** A kept step's end as read (or as the last read, where nothing changed): checked once it comes. */
interface EndReads {
  queues: QueueState[];
  cache?: CacheKeyState[];
  check(): void;
}

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
  /** Reads the lines so far into the watch and the TTL service, in order (RunResources.catchUp). */
  catchUp(): Promise<void>;
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
  /**
   * The cache store's keys after a step, read from Redis and checked (a run whose cache is there),
   * by the observer or `sender` (ConnectionHub.beforeNext: ahead of the next traced command).
   */
  cacheState?: (index: number, sender?: Sender) => Promise<CacheKeyState[]>;
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
    // The step's commands have all been answered, so nothing after it need wait for another: the
    // barrier, the queues' snapshot and the cache's keys all go out together on the observer, in
    // that order, one round trip.
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
    // A push in this step may have answered a worker's BLPOP: its status says so (the worker
    // resumes later). Asked in the same round trip (CLIENT LIST after the reads).
    const woken = Promise.all(ctx.workers.map((w) => w.noteAnsweredBlpop()));
    // Awaited in the order they were sent: the first to fail is the one reported.
    for (const later of [barrier, snapshot, reads, woken]) later?.catch(() => undefined);
    const lines = await barrier;
    const queues = await snapshot;
    const cache = await reads;
    // The steps before this one are finished first (their lines are read first).
    await this.before();
    this.lastQueues = queues;
    // Another client's use of the run's dbs stops the run here; the TTL service reads the lines.
    ctx.held.watchLines(lines);
    // A run that keeps TTLs in virtual time takes the ones this step gave off before anything
    // else happens (the next step, a view holding the run): only after a step whose lines may
    // have given one (virtual-expiry.ts), a round trip of its own.
    if (ctx.held.sweepNeeded()) await this.sweep(done.t);
    await woken;
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

  /**
   * The TTL sweep after step `t`, and a barrier behind it: the sweep's own line is where the TTL
   * service closes the step's lines (virtual-expiry.ts), so it must be read before the clock
   * moves on. Nothing but the observer's commands runs in between (the actors wait).
   */
  protected async sweep(t: number): Promise<void> {
    const { ctx } = this;
    const swept = ctx.held.afterStep(t);
    const barrier = ctx.capture.barrier(ctx.hub.observer);
    barrier.catch(() => undefined);
    await swept;
    ctx.held.watchLines(await barrier);
  }

  async drain(): Promise<void> {}

  /** Every step's lines are read at its barrier. */
  async catchUp(): Promise<void> {}

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

/**
 * Steps whose end costs no round trip of its own, for a run that nothing holds (no view): a
 * streaming run's (nothing kept), or a kept run's (`kept`: runScenario's without onStep, as a test
 * suite runs it), whose queues' snapshot and cache read-back go ahead of the next traced command
 * too, on its connection after the mark (ConnectionHub.beforeNext), and are checked against what
 * the model held at the step's end once they come back.
 */
export class StreamingSteps extends BarrierSteps {
  private finishing: Promise<void> = Promise.resolve();
  private deferredError: unknown = null;
  /** Tells the streaming attribution (onCommand) that step `index` has ended at `t`. */
  private endStep: (index: number, t: number) => void = () => undefined;
  private readonly kept: boolean;
  /** A traced command of this step may give a key a TTL (virtual-expiry.ts' commandMayGiveTtl). */
  private mayGiveTtl = false;
  /**
   * The scripts of a kept step's end, loaded on the server (ToolScript.load) with the run's first
   * commands: awaited before the first step's end goes ahead.
   */
  private readonly loaded: Promise<unknown>;
  /**
   * A kept run whose last step's end went ahead: whether the model's queues were empty then (the
   * run's end is decided on them; Redis' sizes of that moment are checked against the same model
   * once they come, and a difference ends the run before it reports anything).
   */
  private modelEmpty: boolean | null = null;
  /** The last kept step's end that was read: its reads, and what the model held then. */
  private lastRead: ({ reads: Promise<EndReads> } & ModelMarks) | null = null;
  /** The last step collected, where it showed the last read's state (sameAsLastRead); else null. */
  private unreadLast: number | null = null;

  constructor(
    ctx: CollectorContext,
    o: {
      onCommand?: (cmd: TraceCommand) => void;
      scriptNames: ReadonlyMap<string, string>;
      scriptSources: ReadonlyMap<string, string>;
      kept?: boolean;
    },
  ) {
    super(ctx);
    this.kept = o.kept === true;
    // Sent with the run's first commands (RunResources.open, the runner's `scripts`).
    this.loaded = this.kept ? ctx.held.scriptsLoaded : Promise.resolve();
    const cap = ctx.capture;
    ctx.hub.takeMarks = () => cap.takeMarks();
    if (this.kept)
      ctx.hub.onTraced = (args) => {
        if (!this.mayGiveTtl && commandMayGiveTtl(args)) this.mayGiveTtl = true;
      };
    const onCommand = o.onCommand;
    if (onCommand === undefined || this.kept) return;
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
    const mayGiveTtl = this.mayGiveTtl;
    this.mayGiveTtl = false;
    // The run's end depends on the queues only where runIsOver's other conditions hold: a
    // streaming run reads their sizes at a barrier, a kept run decides on the model's.
    const endReadsQueues =
      !this.kept && !ctx.open && ctx.pending() === 0 && !ctx.workers.some((w) => w.busy() || exitsOnItsOwn(w));
    // A run with TTLs in virtual time sweeps after a step that gave one, before the next. A kept
    // run foresees it from the step's commands (its lines are read later, and say whether it was
    // foreseen right) and sends the sweep ahead of the next traced command, after the step's
    // reads (the clock does not move before it is answered: VirtualExpiry.beforeInstant); a
    // streaming run reads its lines as they come, and takes a barrier after every step.
    const sweeps = ctx.held.expiry !== null && !this.kept;
    this.modelEmpty = null;
    this.unreadLast = null;
    // A kept run asks Redis about a BLPOP only where the model says the step may have ended it.
    const blocked = this.kept ? ctx.scheduler.blockedMayHaveEnded() : ctx.scheduler.hasBlocked();
    if (blocked || endReadsQueues || sweeps) return super.collect(done, next, index);
    await this.loaded;
    const end = {
      index,
      done,
      info: { mayHold: false, isLast: next.isLast, nextAt: next.at, settled: ctx.settled },
      workers: ctx.workers.map((w) => copyWorkerState(w.state)),
      failed: ctx.registry.failedSnapshot(),
    };
    const lines = ctx.capture.mark();
    lines.catch(() => undefined);
    const marks = this.kept ? this.modelMarks(done.t) : null;
    const unread = marks !== null && this.sameAsLastRead(marks);
    if (unread) this.unreadLast = index;
    const reads = marks === null ? null : unread ? this.lastReadAgain() : this.readAhead(index, done.t, marks);
    const swept =
      this.kept && mayGiveTtl && ctx.held.expiry !== null ? ctx.held.afterStep(done.t, ctx.hub.beforeNext) : null;
    swept?.catch(() => undefined);
    this.finishing = this.finishing
      .then(async () => {
        const got = await lines;
        const read = await reads;
        ctx.held.watchLines(got);
        // Its state was the last read's: no other client may have written in it.
        if (unread) ctx.held.vouchUnread(got, index);
        // Its sweep's line comes after its own lines, with the next step's.
        if (swept !== null) await swept;
        const ttl = swept === null ? (ctx.held.expiry?.ttlGivenBy() ?? null) : null;
        if (ttl !== null)
          throw new Error(
            `lqsim foresaw no TTL in step ${index}, but its ${ttl} may have given one, and no sweep took it into virtual time (a bug in virtual-expiry.ts' commandMayGiveTtl); the run stops`,
          );
        await ctx.maker.make(read?.cache !== undefined ? { ...end, cache: read.cache } : end, got, read?.queues ?? []);
        if (read) read.check();
      })
      .catch((e: unknown) => void (this.deferredError ??= e));
  }

  /**
   * Whether a kept step's end may show the last read's queues and cache instead of reading them:
   * the model says no key of the run changed since that read (each of the step's commands had
   * the reply it says, so none of them changed one), no key can change on its own (a TTL that
   * runs out in real time: a run without virtual TTLs). Another client's write is what is left:
   * the step's lines say whether there was one (RunResources.vouchUnread). A run whose last step
   * was not read is read at its end (drain), so that it never ends on a state it did not read.
   */
  private sameAsLastRead(marks: ModelMarks & { ttl: boolean }): boolean {
    const last = this.lastRead;
    if (last === null || (marks.ttl && this.ctx.held.expiry === null)) return false;
    return last.version === marks.version && last.strings === marks.strings;
  }

  /** What the model holds of the run's keys at `t`, as sameAsLastRead compares it. */
  private modelMarks(t: number): ModelMarks & { ttl: boolean } {
    const strings = this.ctx.check.stringsAt(t);
    return { version: this.ctx.check.keyspace.version, strings: strings.print, ttl: strings.ttl };
  }

  /** The last read's queues and cache, for a step sameAsLastRead says holds them still. */
  private lastReadAgain(): Promise<EndReads> {
    this.modelEmpty = this.modelQueuesEmpty(this.ctx.check.sizesNow());
    const last = this.lastRead!;
    return last.reads.then((r) => ({
      queues: r.queues,
      ...(r.cache !== undefined ? { cache: r.cache } : {}),
      check: () => undefined,
    }));
  }

  private modelQueuesEmpty(model: ModelSizes): boolean {
    return this.ctx.queues.every(
      (k) =>
        model(k.ready, 'list').size === 0 &&
        model(k.delayed, 'zset').size === 0 &&
        model(k.reserved, 'zset').size === 0,
    );
  }

  /**
   * A kept step's reads, sent ahead of the next traced command: the queues (with what the model
   * holds in them now, for the check once Redis' sizes come) and the cache's keys.
   */
  private readAhead(index: number, t: number, marks: ModelMarks): Promise<EndReads> {
    const { ctx } = this;
    const where = `at the end of step ${index} (${relativeTime(t, ctx.start)})`;
    const model = ctx.check.sizesAt(ctx.queues);
    this.modelEmpty = this.modelQueuesEmpty(model);
    const snapshot = this.readQueues(ctx.hub.beforeNext);
    const cache = ctx.cacheState?.(index, ctx.hub.beforeNext);
    snapshot.catch(() => undefined);
    cache?.catch(() => undefined);
    const reads = (async (): Promise<EndReads> => {
      const queues = await snapshot;
      this.lastQueues = queues;
      const got = await cache;
      return {
        queues,
        ...(got !== undefined ? { cache: got } : {}),
        check: () => ctx.check.compareSizes(queues, where, model),
      };
    })();
    this.lastRead = { reads, version: marks.version, strings: marks.strings };
    return reads;
  }

  /** A kept run's queues, read with `sender` (its script selects the queues' db: beforeNext's connection may be in another). */
  private readQueues(sender: Sender): Promise<QueueState[]> {
    const { ctx } = this;
    return snapshotQueues(sender, ctx.queues, ctx.registry, ctx.notify, ctx.snapshotLimit, undefined, ctx.held.db);
  }

  override queuesEmpty(): boolean {
    return this.modelEmpty ?? super.queuesEmpty();
  }

  /**
   * A barrier sends what is unsent and passes every mark before it. The lines after the last mark
   * are a step's that a fault cut short, or the run's last: a streaming run's sink has read them,
   * a kept run's watch reads them here (another client's command in them ends the run too, and
   * the client a fault's mismatch came from is named: RunResources.failure).
   */
  override async drain(): Promise<void> {
    await this.linesSoFar();
    if (this.unreadLast !== null) await this.readLastAgain(this.unreadLast);
  }

  /**
   * A barrier, once the steps before have read their lines; a kept run's watch reads the lines
   * after the last mark. It goes behind the last command sent ahead, on its connection, where only
   * one connection has any (ConnectionHub.barrierConnection: no round trip to wait for its reply
   * first); a failed one is thrown as the observer's barrier would have.
   */
  private async linesSoFar(): Promise<void> {
    const { hub } = this.ctx;
    const via = hub.barrierConnection();
    const lines = await this.ctx.capture.barrier(hub.observer, undefined, via);
    if (via !== undefined) await hub.othersSettled(hub.observer);
    try {
      await this.before();
    } finally {
      if (this.kept) this.ctx.held.watchLines(lines);
    }
  }

  /**
   * A kept run's lines after the last mark (a sweep's sent ahead, before the clock moves): a
   * barrier reads them, once the steps before have read theirs. A streaming run's sink has read
   * every line already.
   */
  override async catchUp(): Promise<void> {
    if (this.kept) await this.linesSoFar();
  }

  /**
   * The run's last step showed the state of a step before it (sameAsLastRead): read now, after
   * everything (nothing of the run's has run since), it must be that state and the model's.
   */
  private async readLastAgain(index: number): Promise<void> {
    const { ctx } = this;
    this.unreadLast = null;
    const shown = await this.lastRead!.reads;
    const t = ctx.scheduler.currentInstant() ?? ctx.start;
    const where = `at the end of step ${index}, the run's last (${relativeTime(t, ctx.start)})`;
    const cache = ctx.cacheState?.(index, ctx.hub.observer);
    cache?.catch(() => undefined);
    const queues = await this.readQueues(ctx.hub.observer);
    ctx.check.compareSizes(queues, where, ctx.check.sizesNow());
    const read = { queues, cache: await cache };
    if (JSON.stringify(read) !== JSON.stringify({ queues: shown.queues, cache: shown.cache }))
      throw new Error(
        `${where}, Redis holds other queue or cache entries than the run's last step shows, which it took from the step before it (nothing of the run's changed them, the model says): the model and Redis disagree, so the run stops`,
      );
  }

  /** A streaming run's steps show no queues: the sizes alone are read, where the run's end needs them. */
  protected override snapshotLimit(): number {
    return this.kept ? this.ctx.snapshotLimit : 0;
  }

  protected override mayHold(): boolean {
    return false;
  }

  protected override shownQueues(queues: QueueState[]): QueueState[] {
    return this.kept ? queues : [];
  }

  /**
   * A streaming run reads every line as it comes (the sink): the sweep's own line is read on its
   * way, and a second barrier would count as a step's end.
   */
  protected override async sweep(t: number): Promise<void> {
    if (this.kept) return super.sweep(t);
    await this.ctx.held.afterStep(t);
  }

  /** The steps before this one come first (their marks' lines came before this barrier's). */
  protected override async before(): Promise<void> {
    await this.finishing;
    if (this.deferredError !== null) throw this.deferredError;
  }
}
