// What a capture says about a Redis Cluster (explain/cluster-capture.ts merges one file per node):
// the nodes, the cluster clients that connected (phpredis' RedisCluster sends CLUSTER SLOTS to its
// seed as it is made: PhpRedisConnector::createRedisClusterInstance), and for each queue the slot
// of each of its keys and the nodes they were seen on. Read in the configuration's pass. Pure.
import { commandKeys, keySlot } from '../redis/slot.ts';
import { allKeys, queueKeys } from '../sim/keys.ts';
import type { CapturedLine } from './capture.ts';
import { NDJSON_CLIENT } from './capture.ts';
import type { Operation, Recognised } from './recognise.ts';

/** One file's node (a capture from one node has no name for it). */
export const THE_NODE = 'the node captured';

/** How many lines a fact cites. */
const CITED = 5;

/** A queue's key in a cluster: its slot, and the nodes its slot's keys were seen on (with a first line). */
export interface ClusterKey {
  key: string;
  slot: number;
  nodes: Array<{ node: string; line: number }>;
}

/** A queue (with its prefix) as a cluster capture shows it. */
export interface ClusterQueue {
  prefix: string;
  queue: string;
  /** queue, :delayed, :reserved, :notify, with the prefix. */
  keys: ClusterKey[];
  /** Whether its keys hash to more than one slot (no hash tag): Laravel's scripts on them are refused. */
  spansSlots: boolean;
  /** Each queue operation the capture holds of it, with its first lines. */
  operations: Array<{ op: Operation; lines: number[]; count: number }>;
  /** The first lines of Laravel's scripts on it (EVAL): none in a cluster's capture when its keys span slots. */
  scriptLines: number[];
}

export interface ClusterConfiguration {
  /** The node files' names, in the order given (or the nodes a merged capture marks); empty for one node's capture. */
  nodes: string[];
  /** One file already merged, each line marked with its node (`@node2 `, as the engine merges them). */
  merged?: true;
  /** lqsim's own ndjson: each client is a process (every node's connections of it), not a node's connection. */
  processes?: true;
  /** CLUSTER SLOTS sent: one per cluster client made (a process connecting), its first lines. */
  clusterSlots: { count: number; lines: number[] };
  queues: ClusterQueue[];
}

/** Files given as one cluster's nodes that cannot be: why, from their lines. */
export class NotOneClusterError extends Error {
  constructor(
    readonly nodes: readonly string[],
    readonly why: readonly string[],
  ) {
    super(
      `${nodes.join(', ')} are not one Redis Cluster's nodes: ${why.join('; ')}. Several files are read as one capture per node of a cluster; a capture of one server is one file (join its parts in time order with cat)`,
    );
    this.name = 'NotOneClusterError';
  }
}

/** CLUSTER SLOTS: what a cluster client sends its seed node as it is made (explain/cluster-configuration.ts). */
export function isClusterSlots(args: readonly string[]): boolean {
  // Its name's length first: no upper-cased copy of every other command's name (read at every line).
  const [name, sub] = args;
  return args.length === 2 && name!.length === 7 && name!.toUpperCase() === 'CLUSTER' && sub!.toUpperCase() === 'SLOTS';
}

/** The cluster's facts, line by line. */
export class ClusterReader {
  private readonly clusterSlots = { count: 0, lines: [] as number[] };
  /** slot -> node -> the first line a key of that slot was seen on there. */
  private readonly slotNodes = new Map<number, Map<string, number>>();
  private readonly queues = new Map<
    string,
    { prefix: string; queue: string; ops: Map<Operation, { lines: number[]; count: number }>; scriptLines: number[] }
  >();

  /** The nodes named by the lines themselves (a merged capture's `@node2 ` marks), in order of first sight. */
  private readonly marked = new Set<string>();
  private processes = false;

  constructor(private readonly nodes: readonly string[]) {}

  add({ lineNo, line, node }: CapturedLine, r: Recognised | undefined): void {
    if (line.node !== undefined && this.marked.size < 1024) this.marked.add(line.node);
    if (line.client.startsWith(NDJSON_CLIENT)) this.processes = true;
    if (line.client === 'lua') return; // its EVAL names its keys
    if (r === undefined) {
      if (isClusterSlots(line.args) && this.clusterSlots.count++ < CITED) this.clusterSlots.lines.push(lineNo);
      return;
    }
    if (r.key === undefined || r.op === 'select' || r.op === 'cache') return;
    // Where a queue's keys live: the nodes its commands' slots were seen on.
    for (const key of commandKeys(line.args)) {
      const slot = keySlot(key);
      let byNode = this.slotNodes.get(slot);
      if (byNode === undefined) this.slotNodes.set(slot, (byNode = new Map()));
      if (!byNode.has(node ?? THE_NODE)) byNode.set(node ?? THE_NODE, lineNo);
    }
    const id = `${r.key.prefix}\n${r.key.queue}`;
    let q = this.queues.get(id);
    if (q === undefined)
      this.queues.set(id, (q = { prefix: r.key.prefix, queue: r.key.queue, ops: new Map(), scriptLines: [] }));
    if (r.script !== undefined && q.scriptLines.length < CITED) q.scriptLines.push(lineNo);
    let op = q.ops.get(r.op);
    if (op === undefined) q.ops.set(r.op, (op = { lines: [], count: 0 }));
    if (op.count++ < CITED) op.lines.push(lineNo);
  }

  /**
   * Several files given as a cluster's nodes, whose lines say they are not: a slot's keys on two of
   * them (a slot lives on one node), or Laravel's script over keys in several slots run (a cluster
   * refuses it: phpredis before sending, or the node with CROSSSLOT, and MONITOR shows neither).
   */
  private refuseIfNotOneCluster(): void {
    const why: string[] = [];
    for (const [slot, byNode] of this.slotNodes) {
      if (byNode.size < 2) continue;
      const seen = [...byNode].slice(0, 2).map(([node, line]) => `${node} (line ${line})`);
      why.push(`slot ${slot}'s keys show in ${seen.join(' and ')}, and a slot lives on one node`);
      break;
    }
    for (const q of this.queues.values()) {
      const slots = new Set(allKeys(queueKeys(q.queue, q.prefix)).map(keySlot));
      if (slots.size > 1 && q.scriptLines.length > 0) {
        why.push(
          `Laravel's scripts over queue ${q.queue}'s keys, in ${slots.size} slots, ran (line ${q.scriptLines[0]}), which a cluster refuses`,
        );
        break;
      }
    }
    if (why.length > 0) throw new NotOneClusterError(this.nodes, why);
  }

  /**
   * The facts, or undefined when the capture is not a cluster's (one file, no CLUSTER SLOTS).
   * Throws NotOneClusterError when several files cannot be one cluster's nodes.
   */
  result(): ClusterConfiguration | undefined {
    const merged = this.nodes.length === 0 && this.marked.size > 0;
    const nodes = merged ? [...this.marked] : [...this.nodes];
    if (nodes.length < 2 && !merged && this.clusterSlots.count === 0) return undefined;
    if (!merged && !this.processes && nodes.length >= 2) this.refuseIfNotOneCluster();
    return {
      nodes,
      ...(merged ? { merged: true as const } : {}),
      ...(this.processes ? { processes: true as const } : {}),
      clusterSlots: { count: this.clusterSlots.count, lines: [...this.clusterSlots.lines] },
      queues: [...this.queues.values()].map((q) => {
        const keys = allKeys(queueKeys(q.queue, q.prefix)).map((key) => {
          const slot = keySlot(key);
          const nodes = [...(this.slotNodes.get(slot) ?? new Map<string, number>())].map(([node, line]) => ({
            node,
            line,
          }));
          return { key, slot, nodes };
        });
        return {
          prefix: q.prefix,
          queue: q.queue,
          keys,
          spansSlots: new Set(keys.map((k) => k.slot)).size > 1,
          operations: [...q.ops].map(([op, { lines, count }]) => ({ op, lines: [...lines], count })),
          scriptLines: q.scriptLines,
        };
      }),
    };
  }
}
