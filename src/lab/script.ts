// A lab session as a scenario: the same timeline of entries a file holds (DESIGN.md, "one
// vocabulary of steps"). Each lab action is a pure function from one scenario input (the YAML's
// shape, before defaults) to the next: it appends timeline entries or workers at the lab's clock,
// after dropping what the session had planned later (acting from an earlier step forks it). The
// lab then replays the result from its start against Redis, so what the lab shows is exactly what
// `lqsim run` shows for the saved file.
import { exactInstant, secondsBetween } from '../sim/clock.ts';
import { DEFAULT_PROFILE } from '../sim/profiles/index.ts';
import { checkInput } from '../scenarios/load.ts';
import type { ScenarioInput, ScenarioSpec } from '../scenarios/schema.ts';
import type { EntryNames, TimelineEntrySpec } from '../scenarios/entries/index.ts';
import { kindOf, timelineEntrySchema } from '../scenarios/entries/index.ts';

/** A timeline entry as written (the YAML's shape). */
export type EntryInput = { at: number } & Record<string, unknown>;
type WorkerInput = NonNullable<ScenarioInput['workers']>[number];

const LAB_TITLE = 'A lab session';
const DERIVED_TITLE = 'A lab session from ';

/** The default lab: an empty queue on the default connection and one worker polling it. */
export function emptyLab(laravel?: string): ScenarioInput {
  return {
    name: 'lab',
    title: LAB_TITLE,
    description:
      'An empty queue on connection redis (retry_after 90) and one worker polling it. Dispatch a job, start workers, kill them, move the clock.',
    laravel: (laravel ?? DEFAULT_PROFILE) as ScenarioInput['laravel'],
    connections: { redis: { queue: 'default', retry_after: 90, block_for: null } },
    workers: [{ name: 'worker-1' }],
    jobs: {},
    timeline: [{ at: 0, note: 'The lab opens: an empty queue, and worker-1 polling it.' }],
  };
}

/** Validates a lab's scenario as the loader validates a file; the first problem as one line. */
export function checkLab(input: ScenarioInput): { spec: ScenarioSpec } | { problem: string } {
  const checked = checkInput(input);
  if ('spec' in checked) return checked;
  const { path, detail } = checked.problem;
  return { problem: path.length === 0 ? detail : `${path.join('.')}: ${detail}` };
}

/**
 * A scenario the lab has changed says so: its title and description were the original's, which
 * describe a run that is no longer this one. A lab session (new or derived already) stays as it is.
 */
export function asLabSession(input: ScenarioInput): ScenarioInput {
  if (input.title === LAB_TITLE || input.title.startsWith(DERIVED_TITLE)) return input;
  return {
    ...input,
    title: `${DERIVED_TITLE}${input.name}`,
    description: `Made in lqsim lab from the scenario ${input.name}: its setup and the part of its timeline the lab kept, then the lab's actions.`,
  };
}

/**
 * The session as it stands at `now` (seconds after the start), with the future it had planned
 * dropped: entries after `now`, workers that start after it (and the entries naming them), the
 * instances of a repeating dispatch that fall after it, `until`, and a connection only that
 * future used (the first stays: it is the default). What is at `now` stays.
 */
export function forkAt(input: ScenarioInput, now: number): ScenarioInput {
  const next = structuredClone(input);
  delete next.until;
  const late = (t: number | undefined): boolean => secondsBetween(0, t ?? 0) > secondsBetween(0, now);
  const workers = (next.workers ?? []).filter((w) => !late(w.start));
  const names = new Set(workers.map((w) => w.name));
  next.workers = workers;
  // Each entry as its kind reads it: which workers and connections it names, how it is cut.
  type Read = { e: EntryInput; parsed: TimelineEntrySpec | null };
  const entries = (next.timeline as EntryInput[]).map((e): Read => ({ e, parsed: parsedEntry(e) }));
  const kept = entries.flatMap(({ e, parsed }): Read[] => {
    if (late(e.at)) return [];
    if (parsed === null) return [{ e, parsed }];
    const kind = kindOf(parsed);
    if (kind.names(parsed).workers.some((w) => !names.has(w))) return [];
    const cut = kind.cutAt?.(parsed, now) ?? null;
    return [{ e: cut === null ? e : { ...e, ...cut }, parsed }];
  });
  next.timeline = kept.map((k) => k.e) as ScenarioInput['timeline'];
  const [first, ...others] = Object.keys(next.connections ?? {});
  const usedBefore = connectionsNamed(input.workers, entries);
  const usedAfter = connectionsNamed(next.workers, kept);
  const dropped = others.filter((c) => usedBefore.has(c) && !usedAfter.has(c));
  if (first !== undefined && dropped.length > 0)
    next.connections = Object.fromEntries(Object.entries(next.connections!).filter(([c]) => !dropped.includes(c)));
  return next;
}

/** An entry as written, parsed as its kind reads it; null when it is not a valid entry (checkLab says why). */
function parsedEntry(e: EntryInput): TimelineEntrySpec | null {
  const result = timelineEntrySchema().safeParse(e);
  return result.success ? result.data : null;
}

/** The connections the workers and entries name (a worker's, and each entry's as its kind says). */
function connectionsNamed(
  workers: readonly WorkerInput[] | undefined,
  entries: readonly { parsed: TimelineEntrySpec | null }[],
): Set<string> {
  const named = new Set<string>();
  for (const w of workers ?? []) if (w.connection !== undefined) named.add(w.connection);
  const none: EntryNames = { workers: [], connections: [] };
  for (const { parsed } of entries)
    for (const c of (parsed === null ? none : kindOf(parsed).names(parsed)).connections) named.add(c);
  return named;
}

/** A worker name not taken yet: worker-1, worker-2, ... */
export function freeWorkerName(input: ScenarioInput): string {
  const taken = new Set((input.workers ?? []).map((w) => w.name));
  for (let i = 1; ; i++) if (!taken.has(`worker-${i}`)) return `worker-${i}`;
}

export function addEntry(input: ScenarioInput, entry: EntryInput): ScenarioInput {
  return { ...input, timeline: [...(input.timeline as EntryInput[]), entry] as ScenarioInput['timeline'] };
}

export function addWorker(input: ScenarioInput, worker: WorkerInput): ScenarioInput {
  return { ...input, workers: [...(input.workers ?? []), worker] };
}

/** An instant as scenarios write it (at most 3 decimals). */
export function at(seconds: number): number {
  return exactInstant(Math.max(0, seconds));
}
