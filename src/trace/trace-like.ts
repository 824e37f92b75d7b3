// The input of the normaliser: what both the tool's Timeline and a raw MONITOR capture of real
// Laravel can be turned into. Plain data; actors are already names (dispatcher, worker-1).
import type { DatabaseUse, Step, Timeline } from '../scenarios/timeline.ts';

export interface TraceLikeCommand {
  source: 'client' | 'lua';
  actor: string;
  db: number;
  args: string[];
  /** For EVAL: the script's name, when the producer knows it (pop, release, ...). */
  script?: string;
  /** On a Redis Cluster: the node that ran it (node1.., by lowest slot) and its keys' slot. */
  node?: string;
  slot?: number;
}

export interface TraceLikeStep {
  actor: string;
  /** Shown in diff headers and golden files; never compared. */
  title?: string;
  /** The step's own index (default: its position). */
  index?: number;
  /** Unix seconds of the step (display only). */
  t?: number;
  commands: TraceLikeCommand[];
}

export interface TraceLike {
  /** Unix seconds that become T+0. */
  start: number;
  /** The connection's key prefix (laravel_database_): stripped from whole-key arguments. */
  prefix?: string;
  /** Shown in golden headers (scenario, profile, ...); never compared. */
  meta?: Record<string, string>;
  /** The db a run claimed for its scenario's (Timeline.database): compared as the scenario's. */
  database?: DatabaseUse;
  steps: TraceLikeStep[];
}

/** The key prefix of a run, read from its first snapshot's queue keys (queues:<name> after it). */
function timelinePrefix(t: Timeline): string {
  for (const step of t.steps) {
    for (const q of step.state.queues) {
      const suffix = `queues:${q.name}`;
      if (q.keys.ready.endsWith(suffix)) return q.keys.ready.slice(0, -suffix.length);
    }
  }
  return '';
}

export function fromTimeline(t: Timeline): TraceLike {
  return {
    start: t.start,
    prefix: timelinePrefix(t),
    meta: { scenario: t.scenario.name, profile: t.profile },
    ...(t.database !== undefined ? { database: t.database } : {}),
    steps: fromSteps(t.steps),
  };
}

/** Recorded steps (a Timeline's, or real Laravel's from the conformance harness) as TraceLike steps. */
export function fromSteps(
  steps: ReadonlyArray<Pick<Step, 'actor' | 'title' | 'index' | 't' | 'commands'>>,
): TraceLikeStep[] {
  return steps.map((s) => ({
    actor: s.actor,
    title: s.title,
    index: s.index,
    t: s.t,
    commands: s.commands.map((c) => ({
      source: c.source,
      actor: c.actor,
      db: c.db,
      args: c.args,
      ...(c.script !== undefined ? { script: c.script } : {}),
      ...(c.node !== undefined ? { node: c.node } : {}),
      ...(c.slot !== undefined ? { slot: c.slot } : {}),
    })),
  }));
}

/** A MONITOR line as parsed (src/redis/monitor-line.ts's MonitorLine): what a capture's trace reads of it. */
export interface CapturedLine {
  /** "sec.usec" as MONITOR printed it. */
  time: string;
  db: number;
  /** The client address, or "lua" for a command a script ran. */
  client: string;
  args: string[];
}

/**
 * Stable actor names for the client addresses of a raw capture: addresses in `known` keep their
 * names, the others become client-1, client-2, ... in first-seen order. `lua` lines are skipped
 * (they belong to the EVAL before them).
 */
export function actorsFromAddresses(
  lines: ReadonlyArray<Pick<CapturedLine, 'client'>>,
  known: ReadonlyMap<string, string> = new Map(),
): Map<string, string> {
  const names = new Map(known);
  let n = 0;
  for (const { client } of lines) {
    if (client === 'lua' || names.has(client)) continue;
    let name: string;
    do name = `client-${++n}`;
    while ([...names.values()].includes(name));
    names.set(client, name);
  }
  return names;
}

/**
 * A raw MONITOR capture as a TraceLike: a new step whenever the sending actor changes (a `lua`
 * line belongs to the client before it). T+0 is the first line's whole second unless `start` is
 * given (Laravel passes its own clock as arguments, so pass the app's time when it is known).
 */
export function fromMonitorLines(
  lines: readonly CapturedLine[],
  opts: { start?: number; actors?: ReadonlyMap<string, string>; prefix?: string } = {},
): TraceLike {
  const actors = actorsFromAddresses(lines, opts.actors);
  const steps: TraceLikeStep[] = [];
  let current: TraceLikeStep | undefined;
  let lastActor = 'unknown';
  for (const line of lines) {
    const source = line.client === 'lua' ? 'lua' : 'client';
    const actor = source === 'lua' ? lastActor : actors.get(line.client)!;
    lastActor = actor;
    if (!current || (source === 'client' && current.actor !== actor)) {
      current = { actor, index: steps.length, commands: [] };
      steps.push(current);
    }
    current.commands.push({ source, actor, db: line.db, args: line.args });
  }
  const first = lines[0] ? Math.floor(Number(lines[0].time)) : 0;
  return { start: opts.start ?? first, ...(opts.prefix !== undefined ? { prefix: opts.prefix } : {}), steps };
}

/**
 * The key prefix of a trace that does not say (an ndjson file, a capture): what comes before
 * `queues:` in the first argument that is a queue key, e.g. laravel_database_ ('' for none).
 */
export function inferPrefix(steps: readonly TraceLikeStep[]): string {
  for (const s of steps) {
    for (const c of s.commands) {
      for (const arg of c.args.slice(1)) {
        // A hash-tagged name (queues:{default}, as a Redis Cluster needs) is a queue key too.
        const m = /^([A-Za-z0-9_.:{}-]*?)queues:[^\s"]+$/.exec(arg);
        if (m) return m[1]!;
      }
    }
  }
  return '';
}
