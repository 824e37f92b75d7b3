// acquireRedisCluster against real redis-servers: the tool's own cluster, someone else's named by
// REDIS_CLUSTER_URL (here a cluster started for the test, which acquireRedisCluster must never
// stop), and the settings and servers it refuses, each in one line naming the variable.
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { acquireRedisCluster } from '../../src/redis/cluster-server.ts';
import type { RedisClusterServer } from '../../src/redis/cluster-nodes.ts';
import {
  RedisConnectError,
  RedisRefusedError,
  RedisSettingError,
  RedisUnavailableError,
} from '../../src/redis/errors.ts';
import { busPort, startLocalRedisCluster } from '../../src/redis/local-cluster.ts';
import { freePort, startLocalRedisServer, type LocalRedisServer } from '../../src/redis/local-server.ts';

/** The environment without anything that would choose a server for us. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['REDIS_URL', 'REDIS_CLUSTER_URL', 'LQSIM_REDIS', 'REDIS_SERVER_BIN']) delete env[k];
  return { ...env, ...extra };
}

async function send(url: string, ...args: string[]): Promise<unknown> {
  const c = createClient({ url, RESP: 2, disableClientInfo: true, socket: { reconnectStrategy: false } });
  c.on('error', () => {});
  await c.connect();
  try {
    return await c.sendCommand(args);
  } finally {
    c.destroy();
  }
}

function failure(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e as Error,
  );
}

let theirs: RedisClusterServer;
const singles: LocalRedisServer[] = [];
const acquired: RedisClusterServer[] = [];
beforeAll(async () => {
  theirs = await startLocalRedisCluster();
});
afterEach(async () => {
  await Promise.all(acquired.splice(0).map((c) => c.stop()));
  await Promise.all(singles.splice(0).map((s) => s.stop()));
});
afterAll(async () => {
  await theirs?.stop();
});

/** A redis-server in cluster mode that is not (yet) a whole cluster; `slots` are given to it. */
async function loneClusterNode(slots: [number, number] | null): Promise<LocalRedisServer> {
  // A bus port of its own, as local-cluster.ts gives each node: port + 10000 is past 65535 for a
  // port over 55535, and a node refuses to start there.
  const node = await startLocalRedisServer({
    extraArgs: async ({ port, dir }) => [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, 'nodes.conf'),
      '--cluster-port',
      String(await busPort(port)),
    ],
  });
  singles.push(node);
  if (slots !== null)
    await send(`redis://127.0.0.1:${node.port}`, 'CLUSTER', 'ADDSLOTSRANGE', String(slots[0]), String(slots[1]));
  return node;
}

describe('acquireRedisCluster: the tool starts its own cluster', () => {
  it('without REDIS_CLUSTER_URL: three local masters, described with their ports, stopped by stop()', async () => {
    const logs: string[] = [];
    const cluster = await acquireRedisCluster({ env: cleanEnv(), log: (m) => logs.push(m) });
    acquired.push(cluster);
    expect(cluster.kind).toBe('local-binary');
    expect(cluster.owned).toBe(true);
    const ports = cluster.nodes.map((n) => n.port);
    expect(cluster.describe()).toBe(
      `local Redis Cluster ${cluster.version}, 3 masters on 127.0.0.1:${ports.join(',')}`,
    );
    expect(logs).toEqual([`using ${cluster.describe()}`]);
    await cluster.stop();
    await expect(send(cluster.seed.url, 'PING')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('LQSIM_REDIS=docker is refused: there is no Docker path for a cluster', async () => {
    const err = await failure(acquireRedisCluster({ env: cleanEnv({ LQSIM_REDIS: 'docker' }) }));
    expect(err).toBeInstanceOf(RedisSettingError);
    expect(err.message).toBe(
      'LQSIM_REDIS=docker: lqsim has no Docker path for a Redis Cluster; it starts one from the local redis-server binary (unset LQSIM_REDIS or set it to local), or set REDIS_CLUSTER_URL to use an existing cluster',
    );
  });

  it('no redis-server binary: unavailable, with the ways to get a cluster (no Docker among them)', async () => {
    const err = await failure(
      acquireRedisCluster({ env: cleanEnv({ REDIS_SERVER_BIN: '/nonexistent/redis-server' }) }),
    );
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect(err.message).toMatch(
      /^no Redis Cluster available\.\nTried:\n {2}- local \/nonexistent\/redis-server \(a cluster of three masters\): redis-server binary not found/,
    );
    expect(err.message).toContain('REDIS_CLUSTER_URL=redis://host:port');
    expect(err.message).not.toMatch(/docker/i);
  });
});

describe("acquireRedisCluster: REDIS_CLUSTER_URL, someone else's cluster", () => {
  it('uses it as it is: its masters by lowest slot, described by the URL, never stopped', async () => {
    const url = `redis://127.0.0.1:${theirs.nodes[1]!.port}`;
    const logs: string[] = [];
    const cluster = await acquireRedisCluster({ env: cleanEnv({ REDIS_CLUSTER_URL: url }), log: (m) => logs.push(m) });
    expect(cluster.kind).toBe('external');
    expect(cluster.owned).toBe(false);
    expect(cluster.nodes).toEqual(theirs.nodes);
    // The seed is the node the URL names, as Laravel's config names its seed.
    expect(cluster.seed.label).toBe('node2');
    expect(cluster.describe()).toBe(`REDIS_CLUSTER_URL ${url} (3 masters)`);
    expect(logs).toEqual([`using ${cluster.describe()} (Redis ${theirs.version})`]);
    await cluster.stop();
    expect(await send(theirs.seed.url, 'PING')).toBe('PONG');
  });

  it('several seeds: the first that answers is used', async () => {
    const dead = `redis://127.0.0.1:${await freePort()}`;
    const live = `redis://127.0.0.1:${theirs.nodes[2]!.port}`;
    const cluster = await acquireRedisCluster({ env: cleanEnv({ REDIS_CLUSTER_URL: `${dead}, ${live}` }) });
    expect(cluster.nodes.map((n) => n.port)).toEqual(theirs.nodes.map((n) => n.port));
    expect(cluster.seed.label).toBe('node3');
    expect(cluster.describe()).toBe(`REDIS_CLUSTER_URL ${dead},${live} (3 masters)`);
  });

  it('no seed answers: unreachable, each seed named, no local cluster started instead', async () => {
    const a = await freePort();
    const err = await failure(acquireRedisCluster({ env: cleanEnv({ REDIS_CLUSTER_URL: `redis://127.0.0.1:${a}` }) }));
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect(err.message).toMatch(
      new RegExp(
        `^REDIS_CLUSTER_URL is not reachable\\.\\nTried:\\n {2}- REDIS_CLUSTER_URL seed redis://127\\.0\\.0\\.1:${a}: .*ECONNREFUSED`,
      ),
    );
  });

  it('a login the cluster turns down: refused in one line, the password hidden', async () => {
    const url = `redis://someone:s3cret-pw@127.0.0.1:${theirs.seed.port}`;
    const err = await failure(acquireRedisCluster({ env: cleanEnv({ REDIS_CLUSTER_URL: url }) }));
    expect(err).toBeInstanceOf(RedisRefusedError);
    expect(err.message).toMatch(
      /^refusing to run: REDIS_CLUSTER_URL=redis:\/\/someone:\*\*\*@127\.0\.0\.1:\d+: the server turned the login down \(WRONGPASS/,
    );
    expect(err.message).not.toContain('s3cret');
    expect(err.message).not.toContain('\n');
  });

  it('a single server, not in cluster mode: refused, pointing at REDIS_URL', async () => {
    const single = await startLocalRedisServer();
    singles.push(single);
    const url = `redis://127.0.0.1:${single.port}`;
    const err = await failure(acquireRedisCluster({ env: cleanEnv({ REDIS_CLUSTER_URL: url }) }));
    expect(err).toBeInstanceOf(RedisSettingError);
    expect(err.message).toBe(
      `REDIS_CLUSTER_URL=${url}: ${url} is not in cluster mode (INFO cluster: cluster_enabled:0); REDIS_URL is for a single server`,
    );
  });

  it('a cluster with slots no node serves: refused, naming them and the state', async () => {
    const node = await loneClusterNode([0, 5460]);
    const url = `redis://127.0.0.1:${node.port}`;
    const err = await failure(acquireRedisCluster({ env: cleanEnv({ REDIS_CLUSTER_URL: url }) }));
    expect(err).toBeInstanceOf(RedisRefusedError);
    expect(err.message).toBe(
      `refusing to run: REDIS_CLUSTER_URL=${url}: the cluster is not whole, as ${url} sees it: cluster_state:fail; no node serves slots 5461-16383 (10923 of 16384)`,
    );
  });

  it('a cluster whose every slot is served but whose state is not ok: refused, naming the state', async () => {
    // A master that has just started is held at fail for 2 s (Redis' CLUSTER_WRITABLE_DELAY).
    const node = await loneClusterNode([0, 16383]);
    const url = `redis://127.0.0.1:${node.port}`;
    const err = await failure(acquireRedisCluster({ env: cleanEnv({ REDIS_CLUSTER_URL: url }) }));
    expect(err).toBeInstanceOf(RedisRefusedError);
    expect(err.message).toBe(
      `refusing to run: REDIS_CLUSTER_URL=${url}: the cluster is not whole, as ${url} sees it: cluster_state:fail`,
    );
  });

  it('a master announced at an address that does not answer from here: refused, naming it', async () => {
    // node3 announces 127.0.0.2 (a loopback address it does not listen on), as a cluster in
    // containers announces addresses of its own network; the seed learns it by gossip.
    const node3 = theirs.nodes[2]!;
    const seed = theirs.seed.url;
    const announced = async (): Promise<string> =>
      String(
        ((await send(seed, 'CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>).find(
          (e) => Number(e[0]) === node3.slots[0]![0],
        )![2][0],
      );
    await send(node3.url, 'CONFIG', 'SET', 'cluster-announce-ip', '127.0.0.2');
    try {
      const until = Date.now() + 10_000;
      while ((await announced()) !== '127.0.0.2' && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      const err = await failure(acquireRedisCluster({ env: cleanEnv({ REDIS_CLUSTER_URL: seed }) }));
      expect(err).toBeInstanceOf(RedisConnectError);
      expect(err.message).toMatch(
        new RegExp(
          `^REDIS_CLUSTER_URL=${seed}: node3 at 127\\.0\\.0\\.2:${node3.port}, as the cluster announces it, does not answer from here \\(.*ECONNREFUSED.*\\)$`,
        ),
      );
    } finally {
      await send(node3.url, 'CONFIG', 'SET', 'cluster-announce-ip', '');
      const until = Date.now() + 10_000;
      while ((await announced()) !== '127.0.0.1' && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    }
  });

  it.each([
    [
      'http://127.0.0.1:7000',
      'REDIS_CLUSTER_URL=http://127.0.0.1:7000: expected redis://[user:password@]host[:port][/db] or rediss://... (TLS)',
    ],
    [
      'redis://127.0.0.1:7000,',
      'REDIS_CLUSTER_URL=redis://127.0.0.1:7000,: seed 2 is empty (expected redis://host:port, or several separated by commas)',
    ],
    [
      'redis://127.0.0.1:7000/2',
      'REDIS_CLUSTER_URL=redis://127.0.0.1:7000/2: a Redis Cluster has only db 0; drop the /2',
    ],
    [
      'redis://u:pa,ss@127.0.0.1:7000',
      'REDIS_CLUSTER_URL=redis://u:***@127.0.0.1:7000: "***@127.0.0.1:7000" is not a URL; seeds are separated by commas, so a comma in a password must be percent-encoded (%2C)',
    ],
    [
      'redis://u:p/w@127.0.0.1:7000',
      'REDIS_CLUSTER_URL=redis://u:***@127.0.0.1:7000: not a valid URL (expected redis://[user:password@]host[:port][/db] or rediss://... (TLS)); a "/", "?", "#" or "@" in the user or password must be percent-encoded (%2F, %3F, %23, %40)',
    ],
    [
      'redis://:one@127.0.0.1:7000,redis://:two@127.0.0.1:7001',
      "REDIS_CLUSTER_URL=redis://:***@127.0.0.1:7000,redis://:***@127.0.0.1:7001: the seeds differ in scheme, user or password; a cluster's nodes share one login, and lqsim uses it for every node",
    ],
    [
      'unix:///tmp/redis.sock',
      'REDIS_CLUSTER_URL=unix:///tmp/redis.sock: a unix socket cannot be traced (MONITOR shows every client on it at one address, so lqsim cannot tell the actors apart); use a TCP URL, redis://host:port',
    ],
  ])('REDIS_CLUSTER_URL=%s: bad input, one line, before any connection', async (value, message) => {
    const err = await failure(acquireRedisCluster({ env: cleanEnv({ REDIS_CLUSTER_URL: value }) }));
    expect(err).toBeInstanceOf(RedisSettingError);
    expect(err.message).toBe(message);
    expect(err.message).not.toMatch(/pa,ss|:one@|:two@|p\/w/);
  });
});
