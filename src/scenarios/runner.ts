// The runner: builds the actors of a scenario (a dispatcher that opens a connection per request,
// worker processes with their own connections), plays them on the virtual clock against a real
// Redis, and after every step collects that step's MONITOR lines and a snapshot of the queues.
// It produces a Timeline and formats nothing.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { registerCleanup } from '../cleanup.ts';
import { ConnectionHub } from '../redis/connections.ts';
import { describeRunFailure, RedisRefusedError } from '../redis/errors.ts';
import type { DbClaim } from '../redis/claim.ts';
import { claimDatabase } from '../redis/claim.ts';
import { MonitorCapture } from '../redis/monitor.ts';
import { preflight } from '../redis/preflight.ts';
import { parseRedisUrl } from '../redis/url.ts';
import { NodeRedisPort } from '../redis/port.ts';
import type { QueueKeys } from '../sim/keys.ts';
import { allKeys } from '../sim/keys.ts';
import { getProfile, scriptsOf } from '../sim/profiles/index.ts';
import { Dispatcher } from '../sim/dispatcher.ts';
import { seededRandom } from '../sim/random.ts';
import type { ConnectionFactory } from '../sim/redis-port.ts';
import type { QueueConfig } from '../sim/redis-queue.ts';
import { exactInstant, formatSeconds, secondsBetween } from '../sim/clock.ts';
import { Scheduler } from '../sim/scheduler.ts';
import { webRequest } from '../sim/web-request.ts';
import { WorkerModel } from '../sim/worker.ts';
import { attributeLines, foreignTouches } from './attribute.ts';
import { ExecutionLog } from './execution-log.ts';
import { ScenarioError } from './errors.ts';
import { crossReferenceProblems, scenarioErrorAt } from './load.ts';
import { versionProblems } from './option-checks.ts';
import type { Problem } from './schema-issues.ts';
import type { ModelEnv, NoteEntry } from './entries/index.ts';
import { kindOf, scheduleRun, totalDispatches } from './entries/index.ts';
import type { ScenarioSpec } from './schema.ts';
import { scenarioQueues } from './queues.ts';
import { runIsOver } from './run-end.ts';
import { queuesAreEmpty, snapshotQueues } from './snapshot.ts';
import type { QueueState, Step, Timeline } from './timeline.ts';

export interface RedisTarget {
  url: string;
  /** The tool started this server: it may flush it. */
  owned: boolean;
  kind: string;
  version: string;
  describe(): string;
}

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
  const problem =
    crossReferenceProblems(spec)[0] ??
    versionProblems(spec, profile, `this run is Laravel ${profile.name} (--laravel)`)[0] ??
    crossReferenceProblems({ ...spec, laravel: profile.name })[0];
  if (problem) throw await scenarioProblem(opts.file, spec, problem);
  const client = spec.redis.client ?? profile.defaultClient;
  // On someone else's server the run may move to an empty db it claims (claim.ts).
  let db = spec.redis.database;
  let selectDb: number | null = null;
  const prefix = spec.redis.prefix ?? profile.defaultPrefix;
  const connectionNames = Object.keys(spec.connections);
  const defaultConnection = connectionNames[0]!;
  const connections: Record<string, QueueConfig> = Object.fromEntries(
    Object.entries(spec.connections).map(([name, c]) => [
      name,
      {
        connectionName: name,
        default: c.queue,
        retryAfter: c.retry_after === null && profile.queue.retryAfterNullMeans60 ? 60 : c.retry_after,
        blockFor: c.block_for,
        prefix,
      },
    ]),
  );
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
  if (urlDb !== undefined && urlDb !== db) {
    timeline.notices!.push(
      `REDIS_URL names db ${urlDb}, but Laravel selects the scenario's redis.database (${db}), not the URL's`,
    );
  }
  // A server the tool started is flushed by each run: two at once on it would wipe each other.
  if (opts.redis.owned && flushing.has(opts.redis.url)) {
    throw new RedisRefusedError(
      `a run is already going on ${opts.redis.describe()}, which lqsim started and flushes for each run: await one run before the next, give each its own acquireRedis(), or run them in parallel on a shared server through REDIS_URL (each then claims a db of its own)`,
    );
  }
  const ownedUrl = opts.redis.owned ? opts.redis.url : null;
  if (ownedUrl !== null) flushing.add(ownedUrl);
  const hub = new ConnectionHub(opts.redis.url, randomBytes(4).toString('hex'));
  let capture: MonitorCapture | null = null;
  // On someone else's server our keys are deleted at the end, and on Ctrl-C too, but only once
  // we know they are ours: keys that held data before the run are refused and never touched.
  let unregisterCleanup: (() => void) | null = null;
  // On someone else's server: the db this run holds exclusively (claim.ts).
  let claim: DbClaim | null = null;
  try {
    await hub.start();
    // Refuse a server that cannot give a faithful trace before touching any key.
    await preflight(hub.observer);
    capture = await MonitorCapture.start(opts.redis.url, hub.observer);
    if (!opts.redis.owned) {
      const held = await claimDatabase(hub.observer, db, hub.runId);
      claim = held;
      // The claimed db was empty: the run's keys in it are its own, to delete at the end.
      unregisterCleanup = registerCleanup(async () => {
        await deleteKeys(hub, queues).catch(() => undefined);
        await held.release();
      });
      if (held.moved)
        timeline.notices!.push(
          `db ${db} holds other data or another run on this server (REDIS_URL), so the run used the empty db ${held.db}: Laravel's SELECT shows ${held.db}`,
        );
      db = held.db;
    }
    selectDb = profile.worker.selectOnConnect(client, db) ? db : null;
    if (db !== 0 || claim !== null) await hub.observer.sendCommand(['SELECT', String(db)]);
    await prepareKeyspace(hub, opts.redis.owned, queues);
    // What MONITOR saw before the db was ours (another run ending in it, say) is no step's: the
    // first step's lines start here. Nothing of the run's own has been sent yet.
    if (claim !== null) await capture.barrier(hub.observer);
    const ourKeys = new Set(queues.flatMap(allKeys));
    const tool = new Set([hub.observerAddr]);

    const connect: ConnectionFactory = async (actor) => new NodeRedisPort(await hub.connect(actor), hub, selectDb);
    const workers = spec.workers.map(
      (w) =>
        new WorkerModel(
          {
            ...w,
            connection: w.connection ?? defaultConnection,
            tries: w.tries ?? profile.worker.defaultTries,
            stopWhenEmpty: w.stop_when_empty,
            maxJobs: w.max_jobs,
            maxTime: w.max_time,
          },
          {
            profile,
            connect,
            connections,
            registry,
            cache,
            start: spec.start,
            behaviourOf: (id, attempt) => {
              const attempts = spec.jobs[dispatcher.jobNameOf(id) ?? '']?.attempts ?? ['succeed'];
              return attempts[Math.min(attempt, attempts.length) - 1] ?? attempts[attempts.length - 1]!;
            },
            bus: { dispatcher, defaultConnection },
          },
        ),
    );
    const workerByName = new Map(workers.map((w) => [w.name, w]));

    const env: ModelEnv = {
      spec,
      profile,
      prefix,
      dispatcher,
      request: (ctx, fn) =>
        webRequest(ctx, { connect, profile, config: (name) => connections[name ?? defaultConnection]! }, fn),
      worker: (name) => workerByName.get(name)!,
      // The same record the workers and web requests read when they start: a config entry replaces its entries.
      connections,
    };
    let lastQueues: QueueState[] | null = null;
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
    const pending = scheduleRun(scheduler, spec, (e) => kindOf(e).model(e, env), workers);

    const notes = new PendingNotes(spec, noteFor);

    const cap = capture;
    await scheduler.run(async (done, next) => {
      // The step's commands have all been answered, so the snapshot need not wait for the
      // barrier: both go out together on the observer, one round trip instead of two.
      const barrier = cap.barrier(hub.observer);
      const snapshot = snapshotQueues(hub.observer, queues, registry, profile.queue.notify);
      snapshot.catch(() => undefined); // if the barrier fails first, its error is the one reported
      const lines = await barrier;
      const index = timeline.steps.length;
      executionLog.commit(index);
      const { commands } = attributeLines(lines, hub, { index, t: done.t }, scriptNames);
      if (claim !== null) {
        const lost = claim.lost();
        if (lost !== null) throw new RedisRefusedError(`${lost}; another run may be writing to it`);
        const touched = foreignTouches(lines, hub, tool, db, ourKeys);
        if (touched.length > 0)
          throw new RedisRefusedError(
            `another client touched this run's keys in db ${db} (${touched.slice(0, 3).join('; ')}${touched.length > 3 ? '; ...' : ''}): the trace would no longer be Laravel's alone, so the run stops; give it a server or db no one else writes to`,
          );
      }
      // Every EVAL carries the whole script; keep one copy of each text for the whole run.
      for (const cmd of commands)
        if (cmd.script !== undefined) cmd.args[1] = scriptSources.get(cmd.script) ?? cmd.args[1]!;
      lastQueues = await snapshot;
      // A push in this step may have answered a worker's BLPOP: its status says so (the worker resumes later).
      for (const w of workers) await w.noteAnsweredBlpop();
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
            queues: lastQueues,
            workers: workers.map((w) => structuredClone(w.state)),
            failed: registry.failedSnapshot(),
          },
          index,
        ),
      };
      notes.attach(step);
      timeline.steps.push(step);
      await opts.onStep?.(step, timeline, {
        mayHold: !scheduler.hasRealTimeWait(),
        isLast: next.isLast,
        nextAt: next.at,
        settled,
      });
      if (opts.paceMs) await new Promise((r) => setTimeout(r, opts.paceMs));
    });
    timeline.warnings.push(...notes.unmatched());
  } catch (e) {
    timeline.error = describeRunFailure(e);
  } finally {
    await capture?.stop().catch(() => undefined);
    if (unregisterCleanup) {
      unregisterCleanup();
      // A cleanup that fails is never silent: the keys are left on someone else's server.
      const failed = await deleteKeys(hub, queues).then(
        () => null,
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      );
      if (failed !== null) {
        const left = `the run's keys could not be deleted from db ${db} (${failed}); they are left there: ${queues.flatMap(allKeys).join(', ')}`;
        if (timeline.error === undefined) timeline.error = left;
        else timeline.warnings.push(left);
      }
      await claim?.release().catch(() => undefined);
    }
    await hub.close().catch(() => undefined);
    if (ownedUrl !== null) flushing.delete(ownedUrl);
  }
  return timeline;
}

/** Servers the tool started that a run of this process is using (see runScenario). */
const flushing = new Set<string>();

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
  private readonly pending: NoteEntry[];
  constructor(
    private readonly spec: ScenarioSpec,
    private readonly noteFor: (note: string) => string,
  ) {
    this.pending = spec.timeline.filter((e): e is NoteEntry => e.kind === 'note');
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

/** A server the tool started is flushed; on anyone else's, the scenario's keys must be empty. */
async function prepareKeyspace(hub: ConnectionHub, owned: boolean, queues: QueueKeys[]): Promise<void> {
  if (owned) {
    await hub.observer.sendCommand(['FLUSHALL']);
    return;
  }
  const keys = queues.flatMap(allKeys);
  const exists = await Promise.all(keys.map((k) => hub.observer.sendCommand(['EXISTS', k])));
  const taken = keys.filter((_k, i) => Number(exists[i]) > 0);
  if (taken.length > 0) {
    throw new RedisRefusedError(
      `${taken.join(', ')} already ${taken.length === 1 ? 'holds' : 'hold'} data on this server (REDIS_URL); use an empty db or a redis.prefix`,
    );
  }
}

async function deleteKeys(hub: ConnectionHub, queues: QueueKeys[]): Promise<void> {
  await hub.observer.sendCommand(['DEL', ...queues.flatMap(allKeys)]);
}
