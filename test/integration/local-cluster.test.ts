// startLocalRedisCluster against the real redis-server binary: three masters that are one cluster,
// and nothing of them left once stopped, once a start fails midway, or once the process that
// started them is interrupted (INT, TERM, KILL: scripts/interrupt-runs.mjs).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { RedisClusterServer } from '../../src/redis/cluster-nodes.ts';
import { LocalRedisError } from '../../src/redis/errors.ts';
import { startLocalRedisCluster } from '../../src/redis/local-cluster.ts';
import { keySlot } from '../../src/redis/slot.ts';
import { waitFor } from '../helpers/process.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The live redis-servers working in `dir` (each changes into its --dir, made in TMPDIR): its
 * environment cannot tell, redis-server writes its title over that memory.
 */
function nodesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        if (/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))) return false;
        return (
          readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('redis-server') &&
          readlinkSync(`/proc/${pid}/cwd`).startsWith(`${dir}/`)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A private TMPDIR (os.tmpdir() reads it on each call), where the nodes' dirs go. */
function sandbox(): { env: NodeJS.ProcessEnv; dir: string; entries: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'local-cluster-test-'));
  return {
    env: { ...process.env, TMPDIR: dir },
    dir,
    entries: () => readdirSync(dir),
  };
}

async function withTmpdir<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
}

const started: RedisClusterServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((c) => c.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('startLocalRedisCluster', () => {
  it('starts three masters that are one cluster, each serving its third of the slots; stop() ends every node and removes its dir', async () => {
    const box = sandbox();
    dirs.push(box.dir);
    const t0 = performance.now();
    const cluster = await withTmpdir(box.dir, () => startLocalRedisCluster({ env: box.env }));
    started.push(cluster);
    const ms = Math.round(performance.now() - t0);
    expect(cluster.kind).toBe('local-binary');
    expect(cluster.owned).toBe(true);
    expect(cluster.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(cluster.nodes.map((n) => [n.label, n.host, n.slots])).toEqual([
      ['node1', '127.0.0.1', [[0, 5460]]],
      ['node2', '127.0.0.1', [[5461, 10922]]],
      ['node3', '127.0.0.1', [[10923, 16383]]],
    ]);
    expect(cluster.seed).toBe(cluster.nodes[0]);
    const ports = cluster.nodes.map((n) => n.port);
    expect(new Set(ports).size).toBe(3);
    expect(cluster.describe()).toBe(
      `local Redis Cluster ${cluster.version}, 3 masters on 127.0.0.1:${ports.join(',')}`,
    );
    expect(nodesIn(box.dir)).toHaveLength(3);
    expect(box.entries().filter((e) => e.startsWith('lqsim-redis-'))).toHaveLength(3);

    // Every node sees the whole cluster, and takes a write for a key of its own slots at once.
    for (const node of cluster.nodes) {
      const c = createClient({ url: node.url, RESP: 2, disableClientInfo: true });
      await c.connect();
      try {
        expect(String(await c.sendCommand(['CLUSTER', 'INFO']))).toMatch(/^cluster_state:ok\r?$/m);
        expect(String(await c.sendCommand(['CLUSTER', 'INFO']))).toMatch(/^cluster_known_nodes:3\r?$/m);
        // A key in this node's first slot: `{tag}` found by trying.
        const [first] = node.slots[0]!;
        let tag = 0;
        while (keySlot(`{${tag}}`) < first || keySlot(`{${tag}}`) > node.slots[0]![1]) tag++;
        expect(await c.sendCommand(['SET', `k{${tag}}`, 'v'])).toBe('OK');
      } finally {
        c.destroy();
      }
    }
    console.log(`local cluster formed in ${ms} ms`);

    await cluster.stop();
    expect(nodesIn(box.dir)).toEqual([]);
    expect(box.entries()).toEqual([]);
    await cluster.stop(); // a second stop is harmless
  });

  it('a cluster that does not form in time is refused, and the nodes already started are stopped', async () => {
    const box = sandbox();
    dirs.push(box.dir);
    const err = await withTmpdir(box.dir, () => startLocalRedisCluster({ env: box.env, formTimeoutMs: 50 })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LocalRedisError);
    expect((err as LocalRedisError).reason).toBe('cluster-not-formed');
    // Redis holds every master at cluster_state:fail for its first 2 s (CLUSTER_WRITABLE_DELAY).
    expect((err as Error).message).toMatch(
      /^the local Redis Cluster did not form within 50 ms \(port \d+: cluster_state:fail.*; port \d+: .*; port \d+: .*\)$/,
    );
    expect(await waitFor(() => nodesIn(box.dir).length === 0, 3000)).toBe(true);
    expect(box.entries()).toEqual([]);
  });

  it("a node that fails to start: the others, already up, are stopped, and the error is the node's", async () => {
    const box = sandbox();
    dirs.push(box.dir);
    // The third redis-server run exits at once, as a broken binary would; the first two are real.
    const wrapper = join(box.dir, 'redis-wrapper.sh');
    const count = join(box.dir, 'count');
    writeFileSync(
      wrapper,
      `#!/bin/sh\necho x >> '${count}'\nif [ "$(wc -l < '${count}')" -ge 3 ]; then echo "deliberately broken" >&2; exit 3; fi\nexec redis-server "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    const err = await withTmpdir(box.dir, () =>
      startLocalRedisCluster({ env: { ...box.env, REDIS_SERVER_BIN: wrapper } }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalRedisError);
    expect((err as Error).message).toMatch(/exited before it was ready \(code 3\)/);
    expect((err as Error).message).toContain('deliberately broken');
    expect(await waitFor(() => nodesIn(box.dir).length === 0, 3000)).toBe(true);
    expect(box.entries().filter((e) => e.startsWith('lqsim-'))).toEqual([]);
  });
});

describe('no node outlives the process that started the cluster', () => {
  it('6 runs interrupted at random instants (two each of INT, TERM, KILL) leave no node and no dir', async () => {
    const script = join(repoRoot, 'scripts/interrupt-runs.mjs');
    const child = spawn(process.execPath, [script, '--runs', '6'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(out).toMatch(/^6 runs \(2 INT, 2 TERM, 2 KILL\): 0 nodes left, 0 dirs left\n/);
    expect(code, out).toBe(0);
  }, 90_000);
});
