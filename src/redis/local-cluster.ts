// Starts a throwaway Redis Cluster of three masters from the local redis-server binary, each node
// through startLocalRedisServer (so each has its own temp dir, its exit handlers and its watchdog,
// which kill it and remove the dir however the tool dies), formed with the CLUSTER commands.
//
// Time: the nodes start in parallel and are joined in ~0.1 s, but no master turns
// cluster_state:ok before 2 s have passed since its first cluster cron tick (Redis'
// CLUSTER_WRITABLE_DELAY in clusterUpdateState, a #define, not a setting), so a cluster is ready
// ~2.1 s after its nodes start, whatever is done here.
import { join } from 'node:path';
import { shortLivedClient } from './connections.ts';
import { clusterTrouble, clusterView, type ClusterView } from './cluster-state.ts';
import { nodesFromClusterSlots, type RedisClusterServer } from './cluster-nodes.ts';
import { LocalRedisError } from './errors.ts';
import { freePort, startLocalRedisServer, type LocalRedisServer } from './local-server.ts';

export interface LocalClusterOptions {
  env?: NodeJS.ProcessEnv;
  /** Per node, as startLocalRedisServer's. */
  readyTimeoutMs?: number;
  /** From the nodes being up to every node saying cluster_state:ok. */
  formTimeoutMs?: number;
}

/** The masters' slots, as `redis-cli --cluster create` splits them for three. */
export const MASTER_SLOTS: ReadonlyArray<readonly [number, number]> = [
  [0, 5460],
  [5461, 10922],
  [10923, 16383],
];
/**
 * How long a node may be silent before the others judge it failing (Redis' default: 15 s). Two of
 * three masters agreeing turn the whole cluster to fail (CLUSTERDOWN) mid-run, and a loaded machine
 * (CI on two cores) can stall a node for seconds; there is no replica to fail over to, and a node
 * that really died ends the run through its connections anyway. So: a minute.
 */
const NODE_TIMEOUT_MS = 60_000;
const POLL_MS = 20;

/** A port of its own for the cluster bus of a node on `port`, asked of the kernel. */
export async function busPort(port: number): Promise<number> {
  let bus = await freePort();
  while (bus === port) bus = await freePort();
  return bus;
}

export async function startLocalRedisCluster(opts: LocalClusterOptions = {}): Promise<RedisClusterServer> {
  const env = opts.env ?? process.env;
  // The bus port (client port + 10000 by default) can be past 65535 for a kernel-chosen port, so
  // each node gets one of its own, asked of the kernel on each attempt; a port taken meanwhile
  // makes the node exit with "Address already in use" and startLocalRedisServer try again.
  const busOf = new Map<number, number>();
  const extraArgs = async ({ port, dir }: { port: number; dir: string }): Promise<string[]> => {
    const bus = await busPort(port);
    busOf.set(port, bus);
    return [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, 'nodes.conf'),
      '--cluster-port',
      String(bus),
      '--cluster-node-timeout',
      String(NODE_TIMEOUT_MS),
    ];
  };
  const started = await Promise.allSettled(
    MASTER_SLOTS.map(() => startLocalRedisServer({ env, readyTimeoutMs: opts.readyTimeoutMs, extraArgs })),
  );
  const servers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  // Each node is registered for cleanup on its own (startLocalRedisServer); stopping the cluster
  // stops them all, once.
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= Promise.all(servers.map((s) => s.stop())).then(() => undefined));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed !== undefined) {
    await stop();
    throw failed.reason;
  }
  try {
    const { slots, version } = await form(servers, busOf, opts.formTimeoutMs ?? 10_000);
    const nodes = nodesFromClusterSlots(slots, (host, port) => `redis://${host}:${port}`);
    const describe = (): string =>
      `local Redis Cluster ${version}, ${nodes.length} masters on 127.0.0.1:${nodes.map((n) => n.port).join(',')}`;
    return { kind: 'local-binary', nodes, seed: nodes[0]!, version, owned: true, describe, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Gives each node its slots, has every pair meet, and waits until every node sees the whole cluster. */
async function form(
  servers: readonly LocalRedisServer[],
  busOf: ReadonlyMap<number, number>,
  timeoutMs: number,
): Promise<{ slots: unknown; version: string }> {
  const clients = servers.map((s) => {
    return shortLivedClient(`redis://${s.host}:${s.port}`, 3000);
  });
  try {
    await Promise.all(clients.map((c) => c.connect()));
    await Promise.all(
      clients.map((c, i) =>
        c.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', String(MASTER_SLOTS[i]![0]), String(MASTER_SLOTS[i]![1])]),
      ),
    );
    // Every pair meets directly: nobody waits for gossip to introduce node2 to node3.
    const pairs = servers.flatMap((_, a) => servers.map((_s, b) => [a, b] as const).filter(([x, y]) => x < y));
    await Promise.all(
      pairs.map(([a, b]) =>
        clients[a]!.sendCommand([
          'CLUSTER',
          'MEET',
          servers[b]!.host,
          String(servers[b]!.port),
          String(busOf.get(servers[b]!.port)),
        ]),
      ),
    );
    const until = Date.now() + timeoutMs;
    for (;;) {
      const views = await Promise.all(clients.map((c) => clusterView(c)));
      if (views.every((v) => whole(v, servers.length))) {
        const info = String(await clients[0]!.sendCommand(['INFO', 'server']));
        return { slots: views[0]!.slots, version: /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown' };
      }
      if (Date.now() > until) {
        const why = views
          .map(
            (v, i) =>
              `port ${servers[i]!.port}: ${clusterTrouble(v) || `${v.masters} of ${servers.length} masters known`}`,
          )
          .join('; ');
        throw new LocalRedisError(
          'cluster-not-formed',
          `the local Redis Cluster did not form within ${timeoutMs} ms (${why})`,
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    for (const c of clients) c.destroy();
  }
}

function whole(v: ClusterView, masters: number): boolean {
  return v.state === 'ok' && v.uncovered.length === 0 && v.masters === masters;
}
