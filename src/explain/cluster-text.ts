// A cluster capture's configuration (explain/cluster-configuration.ts) as lines of the header: that
// it is a cluster and how it was read, the cluster clients that connected, and where each queue's
// keys live (slot and node), each citing its lines.
import type { ClusterConfiguration, ClusterKey, ClusterQueue } from './cluster-configuration.ts';

const cite = (lines: readonly number[]): string => `line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}`;

export function clusterLines(cluster: ClusterConfiguration | undefined): string[] {
  if (cluster === undefined) return [];
  const { nodes, clusterSlots } = cluster;
  const out = [
    cluster.merged === true
      ? `cluster: ${nodes.length} node${nodes.length === 1 ? '' : 's'} (${nodes.join(', ')}) in one merged capture, each line marked with its node (${cluster.processes === true ? "lqsim's ndjson" : '`@node2 ` before each MONITOR line'})${cluster.processes === true ? '' : ': each actor is one connection to one node (node/address)'}`
      : nodes.length > 1
        ? `cluster: ${nodes.length} nodes, a MONITOR capture each (${nodes.join(', ')}), merged by MONITOR's time (a node's own order kept; a script's lines with its EVAL): line numbers count the merged capture's lines, and each actor is one connection to one node (node/address)`
        : `cluster: one node's capture of a cluster client (CLUSTER SLOTS, ${cite(clusterSlots.lines)}): the client sends each command to its key's node, so what it sent to the other nodes is not in this capture (give one capture per node: lqsim explain node1.txt node2.txt node3.txt)`,
  ];
  if (clusterSlots.count > 0 && cluster.processes === true)
    out.push(
      `cluster clients: ${clusterSlots.count} CLUSTER SLOTS (${cite(clusterSlots.lines)}${clusterSlots.count > clusterSlots.lines.length ? ', ...' : ''}): each is a client made as a process connects; lqsim's ndjson names the process behind each command, so each actor is one process, whichever node it sent to`,
    );
  else if (clusterSlots.count > 0)
    out.push(
      `cluster clients: ${clusterSlots.count} CLUSTER SLOTS (${cite(clusterSlots.lines)}${clusterSlots.count > clusterSlots.lines.length ? ', ...' : ''}): each is a client made (phpredis' RedisCluster maps the slots on its seed as a process connects), which then opens a connection of its own to each node it sends to; MONITOR shows each as a node's address only, so a process's connections to several nodes cannot be tied together from MONITOR alone, and each is an actor of its own here`,
    );
  // Several files are taken as a cluster's nodes because they were given so; a capture with no
  // cluster client in it says nothing more of being one.
  if (cluster.merged !== true && nodes.length > 1 && clusterSlots.count === 0)
    out.push(
      "cluster clients: none (no CLUSTER SLOTS in any file, so no process connected while it was captured): the files are read as one cluster's nodes because they were given so; nothing in them contradicts it (no slot's keys in two files, no script across slots)",
    );
  for (const q of cluster.queues) out.push(queueLine(q));
  if (cluster.queues.length === 0 && clusterSlots.count > 0)
    out.push(
      'queues: no queue command after the cluster clients connected: what a capture shows when phpredis refuses every script of a queue whose keys span slots (a queue name without a hash tag: its push, migrate and pop) and nothing was dispatched with a delay (later() is a plain ZADD, which would show the queue); or the processes sent nothing yet',
    );
  return out;
}

/** "queue {default} (prefix laravel_database_): slot 5718 on node2 (line 4), all its keys". */
function queueLine(q: ClusterQueue): string {
  const name = `queue ${q.queue}${q.prefix === '' ? '' : ` (prefix ${q.prefix})`}`;
  const [ready] = q.keys;
  if (!q.spansSlots && ready !== undefined)
    return `${name}: its keys (queue, :delayed, :reserved, :notify) all in slot ${ready.slot} (hash tag ${hashTag(ready.key) ?? 'none'}), ${where(ready)}`;
  return `${name}: its keys span slots (no hash tag): ${q.keys.map((k) => `${k.key} slot ${k.slot} ${where(k)}`).join('; ')}`;
}

/** Where a slot's keys were seen: "on node2 (line 4)", or that the capture does not tell. */
function where(k: ClusterKey): string {
  if (k.nodes.length === 0) return 'on a node the capture does not show (no key of that slot in it)';
  return `on ${k.nodes.map((n) => `${n.node} (line ${n.line})`).join(' and ')}`;
}

/** The `{tag}` Redis hashes instead of the whole key, when it has a non-empty one. */
export function hashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open === -1) return undefined;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open, close + 1) : undefined;
}
