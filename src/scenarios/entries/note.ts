// `- { at: 60, note: "...", actor: worker-1, on: kill }`: a teaching note, attached to the first
// step at or after `at` (of that actor, of that kind). It sends nothing and starts nothing.
import { z } from 'zod';
import { STEP_KINDS } from '../../sim/state.ts';
import { at, DISPATCHER, lazy, name } from '../fields.ts';
import { didYouMean } from '../errors.ts';
import type { EntryKind } from './kind.ts';
import { entrySchema } from './kind.ts';

const schema = lazy(() =>
  entrySchema('note', {
    at: at(),
    note: z.string().min(1),
    actor: name().optional().describe('attach to the first step of this actor at or after `at`'),
    on: z.enum(STEP_KINDS).optional().describe('attach to the first step of this kind'),
  }),
);

export type NoteEntry = z.output<ReturnType<typeof schema>>;
/** The entry as written (before defaults), for the library's builder. */
export type NoteInput = z.input<ReturnType<typeof schema>>;

export const noteEntry: EntryKind<NoteEntry> = {
  get schema() {
    return schema();
  },
  phase: 0,
  check(e, path, ctx) {
    if (e.actor === undefined || e.actor === DISPATCHER || ctx.workers.includes(e.actor)) return [];
    const actors = [DISPATCHER, ...ctx.workers];
    const hint = didYouMean(e.actor, actors);
    return [
      {
        path: [...path, 'actor'],
        detail: `unknown actor "${e.actor}"${hint}; use ${DISPATCHER} or a worker name (${actors.join(', ')})`,
      },
    ];
  },
  queues: () => [],
  dispatches: () => 0,
  model: () => null,
  real: () => null,
  notComparable: () => null,
  lab: null,
  names: (e) => ({ workers: e.actor === undefined || e.actor === DISPATCHER ? [] : [e.actor], connections: [] }),
};
