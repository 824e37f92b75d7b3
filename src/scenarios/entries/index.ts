// The timeline entry kinds. Each kind is one module; this record lists them by kind, and its type
// makes the compiler name any kind of the union that has no module here. Code that handles an
// entry goes through kindOf(entry), never through which keys the entry happens to have.
import { z } from 'zod';
import { formatSeconds, later } from '../../sim/clock.ts';
import { lazy } from '../fields.ts';
import type { ActorContext, Scheduler } from '../../sim/scheduler.ts';
import type { ScenarioSpec } from '../schema.ts';
import type { Activation, Activations, EntryKind } from './kind.ts';
import { artisanEntry } from './artisan.ts';
import { chainEntry } from './chain.ts';
import { configEntry } from './config.ts';
import { dispatchEntry } from './dispatch.ts';
import { killEntry } from './kill.ts';
import { noteEntry } from './note.ts';
import { requestEntry } from './request.ts';
import { sizeEntry } from './size.ts';
import { stopEntry } from './stop.ts';

/** One timeline entry as written: each kind's own keys; parsing adds `kind`. */
export const timelineEntrySchema = lazy(() =>
  z.union([
    dispatchEntry.schema,
    requestEntry.schema,
    stopEntry.schema,
    killEntry.schema,
    sizeEntry.schema,
    noteEntry.schema,
    chainEntry.schema,
    configEntry.schema,
    artisanEntry.schema,
  ]),
);
export type TimelineEntryInput = z.input<ReturnType<typeof timelineEntrySchema>>;
export type TimelineEntrySpec = z.output<ReturnType<typeof timelineEntrySchema>>;
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
  artisan: artisanEntry,
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

/** A worker process's supervisor as scheduleRun starts it. */
export interface PlannedWorker {
  readonly spec: { name: string; start: number; late?: boolean };
  supervise(ctx: ActorContext): Promise<void>;
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
  workers: readonly PlannedWorker[],
): () => number {
  const plan = new RunPlan(scheduler, spec.start, activate);
  plan.add(spec.timeline, 0, workers, 0);
  return () => plan.pending;
}

/**
 * A run's plan on the scheduler: each entry's activations and each worker's start, each at its
 * place in the plan (Scheduler.spawn's `plan`): entries before workers, entries by startOrder
 * (their kind's phase, then as written), an entry's activations in order, workers as written.
 * An open run takes on more of it as it goes (the lab's actions: `extend`), ordered exactly as a
 * run planned with them from the start, or not at all.
 */
export class RunPlan {
  /** Entries and workers not started yet. */
  pending = 0;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly start: number,
    private readonly activate: (entry: TimelineEntrySpec) => Activations,
  ) {}

  /**
   * Schedules `timeline[fromEntry..]` and `workers[fromWorker..]` (the indexes are their places in
   * the scenario). What would have had to run already (before an event that has) is refused, and
   * then nothing is scheduled: the reason is returned, or null.
   */
  add(
    timeline: readonly TimelineEntrySpec[],
    fromEntry: number,
    workers: readonly PlannedWorker[],
    fromWorker: number,
  ): string | null {
    const added = timeline.slice(fromEntry);
    const indexOf = new Map(added.map((e, i) => [e, fromEntry + i]));
    const events = [
      ...startOrder(added).flatMap((e) =>
        [this.activate(e) ?? []].flat().map((a: Activation, sub) => ({
          ...a,
          at: a.at ?? e.at,
          late: e.late === true,
          plan: [0, kindOf(e).phase, indexOf.get(e)!, sub],
        })),
      ),
      ...workers.slice(fromWorker).map((w, i) => ({
        at: w.spec.start,
        late: w.spec.late === true,
        actor: w.spec.name,
        run: (ctx: ActorContext) => w.supervise(ctx),
        plan: [1, fromWorker + i],
      })),
    ];
    const gone = events.find((a) => !this.scheduler.fitsAfterNow(later(this.start, a.at), a.late, a.plan));
    if (gone !== undefined)
      return `${gone.actor} at t+${formatSeconds(gone.at)}s${gone.late ? ' (late)' : ''} would have run before what has run already`;
    this.pending += events.length;
    for (const a of events) {
      this.scheduler.spawn(
        a.actor,
        later(this.start, a.at),
        async (ctx) => {
          // An entry that holds the run (Activation.holdsRun) is pending until it ends.
          const holds = 'holdsRun' in a && a.holdsRun === true;
          if (!holds) this.pending--;
          await a.run(ctx);
          if (holds) this.pending--;
        },
        a.late,
        a.plan,
      );
    }
    return null;
  }
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
