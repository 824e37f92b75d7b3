// The timeline entry kinds. Each kind is one module; this record lists them by kind, and its type
// makes the compiler name any kind of the union that has no module here. Code that handles an
// entry goes through kindOf(entry), never through which keys the entry happens to have.
import { z } from 'zod';
import { later } from '../../sim/clock.ts';
import type { ActorContext, Scheduler } from '../../sim/scheduler.ts';
import type { ScenarioSpec } from '../schema.ts';
import type { Activation, Activations, EntryKind } from './kind.ts';
import { chainEntry } from './chain.ts';
import { configEntry } from './config.ts';
import { dispatchEntry } from './dispatch.ts';
import { killEntry } from './kill.ts';
import { noteEntry } from './note.ts';
import { requestEntry } from './request.ts';
import { sizeEntry } from './size.ts';
import { stopEntry } from './stop.ts';

/** One timeline entry as written: each kind's own keys; parsing adds `kind`. */
export const TimelineEntry = z.union([
  dispatchEntry.schema,
  requestEntry.schema,
  stopEntry.schema,
  killEntry.schema,
  sizeEntry.schema,
  noteEntry.schema,
  chainEntry.schema,
  configEntry.schema,
]);
export type TimelineEntrySpec = z.output<typeof TimelineEntry>;
export type EntryKindName = TimelineEntrySpec['kind'];
export type EntryOfKind<K extends EntryKindName> = Extract<TimelineEntrySpec, { kind: K }>;

/** A kind's module, for an entry of that kind; its lab command, if any, parses into `{ kind }`. */
export type EntryKindOf<E extends TimelineEntrySpec> = EntryKind<E, { kind: E['kind'] } | null>;

// `satisfies`, not a type annotation: each kind's own type stays, so the lab sees what each kind's
// lab command parses into (entries/lab.ts).
export const ENTRY_KINDS = {
  dispatch: dispatchEntry,
  request: requestEntry,
  stop: stopEntry,
  kill: killEntry,
  size: sizeEntry,
  note: noteEntry,
  chain: chainEntry,
  config: configEntry,
} as const satisfies { readonly [K in EntryKindName]: EntryKindOf<EntryOfKind<K>> };

/** The module of an entry's kind, typed for that entry. */
export function kindOf<E extends TimelineEntrySpec>(entry: E): EntryKindOf<E> {
  // TypeScript cannot correlate ENTRY_KINDS[entry.kind] with E; the record's type guarantees it.
  return ENTRY_KINDS[entry.kind] as unknown as EntryKindOf<E>;
}

/**
 * The order in which entries start, and so the order at one virtual instant: by the kind's phase
 * (dispatches, requests, chains, stops, kills and config changes 0, Queue::size 1), then as
 * written. scheduleRun starts worker processes after every entry, so at the instant a worker
 * starts, that instant's entries run first (and it reads the config changed then). The scheduler
 * runs equal instants in the order they were scheduled (scheduler.ts), and everything here is
 * scheduled before the run begins: a process already running that wakes at the same instant (from
 * a sleep, a BLPOP, handle()) comes after all of them.
 */
export function startOrder<E extends TimelineEntrySpec>(timeline: readonly E[]): E[] {
  return timeline
    .map((entry, index) => ({ entry, index, phase: kindOf(entry).phase }))
    .sort((a, b) => a.phase - b.phase || a.index - b.index)
    .map((x) => x.entry);
}

/**
 * Puts a run on the scheduler, the model's and real Laravel's alike: the timeline's entries in
 * startOrder (what `activate` makes of each), then each worker's supervisor at its start. Returns
 * how many of them have not started yet: until none is left, the run is not over (run-end.ts).
 */
export function scheduleRun(
  scheduler: Scheduler,
  spec: Pick<ScenarioSpec, 'start' | 'timeline'>,
  activate: (entry: TimelineEntrySpec) => Activations,
  workers: readonly {
    readonly spec: { name: string; start: number; late?: boolean };
    supervise(ctx: ActorContext): Promise<void>;
  }[],
): () => number {
  const all = [
    ...startOrder(spec.timeline).flatMap((e) =>
      [activate(e) ?? []].flat().map((a: Activation) => ({ ...a, at: a.at ?? e.at, late: e.late === true })),
    ),
    ...workers.map((w) => ({
      at: w.spec.start,
      late: w.spec.late === true,
      actor: w.spec.name,
      run: (ctx: ActorContext) => w.supervise(ctx),
    })),
  ];
  let pending = all.length;
  for (const a of all) {
    scheduler.spawn(
      a.actor,
      later(spec.start, a.at),
      async (ctx) => {
        pending--;
        await a.run(ctx);
      },
      a.late,
    );
  }
  return () => pending;
}

/** Jobs the timeline dispatches in all. */
export function totalDispatches(timeline: readonly TimelineEntrySpec[]): number {
  return timeline.reduce((n, e) => n + kindOf(e).dispatches(e), 0);
}

export type {
  Activation,
  Activations,
  CheckContext,
  ConnectionChange,
  EntryKind,
  EntryNames,
  LabEntryAction,
  LabEntryCommand,
  LabMoment,
  ModelEnv,
  ModelWorker,
  RealEnv,
  WorkerControl,
} from './kind.ts';
export type { ChainEntry } from './chain.ts';
export type { ConfigEntry } from './config.ts';
export type { DispatchEntry } from './dispatch.ts';
export type { KillEntry } from './kill.ts';
export type { NoteEntry } from './note.ts';
export type { RequestEntry } from './request.ts';
export type { SizeEntry } from './size.ts';
export type { StopEntry } from './stop.ts';
