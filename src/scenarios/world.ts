// The modelled world of a run, built from the scenario and the Laravel profile alone: config/
// queue.php as its processes read it (the connections), the worker processes under supervisord,
// and what the timeline's entries act through (ModelEnv). No Redis here: the processes' connections
// come from `connect`, which the runner gives (a checked port on its hub).
import { createHash } from 'node:crypto';
import type { LaravelProfile } from '../sim/profiles/index.ts';
import type { Dispatcher } from '../sim/dispatcher.ts';
import type { ConnectionFactory } from '../sim/redis-port.ts';
import type { QueueConfig } from '../sim/redis-queue.ts';
import type { JobRegistry } from '../sim/registry.ts';
import { webRequest } from '../sim/web-request.ts';
import { WorkerModel } from '../sim/worker.ts';
import type { ModelEnv } from './entries/index.ts';
import type { ScenarioSpec } from './schema.ts';
import type { Cache, CacheConfig, FileValues, LockEnv, ProcessRedis } from '../sim/cache.ts';
import type { JobClassRules } from '../sim/job-middleware.ts';
import { FileCache, LockBook, RedisCache } from '../sim/cache.ts';
import { seededRandom, strRandom } from '../sim/random.ts';
import { cacheConfig, jobRules, limitersOf } from './cache-config.ts';

export interface World {
  /** config/queue.php as it reads now: a config entry replaces a connection's entry here. */
  connections: Record<string, QueueConfig>;
  workers: WorkerModel[];
  env: ModelEnv;
  /** config/cache.php as the run's processes read it. */
  cache: CacheConfig;
  /** The locks held in the cache (the state pane shows them). */
  locks: LockBook;
  /** Takes on `next`, the scenario with more of it (extension.ts): its new connections, its job classes. */
  extend(next: ScenarioSpec, newConnections: readonly string[]): void;
}

/**
 * hash($algorithm, $name) as PHP gives it: md5 (node:crypto), xxh128 (hash-wasm's, the same 32 hex
 * digits). hash-wasm is loaded only here, where a Laravel 12+ ThrottlesExceptions key needs it: its
 * module carries every algorithm's WebAssembly as text (228 KB of the CLI's bundle), which every
 * start of the CLI parsed.
 */
function hashJobName(algorithm: 'md5' | 'xxh128', name: string): Promise<string> {
  if (algorithm === 'md5') return Promise.resolve(createHash('md5').update(name, 'utf8').digest('hex'));
  // Its module's exports, as `default`: what Node gives for a CommonJS module (hash-wasm's main is
  // UMD), and all the CLI's bundle gives for one imported when needed.
  return import('hash-wasm').then((m) => m.default.xxhash128(name));
}

export function buildWorld(
  spec: ScenarioSpec,
  profile: LaravelProfile,
  deps: {
    prefix: string;
    connect: ConnectionFactory;
    registry: JobRegistry;
    dispatcher: Dispatcher;
    /** The exact virtual instant (locks and the file cache expire on it). */
    now: () => number;
  },
): World {
  const { prefix, connect, registry, dispatcher, now } = deps;
  const cache = cacheConfig(spec, profile, prefix);
  const locks = new LockBook(now);
  // Lock owners (Str::random()) from a stream of their own: the job ids' stream stays as it was.
  const ownerRandom = seededRandom((spec.seed ^ 0x10c4a11) >>> 0);
  const files: FileValues = new Map();
  const restartSignal: { value: string | null } = { value: null };
  // A job class's rules, worked out once per class (a run of 10,000 jobs asks for each of them).
  const rules = new WeakMap<object, JobClassRules>();
  const rulesOf = (jobName: string, uniqueId: string | undefined, owner: string | undefined): JobClassRules => {
    const job = env.spec.jobs[jobName];
    if (job === undefined || uniqueId !== undefined || owner !== undefined)
      return jobRules(job, limitersOf(env.spec), uniqueId, owner);
    let r = rules.get(job);
    if (r === undefined) rules.set(job, (r = jobRules(job, limitersOf(env.spec))));
    return r;
  };
  const storeFor = (redis: ProcessRedis, name: 'redis' | 'file'): Cache => {
    const lockEnv: LockEnv = { book: locks, actor: redis.actor, now, owner: () => strRandom(ownerRandom, 16) };
    const other = (n: 'redis' | 'file') => storeFor(redis, n);
    return name === 'redis' ? new RedisCache(redis, cache, lockEnv, other) : new FileCache(files, lockEnv, other);
  };
  // Worker::setCache and the request's cache: the app's default store.
  const cacheFor = (redis: ProcessRedis): Cache => storeFor(redis, cache.store);
  const defaultConnection = Object.keys(spec.connections)[0]!;
  const queueConfig = (name: string, c: ScenarioSpec['connections'][string]): QueueConfig => ({
    connectionName: name,
    default: c.queue,
    retryAfter: c.retry_after === null && profile.queue.retryAfterNullMeans60 ? 60 : c.retry_after,
    blockFor: c.block_for,
    prefix,
  });
  const connections: Record<string, QueueConfig> = Object.fromEntries(
    Object.entries(spec.connections).map(([name, c]) => [name, queueConfig(name, c)]),
  );
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
          cacheFor,
          jobRulesOf: (id) =>
            rulesOf(dispatcher.jobNameOf(id) ?? '', dispatcher.uniqueIdOf(id), dispatcher.uniqueOwnerOf(id)),
          locks,
          restartSignal,
          hashJobName: (name) => hashJobName(profile.cache.throttleKeyHash, name),
          start: spec.start,
          behaviourOf: (id, attempt) => {
            // The scenario as it stands (an open run may have taken on more job classes).
            const attempts = env.spec.jobs[dispatcher.jobNameOf(id) ?? '']?.attempts ?? ['succeed'];
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
      webRequest(ctx, { connect, profile, config: (name) => connections[name ?? defaultConnection]!, cacheFor }, fn),
    cacheFor,
    connect,
    locks,
    restartSignal,
    worker: (name) => workerByName.get(name)!,
    // The same record the workers and web requests read when they start.
    connections,
  };
  return {
    connections,
    workers,
    env,
    cache,
    locks,
    extend(next, newConnections) {
      for (const name of newConnections) connections[name] = queueConfig(name, next.connections[name]!);
      env.spec = next;
    },
  };
}
