// Whether a scenario is another one with more of it after where a run of that one stands: the same
// setup, its timeline with entries appended, more job classes and connections beside the same
// ones. An open run (the lab's) takes such a scenario on as it goes (RunPlan.add) instead of being
// replayed from its start; anything else is refused here, with what differs, and replayed.
//
// Refused too, though the run could take them on, is what a replay would show in steps already
// run: a new worker is in every step's state before it starts ("not started yet"), and a note
// attaches to the first step at or after its time, which may be one already shown.
import type { ScenarioSpec } from './schema.ts';
import { scenarioQueues } from './queues.ts';

/** What `next` adds to `before`, or why it is not `before` with more of it. */
export type Extension = { connections: string[] } | { refused: string };

export function extensionOf(before: ScenarioSpec, next: ScenarioSpec, prefix: string): Extension {
  // Everything but what may grow (and the title and description, which say what the run is about).
  const setup = (s: ScenarioSpec): string =>
    JSON.stringify({ ...s, title: '', description: '', timeline: [], workers: [], jobs: {}, connections: {} });
  if (setup(before) !== setup(next)) return { refused: 'its setup changed' };
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  const prefixOf = <T>(a: readonly T[], b: readonly T[]): boolean =>
    a.length <= b.length && a.every((x, i) => same(x, b[i]));
  if (!prefixOf(before.timeline, next.timeline)) return { refused: 'an entry it had changed' };
  if (!same(before.workers, next.workers))
    return { refused: 'its workers changed (a new one shows in the steps before it)' };
  if (next.timeline.slice(before.timeline.length).some((e) => e.kind === 'note'))
    return { refused: 'a note may belong to a step already shown' };
  for (const [name, job] of Object.entries(before.jobs))
    if (!same(job, next.jobs[name])) return { refused: `the job ${name} changed` };
  for (const [name, c] of Object.entries(before.connections))
    if (!same(c, next.connections[name])) return { refused: `the connection ${name} changed` };
  // The queues a run snapshots and cleans up are known when it starts.
  if (!same(scenarioQueues(before, prefix), scenarioQueues(next, prefix))) return { refused: 'it names another queue' };
  return { connections: Object.keys(next.connections).filter((c) => !(c in before.connections)) };
}
