// The runner: builds the actors of a scenario (a dispatcher that opens a connection per request,
// worker processes with their own connections), plays them on the virtual clock against a real
// Redis, and after every step collects that step's MONITOR lines and a snapshot of the queues.
// It produces a Timeline and formats nothing.
import { runDbs } from './cache-config.ts';
import { plannedKeys } from './probe-plan.ts';
import { READ_CACHE, snapshotCache } from './cache-snapshot.ts';
import { CACHE_SCRIPTS } from '../sim/cache-scripts.ts';
import { readFile } from 'node:fs/promises';
import { parseRedisUrl } from '../redis/url.ts';
import { NodeRedisPort } from '../redis/port.ts';
import { VirtualExpiry } from '../redis/virtual-expiry.ts';
import type { Sender } from '../redis/connections.ts';
import { ClusterPort } from '../redis/cluster-port.ts';
import { RedisRefusedError } from '../redis/errors.ts';
import type { LaravelProfile } from '../sim/profiles/index.ts';
import { getProfile, scriptsOf } from '../sim/profiles/index.ts';
import type { QueueKeys } from '../sim/keys.ts';
import type { JobRegistry } from '../sim/registry.ts';
import { Dispatcher } from '../sim/dispatcher.ts';
import { seededRandom } from '../sim/random.ts';
import type { ConnectionFactory } from '../sim/redis-port.ts';
import { exactInstant, formatSeconds, relativeTime, secondsBetween } from '../sim/clock.ts';
import { ModelCheck } from '../sim/model/check.ts';
import { Scheduler } from '../sim/scheduler.ts';
import { probePlan } from './probe-plan.ts';
import { ExecutionLog } from './execution-log.ts';
import { ScenarioError } from './errors.ts';
import { scenarioErrorAt, specProblem } from './load.ts';
import type { Problem } from './schema-issues.ts';
import type { NoteEntry } from './entries/index.ts';
import type { PlannedWorker } from './entries/index.ts';
import { kindOf, RunPlan, totalDispatches } from './entries/index.ts';
import type { CollectorContext, StepCollector } from './step-collector.ts';
import { BarrierSteps, StreamingSteps } from './step-collector.ts';
import type { StepInfo } from './step-maker.ts';
import { StepMaker } from './step-maker.ts';
import { extensionOf } from './extension.ts';
import type { ScenarioSpec } from './schema.ts';
import { scenarioQueues } from './queues.ts';
import { usesRedisCache } from './cache-config.ts';
import type { World } from './world.ts';
import { buildWorld } from './world.ts';
import type { RedisTarget } from './run-resources.ts';
import { RunResources } from './run-resources.ts';
import { runIsOver } from './run-end.ts';
import { READ_QUEUES, SNAPSHOT_LIMIT } from './snapshot.ts';
import type { Step, Timeline, TraceCommand } from './timeline.ts';

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
  /**
   * Keep Redis TTLs in virtual time (src/redis/virtual-expiry.ts): what a scenario with its cache
   * store on Redis needs; forced on here (tests). Off, the run sends nothing for it.
   */
  virtualTtl?: boolean;
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

export type { StepInfo } from './step-maker.ts';

export async function runScenario(spec: ScenarioSpec, opts: RunOptions): Promise<Timeline> {
  notASpec(spec);
  const profile = getProfile(opts.laravel ?? spec.laravel);
  // A file was checked by the loader; a spec built in code (Scenario.parse) gets the same checks.
  // Under --laravel, what the overriding version lacks too: its options, then what the entries
  // check against the version (chains), by checking again as that version. At the line and
  // column when the spec came from a file.
  const problem = specProblem(spec, opts.laravel);
  if (problem) throw await scenarioProblem(opts.file, spec, problem);
  clusterMatches(spec, opts.redis);
  const prefix = spec.redis.prefix ?? profile.defaultPrefix;
  const queues = scenarioQueues(spec, prefix);
  // Notes describe the scenario's own Laravel version; under --laravel another, they may not hold.
  const noteFor = (note: string): string =>
    profile.name === spec.laravel ? note : `[written for Laravel ${spec.laravel}] ${note}`;
  const executionLog = new ExecutionLog();
  const registry = executionLog.registry();
  const dispatcher = new Dispatcher(profile, registry, seededRandom(spec.seed));
  const scripts = [...scriptsOf(profile), ...CACHE_SCRIPTS];
  const scriptNames = new Map<string, string>(scripts.map((s) => [s.source, s.name]));
  const scriptSources = new Map<string, string>(scripts.map((s) => [s.name, s.source]));

  const timeline = newTimeline(spec, profile, opts, registry);
  const plan = probePlan(spec, profile, queues);
  // A server the tool started is flushed by each run: a second run at once on it is refused here.
  // A cache store on Redis sets TTLs that must run out in virtual time (virtual-expiry.ts).
  // Whatever puts cache keys on Redis (the store, uniqueVia(), a *WithRedis middleware).
  const redisCache = usesRedisCache(spec);
  const virtualTtl = opts.virtualTtl === true || redisCache;
  const held = new RunResources(opts.redis, plan, runDbs(spec, profile, prefix, plannedKeys(plan)), {
    virtualTtl,
    handedOn: likelyConnections(spec, redisCache),
  });
  const { hub } = held;
  try {
    // The tool's scripts (the queues' and the cache's reads, the TTL sweep), loaded with the first
    // commands: a step's end sends them by SHA, ahead of the next command (step-collector.ts) or on
    // the observer, which would otherwise load each at its first NOSCRIPT (tool-script.ts).
    const scripts = [READ_QUEUES, ...(redisCache ? [READ_CACHE] : []), ...(virtualTtl ? [VirtualExpiry.script] : [])];
    await held.open({ spec, profile, queues, timeline, scripts });
    const capture = held.capture!;

    // Every reply is checked against the model of the queue keys (src/sim/model/check.ts).
    const check = new ModelCheck({
      labelOf: (payload) => registry.labelOfPayload(payload),
      now: () => scheduler.currentInstant() ?? spec.start,
      when: (t) => relativeTime(t, spec.start),
    });
    // A reply that differs from the one the model foresaw: what waits in the hub stays there.
    hub.failedElsewhere = () => check.failed;
    const cluster = opts.redis.cluster;
    const connect: ConnectionFactory = async (actor, connection = 'default') =>
      check.port(
        actor,
        cluster !== undefined
          ? new ClusterPort(hub, actor, cluster.seed)
          : new NodeRedisPort(await hub.connect(actor), hub, held.selectFor(connection), held.owned),
        held.dbFor(connection),
      );
    const now = (): number => scheduler.currentInstant() ?? spec.start;
    const world = buildWorld(spec, profile, { prefix, connect, registry, dispatcher, now });
    const { workers, env } = world;
    const scheduler = new Scheduler({
      start: spec.start,
      until: spec.until ?? null,
      // An open run goes on for as long as a person steps it.
      maxSteps: (opts.open ? 1_000_000 : 10_000) + 50 * totalDispatches(spec.timeline),
      onWarning: (m) => timeline.warnings.push(m),
      // Redis TTLs in virtual time (RunResources' virtualTtl): what ran out goes before the clock moves.
      beforeInstant: held.beforeInstant,
      // What the activation sent ahead on two connections, or left waiting in the hub for another
      // connection's replies, is written before the step's end is worked out (ConnectionHub.flushed).
      afterActivation: () => hub.flushed(),
      // run-end.ts: nothing left to start, the queues empty, no handle() running, and no worker
      // still on its way to an exit of its own (--once, or after SIGTERM). Daemons polling empty
      // queues would poll forever, so they do not hold the run open.
      isDone: opts.open ? undefined : () => settled(),
    });
    const settled = (): boolean =>
      runIsOver({ pending: runPlan.pending, queuesEmpty: collector.queuesEmpty(), workers });
    const runPlan = new RunPlan(scheduler, spec.start, (e) => kindOf(e).model(e, env));
    runPlan.add(spec.timeline, 0, workers, 0);
    const notes = new PendingNotes(spec, noteFor);
    if (opts.open === true)
      opts.onOpen?.(
        openRun(
          { world, notes, scheduler, timeline },
          { profile, laravel: opts.laravel, prefix, queues, held, runPlan },
        ),
      );

    const keepSteps = opts.keepSteps ?? true;
    const maker = new StepMaker({
      hub,
      timeline,
      executionLog,
      scriptNames,
      scriptSources,
      keepSteps,
      noteFor,
      attachNotes: (step) => notes.attach(step),
      onStep: clusterOnStep(opts),
    });
    const context: CollectorContext = {
      hub,
      capture,
      held,
      queues,
      registry,
      notify: profile.queue.notify,
      snapshotLimit: opts.snapshots === 'sizes' ? 0 : SNAPSHOT_LIMIT,
      workers,
      scheduler,
      check,
      maker,
      start: spec.start,
      open: opts.open === true,
      pending: () => runPlan.pending,
      settled,
      paceMs: opts.paceMs,
      ...(redisCache
        ? {
            cacheState: (index: number, sender: Sender = hub.observer) =>
              snapshotCache(sender, check.strings, world.locks, {
                now: now(),
                start: spec.start,
                where: `at the end of step ${index} (${relativeTime(now(), spec.start)})`,
              }),
          }
        : {}),
    };
    // Nothing holds the run (no view): a step's end costs no round trip of its own, whether the
    // run keeps its steps or streams them (step-collector.ts). A cluster's capture merges its
    // nodes' lines at each barrier (cluster-capture.ts): no marks.
    const unheld =
      (!keepSteps || opts.onStep === undefined) &&
      opts.paceMs === undefined &&
      opts.open !== true &&
      cluster === undefined;
    const collector: StepCollector = unheld
      ? new StreamingSteps(context, { onCommand: opts.onCommand, scriptNames, scriptSources, kept: keepSteps })
      : new BarrierSteps(context);
    held.catchUp = () => collector.catchUp();
    let stepCount = 0;
    try {
      await scheduler.run(async (done, next) => {
        collector.throwIfFaulted();
        check.throwIfFailed();
        const index = stepCount++;
        executionLog.commit(index);
        await collector.collect(done, next, index);
      });
      await collector.drain();
      check.throwIfFailed();
    } catch (e) {
      // The steps before the fault are still the run's: finish them, then report the fault.
      await collector.drain().catch(() => undefined);
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

/**
 * How many connections a run of `spec` likely opens, its observer's and MONITOR's with them: one
 * per timeline entry, dispatched job and worker (each may be a process of its own: a web request,
 * an artisan command, a worker), twice that with a cache on Redis (a connection of its own); a
 * worker restarted opens more. Only what a run takes from the connections earlier runs handed on
 * (connection-pool.ts) depends on it: more than it uses cost it their readying and parking, and
 * one it lacks is opened.
 */
function likelyConnections(spec: ScenarioSpec, redisCache: boolean): number {
  const processes = spec.timeline.length + totalDispatches(spec.timeline) + spec.workers.length;
  return 2 + processes * (redisCache ? 2 : 1);
}

/**
 * Called from JavaScript, runScenario can be given what is not a spec: a loader's whole result
 * (`{ spec, ... }`), or nothing. Said so in one line, before anything else reads it.
 */
function notASpec(spec: unknown): void {
  if (typeof spec === 'object' && spec !== null && Array.isArray((spec as { timeline?: unknown }).timeline)) return;
  const loaded = typeof spec === 'object' && spec !== null && 'spec' in spec;
  throw new TypeError(
    loaded
      ? 'runScenario takes a scenario spec, and was given a loaded scenario: pass its .spec (loadScenario() and loadScenarioFile() give { spec, ... })'
      : `runScenario takes a scenario spec (scenario(...).build(), loadScenario(name).spec, or Scenario.parse(...)), and was given ${spec === null ? 'null' : typeof spec}`,
  );
}

/** A cluster scenario runs on a cluster, any other on one server: else the trace would be another app's. */
function clusterMatches(spec: ScenarioSpec, redis: RedisTarget): void {
  const wants = spec.redis.cluster === true;
  if (wants === (redis.cluster !== undefined)) return;
  throw new RedisRefusedError(
    wants
      ? `${spec.name} says redis.cluster: true, but ${redis.describe()} is one server: run it on a cluster (acquireRedisCluster(), or the CLI, which starts one)`
      : `${spec.name} is for one Redis server, but ${redis.describe()} is a cluster: run it with acquireRedis() or REDIS_URL`,
  );
}

/**
 * A cluster run takes a barrier after each step (no streaming marks), so its commands come with
 * their step: a caller that asked for them one by one (onCommand) gets them before the step, as a
 * streamed run gives them.
 */
function clusterOnStep(opts: RunOptions): RunOptions['onStep'] {
  const { onCommand, onStep } = opts;
  if (opts.redis.cluster === undefined || onCommand === undefined || opts.keepSteps !== false) return onStep;
  return (step, timeline, info) => {
    for (const cmd of step.commands) onCommand(cmd);
    return onStep?.({ ...step, commands: [] }, timeline, info);
  };
}

/** The run's timeline before its first step: what it runs, where, and the jobs and failures the registry fills. */
function newTimeline(spec: ScenarioSpec, profile: LaravelProfile, opts: RunOptions, registry: JobRegistry): Timeline {
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
  return timeline;
}

/** An open run as RunOptions.onOpen hands it out: extend takes on a scenario with more of it (extendRun). */
function openRun(
  run: { world: World; notes: PendingNotes; scheduler: Scheduler; timeline: Timeline },
  o: Omit<Parameters<typeof extendRun>[1], 'spec' | 'workers'>,
): OpenRun {
  const { world, notes, scheduler, timeline } = run;
  return {
    extend(next) {
      const before = world.env.spec;
      const taken = extendRun(next, { ...o, spec: before, workers: world.workers });
      if (typeof taken === 'string') return taken;
      // Nothing has run since: what the new entries read is in place before they run.
      world.extend(next, taken.connections);
      notes.add(next.timeline.slice(before.timeline.length));
      scheduler.raiseLimit(1_000_000 + 50 * totalDispatches(next.timeline));
      timeline.scenario = { ...timeline.scenario, title: next.title, description: next.description };
      return null;
    },
  };
}

/**
 * Schedules what `next` adds to an open run of `o.spec` (OpenRun.extend), or says why it cannot
 * be taken on exactly. Scheduled, it returns the connections `next` adds: the caller puts them,
 * and whatever else the new entries read, in place before the run goes on.
 */
function extendRun(
  next: ScenarioSpec,
  o: {
    spec: ScenarioSpec;
    profile: LaravelProfile;
    laravel: string | undefined;
    prefix: string;
    queues: QueueKeys[];
    held: RunResources;
    runPlan: RunPlan;
    workers: readonly PlannedWorker[];
  },
): string | { connections: string[] } {
  const more = extensionOf(o.spec, next, o.prefix);
  if ('refused' in more) return more.refused;
  if (o.profile.name !== getProfile(o.laravel ?? next.laravel).name) return 'its Laravel version changed';
  // On someone else's server the permission probe passed for what the run started with.
  if (o.held.needsAnotherProbe(probePlan(next, o.profile, o.queues)))
    return 'it sends commands the permission probe did not try';
  return o.runPlan.add(next.timeline, o.spec.timeline.length, o.workers, o.workers.length) ?? more;
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
