// `- { at: 30, stop: worker-1 }`: SIGTERM to a worker process (supervisorctl stop, a deploy); it
// finishes its current job and exits (Worker::listenForSignals sets $shouldQuit). With `restart`,
// supervisord then starts the same program again with those queue:work options changed
// (supervisorctl restart after editing its command line): the worker keeps its name.
import { z } from 'zod';
import { at, lazy, name, note } from '../fields.ts';
import type { EntryKind, LabEntryCommand } from './kind.ts';
import { entrySchema } from './kind.ts';
import { CommandError } from './lab-args.ts';

const restart = () => {
  const seconds = z.number().int().min(0).max(86400);
  return z
    .object({
      queue: z
        .string()
        .regex(/^[^,\s]+(,[^,\s]+)*$/, 'comma-separated queue names without spaces, e.g. high,default')
        .optional()
        .describe('--queue=high,default'),
      tries: z.number().int().min(0).max(1000).optional().describe('--tries'),
      timeout: seconds.optional().describe('--timeout'),
      sleep: z.number().int().min(0).max(3600).optional().describe('--sleep'),
      delay: seconds.optional().describe("--delay (5.x): replaces the worker's --delay or --backoff"),
      backoff: z
        .union([seconds, z.array(seconds).min(1).max(100)])
        .optional()
        .describe("--backoff (8.0+): replaces the worker's --backoff or --delay"),
    })
    .strict()
    .describe(
      'once the process has exited, supervisord starts the same program again with these queue:work options changed ({} for none: it reads config/queue.php again); the worker keeps its name',
    );
};

const schema = lazy(() =>
  entrySchema('stop', {
    at: at(),
    stop: name().describe('a worker: SIGTERM, it quits after its current job'),
    restart: restart().optional(),
    note: note(),
  }),
);

export type StopEntry = z.output<ReturnType<typeof schema>>;
/** The entry as written (before defaults), for the library's builder. */
export type StopInput = z.input<ReturnType<typeof schema>>;

/** `stop <worker>` as parsed. */
export interface StopCommand {
  kind: 'stop';
  worker: string;
}

/** The lab's `stop worker-1`: SIGTERM now (the lab's `set <worker>` writes a stop with `restart`). */
const lab: LabEntryCommand<StopCommand, StopInput> = {
  group: 'workers',
  usage: 'stop <worker>',
  help: 'SIGTERM: the worker finishes its current job and exits',
  keys: [],
  first: (v) => v.running,
  examples: ['stop worker-1'],
  parse: (args, v) => ({ kind: 'stop', worker: args.worker(v) }),
  toEntry({ worker }, { at, running }) {
    if (!running(worker)) throw new CommandError(`stop: ${worker} has no process running now`);
    return { entry: { at, stop: worker }, message: `SIGTERM to ${worker}` };
  },
};

export const stopEntry: EntryKind<StopEntry, StopCommand> = {
  get schema() {
    return schema();
  },
  phase: 0,
  check(e, path, ctx) {
    if (!ctx.workers.includes(e.stop))
      return [{ path: [...path, 'stop'], detail: ctx.unknown('worker', e.stop, ctx.workers) }];
    const r = e.restart;
    if (r === undefined) return [];
    if (r.backoff !== undefined && ctx.profile.worker.backoff !== 'list')
      return [
        {
          path: [...path, 'restart', 'backoff'],
          detail: `--backoff arrived in 8.0.0 (WorkCommand.php@v8.0.0:30); Laravel ${ctx.spec.laravel}'s queue:work has --delay, one number: use delay`,
        },
      ];
    if (r.backoff !== undefined && r.delay !== undefined)
      return [
        {
          path: [...path, 'restart', 'backoff'],
          detail: 'give backoff or the deprecated delay, not both: queue:work takes max(--backoff, --delay)',
        },
      ];
    return [];
  },
  queues: () => [],
  dispatches: () => 0,
  model: (e, env) => ({
    actor: e.stop,
    async run(ctx) {
      const worker = env.worker(e.stop);
      if (e.restart === undefined) worker.signalTerm();
      else worker.restartWith(e.restart);
      ctx.describe({
        kind: 'stop',
        title: `SIGTERM to ${e.stop}: it will quit after its current job${e.restart === undefined ? '' : ', then supervisord starts it again'}`,
        methods: ['Worker::listenForSignals'],
        note: e.note,
      });
    },
  }),
  real: (e, env) => ({
    actor: e.stop,
    async run(ctx) {
      const worker = env.worker(e.stop);
      if (e.restart === undefined) worker.signalTerm();
      else worker.restartWith(e.restart);
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
  lab,
  names: (e) => ({ workers: [e.stop], connections: [] }),
};
