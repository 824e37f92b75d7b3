// Which actor sent each MONITOR line of a real-Laravel run: each PHP process names its connections
// (CLIENT SETNAME, the run's own name, dropped from the trace), and the coordinator finds them in
// CLIENT LIST while the process is alive. On a Redis Cluster a process has one connection per node
// (harness.php names each master's), found in each node's CLIENT LIST and known by node and
// address (connectionKey); and one it cannot name: the seed connection that phpredis' RedisCluster
// constructor opens, sends CLUSTER SLOTS on and closes (conformance/laravel/captures-cluster/).
import type { Client, ConnectionOwner } from '../redis/connections.ts';
import { connectionKey, isOwnSetname, ownerOfConnectionName, parseClientList } from '../redis/connections.ts';
import { isMonitorOk, parseMonitorLine } from '../redis/monitor-line.ts';
import type { ActorDirectory } from '../scenarios/attribute.ts';

/** The tool's connection to one server: the single one (no node), or a cluster node's. */
export interface NodeObserver {
  node?: string;
  observer: Client;
}

/** One of a process's connections: its CLIENT ID, on the server its observer talks to. */
export interface KnownConnection {
  id: string;
  observer: Client;
}

export class AddressBook implements ActorDirectory {
  private readonly byKey = new Map<string, ConnectionOwner>();
  /** Connection name → its connections found so far, in the order found. */
  private readonly byName = new Map<string, Array<KnownConnection & { key: string }>>();
  readonly unknown = new Set<string>();

  constructor(
    private readonly observers: readonly NodeObserver[],
    readonly runId: string,
    /** On a cluster: the seed node's label (node1), where each process's CLUSTER SLOTS line comes. */
    private readonly seed?: string,
  ) {}

  /**
   * Finds the process's connections in CLIENT LIST (every node's, on a cluster): each new one is
   * learned (a process opens its cache connection when it first uses the cache, and on a cluster
   * its node connections when it first uses Redis; one not yet connected is found later).
   */
  async learn(name: string): Promise<void> {
    const owner = ownerOfConnectionName(name, this.runId);
    if (owner === undefined) throw new Error(`${name} is not a connection name of this run`);
    const known = this.byName.get(name) ?? [];
    for (const { node, observer } of this.observers) {
      for (const entry of parseClientList(String(await observer.sendCommand(['CLIENT', 'LIST'])))) {
        if (entry.name !== name || !entry.addr || !entry.id) continue;
        const key = connectionKey(entry.addr, node);
        if (known.some((k) => k.key === key && k.id === entry.id)) continue;
        this.byKey.set(key, owner);
        known.push({ id: entry.id, observer, key });
      }
    }
    this.byName.set(name, known);
  }

  /** The process's connections found so far (a BLPOP is on one of them). */
  connectionsOf(name: string): readonly KnownConnection[] {
    return this.byName.get(name) ?? [];
  }

  /**
   * Gives each seed connection among a step's lines to its process: on the seed node, a CLUSTER
   * SLOTS from a connection nobody named is the constructor's, and the next line there that names
   * a connection (harness.php names each master's right after the constructor, one actor running at
   * a time) says whose. Lines of one step: the constructor and the naming run before the actor yields.
   */
  learnSeedConnections(lines: readonly string[]): void {
    if (this.seed === undefined) return;
    let pending: string[] = [];
    for (const raw of lines) {
      if (isMonitorOk(raw)) continue;
      const line = parseMonitorLine(raw);
      if (line.node !== this.seed || line.client === 'lua') continue;
      const key = connectionKey(line.client, line.node);
      const [cmd, sub] = line.args.map((a) => a.toUpperCase());
      if (cmd === 'CLUSTER' && sub === 'SLOTS' && !this.byKey.has(key)) pending.push(key);
      else if (pending.length > 0 && isOwnSetname(line.args, this.runId)) {
        const owner = ownerOfConnectionName(line.args[2]!, this.runId)!;
        for (const k of pending) this.byKey.set(k, owner);
        pending = [];
      }
    }
  }

  ownerOf(key: string): ConnectionOwner | undefined {
    return this.byKey.get(key);
  }

  isHandshake(args: readonly string[]): boolean {
    return isOwnSetname(args, this.runId);
  }
}
