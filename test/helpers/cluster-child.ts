// A process that does what the CLI does on a cluster, cleanup handlers first, then waits to be
// stopped by a signal. By argv[2]:
//   (none)  starts a local Redis Cluster (startLocalRedisCluster) and says `ready <ports>`: the
//           default command of scripts/interrupt-runs.mjs;
//   claim   claims slots on an existing cluster as a run would (claimClusterKeys), creates its keys
//           and says `held`: argv[3] is JSON { nodes: ClusterNode[], keys: string[], token }.
import { installCleanupHandlers } from '../../src/cleanup.ts';
import { claimClusterKeys } from '../../src/redis/cluster-claim.ts';
import type { ClusterNode } from '../../src/redis/cluster-nodes.ts';
import { nodeOfSlot } from '../../src/redis/cluster-nodes.ts';
import { newClient } from '../../src/redis/connections.ts';
import { startLocalRedisCluster } from '../../src/redis/local-cluster.ts';
import { keySlot } from '../../src/redis/slot.ts';

installCleanupHandlers();
if (process.argv[2] === 'claim') {
  const o = JSON.parse(process.argv[3]!) as { nodes: ClusterNode[]; keys: string[]; token: string };
  const clients = new Map(o.nodes.map((n) => [n.label, newClient(n.url)]));
  for (const c of clients.values()) await c.connect();
  const senderOf = (n: ClusterNode) => clients.get(n.label)!;
  await claimClusterKeys(o.nodes, senderOf, o.token, { keys: o.keys });
  for (const key of o.keys) await senderOf(nodeOfSlot(o.nodes, keySlot(key))).sendCommand(['SET', key, 'x']);
  process.stdout.write('held\n');
} else {
  const cluster = await startLocalRedisCluster();
  process.stdout.write(`ready ${cluster.nodes.map((n) => n.port).join(',')}\n`);
}
setInterval(() => undefined, 1 << 30);
