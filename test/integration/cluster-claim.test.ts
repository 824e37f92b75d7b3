// claimClusterKeys on a real local cluster: what a run on someone else's cluster refuses (its keys
// there already, a client blocked on a node, another run on one of its slots), and that nothing of
// the run is left once it ends: its keys and its claim keys, on a normal end and on INT/TERM.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claimClusterKeys, type ClusterClaim } from '../../src/redis/cluster-claim.ts';
import type { ClusterNode, RedisClusterServer } from '../../src/redis/cluster-nodes.ts';
import { newClient } from '../../src/redis/connections.ts';
import { RedisRefusedError } from '../../src/redis/errors.ts';
import { startLocalRedisCluster } from '../../src/redis/local-cluster.ts';
import { waitFor } from '../helpers/process.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const child = fileURLToPath(new URL('../helpers/cluster-child.ts', import.meta.url));

type Client = ReturnType<typeof newClient>;
let cluster: RedisClusterServer;
const clients = new Map<string, Client>();
const senderOf = (n: ClusterNode): Client => clients.get(n.label)!;
const claims: ClusterClaim[] = [];
const extra: Client[] = [];

beforeAll(async () => {
  cluster = await startLocalRedisCluster();
  for (const n of cluster.nodes) {
    const c = newClient(n.url);
    await c.connect();
    clients.set(n.label, c);
  }
});
afterEach(async () => {
  for (const c of claims.splice(0)) await c.release([]).catch(() => undefined);
  for (const c of extra.splice(0)) c.destroy();
  // Each test starts from an empty cluster, whatever the last one left (it asserts that itself).
  for (const c of clients.values()) await c.sendCommand(['FLUSHALL']);
});
afterAll(async () => {
  for (const c of clients.values()) c.destroy();
  await cluster?.stop();
});

/** Every key on every node, as `node2 key`. */
async function everything(): Promise<string[]> {
  const out: string[] = [];
  for (const n of cluster.nodes)
    for (const k of (await senderOf(n).sendCommand(['KEYS', '*'])) as string[]) out.push(`${n.label} ${k}`);
  return out.sort();
}

/** The node serving `key`, asked of the server (CLUSTER KEYSLOT), not of the tool's slot code. */
async function nodeOf(key: string): Promise<ClusterNode> {
  const slot = Number(await senderOf(cluster.seed).sendCommand(['CLUSTER', 'KEYSLOT', key]));
  return cluster.nodes.find((n) => n.slots.some(([a, b]) => slot >= a && slot <= b))!;
}

async function set(key: string): Promise<void> {
  await senderOf(await nodeOf(key)).sendCommand(['SET', key, 'x']);
}

async function claim(token: string, keys: string[], ttlMs?: number): Promise<ClusterClaim> {
  const c = await claimClusterKeys(cluster.nodes, senderOf, token, { keys, ttlMs });
  claims.push(c);
  return c;
}

function refusal(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e as Error,
  );
}

const tagged = ['queues:{default}', 'queues:{default}:delayed', 'queues:{default}:reserved', 'queues:{default}:notify'];

describe('claimClusterKeys', () => {
  it("claims each slot of the run's keys on its node, and the end leaves nothing: not its keys, not its claims", async () => {
    const keys = [...tagged, 'queues:mail'];
    const held = await claim('run-aaaa', keys);
    // Two slots: {default}'s and queues:mail's, each claimed by a key in that very slot, on its node.
    expect(held.slots).toHaveLength(2);
    for (const s of held.slots) {
      const slot = Number(await senderOf(s.node).sendCommand(['CLUSTER', 'KEYSLOT', s.key]));
      expect(slot).toBe(s.slot);
      expect(await senderOf(s.node).sendCommand(['GET', s.key])).toBe('run-aaaa');
      expect(Number(await senderOf(s.node).sendCommand(['PTTL', s.key]))).toBeGreaterThan(0);
    }
    for (const k of keys) await set(k);
    expect(await everything()).toHaveLength(keys.length + 2);
    await held.release(keys);
    expect(await everything()).toEqual([]);
    await held.release(keys); // twice is harmless
  });

  it('deletes exactly the keys it is given at the end, and its claims', async () => {
    const held = await claim('run-aaaa', tagged);
    await set('queues:{default}');
    await set('queues:{default}:reserved');
    await set('someone:{default}:else'); // in the run's slot, not the run's
    await held.release(['queues:{default}', 'queues:{default}:reserved']);
    expect(await everything()).toEqual([`${(await nodeOf('{default}')).label} someone:{default}:else`]);
  });

  it('refuses a key that already exists, naming it and its node, and takes nothing', async () => {
    await set('queues:{default}:delayed');
    const node = await nodeOf('queues:{default}:delayed');
    const err = await refusal(claim('run-aaaa', tagged));
    expect(err).toBeInstanceOf(RedisRefusedError);
    expect(err.message).toBe(
      `refusing to run: key queues:{default}:delayed already exists on ${node.label} (127.0.0.1:${node.port}): the run creates it and would mix its jobs with what is there (someone's queue, or what a killed run left); delete it or name another queue`,
    );
    expect(await everything()).toEqual([`${node.label} queues:{default}:delayed`]);
  });

  it('refuses when a client is blocked on any node, naming the node, its address and name, and takes nothing', async () => {
    // A worker of someone's app in BLPOP on node3, which serves none of the run's keys.
    const node3 = cluster.nodes[2]!;
    let i = 0;
    while ((await nodeOf(`app{${i}}`)) !== node3) i++;
    const worker = newClient(node3.url);
    extra.push(worker);
    await worker.connect();
    await worker.sendCommand(['CLIENT', 'SETNAME', 'app-worker']);
    const addr = /addr=(\S+)/.exec(String(await worker.sendCommand(['CLIENT', 'INFO'])))![1]!;
    void worker.sendCommand(['BLPOP', `app{${i}}`, '0'], { timeout: 0 }).catch(() => undefined);
    await waitFor(() => false, 100);
    const err = await refusal(claim('run-aaaa', ['queues:mail']));
    expect(err).toBeInstanceOf(RedisRefusedError);
    expect(err.message).toBe(
      `refusing to run: a client is blocked on node3 (127.0.0.1:${node3.port}): ${addr} "app-worker", last command blpop; a worker waiting in BLPOP would take the run's jobs. Stop it, or use a cluster of your own`,
    );
    expect(await everything()).toEqual([]);
  });

  it('refuses a second run on a slot the first holds, naming the first; the first is untouched', async () => {
    const first = await claim('run-first', tagged);
    for (const k of tagged) await set(k);
    // Another key, in the same slot ({default}): two runs must not share a slot.
    const err = await refusal(claim('run-second', ['queues:mail', 'jobs:{default}']));
    expect(err).toBeInstanceOf(RedisRefusedError);
    const s = first.slots[0]!;
    expect(err.message).toBe(
      `refusing to run: slot ${s.slot} on ${s.node.label} (127.0.0.1:${s.node.port}) is held by another lqsim run (run run-first, claim key ${s.key}): two runs must not share queue keys on one cluster; wait for it to end`,
    );
    // What the second took first (queues:mail's slot) it gave back; the first run's keys are all there.
    expect(await everything()).toHaveLength(tagged.length + 1);
    await first.release(tagged);
    expect(await everything()).toEqual([]);
  });

  it('keeps its claims alive with a heartbeat, and says when one is lost', async () => {
    const held = await claim('run-aaaa', tagged, 300);
    await waitFor(() => false, 800);
    const s = held.slots[0]!;
    expect(await senderOf(s.node).sendCommand(['GET', s.key])).toBe('run-aaaa');
    expect(held.lost()).toBeNull();
    await senderOf(s.node).sendCommand(['DEL', s.key]);
    expect(await waitFor(() => held.lost() !== null, 1000)).toBe(true);
    expect(held.lost()).toBe(
      `the claim on slot ${s.slot} (${s.key} on ${s.node.label} (127.0.0.1:${s.node.port})) was lost: it expired or was deleted`,
    );
  });

  it('a key given at the end in a slot it never claimed is not deleted, and said; its claims go all the same', async () => {
    const held = await claim('run-aaaa', tagged);
    await set('queues:mail');
    await expect(held.release(['queues:{default}', 'queues:mail'])).rejects.toThrow(
      "the run's keys on the cluster were not all deleted: not deleted, in no slot this run claimed: queues:mail",
    );
    expect(await everything()).toEqual([`${(await nodeOf('queues:mail')).label} queues:mail`]);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'a run stopped by %s deletes its keys and its claims before it exits',
    async (signal) => {
      const keys = [...tagged, 'queues:mail'];
      const p = spawn(
        process.execPath,
        ['--import', 'tsx', child, 'claim', JSON.stringify({ nodes: cluster.nodes, keys, token: 'run-child' })],
        { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      p.stdout.on('data', (d: Buffer) => (out += d.toString()));
      p.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = once(p, 'exit') as Promise<[number | null]>;
      expect(await waitFor(() => out.includes('held'), 10_000), out).toBe(true);
      expect(await everything()).toHaveLength(keys.length + 2);
      p.kill(signal);
      const [code] = await exited;
      expect(code).toBe(signal === 'SIGINT' ? 130 : 143);
      expect(await everything()).toEqual([]);
    },
    20_000,
  );
});
