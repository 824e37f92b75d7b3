// `- { at: 5, size: default }`: the application calls Queue::size('default') in a web request of
// its own: the size script, LLEN + ZCARD :delayed + ZCARD :reserved. The call itself is
// `sizeCall`, shared with the `request` entry.
import { z } from 'zod';
import type { QueueResolver } from '../../sim/web-request.ts';
import { at, DISPATCHER, lazy, name, note } from '../fields.ts';
import type { Path, Problem } from '../schema-issues.ts';
import type { CheckContext, EntryKind } from './kind.ts';
import { entrySchema } from './kind.ts';

/** What one Queue::size() call says. */
export const sizeCall = lazy(() => ({
  size: z
    .string()
    .regex(/^[^,\s]+$/, 'one queue name')
    .describe("the application calls Queue::size('<queue>'): the size script"),
  connection: name().optional(),
}));

const schema = lazy(() => entrySchema('size', { at: at(), ...sizeCall(), note: note() }));

export type SizeEntry = z.output<ReturnType<typeof schema>>;
/** The entry as written (before defaults), for the library's builder. */
export type SizeInput = z.input<ReturnType<typeof schema>>;
export type SizeCall = Pick<SizeEntry, 'size' | 'connection'>;

export const SIZE_EXPLAIN =
  'size counts the ready LIST, the :delayed ZSET and the :reserved ZSET together: jobs that are running still count.';

export const sizeEntry: EntryKind<SizeEntry> = {
  get schema() {
    return schema();
  },
  // After the dispatches and stops of the same second: a size then counts what was dispatched.
  phase: 1,
  check: (e, path, ctx) => checkSizeCall(e, path, ctx),
  // It only reads: a queue that nothing else names holds nothing to snapshot or clean up.
  queues: () => [],
  dispatches: () => 0,
  model: (e, env) => ({
    actor: DISPATCHER,
    async run(ctx) {
      const { result: title, methods } = await env.request(ctx, (queueFor) => modelSize(e, queueFor));
      ctx.describe({ kind: 'size', title, methods: ['Queue::size', ...methods], explain: SIZE_EXPLAIN, note: e.note });
    },
  }),
  real: (e, env) => ({
    actor: DISPATCHER,
    run: env.request(`Queue::size('${e.size}')`, 'size', () => ({ role: 'request', calls: [realSize(e)] })),
  }),
  notComparable: () => null,
  lab: null,
  names: (e) => ({ workers: [], connections: e.connection === undefined ? [] : [e.connection] }),
};

export function checkSizeCall(e: SizeCall, path: Path, ctx: CheckContext): Problem[] {
  return e.connection === undefined || ctx.connections.includes(e.connection)
    ? []
    : [{ path: [...path, 'connection'], detail: ctx.unknown('connection', e.connection, ctx.connections) }];
}

/** Queue::size() in the model's web request; returns the step title (`Queue::size('high') = 2`). */
export async function modelSize(call: SizeCall, queueFor: QueueResolver): Promise<string> {
  const size = await queueFor(call.connection).size(call.size);
  return `Queue::size('${call.size}') = ${size}`;
}

/** The call as the harness plays it (harness.php, role `request`). */
export function realSize(call: SizeCall): Record<string, unknown> {
  return { op: 'size', queue: call.size, connection: call.connection ?? null };
}
