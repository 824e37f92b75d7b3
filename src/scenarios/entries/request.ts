// `- { at: 0, request: [{ dispatch: SendEmail, queue: high }, { dispatch: BuildReport, delay: 60 }] }`:
// one web request that makes several calls, in order: dispatches (each what a `dispatch` entry
// says, without `every`) and Queue::size() calls. One PHP process, so one Redis connection for
// all of them, whatever queue connection each names (they share Redis connection `default`), and
// one step; a `dispatch` entry is a request with one call.
import { z } from 'zod';
import { at, DISPATCHER, note } from '../fields.ts';
import {
  callConnections,
  callDispatches,
  callQueues,
  checkDispatchCall,
  dispatchCall,
  modelDispatch,
  realDispatch,
} from './dispatch.ts';
import type { EntryKind } from './kind.ts';
import { entrySchema } from './kind.ts';
import { checkSizeCall, modelSize, realSize, SIZE_EXPLAIN, sizeCall } from './size.ts';

const Call = z
  .union([
    z
      .object(dispatchCall)
      .strict()
      .transform((c) => ({ op: 'dispatch' as const, ...c })),
    z
      .object(sizeCall)
      .strict()
      .transform((c) => ({ op: 'size' as const, ...c })),
  ])
  .describe('a dispatch call ({ dispatch, delay, queue, connection, count, properties, chain }) or { size: <queue> }');

const schema = entrySchema('request', {
  at,
  request: z.array(Call).min(1).describe('one web request: these calls in order, on one Redis connection'),
  note,
});

export type RequestEntry = z.output<typeof schema>;
/** The entry as written (before defaults), for the library's builder. */
export type RequestInput = z.input<typeof schema>;
type RequestCall = RequestEntry['request'][number];

const isDispatch = (c: RequestCall): c is Extract<RequestCall, { op: 'dispatch' }> => c.op === 'dispatch';

const REQUEST_EXPLAIN =
  'One web request is one PHP process: its calls run in the order written, over one Redis connection (QueueManager makes one RedisQueue per queue connection, and they all use the Redis connection `default`).';

export const requestEntry: EntryKind<RequestEntry> = {
  schema,
  phase: 0,
  check: (e, path, ctx) =>
    e.request.flatMap((c, i) =>
      isDispatch(c)
        ? checkDispatchCall(c, [...path, 'request', i], ctx)
        : checkSizeCall(c, [...path, 'request', i], ctx),
    ),
  queues: (e) => e.request.flatMap((c) => (isDispatch(c) ? callQueues(c) : [])),
  dispatches: (e) => e.request.reduce((n, c) => n + (isDispatch(c) ? callDispatches(c) : 0), 0),
  model: (e, env) => ({
    actor: DISPATCHER,
    async run(ctx) {
      const { result, methods } = await env.request(ctx, async (queueFor) => {
        const done: { title: string; explain: string }[] = [];
        // In order: a size after a dispatch counts it.
        for (const c of e.request) {
          done.push(
            isDispatch(c)
              ? await modelDispatch(c, env, ctx, queueFor)
              : { title: await modelSize(c, queueFor), explain: SIZE_EXPLAIN },
          );
        }
        return done;
      });
      const dispatches = e.request.some(isDispatch);
      ctx.describe({
        kind: dispatches ? 'dispatch' : 'size',
        title: `one request: ${result.map((r) => r.title).join('; ')}`,
        methods: [
          ...(dispatches ? ['Bus\\Dispatcher::dispatchToQueue'] : []),
          ...(e.request.some((c) => !isDispatch(c)) ? ['Queue::size'] : []),
          ...new Set(methods),
        ],
        explain: [REQUEST_EXPLAIN, ...new Set(result.map((r) => r.explain))].join(' '),
        note: e.note,
      });
    },
  }),
  real: (e, env) => ({
    actor: DISPATCHER,
    run: env.request(
      `one request: ${e.request.map((c) => (isDispatch(c) ? `dispatch ${c.count} × ${c.dispatch}` : `Queue::size('${c.size}')`)).join('; ')}`,
      e.request.some(isDispatch) ? 'dispatch' : 'size',
      () => ({
        role: 'request',
        calls: e.request.map((c) => (isDispatch(c) ? realDispatch(c, env) : realSize(c))),
      }),
    ),
  }),
  notComparable: () => null,
  lab: null,
  names: (e) => ({
    workers: [],
    connections: e.request.flatMap((c) =>
      isDispatch(c) ? callConnections(c) : c.connection === undefined ? [] : [c.connection],
    ),
  }),
};
