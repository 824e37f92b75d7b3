// `- { at: 0, dispatch: SendEmail, delay: 60, queue: emails, connection: redis, count: 3 }`:
// the application dispatches a job (Bus::dispatch in a web request), `count` instances at once;
// with `every: N`, one instance every N seconds, each in a web request of its own. `properties`
// gives the instances their own values (an invoice id each); `chain: [B, C]` is
// ->chain([new B, new C]) on it (5.5+). The call itself (what one `dispatch()` line of PHP says)
// is `dispatchCall`, shared with the `request` entry.
import type { Cache } from '../../sim/cache.ts';
import { uniqueOf } from '../cache-config.ts';
import { z } from 'zod';
import { ClientException } from '../../sim/exceptions.ts';
import type { StepDescription } from '../../sim/scheduler.ts';
import { exactInstant, relativeTime, secondsBetween } from '../../sim/clock.ts';
import type { Dispatched, JobDefinition, PendingDispatch } from '../../sim/dispatcher.ts';
import { chainOf } from '../../sim/dispatcher.ts';
import { queueKeys } from '../../sim/keys.ts';
import type { PhpValue } from '../../sim/php.ts';
import type { LaravelProfile } from '../../sim/profiles/types.ts';
import type { ActorContext } from '../../sim/scheduler.ts';
import type { QueueResolver } from '../../sim/web-request.ts';
import { at, DISPATCHER, isQueueName, lazy, name, note, seconds, singleQueue } from '../fields.ts';
import type { Path, Problem } from '../schema-issues.ts';
import type { JobClassSpec } from '../schema.ts';
import type { CheckContext, EntryKind, ModelEnv, RealEnv } from './kind.ts';
import { entrySchema } from './kind.ts';
import {
  chainLinks,
  checkLinks,
  linkConnections,
  linkFields,
  linkQueues,
  toChainLinks,
  verbatim,
} from './chain-links.ts';
import type { DispatchCommand } from './dispatch-lab.ts';
import { dispatchLab } from './dispatch-lab.ts';

/** `{n}` (from 1) or `{n:K}` (from the integer K) in a string property: the instance's number. */
const INSTANCE_NUMBER = /\{n(?::(-?\d+))?\}/g;

/** One value of a property: the same for every instance, or numbered per instance. */
const PropertyValue = () =>
  z
    .union([
      z
        .string()
        .describe(
          'a string; "{n}" in it becomes the instance number (1, 2, ...), e.g. "INV-{n}"; "{n:0}" counts from 0 (0, 1, ...), "{n:1001}" from 1001',
        ),
      z.number(),
      z.boolean(),
      z.null(),
      z
        .object({
          from: z.number().int().describe('the first instance gets this integer'),
          step: z.number().int().default(1).describe('each next instance adds this (default 1)'),
        })
        .strict()
        .describe('an integer per instance: from, from + step, ...'),
    ])
    .describe('a value, or { from: 1001 } for one integer per instance');

/** What one `dispatch()` call says: the job, ->onConnection / ->onQueue / ->delay, how many. */
export const dispatchCall = lazy(() => ({
  dispatch: name().describe('a job from jobs:'),
  delay: seconds('dispatch later: ZADD to :delayed with score now+delay').optional(),
  queue: z.string().min(1).optional().describe("->onQueue('...') (default: the connection's queue)"),
  connection: name().optional().describe("->onConnection('...') (default: the first connection)"),
  count: z.number().int().min(1).max(100_000).default(1).describe('dispatch this many instances'),
  properties: z
    .record(z.string(), PropertyValue())
    .optional()
    .describe("values of the job's own public properties (declared under jobs:) for these instances"),
  chain: chainLinks(
    '->chain([...]) (5.5+): the jobs a worker pushes one after another once this one succeeds',
  ).optional(),
}));

const schema = lazy(() =>
  entrySchema('dispatch', {
    at: at(),
    ...dispatchCall(),
    every: seconds('one instance every N seconds, each in a web request of its own (with count)').optional(),
    note: note(),
  }),
);

export type DispatchEntry = z.output<ReturnType<typeof schema>>;
/** The entry as written (before defaults), for the library's builder. */
export type DispatchInput = z.input<ReturnType<typeof schema>>;

/** A dispatch call as parsed (a dispatch entry, or a call of a request); `first`: instances before it. */
export type DispatchCall = Pick<
  DispatchEntry,
  'dispatch' | 'delay' | 'queue' | 'connection' | 'count' | 'properties' | 'chain'
> & {
  first?: number;
};

export const dispatchEntry: EntryKind<DispatchEntry, DispatchCommand> = {
  get schema() {
    return schema();
  },
  phase: 0,
  check(e, path, ctx) {
    const problems = checkDispatchCall(e, path, ctx);
    const last = e.every === undefined ? e.at : exactInstant(e.at + (e.count - 1) * e.every);
    if (ctx.spec.until !== undefined && last > ctx.spec.until && e.at <= ctx.spec.until) {
      problems.push({
        path: [...path, 'every'],
        detail: `the last of ${e.count} instances is dispatched at ${last}, after until (${ctx.spec.until}); the run stops before it`,
      });
    }
    return problems;
  },
  queues: callQueues,
  dispatches: callDispatches,
  model: (e, env) =>
    requests(e).map(({ at, call }) => ({
      actor: DISPATCHER,
      at,
      async run(ctx) {
        const outcome = await env
          .request(ctx, (queueFor, _methods, cache) => modelDispatch(call, env, ctx, queueFor, cache))
          .catch(thrownToApp);
        if (outcome instanceof ClientException) {
          ctx.describe(callThrew(`dispatch ${call.dispatch}`, outcome, e.note));
          return;
        }
        const { result, methods } = outcome;
        ctx.describe({
          kind: 'dispatch',
          title: result.title,
          methods: ['Bus\\Dispatcher::dispatchToQueue', ...new Set(methods)],
          explain: result.explain,
          note: e.note,
        });
      },
    })),
  real: (e, env) =>
    requests(e).map(({ at, call }) => ({
      actor: DISPATCHER,
      at,
      run: env.request(`dispatch ${call.count} × ${call.dispatch}`, 'dispatch', () => ({
        role: 'request',
        calls: [realDispatch(call, env)],
      })),
    })),
  notComparable: () => null,
  lab: dispatchLab,
  names: (e) => ({ workers: [], connections: callConnections(e) }),
  cutAt(e, now) {
    if (e.every === undefined || e.every <= 0) return null;
    // The instances at or before `now` happened; those after it are the future a fork drops.
    const fits = Math.floor(secondsBetween(e.at, now) / e.every) + 1;
    return fits < e.count ? { count: fits } : null;
  },
};

/** The web requests an entry makes: one with all its instances, or (`every`) one per instance. */
function requests(e: DispatchEntry): { at: number; call: DispatchCall }[] {
  if (e.every === undefined) return [{ at: e.at, call: e }];
  const every = e.every;
  return Array.from({ length: e.count }, (_, i) => ({
    at: exactInstant(e.at + i * every),
    call: { ...e, count: 1, first: i },
  }));
}

/** Queue names a call puts jobs on: its own, and its chain's jobs' (snapshotted, cleaned up). */
export function callQueues(e: DispatchCall): string[] {
  return [...(e.queue ? [e.queue] : []), ...linkQueues(e.chain ?? [])];
}

/** Connections a call names: its own, and its chain's jobs'. */
export function callConnections(e: DispatchCall): string[] {
  return [...(e.connection === undefined ? [] : [e.connection]), ...linkConnections(e.chain ?? [])];
}

/** Jobs a call dispatches: its instances, and each one's chain, which the workers push later. */
export function callDispatches(e: DispatchCall): number {
  return e.count * (1 + (e.chain?.length ?? 0));
}

/** The cross-references of one call: the job, the connection, the queue, the chain, the properties. */
export function checkDispatchCall(e: DispatchCall, path: Path, ctx: CheckContext): Problem[] {
  const problems: Problem[] = [];
  const job = ctx.spec.jobs[e.dispatch];
  if (job === undefined) {
    problems.push({ path: [...path, 'dispatch'], detail: ctx.unknown('job', e.dispatch, ctx.jobs) });
  }
  if (e.connection !== undefined && !ctx.connections.includes(e.connection)) {
    problems.push({ path: [...path, 'connection'], detail: ctx.unknown('connection', e.connection, ctx.connections) });
  }
  if (e.queue !== undefined && !isQueueName(e.queue)) {
    problems.push({ path: [...path, 'queue'], detail: singleQueue(e.queue) });
  }
  if (e.chain !== undefined) {
    if (!ctx.profile.bus.chain) {
      problems.push({
        path: [...path, 'chain'],
        detail: `job chains arrived in Laravel 5.5 (Bus\\Queueable::chain); the ${ctx.profile.name} profile has none`,
      });
    } else if (job !== undefined && job.command !== null) {
      problems.push({ path: [...path, 'chain'], detail: verbatim(e.dispatch) });
    }
    problems.push(...checkLinks(e.chain, [...path, 'chain'], ctx));
  }
  if (job === undefined || e.properties === undefined) return problems;
  if (job.command !== null) {
    problems.push({
      path: [...path, 'properties'],
      detail: `jobs.${e.dispatch} gives a verbatim command, whose properties cannot be set`,
    });
    return problems;
  }
  const declared = Object.keys(job.properties);
  for (const [prop, value] of Object.entries(e.properties)) {
    if (typeof value === 'string' && /\{n:/.test(value.replace(INSTANCE_NUMBER, ''))) {
      problems.push({
        path: [...path, 'properties', prop],
        detail: `"{n:" starts a number that counts from the integer after the colon, e.g. "{n:0}" or "{n:1001}"; got ${JSON.stringify(value)}`,
      });
    }
    if (declared.includes(prop)) continue;
    problems.push({
      path: [...path, 'properties', prop],
      detail:
        declared.length === 0
          ? `jobs.${e.dispatch} declares no properties: add ${prop} under jobs.${e.dispatch}.properties (their order there is the class's, and the payload's)`
          : ctx.unknown(`property of jobs.${e.dispatch}`, prop, declared),
    });
  }
  return problems;
}

/** The values instance `n` (1-based) of a call gives the job's properties. */
export function instanceProperties(props: DispatchCall['properties'], n: number): Record<string, PhpValue> {
  const out: Record<string, PhpValue> = {};
  for (const [key, v] of Object.entries(props ?? {})) {
    if (typeof v === 'string')
      out[key] = v.replace(INSTANCE_NUMBER, (_, from?: string) =>
        String(from === undefined ? n : Number(from) + n - 1),
      );
    else if (v !== null && typeof v === 'object') out[key] = v.from + (n - 1) * v.step;
    else out[key] = v;
  }
  return out;
}

/** The job class of the scenario's `jobs:` as the model's Dispatcher takes it. */
export function jobDefinition(jobName: string, job: JobClassSpec): JobDefinition {
  return {
    name: jobName,
    className: job.class,
    tries: job.tries,
    timeout: job.timeout,
    retryUntil: job.retry_until,
    backoff: job.backoff,
    maxExceptions: job.max_exceptions,
    failOnTimeout: job.fail_on_timeout,
    properties: job.properties,
    declared: job.declared ?? null,
    command: job.command,
    unique: uniqueOf(job),
  };
}

/** A call as the model's Dispatcher takes it (`jobs`: the scenario's job classes). */
export function pendingDispatch(call: DispatchCall, jobs: Record<string, JobClassSpec>): PendingDispatch {
  const first = call.first ?? 0;
  const props = call.properties;
  const define = (name: string) => jobDefinition(name, jobs[name]!);
  return {
    job: define(call.dispatch),
    count: call.count,
    delay: call.delay,
    queue: call.queue,
    connection: call.connection,
    properties: props === undefined ? undefined : (i) => instanceProperties(props, first + i + 1),
    chain: call.chain && chainOf(toChainLinks(call.chain, define)),
  };
}

/** One dispatch call in the model's web request: what it did, as a step title, and why. */
export async function modelDispatch(
  call: DispatchCall,
  env: ModelEnv,
  ctx: ActorContext,
  queueFor: QueueResolver,
  /** The request's cache: dispatch() goes through PendingDispatch, which takes a unique job's lock there. */
  cache: Cache,
): Promise<{ dispatched: Dispatched; title: string; explain: string }> {
  const pending = pendingDispatch(call, env.spec.jobs);
  const dispatched = await env.dispatcher.dispatchToQueue(ctx, queueFor(call.connection), pending, {
    cache,
    store: (name) => cache.store(name),
    holder: (key) => env.locks.holder(key),
  });
  const said = describeDispatch(call, dispatched, { now: ctx.time(), start: env.spec.start, ...env });
  if (dispatched.dropped.length === 0) return { dispatched, ...said };
  const dropped = describeDropped(call, dispatched, env.spec.start);
  return {
    dispatched,
    title: dispatched.labels.length === 0 ? dropped.title : `${said.title}; ${dropped.title}`,
    explain: dispatched.labels.length === 0 ? dropped.explain : `${said.explain} ${dropped.explain}`,
  };
}

/** A ClientException the app's dispatch() throws (returned, to be told as the step); anything else rethrown. */
export function thrownToApp(e: unknown): ClientException {
  if (e instanceof ClientException) return e;
  throw e;
}

/**
 * The step of a call whose Redis command threw (`what`: "dispatch SendEmail", "Queue::size('x')"):
 * a dispatch's instance is not queued, and the request fails.
 */
export function callThrew(what: string, e: ClientException, note?: string): StepDescription {
  const dispatch = what.startsWith('dispatch ');
  return {
    kind: dispatch ? 'dispatch' : 'size',
    title: `${what} threw ${e.exception.className}: ${e.exception.message}`,
    methods: [...(dispatch ? ['Bus\\Dispatcher::dispatchToQueue'] : []), ...new Set(e.methods)],
    explain: `${e.why} ${dispatch ? 'dispatch()' : 'Queue::size()'} throws it to the app (a web request ends in a 500)${dispatch ? ', and the job is not queued' : ''}.`,
    ...(note !== undefined ? { note } : {}),
  };
}

/** ShouldBeUnique dispatches PendingDispatch did not push: its lock was held. */
function describeDropped(call: DispatchCall, d: Dispatched, start: number): { title: string; explain: string } {
  const n = d.dropped.length;
  const first = d.dropped[0]!;
  const holder = first.holder;
  const by =
    holder === null
      ? 'a lock this run did not take (there before it, or another client)'
      : `${holder.actor}'s lock for ${holder.what}, taken at ${relativeTime(holder.since, start)}${holder.until === null ? ', which never expires' : `, expiring at ${relativeTime(holder.until, start)}`}`;
  return {
    title: `${n === 1 ? '' : `${n} × `}${call.dispatch} not queued: the unique lock ${first.key} is held (ShouldBeUnique)`,
    explain: `PendingDispatch::__destruct asks UniqueLock for ${first.key} before it pushes; it is ${by}, so nothing is pushed and nothing is raised: dispatch() returns as if it had queued the job. The lock goes when a worker finishes or fails the job that holds it${holder !== null && holder.until !== null ? ', or when it expires' : ''}.`,
  };
}

/** One dispatch call as the harness plays it (harness.php, role `request`). */
export function realDispatch(call: DispatchCall, env: RealEnv): Record<string, unknown> {
  const first = call.first ?? 0;
  return {
    op: 'dispatch',
    job: call.dispatch,
    count: call.count,
    delay: call.delay ?? null,
    queue: call.queue ?? null,
    connection: call.connection ?? null,
    // Each instance's own values, set on the job object before it is dispatched.
    properties: Array.from({ length: call.count }, (_, i) => instanceProperties(call.properties, first + i + 1)),
    chain: call.chain?.map(realLink) ?? null,
    uuids: env.uuidsFor(call.count),
  };
}

/** A chain's job for harness.php: `new <class>` and what is set on it (null: not set). */
export function realLink(l: Parameters<typeof linkFields>[0]): Record<string, unknown> {
  const f = linkFields(l);
  return { job: f.job, queue: f.queue ?? null, connection: f.connection ?? null, delay: f.delay ?? null };
}

/** What a call did: the step title for it, and why Laravel sends what it sends. */
function describeDispatch(
  call: DispatchCall,
  d: Dispatched,
  o: { now: number; start: number; prefix: string; profile: LaravelProfile },
): { title: string; explain: string } {
  const labels = d.labels;
  const own =
    call.properties === undefined || labels.length !== 1
      ? ''
      : ` (${propertyList(instanceProperties(call.properties, (call.first ?? 0) + 1))})`;
  const what =
    labels.length === 1
      ? `${labels[0]!}${own}`
      : `${labels.length} × ${call.dispatch} (${labels[0]} … ${labels[labels.length - 1]})`;
  const keys = queueKeys(d.queue, o.prefix);
  const later = o.profile.queue.later === 'script' ? 'runs the later script, which ZADDs' : 'ZADDs';
  const chain = call.chain?.map((l) => linkFields(l).job);
  return {
    title:
      (call.delay !== undefined
        ? `dispatch ${what} with delay ${call.delay}s onto ${keys.delayed} (due t+${o.now + call.delay - o.start}s)`
        : `dispatch ${what} onto ${keys.ready}`) + (chain ? `, chained: ${chain.join(', ')}` : ''),
    explain:
      (call.delay !== undefined
        ? `later() ${later} the payload to :delayed, scored by the time it becomes due; a worker migrates it once that time has passed.`
        : o.profile.queue.push === 'script'
          ? `push() runs the push script: it RPUSHes the JSON payload (attempts ${d.attempts}) onto the ready list and a 1 onto :notify.`
          : `push() RPUSHes the JSON payload (attempts ${d.attempts}) onto the ready list.`) +
      (chain ? ` ${CHAINED}` : ''),
  };
}

/** What ->chain() does at dispatch time. */
const CHAINED =
  "->chain() serializes each next job (with what was set on it) into this payload's data.command ($chained); only this job is pushed now. The worker that runs it pushes the next one when it succeeds.";

/** `invoiceId 1001, ref "INV-1"`: an instance's own property values, as a title shows them. */
function propertyList(props: Record<string, PhpValue>): string {
  return Object.entries(props)
    .map(([k, v]) => `${k} ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`)
    .join(', ');
}
