// Someone else on the run's slots of a cluster it does not own (REDIS_CLUSTER_URL). The cluster's
// other traffic is the app's own business (db 0 is everyone's); a command of another client on a
// key in a slot the run holds (cluster-claim.ts) mixes the run's trace with it, and could take its
// jobs, so the run stops and names it.
import { CLUSTER_CLAIM_PREFIX } from '../redis/cluster-claim.ts';
import { connectionKey } from '../redis/connections.ts';
import type { MonitorLine } from '../redis/monitor-line.ts';
import { commandKeys, keySlot } from '../redis/slot.ts';
import type { ActorDirectory } from './attribute.ts';

export interface ClusterForeignUse {
  /** "node2 127.0.0.1:51234". */
  where: string;
  /** `RPUSH queues:{default}`, `rpush queues:{default} (in a script)`. */
  what: string;
}

export class ClusterWatch {
  /** The other client whose script the next [lua] lines belong to, if any. */
  private scriptOf: string | null = null;
  readonly seen: ClusterForeignUse[] = [];

  constructor(
    private readonly book: Pick<ActorDirectory, 'ownerOf' | 'isHandshake'>,
    /** The tool's own connections (connectionKey). */
    private readonly tool: ReadonlySet<string>,
    private readonly slots: ReadonlySet<number>,
  ) {}

  /** The use a line makes of the run's slots, when another client made it; null otherwise. */
  push(line: MonitorLine): ClusterForeignUse | null {
    if (line.client === 'lua') {
      if (this.scriptOf === null) return null;
      return this.use(this.scriptOf, line.args, ' (in a script)');
    }
    const key = connectionKey(line.client, line.node);
    const ours = this.tool.has(key) || this.book.ownerOf(key) !== undefined;
    this.scriptOf = ours ? null : `${line.node ?? ''} ${line.client}`.trim();
    return ours ? null : this.use(this.scriptOf!, line.args, '');
  }

  private use(where: string, args: readonly string[], suffix: string): ClusterForeignUse | null {
    // Another lqsim run asking for a slot's claim key (lqsim:claim:{tag}, in that slot) waits its
    // turn (cluster-claim.ts); it touches none of the run's keys.
    const key = commandKeys(args).find((k) => this.slots.has(keySlot(k)) && !k.startsWith(CLUSTER_CLAIM_PREFIX));
    if (key === undefined) return null;
    const use = { where, what: `${args[0]} ${key}${suffix}` };
    if (this.seen.length < 4) this.seen.push(use);
    return use;
  }
}

export class ClusterForeignUseError extends Error {
  constructor(readonly uses: readonly ClusterForeignUse[]) {
    const listed = uses
      .slice(0, 3)
      .map((u) => `${u.where}: ${u.what}`)
      .join('; ');
    super(
      `another client used a key in this run's slots on the cluster (${listed}${uses.length > 3 ? '; ...' : ''}): the trace would no longer be Laravel's alone, and that client could take the run's jobs, so the run stops; give the run queue names no one else uses`,
    );
    this.name = 'ClusterForeignUseError';
  }
}
