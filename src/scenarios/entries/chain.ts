// `- { at: 0, chain: [ProcessPodcast, OptimizePodcast, { job: ReleasePodcast, delay: 60 }], queue: podcasts }`:
// the application runs `Bus::chain([new A, new B, new C])->onConnection(..)->onQueue(..)->delay(..)->dispatch()`
// (8.0+) in a web request. Only A is pushed; B and C ride in its payload, serialized, with the
// chain's queue and connection ($chainQueue, $chainConnection) and $chainCatchCallbacks = []. The
// worker that runs A pushes B when A succeeds, and so on (the dispatch entry's `chain:` is ->chain()).
import { z } from 'zod';
import type { Dispatched } from '../../sim/dispatcher.ts';
import { pendingChain } from '../../sim/dispatcher.ts';
import { queueKeys } from '../../sim/keys.ts';
import type { StepDescription } from '../../sim/scheduler.ts';
import { at, DISPATCHER, isQueueName, lazy, name, note, seconds, singleQueue } from '../fields.ts';
import type { Problem } from '../schema-issues.ts';
import { chainLinks, checkLinks, linkConnections, linkFields, linkQueues, toChainLinks } from './chain-links.ts';
import { jobDefinition, realLink } from './dispatch.ts';
import type { EntryKind } from './kind.ts';
import { entrySchema } from './kind.ts';

const schema = lazy(() =>
  entrySchema('chain', {
    at: at(),
    chain: chainLinks(
      'Bus::chain([...]) (8.0+): the first job is pushed now, each next one by the worker once the one before succeeds',
    ),
    queue: z.string().min(1).optional().describe('->onQueue(): the chain queue, for every job without its own'),
    connection: name().optional().describe('->onConnection(): the chain connection, for every job without its own'),
    delay: seconds('->delay(): the first job only, and only if it has none (a delay of 0 is ignored)').optional(),
    note: note(),
  }),
);

export type ChainEntry = z.output<ReturnType<typeof schema>>;
/** The entry as written (before defaults), for the library's builder. */
export type ChainInput = z.input<ReturnType<typeof schema>>;

export const chainEntry: EntryKind<ChainEntry> = {
  get schema() {
    return schema();
  },
  phase: 0,
  check(e, path, ctx) {
    const problems: Problem[] = [];
    if (!ctx.profile.bus.busChain) {
      problems.push({
        path: [...path, 'chain'],
        detail: ctx.profile.bus.chain
          ? `Bus::chain() arrived in Laravel 8.0; the ${ctx.profile.name} profile chains with ->chain() only: write chain: [...] on a dispatch entry`
          : `Bus::chain() arrived in Laravel 8.0 (chains in 5.5); the ${ctx.profile.name} profile has no job chains`,
      });
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
    return [...problems, ...checkLinks(e.chain, [...path, 'chain'], ctx)];
  },
  queues: (e) => [...(e.queue ? [e.queue] : []), ...linkQueues(e.chain)],
  dispatches: (e) => e.chain.length,
  model: (e, env) => ({
    actor: DISPATCHER,
    async run(ctx) {
      const links = toChainLinks(e.chain, (n) => jobDefinition(n, env.spec.jobs[n]!));
      const pending = pendingChain(links, { connection: e.connection, queue: e.queue, delay: e.delay });
      const { result, methods } = await env.request(ctx, (queueFor) =>
        env.dispatcher.dispatchToQueue(ctx, queueFor(pending.connection), pending),
      );
      ctx.describe(
        describeChain(e, result, methods, {
          delay: pending.delay,
          now: ctx.time(),
          start: env.spec.start,
          prefix: env.prefix,
        }),
      );
    },
  }),
  real: (e, env) => ({
    actor: DISPATCHER,
    run: env.request(`Bus::chain ${e.chain.map((l) => linkFields(l).job).join(', ')}`, 'dispatch', () => ({
      role: 'request',
      calls: [
        {
          op: 'chain',
          chain: e.chain.map(realLink),
          queue: e.queue ?? null,
          connection: e.connection ?? null,
          delay: e.delay ?? null,
          uuids: env.uuidsFor(1),
        },
      ],
    })),
  }),
  notComparable: () => null,
  lab: null,
  names: (e) => ({
    workers: [],
    connections: [...(e.connection === undefined ? [] : [e.connection]), ...linkConnections(e.chain)],
  }),
};

function describeChain(
  e: ChainEntry,
  d: Dispatched,
  methods: string[],
  o: { delay: number | undefined; now: number; start: number; prefix: string },
): StepDescription {
  const keys = queueKeys(d.queue, o.prefix);
  const rest = e.chain.slice(1).map((l) => linkFields(l).job);
  const onto =
    o.delay !== undefined
      ? `with delay ${o.delay}s onto ${keys.delayed} (due t+${o.now + o.delay - o.start}s)`
      : `onto ${keys.ready}`;
  const set = [
    e.queue !== undefined ? `chainQueue ${e.queue}` : '',
    e.connection !== undefined ? `chainConnection ${e.connection}` : '',
  ].filter(Boolean);
  return {
    kind: 'dispatch',
    title: `Bus::chain: dispatch ${d.labels[0]} ${onto}${rest.length > 0 ? `, chained: ${rest.join(', ')}` : ''}`,
    methods: [
      'Bus\\Dispatcher::chain',
      'PendingChain::dispatch',
      'Bus\\Dispatcher::dispatchToQueue',
      ...new Set(methods),
    ],
    explain:
      `PendingChain::dispatch gives the first job the chain's queue and connection unless it has its own, serializes the others into its data.command ($chained) with ${set.length > 0 ? `${set.join(', ')} and ` : ''}chainCatchCallbacks = [], and pushes only the first job. ` +
      'The worker that runs it pushes the next one when it succeeds, passing the rest of the chain on.',
    note: e.note,
  };
}
