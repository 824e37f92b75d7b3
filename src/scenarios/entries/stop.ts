// `- { at: 30, stop: worker-1 }`: SIGTERM to a worker process (supervisorctl stop, a deploy); it
// finishes its current job and exits (Worker::listenForSignals sets $shouldQuit).
import { z } from 'zod';
import { at, name, note } from '../fields.ts';
import type { EntryKind } from './kind.ts';
import { entrySchema } from './kind.ts';

const schema = entrySchema('stop', {
  at,
  stop: name.describe('a worker: SIGTERM, it quits after its current job'),
  note,
});

export type StopEntry = z.output<typeof schema>;
/** The entry as written (before defaults), for the library's builder. */
export type StopInput = z.input<typeof schema>;

export const stopEntry: EntryKind<StopEntry> = {
  schema,
  phase: 0,
  check: (e, path, ctx) =>
    ctx.workers.includes(e.stop)
      ? []
      : [{ path: [...path, 'stop'], detail: ctx.unknown('worker', e.stop, ctx.workers) }],
  queues: () => [],
  dispatches: () => 0,
  model: (e, env) => ({
    actor: e.stop,
    async run(ctx) {
      env.worker(e.stop).signalTerm();
      ctx.describe({
        kind: 'stop',
        title: `SIGTERM to ${e.stop}: it will quit after its current job`,
        methods: ['Worker::listenForSignals'],
        note: e.note,
      });
    },
  }),
  real: (e, env) => ({
    actor: e.stop,
    async run(ctx) {
      env.worker(e.stop).signalTerm();
      ctx.describe({ kind: 'stop', title: `SIGTERM to ${e.stop}` });
    },
  }),
  notComparable(e, spec) {
    const w = spec.workers.find((x) => x.name === e.stop);
    if (w?.once) {
      return `${e.stop} runs --once and gets a stop: runNextJob installs no SIGTERM handler, so the real process dies at once; the model lets it finish`;
    }
    const conn = spec.connections[w?.connection ?? Object.keys(spec.connections)[0]!];
    if (conn?.block_for != null) {
      return `${e.stop} is stopped while it may wait in BLPOP (block_for): a SIGTERM during BLPOP is not modelled`;
    }
    return null;
  },
};
