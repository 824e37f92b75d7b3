// `- { at: 0, dispatch: SendEmail, delay: 60, queue: emails, connection: redis, count: 3 }`:
// the application dispatches a job (Bus::dispatch in a web request), `count` instances at once.
import { z } from 'zod';
import { queueKeys } from '../../sim/keys.ts';
import type { JobDefinition } from '../../sim/dispatcher.ts';
import type { Dispatched } from '../../sim/dispatcher.ts';
import type { LaravelProfile } from '../../sim/profiles/types.ts';
import type { StepDescription } from '../../sim/scheduler.ts';
import { at, DISPATCHER, isQueueName, name, note, seconds, singleQueue } from '../fields.ts';
import type { JobClassSpec } from '../schema.ts';
import type { EntryKind } from './kind.ts';
import { entrySchema } from './kind.ts';

const schema = entrySchema('dispatch', {
  at,
  dispatch: name.describe('a job from jobs:'),
  delay: seconds('dispatch later: ZADD to :delayed with score now+delay').optional(),
  queue: z.string().min(1).optional(),
  connection: name.optional(),
  count: z.number().int().min(1).max(100_000).default(1).describe('dispatch this many instances'),
  note,
});

export type DispatchEntry = z.output<typeof schema>;

export const dispatchEntry: EntryKind<DispatchEntry> = {
  schema,
  phase: 0,
  check(e, path, ctx) {
    const problems = [];
    if (!ctx.jobs.includes(e.dispatch)) {
      problems.push({ path: [...path, 'dispatch'], detail: ctx.unknown('job', e.dispatch, ctx.jobs) });
    }
    if (e.connection !== undefined && !ctx.connections.includes(e.connection)) {
      problems.push({
        path: [...path, 'connection'],
        detail: ctx.unknown('connection', e.connection, ctx.connections),
      });
    }
    if (e.queue !== undefined && !isQueueName(e.queue)) {
      problems.push({ path: [...path, 'queue'], detail: singleQueue(e.queue) });
    }
    return problems;
  },
  queues: (e) => (e.queue ? [e.queue] : []),
  dispatches: (e) => e.count,
  model: (e, env) => ({
    actor: DISPATCHER,
    async run(ctx) {
      const job = jobDefinition(e.dispatch, env.spec.jobs[e.dispatch]!);
      const { result, methods } = await env.request(ctx, e.connection, (queue) =>
        env.dispatcher.dispatchToQueue(ctx, queue, {
          job,
          count: e.count,
          delay: e.delay,
          queue: e.queue,
          connection: e.connection,
        }),
      );
      ctx.describe(
        describeDispatch(e, result, methods, {
          now: ctx.time(), // later()'s availableAt counts from Laravel's whole second
          start: env.spec.start,
          prefix: env.prefix,
          profile: env.profile,
        }),
      );
    },
  }),
  real: (e, env) => ({
    actor: DISPATCHER,
    run: env.request(`dispatch ${e.count} × ${e.dispatch}`, 'dispatch', () => ({
      role: 'dispatch',
      job: e.dispatch,
      count: e.count,
      delay: e.delay ?? null,
      queue: e.queue ?? null,
      connection: e.connection ?? null,
      uuids: env.uuidsFor(e.count),
    })),
  }),
  notComparable: () => null,
};

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
    command: job.command,
  };
}

function describeDispatch(
  e: DispatchEntry,
  d: Dispatched,
  methods: string[],
  o: { now: number; start: number; prefix: string; profile: LaravelProfile },
): StepDescription {
  const labels = d.labels;
  const what =
    labels.length === 1 ? labels[0]! : `${labels.length} × ${e.dispatch} (${labels[0]} … ${labels[labels.length - 1]})`;
  const keys = queueKeys(d.queue, o.prefix);
  const later = o.profile.queue.later === 'script' ? 'runs the later script, which ZADDs' : 'ZADDs';
  return {
    kind: 'dispatch',
    title:
      e.delay !== undefined
        ? `dispatch ${what} with delay ${e.delay}s onto ${keys.delayed} (due t+${o.now + e.delay - o.start}s)`
        : `dispatch ${what} onto ${keys.ready}`,
    methods: ['Bus\\Dispatcher::dispatchToQueue', ...new Set(methods)],
    explain:
      e.delay !== undefined
        ? `later() ${later} the payload to :delayed, scored by the time it becomes due; a worker migrates it once that time has passed.`
        : o.profile.queue.push === 'script'
          ? `push() runs the push script: it RPUSHes the JSON payload (attempts ${d.attempts}) onto the ready list and a 1 onto :notify.`
          : `push() RPUSHes the JSON payload (attempts ${d.attempts}) onto the ready list.`,
    note: e.note,
  };
}
