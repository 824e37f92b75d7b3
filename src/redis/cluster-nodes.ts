// A Redis Cluster's masters as the tool names them: node1, node2, ... in the order of their lowest
// slot (so a trace names the same node the same way on every run, whatever its port), each with the
// slot ranges CLUSTER SLOTS gives it.
import { SLOT_COUNT } from './slot.ts';

export interface ClusterNode {
  /** "node1", "node2", ...: by lowest slot. */
  label: string;
  host: string;
  port: number;
  /** redis://host:port, with the cluster's credentials if it has any. */
  url: string;
  /** Inclusive [first, last] slot ranges, ascending. */
  slots: Array<[number, number]>;
}

/** A cluster the run replays against: started by the tool or named by REDIS_CLUSTER_URL. */
export interface RedisClusterServer {
  kind: 'external' | 'local-binary';
  /** Masters, node1 first. */
  nodes: ClusterNode[];
  /** The node Laravel's config names as its seed (clusters.default[0]): node1 for the tool's own cluster. */
  seed: ClusterNode;
  version: string;
  /** True when the tool started it and stop() ends every node. */
  owned: boolean;
  describe(): string;
  stop(): Promise<void>;
}

/** One entry of a CLUSTER SLOTS reply: [first, last, [host, port, id, ...], ...replicas]. */
type SlotsEntry = [number, number, [string, number, ...unknown[]], ...unknown[]];

/**
 * The masters of a CLUSTER SLOTS reply, labelled by lowest slot. `url` builds a node's URL from
 * its host and port (credentials are the caller's). Throws when the reply leaves a slot uncovered.
 */
export function nodesFromClusterSlots(reply: unknown, url: (host: string, port: number) => string): ClusterNode[] {
  if (!Array.isArray(reply)) throw new Error('CLUSTER SLOTS did not answer with a list');
  const byAddr = new Map<string, { host: string; port: number; slots: Array<[number, number]> }>();
  let covered = 0;
  for (const raw of reply as SlotsEntry[]) {
    const [first, last, master] = raw;
    const host = String(master[0]);
    const port = Number(master[1]);
    const key = `${host}:${port}`;
    let node = byAddr.get(key);
    if (node === undefined) byAddr.set(key, (node = { host, port, slots: [] }));
    node.slots.push([Number(first), Number(last)]);
    covered += Number(last) - Number(first) + 1;
  }
  if (covered !== SLOT_COUNT) throw new Error(`CLUSTER SLOTS covers ${covered} of ${SLOT_COUNT} slots`);
  return [...byAddr.values()]
    .map((n) => ({ ...n, slots: n.slots.sort((a, b) => a[0] - b[0]) }))
    .sort((a, b) => a.slots[0]![0] - b.slots[0]![0])
    .map((n, i) => ({ label: `node${i + 1}`, host: n.host, port: n.port, url: url(n.host, n.port), slots: n.slots }));
}

/** The node that serves a slot. */
export function nodeOfSlot(nodes: readonly ClusterNode[], slot: number): ClusterNode {
  const node = nodes.find((n) => n.slots.some(([a, b]) => slot >= a && slot <= b));
  if (node === undefined) throw new Error(`no node serves slot ${slot}`);
  return node;
}
