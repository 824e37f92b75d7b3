// A process that starts a local Redis Cluster as the CLI would (cleanup handlers first, then
// startLocalRedisCluster), says `ready <ports>` on stdout and waits to be stopped by a signal: the
// default command of scripts/interrupt-runs.mjs, and of test/integration/local-cluster.test.ts.
import { installCleanupHandlers } from '../../src/cleanup.ts';
import { startLocalRedisCluster } from '../../src/redis/local-cluster.ts';

installCleanupHandlers();
const cluster = await startLocalRedisCluster();
process.stdout.write(`ready ${cluster.nodes.map((n) => n.port).join(',')}\n`);
setInterval(() => undefined, 1 << 30);
