// Plays a scenario with real Laravel 8.83 (Debian's packages) instead of the tool's model, on the
// same scheduler and the same kind of Redis, and records MONITOR step by step. Each actor is a
// PHP process running Laravel's RedisQueue/Worker (conformance/laravel/harness.php); this file
// only decides *when* each one runs, exactly as the runner does for the model: one actor at a
// time, a step from a wake-up to the next wait, the virtual clock handed to Carbon::setTestNow
// (whole seconds) and to the harness's alarm (the exact instant).
// *What* each actor sends to Redis, and how long it then waits, is Laravel's.
import { VirtualExpiry } from '../redis/virtual-expiry.ts';
import { usesRedisCache } from '../scenarios/cache-config.ts';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { registerCleanup } from '../cleanup.ts';
import type { Client } from '../redis/connections.ts';
import { clientAddress, connectionKey, newClient, ProcessNames } from '../redis/connections.ts';
import { ClusterCapture } from '../redis/cluster-capture.ts';
import { nodeOfSlot } from '../redis/cluster-nodes.ts';
import { keySlot } from '../redis/slot.ts';
import type { TraceCapture } from '../redis/monitor.ts';
import { MonitorCapture } from '../redis/monitor.ts';
import { parseRedisUrl } from '../redis/url.ts';
import { Scheduler } from '../sim/scheduler.ts';
import type { NodeObserver } from './address-book.ts';
import { AddressBook } from './address-book.ts';
import type { RealEnv } from '../scenarios/entries/index.ts';
import { kindOf, scheduleRun, totalDispatches } from '../scenarios/entries/index.ts';
import { scenarioQueues } from '../scenarios/queues.ts';
import { runIsOver } from '../scenarios/run-end.ts';
import type { ScenarioSpec } from '../scenarios/schema.ts';
import type { RedisTarget } from '../scenarios/runner.ts';
import type { TraceCommand } from '../scenarios/timeline.ts';
import type { Yield } from './php-actor.ts';
import { clockAnswer, PhpActor } from './php-actor.ts';
import { describeExit, WorkerProxy } from './worker-proxy.ts';
import { RealSteps } from './real-steps.ts';
import { laravel8Installation } from './installation.ts';
import { nextJobIdentity } from '../sim/dispatcher.ts';
import { seededRandom } from '../sim/random.ts';
import { WEB_ACTOR } from '../sim/web-request.ts';
import { ARTISAN_ACTOR } from '../sim/artisan.ts';
import { getProfile } from '../sim/profiles/index.ts';
import { CONFORMANCE_PROFILE } from './profile.ts';

export interface RealStep {
  index: number;
  t: number;
  actor: string;
  title: string;
  commands: TraceCommand[];
}

/** What failed_jobs would hold: queue:work's JobFailed listener, in order. */
export interface RealFailedJob {
  connection: string;
  queue: string;
  exception: string;
  message: string;
}

export interface RealThrown {
  step: number;
  exception: string;
  message: string;
}

export interface RealRun {
  scenario: string;
  start: number;
  steps: RealStep[];
  failed: RealFailedJob[];
  /** Job class → how many times its handle() started. */
  executions: Record<string, number>;
  /** What a web request's call threw to the app (its request then ended), by step. */
  thrown: RealThrown[];
  /** What the workers reported (ExceptionHandler::report: getNextJob's and runJob's catch), in order. */
  reported: Array<{ exception: string; message: string }>;
  warnings: string[];
  error?: string;
}

export { AddressBook };

export interface RealRunOptions {
  redis: RedisTarget;
}

export async function runWithRealLaravel(spec: ScenarioSpec, opts: RealRunOptions): Promise<RealRun> {
  const install = laravel8Installation();
  // On a cluster Laravel's config names the seed node (clusters.default[0]), node1 here.
  const cluster = opts.redis.cluster;
  const { host, port } = cluster !== undefined ? cluster.seed : parseRedisUrl(opts.redis.url);
  // Real Laravel's skeleton default for a scenario without a prefix: the compared profile's.
  const prefix = spec.redis.prefix ?? getProfile(CONFORMANCE_PROFILE).defaultPrefix;
  const runId = randomBytes(4).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'lqsim-laravel-'));
  const unregisterDir = registerCleanup(async () => rmSync(dir, { recursive: true, force: true }));
  const configFile = join(dir, 'config.json');
  const eventsFile = join(dir, 'events.jsonl');
  writeFileSync(
    configFile,
    JSON.stringify({
      redis: {
        host,
        port,
        database: spec.redis.database,
        cache_database: spec.redis.cache_database,
        prefix,
        cluster: cluster !== undefined,
      },
      connections: spec.connections,
      jobs: spec.jobs,
      // RateLimiter::for's definitions, as the app's service provider declares them.
      limiters: spec.limiters,
      // config/cache.php: the scenario's, over the 8.x skeleton's. Its file store (CACHE_DRIVER=file,
      // the default) is one directory for every process, as the model's shared file cache is.
      cache: { ...realCacheConfig(spec), path: join(dir, 'cache') },
      // Laravel's queue events (bootstrap.php's listeners) and each handle(), one JSON line each.
      log: eventsFile,
    }),
  );
  // config/queue.php as it reads now: `config` entries change it, and each PHP process started is
  // given the connections current at its start (its role file), as a process reads config at boot.
  const connections: ScenarioSpec['connections'] = structuredClone(spec.connections);
  let roles = 0;
  const actors = new Set<PhpActor>();
  // The tool's connection to the server, or to each node of a cluster (node1's first).
  const observers: NodeObserver[] =
    cluster !== undefined
      ? cluster.nodes.map((n) => ({ node: n.label, observer: newClient(n.url) }))
      : [{ observer: newClient(opts.redis.url) }];
  const observer = observers[0]!.observer;
  const book = new AddressBook(observers, runId, cluster?.seed.label);
  const run: RealRun = {
    scenario: spec.name,
    start: spec.start,
    steps: [],
    failed: [],
    executions: {},
    thrown: [],
    reported: [],
    warnings: [],
  };
  let capture: TraceCapture | null = null;
  const names = new ProcessNames(runId);

  /** Starts an actor process and waits for its "ready" (it has not touched Redis yet). */
  async function startActor(actor: string, role: Record<string, unknown>): Promise<{ php: PhpActor; name: string }> {
    const { name } = names.next(actor);
    const roleFile = join(dir, `role-${++roles}.json`);
    writeFileSync(roleFile, JSON.stringify({ ...role, name, connections }));
    const php = PhpActor.start(install.php, install.harness, configFile, roleFile);
    actors.add(php);
    const first = await php.next();
    if (first.y !== 'ready') throw new Error(`real Laravel ${actor} did not start: ${describeExit(first)}`);
    return { php, name };
  }

  /** The actor's next yield; learns its connection's address while the process is alive. */
  async function nextYield(php: PhpActor, name: string): Promise<Yield> {
    const y = await php.next();
    if (y.y !== 'exit') await book.learn(name);
    return y;
  }

  const defaultConnection = Object.keys(spec.connections)[0]!;
  const queues = scenarioQueues(spec, prefix);
  /** After each step, what the run records of it (real-steps.ts); made once MONITOR runs. */
  let collector: RealSteps | null = null;

  try {
    // The tool's own connections: their lines are not the run's (connectionKey: node and address).
    const ownKeys = new Set<string>();
    for (const o of observers) {
      await o.observer.connect();
      ownKeys.add(connectionKey(await clientAddress(o.observer), o.node));
    }
    const observerAddr = await clientAddress(observer);
    if (!opts.redis.owned) throw new Error('conformance runs need a Redis the tool started (unset REDIS_URL)');
    for (const o of observers) await o.observer.sendCommand(['FLUSHALL']);
    if (spec.redis.database !== 0) await observer.sendCommand(['SELECT', String(spec.redis.database)]);

    // The model's job uuids, drawn in the same order (a uuid, then an id, per job dispatched), are
    // handed to Laravel through its own test seam, Str::createUuidsUsing: a web request gets its
    // jobs' uuids up front, a worker asks for one when it dispatches a chain's next job. Jobs due
    // at the same second leave a ZSET in member order, and members start with the uuid. Job ids
    // (Str::random, no seam in 8.x) stay Laravel's own; the normaliser names both sides' ids in order.
    const random = seededRandom(spec.seed);
    // What the last `php artisan queue:restart` wrote: RestartCommand's currentTime(), Laravel's clock.
    let restartSignal: string | null = null;
    const uuid = () => nextJobIdentity(random).uuid;
    const workers = spec.workers.map(
      (w) =>
        new WorkerProxy(w, {
          defaultConnection,
          connections: () => connections,
          startActor,
          nextYield,
          book,
          uuid,
          restartSignal: () => restartSignal,
        }),
    );
    const byName = new Map(workers.map((w) => [w.spec.name, w]));
    // The TTLs real Laravel sets run out in virtual time, as in the model's run (virtual-expiry.ts).
    const expiry = usesRedisCache(spec)
      ? new VirtualExpiry({
          observer,
          dbs: [...new Set([spec.redis.database, spec.redis.cache_database])],
          start: spec.start,
          observerAddr,
          onWarning: (m) => run.warnings.push(m),
        })
      : null;
    const scheduler = new Scheduler({
      start: spec.start,
      until: spec.until ?? null,
      ...(expiry !== null ? { beforeInstant: (at: number) => expiry.beforeInstant(at) } : {}),
      maxSteps: 10_000 + 50 * totalDispatches(spec.timeline),
      onWarning: (m) => run.warnings.push(m),
      // The model's rule (src/scenarios/run-end.ts), so both runs end at the same step.
      isDone: () => runIsOver({ pending: pending(), queuesEmpty: collector?.queuesEmpty() ?? false, workers }),
    });

    const env: RealEnv = {
      uuidsFor: (count) => Array.from({ length: count }, uuid),
      worker: (name) => byName.get(name)!,
      configure: (name, change) => {
        connections[name] = { ...connections[name]!, ...change };
      },
      // A web request: its own PHP process and connection, one step; one more after each sleep()
      // of a request that goes on, whose later calls ask for their uuids when Laravel draws them.
      request: (what, kind, roleOf) => async (ctx) => {
        const { php, name } = await startActor(WEB_ACTOR, roleOf());
        php.answer(clockAnswer(ctx));
        let y = await nextYield(php, name);
        for (; y.y !== 'done'; y = await nextYield(php, name)) {
          if (y.y === 'uuid') php.answer({ uuid: uuid() });
          else if (y.y === 'sleep') {
            ctx.describe({ kind, title: what });
            await ctx.sleep(y.s);
            php.answer(clockAnswer(ctx));
          } else throw new Error(`real Laravel ${what} ended unexpectedly: ${describeExit(y)}`);
        }
        // A call that threw ended the request (a 500): what the app saw, in order.
        if (y.threw) run.thrown.push({ step: run.steps.length, exception: y.threw.class, message: y.threw.message });
        ctx.describe({ kind, title: y.threw ? `${what} threw ${y.threw.class}: ${y.threw.message}` : what });
        await php.close();
      },
      // php artisan <command>: its own PHP process (its cache connection), one step.
      artisan: (command) => async (ctx) => {
        const { php, name } = await startActor(ARTISAN_ACTOR, { role: 'artisan', command });
        php.answer(clockAnswer(ctx));
        const y = await nextYield(php, name);
        if (y.y !== 'done')
          throw new Error(`real Laravel php artisan ${command} ended unexpectedly: ${describeExit(y)}`);
        restartSignal = String(ctx.time());
        ctx.describe({ kind: 'artisan', title: `php artisan ${command}` });
        await php.close();
      },
    };
    // Started as the model starts them (scheduleRun), so equal times run alike.
    const pending = scheduleRun(scheduler, spec, (e) => kindOf(e).real(e, env), workers);

    capture =
      cluster !== undefined
        ? await ClusterCapture.start(cluster.nodes.map((n, i) => ({ ...n, observer: observers[i]!.observer })))
        : await MonitorCapture.start(opts.redis.url);
    const cap = capture;
    // Where a queue key lives: the one server, or its slot's node.
    const serverOf = (key: string): Client =>
      cluster === undefined
        ? observer
        : observers.find((o) => o.node === nodeOfSlot(cluster.nodes, keySlot(key)).label)!.observer;
    const steps = new RealSteps({
      capture: cap,
      observer,
      ownKeys,
      serverOf,
      book,
      queues,
      steps: run.steps,
      expiry,
    });
    collector = steps;
    await scheduler.run(async (done, next) => steps.collect(done, next, run.steps.length));
    // A line nobody owns would be a command silently left out of the comparison.
    if (book.unknown.size > 0)
      throw new Error(`MONITOR showed commands from connections no actor owns: ${[...book.unknown].join(', ')}`);
  } catch (e) {
    run.error = e instanceof Error ? e.message : String(e);
  } finally {
    await capture?.stop().catch(() => undefined);
    await Promise.all([...actors].map((a) => a.close()));
    readEvents(eventsFile, run);
    // Closed once what they have in flight is answered (a worker's last BLPOP poll, say): destroyed
    // under it, that command's promise would reject with no one left to catch it.
    await Promise.all(observers.map((o) => closeWithin(o.observer, 2000)));
    unregisterDir();
    rmSync(dir, { recursive: true, force: true });
  }
  return run;
}

/** Closes a client once its commands in flight are answered, or destroys it after `ms`. */
async function closeWithin(client: Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([client.close().catch(() => undefined), late]);
  clearTimeout(timer);
  if (client.isOpen) client.destroy();
}

/**
 * config/cache.php as the harness sets it: the scenario's `cache` over the compared profile's
 * skeleton (laravel/laravel v8.5.6+: connection `cache`, lock_connection `default`, prefix
 * `laravel_cache`). The prefix is cache.prefix as written: RedisStore adds its ':'.
 */
export function realCacheConfig(spec: ScenarioSpec): {
  store: 'redis' | 'file';
  connection: 'default' | 'cache';
  lock_connection: 'default' | 'cache' | null;
  prefix: string;
} {
  const skeleton = getProfile(CONFORMANCE_PROFILE).cache;
  const c = spec.cache;
  return {
    store: c?.store ?? 'file',
    connection: c?.connection ?? skeleton.connection,
    lock_connection: c?.lock_connection === undefined ? skeleton.lockConnection : c.lock_connection,
    prefix: c?.prefix ?? skeleton.prefix,
  };
}

/** failed_jobs records and handle() counts from the harness's event log (absent: none). */
function readEvents(file: string, run: RealRun): void {
  if (!existsSync(file)) return;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const e = JSON.parse(line) as Record<string, unknown>;
    if (e.event === 'failed_jobs.log') {
      run.failed.push({
        connection: String(e.connection),
        queue: String(e.queue),
        exception: String(e.exception),
        message: String(e.message),
      });
    } else if (e.event === 'exception.reported') {
      run.reported.push({ exception: String(e.class), message: String(e.message) });
    } else if (e.event === 'handle') {
      const c = String(e.class);
      run.executions[c] = (run.executions[c] ?? 0) + 1;
    }
  }
}
