// `- { at: 5, size: default }`: the application calls Queue::size('default') in a web request of
// its own: the size script, LLEN + ZCARD :delayed + ZCARD :reserved.
import { z } from 'zod';
import { at, DISPATCHER, name, note } from '../fields.ts';
import type { EntryKind } from './kind.ts';
import { entrySchema } from './kind.ts';

const schema = entrySchema('size', {
  at,
  size: z
    .string()
    .regex(/^[^,\s]+$/, 'one queue name')
    .describe("the application calls Queue::size('<queue>'): the size script"),
  connection: name.optional(),
  note,
});

export type SizeEntry = z.output<typeof schema>;

export const sizeEntry: EntryKind<SizeEntry> = {
  schema,
  // After the dispatches and stops of the same second: a size then counts what was dispatched.
  phase: 1,
  check: (e, path, ctx) =>
    e.connection === undefined || ctx.connections.includes(e.connection)
      ? []
      : [{ path: [...path, 'connection'], detail: ctx.unknown('connection', e.connection, ctx.connections) }],
  // It only reads: a queue that nothing else names holds nothing to snapshot or clean up.
  queues: () => [],
  dispatches: () => 0,
  model: (e, env) => ({
    actor: DISPATCHER,
    async run(ctx) {
      const { result: size, methods } = await env.request(ctx, e.connection, (queue) => queue.size(e.size));
      ctx.describe({
        kind: 'size',
        title: `Queue::size('${e.size}') = ${size}`,
        methods: ['Queue::size', ...methods],
        explain:
          'size counts the ready LIST, the :delayed ZSET and the :reserved ZSET together: jobs that are running still count.',
        note: e.note,
      });
    },
  }),
  real: (e, env) => ({
    actor: DISPATCHER,
    run: env.request(`Queue::size('${e.size}')`, 'size', () => ({
      role: 'size',
      queue: e.size,
      connection: e.connection ?? null,
    })),
  }),
  notComparable: () => null,
};
