// `- { at: 30, artisan: queue:restart }`: what a deploy runs. `php artisan queue:restart` is a
// process of its own that writes the restart signal to the app's cache; every daemon worker reads
// it after its current job (or sleep) and exits when it changed, and supervisord starts a new one.
// --once workers never read it. On the skeleton's file cache nothing reaches Redis, but the workers
// still restart.
import { z } from 'zod';
import type { ArtisanCommand } from '../../sim/artisan.ts';
import { ARTISAN_ACTOR, ARTISAN_COMMANDS, queueRestart } from '../../sim/artisan.ts';
import { CommandError } from './lab-args.ts';
import { at, lazy, note } from '../fields.ts';
import type { EntryKind, LabEntryCommand } from './kind.ts';
import { entrySchema } from './kind.ts';

const schema = lazy(() =>
  entrySchema('artisan', {
    at: at(),
    artisan: z
      .enum(ARTISAN_COMMANDS)
      .describe(
        'php artisan queue:restart: daemon workers exit after their current job, and supervisord restarts them',
      ),
    note: note(),
  }),
);

export type ArtisanEntry = z.output<ReturnType<typeof schema>>;
/** The entry as written (before defaults), for the library's builder. */
export type ArtisanInput = z.input<ReturnType<typeof schema>>;

/** `artisan queue:restart` as parsed. */
export interface ArtisanCommandLine {
  kind: 'artisan';
  command: ArtisanCommand;
}

const lab: LabEntryCommand<ArtisanCommandLine, ArtisanInput> = {
  group: 'workers',
  usage: 'artisan queue:restart',
  help: 'php artisan queue:restart: daemon workers exit after their current job (supervisord starts new ones)',
  keys: [],
  first: () => ARTISAN_COMMANDS,
  examples: ['artisan queue:restart'],
  parse(args) {
    const command = args.positional('command');
    if (!(ARTISAN_COMMANDS as readonly string[]).includes(command))
      throw new CommandError(`artisan: ${command}: the lab runs ${ARTISAN_COMMANDS.join(', ')}`);
    return { kind: 'artisan', command: command as ArtisanCommand };
  },
  toEntry: ({ command }, { at }) => ({
    entry: { at, artisan: command },
    message: `php artisan ${command}: the restart signal is written; daemon workers exit after their current job`,
  }),
};

export const artisanEntry: EntryKind<ArtisanEntry, ArtisanCommandLine> = {
  get schema() {
    return schema();
  },
  phase: 0,
  check: () => [],
  queues: () => [],
  dispatches: () => 0,
  model: (e, env) => ({
    actor: ARTISAN_ACTOR,
    async run(ctx) {
      const { value, key, onRedis } = await queueRestart(ctx, env);
      ctx.describe({
        kind: 'artisan',
        title: `php artisan queue:restart: the restart signal ${key} = ${value}${onRedis ? '' : ' (in the file cache: nothing on Redis)'}`,
        methods: ['RestartCommand::handle', 'Repository::forever'],
        explain:
          'Broadcasting queue restart signal. Each daemon worker read the signal when it started and reads it again after every job and every sleep (Worker::stopIfNecessary → queueShouldRestart), never in the middle of a job: a worker busy with a long job restarts only when the job ends. --once workers never read it.',
        note: e.note,
      });
    },
  }),
  real: (e, env) => ({ actor: ARTISAN_ACTOR, run: env.artisan(e.artisan) }),
  notComparable: () => null,
  lab,
  names: () => ({ workers: [], connections: [] }),
};
