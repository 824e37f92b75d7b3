// `- { at: 45, kill: worker-1, restart: true }`: SIGKILL to a worker process from outside (the OOM
// killer, supervisord's stopwaitsecs after a stop, a container stop, a deploy). Unlike the
// --timeout alarm, no handler of Laravel's runs: the process sends nothing more, its connection
// closes, and a job it had reserved waits in :reserved until retry_after. Whether supervisord
// starts a new process is part of the entry (default: the worker's `restart`, unless it was stopped).
import { z } from 'zod';
import type { ActorContext } from '../../sim/scheduler.ts';
import { at, lazy, name, note } from '../fields.ts';
import type { EntryKind, LabEntryCommand, WorkerControl } from './kind.ts';
import { entrySchema } from './kind.ts';
import { CommandError } from './lab-args.ts';

const schema = lazy(() =>
  entrySchema('kill', {
    at: at(),
    kill: name().describe('a worker: SIGKILL to its process from outside (OOM killer, stopwaitsecs, container stop)'),
    restart: z
      .boolean()
      .optional()
      .describe("supervisord starts a new process (default: the worker's restart, unless it was sent a stop)"),
    note: note(),
  }),
);

export type KillEntry = z.output<ReturnType<typeof schema>>;
/** The entry as written (before defaults), for the library's builder. */
export type KillInput = z.input<ReturnType<typeof schema>>;

/** The same for the model and for real Laravel: SIGKILL, then supervisord's restart if it makes one. */
async function kill(e: KillEntry, w: WorkerControl, ctx: ActorContext): Promise<void> {
  const restart = e.restart ?? w.restartsAfterKill();
  if ((await w.killFromOutside(ctx, e.note)) && restart) await w.restartAfterKill(ctx);
}

/** `kill <worker> [restart=yes|no]` as parsed. */
export interface KillCommand {
  kind: 'kill';
  worker: string;
  restart?: boolean;
}

const lab: LabEntryCommand<KillCommand, KillInput> = {
  group: 'workers',
  usage: 'kill <worker> [restart=yes|no]',
  help: 'SIGKILL from outside (OOM killer): its job stays reserved; supervisord restarts it unless restart=no',
  keys: ['restart=yes', 'restart=no'],
  first: (v) => v.running,
  examples: ['kill worker-1', 'kill worker-1 restart=no'],
  parse(args, v) {
    const worker = args.worker(v);
    const restart = args.text('restart');
    if (restart !== undefined && restart !== 'yes' && restart !== 'no')
      throw new CommandError(`kill: restart=${restart}: use restart=yes or restart=no`);
    return { kind: 'kill', worker, restart: restart === undefined ? undefined : restart === 'yes' };
  },
  toEntry(cmd, { at, input, running }) {
    if (!running(cmd.worker)) throw new CommandError(`kill: ${cmd.worker} has no process running now`);
    const entry: KillInput = { at, kill: cmd.worker };
    if (cmd.restart !== undefined) entry.restart = cmd.restart;
    const restarts = cmd.restart ?? (input.workers ?? []).find((w) => w.name === cmd.worker)?.restart ?? true;
    return {
      entry,
      message: `SIGKILL to ${cmd.worker}; supervisord ${restarts ? 'starts a new process' : 'does not restart it'}`,
    };
  },
};

export const killEntry: EntryKind<KillEntry, KillCommand> = {
  get schema() {
    return schema();
  },
  phase: 0,
  check(e, path, ctx) {
    const worker = ctx.spec.workers.find((w) => w.name === e.kill);
    if (worker === undefined) return [{ path: [...path, 'kill'], detail: ctx.unknown('worker', e.kill, ctx.workers) }];
    // Entries start before the workers of the same second (entries/index.ts startOrder).
    if (e.at <= worker.start) {
      return [
        {
          path: [...path, 'at'],
          detail: `${e.kill} starts at ${worker.start}: a kill at ${e.at} finds no process (kill it after it starts)`,
        },
      ];
    }
    return [];
  },
  queues: () => [],
  dispatches: () => 0,
  model: (e, env) => ({ actor: e.kill, run: (ctx) => kill(e, env.worker(e.kill), ctx) }),
  real: (e, env) => ({ actor: e.kill, run: (ctx) => kill(e, env.worker(e.kill), ctx) }),
  notComparable: () => null,
  lab,
  names: (e) => ({ workers: [e.kill], connections: [] }),
};
