// A capture's commands grouped the way Laravel sends them (explain/timeline.ts makes each group a
// step): a worker's poll is its migrates and its pop, with what the scripts ran inside; a dispatch
// is its push; a run of other traffic is one group, whoever sent it. And its connections named as
// actors (dispatcher-N, worker-N, by what they send).
import { isClusterSlots } from './cluster-configuration.ts';
import type { StepKind } from '../sim/state.ts';
import type { CapturedLine } from './capture.ts';
import { NDJSON_CLIENT } from './capture.ts';
import type { CaptureConfiguration, Role } from './configuration.ts';
import type { Operation, Recognised } from './recognise.ts';

export interface GroupLine {
  entry: CapturedLine;
  r: Recognised | undefined;
}

/** The commands of one step: one connection's call, a script's own lines with it, or a run of other traffic. */
export interface Group {
  client: string;
  /** `cache`: one command of the cache store's (explain/cache-store.ts). */
  kind: StepKind | 'other' | 'cache';
  lines: GroupLine[];
}

/** Operations that begin a step of their connection; the rest join the step before. */
const STARTS: ReadonlySet<Operation> = new Set([
  'push',
  'later',
  'migrate delayed',
  'delete',
  'release',
  'size',
  'clear',
]);

const KIND: Partial<Record<Operation, StepKind>> = {
  push: 'dispatch',
  later: 'dispatch',
  'migrate delayed': 'pop',
  'migrate reserved': 'pop',
  pop: 'pop',
  block: 'pop',
  reserve: 'pop',
  delete: 'delete',
  release: 'release',
  size: 'size',
  clear: 'size',
};

/** Commands in, groups out (to `onGroup`) as soon as the next group begins. */
export class CommandGrouper {
  private current: Group | undefined;
  private selectPending: GroupLine[] = [];

  constructor(private readonly onGroup: (g: Group) => void) {}

  /** The capture's next command, recognised. */
  add(entry: CapturedLine, r: Recognised | undefined): void {
    // A SELECT waits for its connection's next call only while no other line comes between:
    // steps print in the capture's order.
    const held = this.selectPending[0];
    if (held !== undefined && held.entry.line.client !== entry.line.client) this.releaseSelects();
    if (entry.line.client === 'lua') {
      // Redis runs a script whole: its lines come right after its EVAL. Without one (a capture
      // that begins mid-script), they are a step of their own.
      if (this.current === undefined) this.current = { client: 'lua', kind: 'other', lines: [] };
      this.current.lines.push({ entry, r });
      return;
    }
    const client = entry.line.client;
    if (r?.op === 'select') {
      // phpredis selects the db as it connects: part of the call that follows (or of a run of other traffic).
      if (this.current !== undefined && this.current.client !== client && this.current.kind !== 'other') this.close();
      this.selectPending.push({ entry, r });
      return;
    }
    if (r?.op === 'cache') {
      // Each cache command is a step of its own (its SELECT with it): its title says what it did.
      this.close();
      this.current = { client, kind: 'cache', lines: [...this.selectPending, { entry, r }] };
      this.selectPending = [];
      return;
    }
    const kind: Group['kind'] = r === undefined ? 'other' : (KIND[r.op] ?? 'other');
    const current = this.current;
    // Other traffic is summarised: a run of it is one step, whichever clients sent it. A cluster
    // client's CLUSTER SLOTS is a process connecting: a step of its own, never joined to another's.
    const seed = isClusterSlots(entry.line.args);
    const joins =
      current !== undefined &&
      (kind === 'other'
        ? current.kind === 'other' && !seed && !current.lines.some((l) => isClusterSlots(l.entry.line.args))
        : this.selectPending.length === 0 &&
          current.client === client &&
          current.kind !== 'other' &&
          current.kind !== 'cache' &&
          !STARTS.has(r!.op));
    if (!joins) {
      this.close();
      this.current = { client, kind, lines: [] };
    }
    // Any SELECT held is this connection's (another's was let go above).
    this.current!.lines.push(...this.selectPending, { entry, r });
    this.selectPending = [];
  }

  /** The last group out; the SELECTs no call followed go out as other traffic. */
  finish(): void {
    if (this.selectPending.length > 0) this.releaseSelects();
    this.close();
  }

  /** The SELECTs held for their connection's next call go out as other traffic: another line came first. */
  private releaseSelects(): void {
    const held = this.selectPending;
    this.selectPending = [];
    if (this.current === undefined || this.current.kind !== 'other' || this.current.client === 'lua') {
      this.close();
      this.current = { client: held[0]!.entry.line.client, kind: 'other', lines: [] };
    }
    this.current.lines.push(...held);
  }

  private close(): void {
    const g = this.current;
    this.current = undefined;
    if (g !== undefined && g.lines.length > 0) this.onGroup(g);
  }
}

/** dispatcher-1, worker-1..., in order of first appearance; other traffic is other-N. */
export function actorNames(config: CaptureConfiguration): Map<string, string> {
  const counts = new Map<string, number>();
  const names = new Map<string, string>();
  const word: Record<Role, string> = { dispatcher: 'dispatcher', worker: 'worker', both: 'app', other: 'other' };
  for (const c of config.connections) {
    // lqsim's own ndjson names its actors: worker-1, and its restarted process "worker-1 (process 2)".
    if (c.client.startsWith(NDJSON_CLIENT)) {
      const [actor, process] = [
        c.client.slice(NDJSON_CLIENT.length, c.client.lastIndexOf(':')),
        c.client.slice(c.client.lastIndexOf(':') + 1),
      ];
      names.set(c.client, process === '1' ? actor : `${actor} (process ${process})`);
      continue;
    }
    // A worker's cache connection is named after it, once the workers are named (below).
    if (c.cacheOf !== undefined) continue;
    const cache = c.role === 'other' && (c.cacheStore ?? 0) > 0;
    // A cluster client's seed connection (CLUSTER SLOTS) is named so: a process connecting.
    const role = cache ? 'cache' : c.role === 'other' && c.clusterSeed === true ? 'seed' : word[c.role];
    const n = (counts.get(role) ?? 0) + 1;
    counts.set(role, n);
    // A cluster's connection is one node's: its name says which (a process's several are not told apart).
    names.set(c.client, `${role}-${n}${c.node === undefined ? '' : `@${c.node}`}`);
  }
  for (const c of config.connections)
    if (c.cacheOf !== undefined) names.set(c.client, `${names.get(c.cacheOf.client) ?? c.cacheOf.client}:cache`);
  return names;
}
