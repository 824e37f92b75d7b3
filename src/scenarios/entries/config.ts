// `- { at: 30, config: redis, retry_after: 120 }`: config/queue.php changes mid-run (a deploy, an
// env var). Laravel reads its config when a PHP process boots, and QueueManager::connection
// resolves each queue connection once per process and caches it (RedisConnector::connect hands
// retry_after and block_for to the RedisQueue it builds; WorkCommand reads the connection's queue
// at boot). So a process started after the change reads the new values (each web request is a new
// php-fpm request; a worker process started, or restarted by supervisord, later), and a queue:work
// daemon already running keeps what it booted with until it exits. Nothing is sent to Redis: the
// entry is a step of its own that says who reads what.
import { z } from 'zod';
import { exactInstant, formatSeconds } from '../../sim/clock.ts';
import type { LaravelProfile } from '../../sim/profiles/types.ts';
import type { QueueConfig } from '../../sim/redis-queue.ts';
import { at, blockFor, isQueueName, lazy, name, note, retryAfter, singleQueue } from '../fields.ts';
import type { Problem } from '../schema-issues.ts';
import type { ScenarioSpec } from '../schema.ts';
import type { ConnectionChange, EntryKind, ModelEnv } from './kind.ts';
import { entrySchema } from './kind.ts';

/** The actor a config change is shown as: no PHP process makes it. */
export const CONFIG_ACTOR = 'config';

const schema = lazy(() =>
  entrySchema('config', {
    at: at(),
    config: name().describe(
      'a connection of connections: its config/queue.php options change here (a deploy, an env var); processes that start later read them, running workers keep theirs until they restart',
    ),
    retry_after: retryAfter('the new retry_after; a running worker keeps its own until it restarts').optional(),
    block_for: blockFor(
      'the new block_for (null: poll with the pop script again); a running worker keeps its own',
    ).optional(),
    queue: z
      .string()
      .min(1)
      .optional()
      .describe(
        "the connection's new default queue: later dispatches without ->onQueue, and workers without --queue started later",
      ),
    note: note(),
  }),
);

export type ConfigEntry = z.output<ReturnType<typeof schema>>;
/** The entry as written (before defaults), for the library's builder. */
export type ConfigInput = z.input<ReturnType<typeof schema>>;

const FIELDS = ['retry_after', 'block_for', 'queue'] as const;
type Field = (typeof FIELDS)[number];

/** The fields the entry changes, in a fixed order. */
function changedFields(e: ConfigEntry): Field[] {
  return FIELDS.filter((f) => e[f] !== undefined);
}

/** What the entry changes, in the scenario's spelling (what the harness's config gets). */
export function connectionChange(e: ConfigEntry): ConnectionChange {
  return Object.fromEntries(changedFields(e).map((f) => [f, e[f]])) as ConnectionChange;
}

/**
 * The connection as a process started from now on reads it. RedisConnector::connect applies
 * `$config['retry_after'] ?? 60` (5.5+; 5.3 keeps a null) when that process resolves it.
 */
export function changedConfig(before: QueueConfig, e: ConfigEntry, profile: LaravelProfile): QueueConfig {
  const after = { ...before };
  if (e.retry_after !== undefined)
    after.retryAfter = e.retry_after === null && profile.queue.retryAfterNullMeans60 ? 60 : e.retry_after;
  if (e.block_for !== undefined) after.blockFor = e.block_for;
  if (e.queue !== undefined) after.default = e.queue;
  return after;
}

function valueOf(c: QueueConfig, f: Field): string {
  if (f === 'queue') return c.default;
  const v = f === 'retry_after' ? c.retryAfter : c.blockFor;
  return v === null ? 'null' : String(v);
}

/** `retry_after 90 → 120`, `retry_after 90 → null (read as 60)`. */
function describeChange(e: ConfigEntry, before: QueueConfig, after: QueueConfig): string {
  return changedFields(e)
    .map((f) => {
      const read = f === 'retry_after' && e.retry_after === null && after.retryAfter !== null;
      return `${f} ${valueOf(before, f)} → ${read ? `null (read as ${after.retryAfter})` : valueOf(after, f)}`;
    })
    .join(', ');
}

/** What a running process keeps: `90` when the entry changes one field, `retry_after 90, queue default` else. */
function kept(e: ConfigEntry, fields: Field[], booted: QueueConfig): string {
  return changedFields(e).length === 1
    ? valueOf(booted, fields[0]!)
    : fields.map((f) => `${f} ${valueOf(booted, f)}`).join(', ');
}

/** What one running worker still does with the values it booted with. */
function consequence(f: Field, booted: QueueConfig): string {
  if (f === 'retry_after')
    return booted.retryAfter === null
      ? 'its reservations still never expire'
      : `its pops still reserve until now + ${booted.retryAfter}`;
  if (f === 'block_for')
    return booted.blockFor === null
      ? 'it still polls with the pop script alone'
      : `it still waits in BLPOP for up to ${booted.blockFor}s`;
  return `it still polls ${booted.default}`;
}

function joinNames(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** The model's step: the change, which running workers keep the old values, and who reads the new ones. */
function narrate(e: ConfigEntry, env: ModelEnv, before: QueueConfig, after: QueueConfig) {
  const defaultConnection = Object.keys(env.spec.connections)[0]!;
  const onIt = env.spec.workers.filter((w) => (w.connection ?? defaultConnection) === e.config);
  // A worker given --queue never reads the connection's queue.
  const fieldsFor = (w: { queue?: string }) => changedFields(e).filter((f) => f !== 'queue' || w.queue === undefined);
  const running = onIt.flatMap((w) => {
    const booted = env.worker(w.name).bootedConfig();
    const fields = fieldsFor(w);
    return booted === null || fields.length === 0 ? [] : [{ name: w.name, booted, fields }];
  });
  const later = onIt.filter((w) => exactInstant(w.start) > e.at && fieldsFor(w).length > 0);
  // Workers keeping the same values are named together: "worker-1 and worker-2 keep 90".
  const byValue = new Map<string, string[]>();
  for (const r of running) {
    const v = kept(e, r.fields, r.booted);
    byValue.set(v, [...(byValue.get(v) ?? []), r.name]);
  }
  const keeps = [...byValue].map(([v, names]) => `${joinNames(names)} ${names.length === 1 ? 'keeps' : 'keep'} ${v}`);
  const title = `config/queue.php changes: ${e.config} ${describeChange(e, before, after)}${
    keeps.length > 0 ? `; ${keeps.join('; ')} until ${running.length === 1 ? 'it restarts' : 'they restart'}` : ''
  }`;
  const restarts =
    'until supervisord starts a new process (after a kill, --max-jobs or --max-time; in production, php artisan queue:restart)';
  const one = running.length === 1 ? running[0]! : null;
  const who = [
    one !== null
      ? `${one.name} is a queue:work daemon: its process resolved the connection when it booted and keeps it ${restarts}, so ${one.fields.map((f) => consequence(f, one.booted)).join('; ')}.`
      : running.length > 1
        ? `${joinNames(running.map((r) => r.name))} are queue:work daemons: each process resolved the connection when it booted and keeps it ${restarts}.`
        : '',
    later.length > 0
      ? `${joinNames(later.map((w) => `${w.name} (starts at t+${formatSeconds(w.start)}s)`))} will read the new values.`
      : '',
  ];
  const explain = [
    'Laravel reads its config when a PHP process boots, and QueueManager::connection resolves a queue connection once per process and caches it (RedisConnector::connect hands retry_after and block_for to the RedisQueue it builds). Each web request is a new PHP process and reads the new values; so does every worker process started from now on. Nothing is sent to Redis.',
    e.queue !== undefined
      ? "A dispatch without ->onQueue goes to the connection's queue as its request read it; a worker without --queue polls the queue WorkCommand read when queue:work started."
      : '',
    ...who,
  ]
    .filter((s) => s !== '')
    .join(' ');
  return { kind: 'config' as const, title, explain, note: e.note };
}

/** A worker of `connection` that a stop entry signals, if any. */
function stoppedWorker(spec: ScenarioSpec, connection: string): string | undefined {
  const defaultConnection = Object.keys(spec.connections)[0]!;
  const names = new Set(
    spec.workers.filter((w) => (w.connection ?? defaultConnection) === connection).map((w) => w.name),
  );
  for (const x of spec.timeline) if (x.kind === 'stop' && names.has(x.stop)) return x.stop;
  return undefined;
}

export const configEntry: EntryKind<ConfigEntry> = {
  get schema() {
    return schema();
  },
  // With the dispatches, as written: a dispatch written after it at the same instant reads the new
  // values, and the worker processes that start at that instant (after every entry) do too.
  phase: 0,
  check(e, path, ctx) {
    if (!ctx.connections.includes(e.config))
      return [{ path: [...path, 'config'], detail: ctx.unknown('connection', e.config, ctx.connections) }];
    const problems: Problem[] = [];
    if (changedFields(e).length === 0)
      problems.push({
        path: [...path, 'config'],
        detail: `say what changes in ${e.config}: retry_after, block_for or queue`,
      });
    if (e.queue !== undefined && !isQueueName(e.queue))
      problems.push({ path: [...path, 'queue'], detail: singleQueue(e.queue) });
    if (e.block_for != null && ctx.profile.worker.blockingPop === null)
      problems.push({
        path: [...path, 'block_for'],
        detail: `block_for arrived in Laravel 5.6.0 (RedisConnector.php@v5.6.0:49); this scenario is Laravel ${ctx.spec.laravel}`,
      });
    if (ctx.workers.includes(CONFIG_ACTOR))
      problems.push({
        path: [...path, 'config'],
        detail: `a config change is shown as the actor "${CONFIG_ACTOR}", which is also a worker's name; rename the worker`,
      });
    return problems;
  },
  queues: (e) => (e.queue === undefined ? [] : [e.queue]),
  dispatches: () => 0,
  model: (e, env) => ({
    actor: CONFIG_ACTOR,
    async run(ctx) {
      const before = env.connections[e.config]!;
      const after = changedConfig(before, e, env.profile);
      env.connections[e.config] = after;
      ctx.describe(narrate(e, env, before, after));
    },
  }),
  real: (e, env) => ({
    actor: CONFIG_ACTOR,
    async run(ctx) {
      const change = connectionChange(e);
      env.configure(e.config, change);
      const fields = Object.entries(change).map(([f, v]) => `${f} ${v === null ? 'null' : String(v)}`);
      ctx.describe({ kind: 'config', title: `config/queue.php changes: ${e.config} ${fields.join(', ')}` });
    },
  }),
  notComparable(e, spec) {
    // As stop.ts says of a connection configured with block_for from the start.
    const stopped = e.block_for != null ? stoppedWorker(spec, e.config) : undefined;
    return stopped === undefined
      ? null
      : `${stopped} is stopped while it may wait in BLPOP (block_for, set by a config entry): a SIGTERM during BLPOP is not modelled`;
  },
  // The lab's `set <connection>` writes it, with a stop for each worker on the connection: not one entry.
  lab: null,
  names: (e) => ({ workers: [], connections: [e.config] }),
};
