// `- { at: 0, request: [{ dispatch: SendEmail, queue: high }, { dispatch: BuildReport, delay: 60 }] }`:
// one web request that makes several calls, in order: dispatches (each what a `dispatch` entry
// says, without `every`) and Queue::size() calls. One PHP process, so one Redis connection for
// all of them, whatever queue connection each names (they share Redis connection `default`), and
// one step; a `dispatch` entry is a request with one call. A call's `offset` (and a dispatch
// call's `every`) makes the request go on: it sleeps until then, keeping its process and its
// connection, and each part is a step of its own, other actors' steps in between
// (request-times.ts): a long request, or an artisan command that dispatches one job a second.
import { z } from 'zod';
import { formatSeconds, later, secondsBetween } from '../../sim/clock.ts';
import { at, DISPATCHER, lazy, note, seconds, virtualTime } from '../fields.ts';
import { ClientException } from '../../sim/exceptions.ts';
import {
  callConnections,
  callDispatches,
  callQueues,
  checkDispatchCall,
  dispatchCall,
  callThrew,
  modelDispatch,
  thrownToApp,
  realDispatch,
} from './dispatch.ts';
import type { EntryKind } from './kind.ts';
import { entrySchema } from './kind.ts';
import { checkSizeCall, modelSize, realSize, SIZE_EXPLAIN, sizeCall } from './size.ts';
import type { RequestPart } from './request-times.ts';
import { checkOffsets, requestParts, timedCalls } from './request-times.ts';

/** The call of a part that threw (the one after the `done` calls), as its step names it. */
function failedCall(part: RequestPart<RequestCall>, done: number): string {
  const call = part.calls[done]?.call;
  if (call === undefined) throw new Error('a request part threw after its last call');
  return isDispatch(call) ? `dispatch ${call.dispatch}` : `Queue::size('${call.size}')`;
}

/** When a call is made, in seconds after the request began (a request that goes on). */
const offset = () =>
  virtualTime(
    'seconds after the request began when this call is made, to the millisecond: the request sleeps until then (a long request, an artisan command), on its one connection; default: right after the call before',
  ).optional();

/** A dispatch call's instances one every N seconds, in this request. */
const every = () =>
  seconds(
    "with count: one instance every N seconds in this same request, on its one connection (sleep() between them); the dispatch entry's every makes a request per instance instead",
  ).optional();

const Call = () =>
  z
    .union([
      z
        .object({ ...dispatchCall(), offset: offset(), every: every() })
        .strict()
        .transform((c) => ({ op: 'dispatch' as const, ...c })),
      z
        .object({ ...sizeCall(), offset: offset() })
        .strict()
        .transform((c) => ({ op: 'size' as const, ...c })),
    ])
    .describe(
      'a dispatch call ({ dispatch, delay, queue, connection, count, properties, chain, every, offset }) or { size: <queue>, offset }',
    );

const schema = lazy(() =>
  entrySchema('request', {
    at: at(),
    request: z.array(Call()).min(1).describe('one web request: these calls in order, on one Redis connection'),
    note: note(),
  }),
);

export type RequestEntry = z.output<ReturnType<typeof schema>>;
/** The entry as written (before defaults), for the library's builder. */
export type RequestInput = z.input<ReturnType<typeof schema>>;
type RequestCall = RequestEntry['request'][number];

const isDispatch = (c: RequestCall): c is Extract<RequestCall, { op: 'dispatch' }> => c.op === 'dispatch';

const REQUEST_EXPLAIN =
  'One web request is one PHP process: its calls run in the order written, over one Redis connection (QueueManager makes one RedisQueue per queue connection, and they all use the Redis connection `default`).';

const GOES_ON =
  'It sleeps between its calls (a long request, an artisan command): the process, and with it its Redis connection, stays open, and what other processes do meanwhile comes in between. Each call reads the clock when it is made.';

/** The Laravel methods a part's calls go through, before the RedisQueue ones. */
const callMethods = (calls: readonly RequestCall[]): string[] => [
  ...(calls.some(isDispatch) ? ['Bus\\Dispatcher::dispatchToQueue'] : []),
  ...(calls.some((c) => !isDispatch(c)) ? ['Queue::size'] : []),
];

/**
 * When the request first touches Redis: its first call's offset after `at`. The process sleeps
 * until then without a connection (RedisManager connects when a queue first asks for it), so it
 * is the request starting then.
 */
const firstCall = (e: RequestEntry): number | undefined => {
  const first = requestParts(e.request)[0]!.offset;
  return first === 0 ? undefined : later(e.at, first);
};

/** `one request` for a request made at once; `one request, +10s` for a part of one that goes on. */
const partTitle = (parts: readonly RequestPart<unknown>[], part: RequestPart<unknown>) =>
  parts.length === 1 ? 'one request' : `one request, +${formatSeconds(part.offset)}s`;

export const requestEntry: EntryKind<RequestEntry> = {
  get schema() {
    return schema();
  },
  phase: 0,
  check: (e, path, ctx) => [
    ...e.request.flatMap((c, i) =>
      isDispatch(c)
        ? checkDispatchCall(c, [...path, 'request', i], ctx)
        : checkSizeCall(c, [...path, 'request', i], ctx),
    ),
    ...checkOffsets(e.request, e.at, ctx.spec.until, path),
  ],
  queues: (e) => e.request.flatMap((c) => (isDispatch(c) ? callQueues(c) : [])),
  dispatches: (e) => e.request.reduce((n, c) => n + (isDispatch(c) ? callDispatches(c) : 0), 0),
  model: (e, env) => ({
    actor: DISPATCHER,
    at: firstCall(e),
    // A request that goes on keeps the run from ending before its last call (RunPlan).
    holdsRun: true,
    async run(ctx) {
      const parts = requestParts(e.request);
      const describe = (
        part: RequestPart<RequestCall>,
        done: { title: string; explain: string }[],
        methods: string[],
      ) => {
        const calls = part.calls.map((t) => t.call);
        ctx.describe({
          kind: calls.some(isDispatch) ? 'dispatch' : 'size',
          title: `${partTitle(parts, part)}: ${done.map((r) => r.title).join('; ')}`,
          methods: [...callMethods(calls), ...new Set(methods)],
          explain: [
            REQUEST_EXPLAIN,
            ...(parts.length > 1 ? [GOES_ON] : []),
            ...new Set(done.map((r) => r.explain)),
          ].join(' '),
          note: e.note,
        });
      };
      // A dispatch that throws ends the request there (a 500): its part is told with what it did before.
      let done: { title: string; explain: string }[] = [];
      let current = parts[0]!;
      const outcome = await env
        .request(ctx, async (queueFor, takeMethods, cache) => {
          for (const [k, part] of parts.entries()) {
            current = part;
            if (k > 0) {
              // The part before is a step of its own, with the RedisQueue methods it went through.
              describe(parts[k - 1]!, done, takeMethods());
              await ctx.sleep(part.wait);
              done = [];
            }
            // In order: a size after a dispatch counts it.
            for (const { call: c } of part.calls) {
              done.push(
                isDispatch(c)
                  ? await modelDispatch(c, env, ctx, queueFor, cache)
                  : { title: await modelSize(c, queueFor), explain: SIZE_EXPLAIN },
              );
            }
          }
          return done;
        })
        .catch(thrownToApp);
      if (outcome instanceof ClientException) {
        const threw = callThrew(failedCall(current, done.length), outcome);
        describe(current, [...done, { title: threw.title, explain: threw.explain! }], outcome.methods);
        return;
      }
      describe(parts.at(-1)!, outcome.result, outcome.methods);
    },
  }),
  real: (e, env) => ({
    actor: DISPATCHER,
    at: firstCall(e),
    holdsRun: true,
    run: env.request(
      `one request: ${e.request.map((c) => (isDispatch(c) ? `dispatch ${c.count} × ${c.dispatch}` : `Queue::size('${c.size}')`)).join('; ')}`,
      e.request.some(isDispatch) ? 'dispatch' : 'size',
      () => ({
        role: 'request',
        // Each call with the seconds the process sleeps before it (harness.php); a call after a
        // sleep asks for its uuids when Laravel draws them, as the model draws them then.
        calls: requestParts(e.request).flatMap((part, k) =>
          part.calls.map(({ call: c }, i) => ({
            ...(isDispatch(c)
              ? k === 0
                ? realDispatch(c, env)
                : { ...realDispatch(c, { ...env, uuidsFor: () => [] }), uuids: null }
              : realSize(c)),
            wait: i === 0 ? part.wait : 0,
          })),
        ),
      }),
    ),
  }),
  notComparable: () => null,
  lab: null,
  cutAt(e, now) {
    // The calls made at or before `now` happened; those after it are the future a fork drops.
    const made = new Map<number, number>();
    for (const t of timedCalls(e.request))
      if (secondsBetween(later(e.at, t.offset), now) >= 0) made.set(t.index, (made.get(t.index) ?? 0) + 1);
    let cut = false;
    const kept = e.request.flatMap((c, i) => {
      const n = made.get(i) ?? 0;
      const { op: _op, ...written } = c;
      if (n === 0) cut = true;
      if (n === 0) return [];
      if (!isDispatch(c) || c.every === undefined || n === c.count) return [written];
      cut = true;
      return [{ ...written, count: n }];
    });
    return cut ? { request: kept as RequestEntry['request'] } : null;
  },
  names: (e) => ({
    workers: [],
    connections: e.request.flatMap((c) =>
      isDispatch(c) ? callConnections(c) : c.connection === undefined ? [] : [c.connection],
    ),
  }),
};
