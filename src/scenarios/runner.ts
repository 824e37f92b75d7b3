// The runner: builds the actors of a scenario (a dispatcher that opens a connection per request,
// worker processes with their own connections), plays them on the virtual clock against a real
// Redis, and after every step collects that step's MONITOR lines and a snapshot of the queues.
// It produces a Timeline and formats nothing.
import { readFile } from 'node:fs/promises';
import { parseRedisUrl } from '../redis/url.ts';
import { NodeRedisPort } from '../redis/port.ts';
import { getProfile, scriptsOf } from '../sim/profiles/index.ts';
import { Dispatcher } from '../sim/dispatcher.ts';
import { seededRandom } from '../sim/random.ts';
import type { ConnectionFactory } from '../sim/redis-port.ts';
import { exactInstant, formatSeconds, relativeTime, secondsBetween } from '../sim/clock.ts';
import { ModelCheck } from '../sim/model/check.ts';
import type { CompletedStep } from '../sim/scheduler.ts';
import { Scheduler } from '../sim/scheduler.ts';
import { copyWorkerState } from '../sim/state.ts';
import { attributeLines, LineAttributor } from './attribute.ts';
import { ForeignUseError } from './foreign-watch.ts';
import { probePlan } from './probe-plan.ts';
import { isMonitorOk, parseMonitorLine } from '../redis/monitor-line.ts';
import { ExecutionLog } from './execution-log.ts';
import { KeptStrings } from './kept-strings.ts';
import { SharedState } from './shared-state.ts';
import { ScenarioError } from './errors.ts';
import { scenarioErrorAt, specProblem } from './load.ts';
import type { Problem } from './schema-issues.ts';
import type { NoteEntry } from './entries/index.ts';
import { kindOf, RunPlan, totalDispatches } from './entries/index.ts';
import { extensionOf } from './extension.ts';
import type { ScenarioSpec } from './schema.ts';
import { scenarioQueues } from './queues.ts';
import { buildWorld } from './world.ts';
import type { RedisTarget } from './run-resources.ts';
import { RunResources } from './run-resources.ts';
import { exitsOnItsOwn, runIsOver } from './run-end.ts';
import { queuesAreEmpty, SNAPSHOT_LIMIT, snapshotQueues } from './snapshot.ts';
import type { FailedJob, QueueState, Step, Timeline, TraceCommand, WorkerState } from './timeline.ts';

export type { RedisTarget } from './run-resources.ts';

export interface RunOptions {
  redis: RedisTarget;
  /** Laravel profile overriding the scenario's. */
  laravel?: string;
  file?: string;
  /**
   * Called as each step completes, with the timeline so far (for live views). The run waits for
   * the returned promise, so a view can hold it between steps, except while `mayHold` is false:
   * a worker then waits in a BLPOP that the server would time out in real time. `isLast()`: whether
   * the run ends after this step (asked only by a view about to hold it: finished needs no hold).
   */
  onStep?: (step: Step, timeline: Timeline, info: StepInfo) => void | Promise<void>;
  /**
   * An open run (the lab): it does not end when the scenario has played out (run-end.ts), so
   * daemons go on polling for as long as a view asks for steps; `info.settled()` says when it
   * would have ended. `until` still bounds it.
   */
  open?: boolean;
  /** Real milliseconds to wait after each step (demos, and tests that need a run in progress). */
  paceMs?: number;
  /**
   * False: `timeline.steps` keeps no step (each goes to `onStep` and is let go), so a run of any
   * length streams in constant memory (`lqsim run --format ndjson | text`). Default true.
   */
  keepSteps?: boolean;
  /**
   * What each step's `state.queues` holds: 'full' (default) the sizes and the first
   * SNAPSHOT_LIMIT entries of every key, for views that show the queues; 'sizes' the sizes alone
   * (entry lists empty), for views that show only the trace: no payload is read back.
   */
  snapshots?: 'full' | 'sizes';
  /**
   * With `keepSteps: false`: each traced command as soon as MONITOR delivers it, in order, before
   * its step reaches `onStep`; the steps then carry no commands. A step of any size (a request
   * dispatching 100,000 jobs) is never held whole.
   */
  onCommand?: (cmd: TraceCommand) => void;
  /**
   * With `open`: called once the run is built, before its first step, with what lets it take on
   * more of its scenario while it goes (the lab's actions: OpenRun).
   */
  onOpen?: (run: OpenRun) => void;
}

/** An open run (RunOptions.onOpen), while it is held between steps. */
export interface OpenRun {
  /**
   * Goes on as a run of `next` would: `next` is this run's scenario with entries, job classes or
   * connections added (extension.ts), all of them at or after where the run stands
   * (RunPlan.add). Null when it does; else why not (nothing changed then: replay `next` instead).
   */
  extend(next: ScenarioSpec): string | null;
}

/** What a view may ask about the run after each step (RunOptions.onStep). */
export interface StepInfo {
  /** False while a worker waits in a BLPOP that the server would time out in real time. */
  mayHold: boolean;
  /** Whether the run ends after this step. */
  isLast(): Promise<boolean>;
  /** When the next step happens (exact unix seconds), or null when the run ends after this one. */
  nextAt(): Promise<number | null>;
  /** The scenario has played out (what ends a run that is not open): only idle polls are left. */
  settled(): boolean;
}

export async function runScenario(spec: ScenarioSpec, opts: RunOptions): Promise<Timeline> {
  const profile = getProfile(opts.laravel ?? spec.laravel);
  // A file was checked by the loader; a spec built in code (Scenario.parse) gets the same checks.
  // Under --laravel, what the overriding version lacks too: its options, then what the entries
  // check against the version (chains), by checking again as that version. At the line and
  // column when the spec came from a file.
  const problem = specProblem(spec, opts.laravel);
  if (problem) throw await scenarioProblem(opts.file, spec, problem);
  const prefix = spec.redis.prefix ?? profile.defaultPrefix;
  const queues = scenarioQueues(spec, prefix);
  // Notes describe the scenario's own Laravel version; under --laravel another, they may not hold.
  const noteFor = (note: string): string =>
    profile.name === spec.laravel ? note : `[written for Laravel ${spec.laravel}] ${note}`;
  const executionLog = new ExecutionLog();
  const registry = executionLog.registry();
  const cache = new Map<string, number>();
  const dispatcher = new Dispatcher(profile, registry, seededRandom(spec.seed));
  const scriptNames = new Map(scriptsOf(profile).map((s) => [s.source, s.name]));
  const scriptSources = new Map<string, string>(scriptsOf(profile).map((s) => [s.name, s.source]));

  const timeline: Timeline = {
    scenario: { name: spec.name, title: spec.title, description: spec.description, file: opts.file },
    profile: profile.name,
    start: spec.start,
    server: { kind: opts.redis.kind, version: opts.redis.version, describe: opts.redis.describe() },
    steps: [],
    jobs: registry.list,
    failed: registry.failed,
    warnings: [],
    notices: [],
  };

  const urlDb = parseRedisUrl(opts.redis.url).db;
  if (urlDb !== undefined && urlDb !== spec.redis.database) {
    timeline.notices!.push(
      `REDIS_URL names db ${urlDb}, but Laravel selects the scenario's redis.database (${spec.redis.database}), not the URL's`,
    );
  }
  const plan = probePlan(spec, profile, queues);
  // A server the tool started is flushed by each run: a second run at once on it is refused here.
  const held = new RunResources(opts.redis, plan, spec.redis.database);
  const { hub } = held;
  try {
    await held.open({ spec, profile, queues, timeline });
    const capture = held.capture!;

    // Every reply is checked against the model of the queue keys (src/sim/model/check.ts).
    const check = new ModelCheck({
      labelOf: (payload) => registry.labelOfPayload(payload),
      now: () => scheduler.currentInstant() ?? spec.start,
      when: (t) => relativeTime(t, spec.start),
    });
    const connect: ConnectionFactory = async (actor) =>
      check.port(actor, new NodeRedisPort(await hub.connect(actor), hub, held.selectDb));
    const world = buildWorld(spec, profile, { prefix, connect, registry, dispatcher, cache });
    const { workers, env } = world;
    let lastQueues: QueueState[] | null = null;
    /** Tells the streaming attribution (onCommand) that step `index` has ended at `t`. */
    let endStep: (index: number, t: number) => void = () => undefined;
    const scheduler = new Scheduler({
      start: spec.start,
      until: spec.until ?? null,
      // An open run goes on for as long as a person steps it.
      maxSteps: (opts.open ? 1_000_000 : 10_000) + 50 * totalDispatches(spec.timeline),
      onWarning: (m) => timeline.warnings.push(m),
      // run-end.ts: nothing left to start, the queues empty, no handle() running, and no worker
      // still on its way to an exit of its own (--once, or after SIGTERM). Daemons polling empty
      // queues would poll forever, so they do not hold the run open.
      isDone: opts.open ? undefined : () => settled(),
    });
    const settled = (): boolean =>
      runIsOver({ pending: pending(), queuesEmpty: lastQueues !== null && queuesAreEmpty(lastQueues), workers });
    const runPlan = new RunPlan(scheduler, spec.start, (e) => kindOf(e).model(e, env));
    runPlan.add(spec.timeline, 0, workers, 0);
    const pending = (): number => runPlan.pending;

    const notes = new PendingNotes(spec, noteFor);
    if (opts.open === true)
      opts.onOpen?.({
        extend(next) {
          const before = env.spec;
          const more = extensionOf(before, next, prefix);
          if ('refused' in more) return more.refused;
          if (profile.name !== getProfile(opts.laravel ?? next.laravel).name) return 'its Laravel version changed';
          // On someone else's server the permission probe passed for what the run started with.
          if (held.needsAnotherProbe(probePlan(next, profile, queues)))
            return 'it sends commands the permission probe did not try';
          const refused = runPlan.add(next.timeline, before.timeline.length, workers, workers.length);
          if (refused !== null) return refused;
          // Nothing has run since: what the new entries read is in place before they run.
          world.extend(next, more.connections);
          notes.add(next.timeline.slice(before.timeline.length));
          scheduler.raiseLimit(1_000_000 + 50 * totalDispatches(next.timeline));
          timeline.scenario = { ...timeline.scenario, title: next.title, description: next.description };
          return null;
        },
      });

    const cap = capture;
    const snapshotLimit = opts.snapshots === 'sizes' ? 0 : SNAPSHOT_LIMIT;
    const keepSteps = opts.keepSteps ?? true;
    const kept = new KeptStrings();
    const shared = new SharedState();
    // A streaming run (nothing holds it, nothing keeps its steps) does not wait for a step's MONITOR
    // lines before the next step: the step's end is a mark (MonitorCapture.mark) that goes out
    // ahead of the next command, and the step is finished when the mark's line comes back. It
    // reads the queues only where the run's end depends on them. A step a BLPOP waits across
    // takes the barrier: a push may serve it, and the worker's state says so (noteAnsweredBlpop).
    const streaming = !keepSteps && opts.paceMs === undefined && opts.open !== true;
    if (streaming) hub.takeMarks = () => cap.takeMarks();
    let stepCount = 0;
    let finishing: Promise<void> = Promise.resolve();
    let deferredError: unknown = null;
    const onCommand = streaming ? opts.onCommand : undefined;
    if (onCommand !== undefined) {
      // Lines are attributed as they come: to the step they belong to, which is the oldest one
      // whose barrier or mark has not passed (`lineStep`), ended (its instant in `endedAt`) or
      // still running.
      let lineStep = 0;
      const endedAt = new Map<number, number>();
      endStep = (index, t) => endedAt.set(index, t);
      const attributor = new LineAttributor(hub, scriptNames);
      cap.onBoundary = () => endedAt.delete(lineStep++);
      cap.sink = (raw) => {
        if (deferredError !== null || isMonitorOk(raw)) return;
        try {
          const line = parseMonitorLine(raw);
          const use = held.watch?.push(line) ?? null;
          if (use !== null) throw new ForeignUseError([use], held.db);
          const t = endedAt.get(lineStep) ?? scheduler.currentInstant() ?? spec.start;
          const cmd = attributor.pushParsed(line, { index: lineStep, t });
          if (cmd === null) return;
          if (cmd.script !== undefined) cmd.args[1] = scriptSources.get(cmd.script) ?? cmd.args[1]!;
          onCommand(cmd);
        } catch (e) {
          deferredError = e;
        }
      };
    }

    interface StepEnd {
      index: number;
      done: CompletedStep;
      info: StepInfo;
      workers: WorkerState[];
      failed: FailedJob[];
    }
    const finishStep = async (end: StepEnd, lines: string[], queues: QueueState[]): Promise<void> => {
      const { index, done } = end;
      const attributed = attributeLines(lines, hub, { index, t: done.t }, scriptNames).commands;
      // A kept step's list is the size of its commands (the attribution's grew by push).
      const commands = keepSteps ? attributed.slice() : attributed;
      held.watchLines(lines);
      // Every EVAL carries the whole script; keep one copy of each text for the whole run.
      for (const cmd of commands) {
        if (cmd.script !== undefined) cmd.args[1] = scriptSources.get(cmd.script) ?? cmd.args[1]!;
        if (keepSteps) kept.keep(cmd);
      }
      const d = done.description ?? { kind: 'process' as const, title: `${done.actor} continues` };
      const step: Step = {
        index,
        t: done.t,
        actor: done.actor,
        kind: d.kind,
        title: d.title,
        methods: d.methods ?? [],
        explain: d.explain,
        note: d.note === undefined ? undefined : noteFor(d.note),
        commands,
        state: executionLog.attach(
          {
            t: done.t,
            queues: keepSteps ? shared.queuesLike(queues) : queues,
            workers: keepSteps ? shared.workersLike(end.workers) : end.workers,
            failed: end.failed,
          },
          index,
        ),
      };
      notes.attach(step);
      if (keepSteps) timeline.steps.push(step);
      await opts.onStep?.(step, timeline, end.info);
    };
    /** A streaming run's steps still waiting for their marks: a barrier sends what is unsent and passes them all. */
    const drain = async (): Promise<void> => {
      if (!streaming) return;
      await cap.barrier(hub.observer);
      await finishing;
      if (deferredError !== null) throw deferredError;
    };

    try {
      await scheduler.run(async (done, next) => {
        if (deferredError !== null) throw deferredError;
        check.throwIfFailed();
        const index = stepCount++;
        endStep(index, done.t);
        executionLog.commit(index);
        const blocked = scheduler.hasBlocked();
        // The run's end depends on the queues only where runIsOver's other conditions hold.
        const endReadsQueues =
          opts.open !== true && pending() === 0 && !workers.some((w) => w.busy() || exitsOnItsOwn(w));
        if (streaming && !blocked && !endReadsQueues) {
          const end: StepEnd = {
            index,
            done,
            info: { mayHold: false, isLast: next.isLast, nextAt: next.at, settled },
            workers: workers.map((w) => copyWorkerState(w.state)),
            failed: registry.failedSnapshot(),
          };
          const lines = cap.mark();
          lines.catch(() => undefined);
          finishing = finishing
            .then(async () => finishStep(end, await lines, []))
            .catch((e: unknown) => void (deferredError ??= e));
          return;
        }
        // The step's commands have all been answered, so the snapshot need not wait for the
        // barrier: both go out together on the observer, one round trip instead of two.
        const barrier = cap.barrier(hub.observer);
        const snapshot = snapshotQueues(
          hub.observer,
          queues,
          registry,
          profile.queue.notify,
          streaming ? 0 : snapshotLimit,
        );
        snapshot.catch(() => undefined); // if the barrier fails first, its error is the one reported
        const lines = await barrier;
        lastQueues = await snapshot;
        // A push in this step may have answered a worker's BLPOP: its status says so (the worker resumes later).
        for (const w of workers) await w.noteAnsweredBlpop();
        // The steps before this one come first (their marks' lines came before this barrier's).
        await finishing;
        if (deferredError !== null) throw deferredError;
        await finishStep(
          {
            index,
            done,
            info: {
              mayHold: !streaming && !scheduler.hasRealTimeWait(),
              isLast: next.isLast,
              nextAt: next.at,
              settled,
            },
            workers: workers.map((w) => copyWorkerState(w.state)),
            failed: registry.failedSnapshot(),
          },
          lines,
          streaming ? [] : lastQueues,
        );
        // The step is shown (with the sizes that differ), then the run stops.
        check.compareSizes(
          lastQueues,
          `at the end of step ${index} (${relativeTime(done.t, spec.start)}, ${done.actor})`,
        );
        if (opts.paceMs) await new Promise((r) => setTimeout(r, opts.paceMs));
      });
      await drain();
      check.throwIfFailed();
    } catch (e) {
      // The steps before the fault are still the run's: finish them, then report the fault.
      await drain().catch(() => undefined);
      throw e;
    }
    timeline.warnings.push(...notes.unmatched());
  } catch (e) {
    timeline.error = await held.failure(e);
  } finally {
    await held.release(timeline);
  }
  return timeline;
}

/** A problem's ScenarioError: at its line and column when the spec came from a file that is still there. */
async function scenarioProblem(file: string | undefined, spec: ScenarioSpec, problem: Problem): Promise<ScenarioError> {
  if (file !== undefined) {
    const source = await readFile(file, 'utf8').catch(() => null);
    if (source !== null) return scenarioErrorAt({ spec, file, source }, problem.path, problem.detail);
  }
  return new ScenarioError(file ?? spec.name, 0, 0, problem.path.join('.'), problem.detail);
}

/** Note-only timeline entries attach to the first matching step at or after their time. */
class PendingNotes {
  private readonly pending: NoteEntry[] = [];
  constructor(
    private readonly spec: ScenarioSpec,
    private readonly noteFor: (note: string) => string,
  ) {
    this.add(spec.timeline);
  }
  /** Note entries the scenario took on (an open run's): they attach from the next step on. */
  add(entries: ScenarioSpec['timeline']): void {
    for (const e of entries) if (e.kind === 'note') this.pending.push(e);
  }
  attach(step: Step): void {
    for (let i = 0; i < this.pending.length; i++) {
      const n = this.pending[i]!;
      if (secondsBetween(this.spec.start, step.t) < exactInstant(n.at)) continue;
      if (n.actor && n.actor !== step.actor) continue;
      if (n.on && n.on !== step.kind) continue;
      step.note = step.note ? `${step.note}\n${this.noteFor(n.note)}` : this.noteFor(n.note);
      this.pending.splice(i--, 1);
    }
  }
  unmatched(): string[] {
    return this.pending.map(
      (n) =>
        `note at t+${formatSeconds(n.at)}s${n.actor ? ` for ${n.actor}` : ''}${n.on ? ` on ${n.on}` : ''} matched no step: "${n.note}"`,
    );
  }
}
