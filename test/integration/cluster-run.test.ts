// Scenarios on a real local Redis Cluster (three masters the tool starts). The expected commands
// are derived by hand from Laravel 8.83's source and phpredis' RedisCluster as measured on this
// machine (phpredis 5.3.7):
// - PhpRedisConnector::createRedisClusterInstance (Redis/Connectors/PhpRedisConnector.php) makes a
//   `new RedisCluster(null, [seed], ...)`, which sends CLUSTER SLOTS to the seed (node1 here) once
//   per process, and nothing else: no SELECT (a cluster has db 0 alone);
// - RedisQueue::pushRaw (Queue/RedisQueue.php:137-145) EVALs LuaScripts::push with KEYS
//   queues:<q> and queues:<q>:notify; RedisQueue::pop first migrates :delayed then :reserved
//   (migrateExpiredJobs, 3 keys), then the pop script (3 keys);
// - RedisCluster::eval refuses keys in more than one slot before sending anything (a warning,
//   "All keys do not map to the same slot", which HandleExceptions makes an ErrorException);
// - Worker::getNextJob (Queue/Worker.php:342-365) catches it, reports it and sleeps 1 s; daemon()
//   then sleeps --sleep, as after an empty pop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { startLocalRedisCluster } from '../../src/redis/local-cluster.ts';
import type { RedisClusterServer } from '../../src/redis/cluster-nodes.ts';
import { keySlot } from '../../src/redis/slot.ts';
import { clusterTarget } from '../../src/scenarios/cluster-config.ts';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline, TraceCommand } from '../../src/scenarios/timeline.ts';
import { acquireRedis } from '../../src/redis/server.ts';

let cluster: RedisClusterServer;
beforeAll(async () => {
  cluster = await startLocalRedisCluster();
}, 30_000);
afterAll(async () => {
  await cluster?.stop();
});

const P = 'laravel_database_';

function scenario(queue: string, extra = ''): string {
  return `
name: cluster-test
title: t
laravel: "8"
until: 5
redis:
  cluster: true
connections:
  redis:
    queue: "${queue}"
    retry_after: 90
workers:
  - name: worker-1
    sleep: 3
jobs:
  A:
    class: App\\Jobs\\A
timeline:
  - at: 0
    dispatch: A
${extra}`;
}

async function run(yaml: string): Promise<Timeline> {
  const spec = parseScenario(yaml, 'cluster-test.yaml').spec;
  return runScenario(spec, { redis: clusterTarget(cluster) });
}

/** `<node> <slot|-> <source> <command> <keys or args>` per command, the payload left out. */
function lines(cmds: readonly TraceCommand[]): string[] {
  return cmds.map((c) => {
    const name = c.source === 'lua' ? c.args[0]! : c.args[0]!.toUpperCase();
    const rest =
      name === 'EVAL'
        ? c.args.slice(3, 3 + Number(c.args[2]))
        : c.args.slice(1).filter((a) => !a.startsWith('{"uuid"'));
    return [c.node, c.slot ?? '-', c.actor, name, ...rest].join(' ');
  });
}

describe('a queue name without a hash tag', () => {
  it('fails the push in the client: CLUSTER SLOTS alone reaches Redis, and the job is not queued', async () => {
    const t = await run(scenario('default'));
    expect(t.error).toBeUndefined();
    const dispatch = t.steps[0]!;
    expect(dispatch.actor).toBe('dispatcher');
    expect(lines(dispatch.commands)).toEqual(['node1 - dispatcher CLUSTER SLOTS']);
    expect(dispatch.title).toBe(
      'dispatch A threw ErrorException: RedisCluster::eval(): All keys do not map to the same slot',
    );
    // Both keys named with their slots: the slots differ, whichever nodes they are on.
    expect(dispatch.explain).toContain(`${P}queues:default (slot ${keySlot(`${P}queues:default`)}`);
    expect(dispatch.explain).toContain(`${P}queues:default:notify (slot ${keySlot(`${P}queues:default:notify`)}`);
    expect(t.jobs.map((j) => [j.label, j.outcome])).toEqual([['A#1', 'not-queued']]);
    expect(dispatch.state.queues[0]!.sizes).toEqual({ ready: 0, delayed: 0, reserved: 0, notify: 0 });
  });

  it('makes the worker report and sleep 1 s, then --sleep, each loop, sending nothing after CLUSTER SLOTS', async () => {
    const t = await run(scenario('default'));
    const worker = t.steps.filter((s) => s.actor === 'worker-1');
    // t+0 pop threw (sleep 1), t+1 sleep 3, t+4 pop threw, t+5 sleep 3 (until 5).
    expect(worker.map((s) => [s.t - 1700000000, s.title.split(';')[0]])).toEqual([
      [0, 'pop on default threw ErrorException: RedisCluster::eval(): All keys do not map to the same slot'],
      [1, 'no job (the pop threw)'],
      [4, 'pop on default threw ErrorException: RedisCluster::eval(): All keys do not map to the same slot'],
      [5, 'no job (the pop threw)'],
    ]);
    expect(worker.flatMap((s) => lines(s.commands))).toEqual(['node1 - worker-1 CLUSTER SLOTS']);
    expect(worker[0]!.methods).toContain('ExceptionHandler::report');
  });
});

describe('a hash-tagged queue', () => {
  const slot = keySlot('default');
  it('puts every key of the queue in one slot, and every script runs on its node', async () => {
    const t = await run(scenario('{default}', '  - at: 0\n    actor: worker-1\n    on: pop\n    note: pops\n'));
    expect(t.error).toBeUndefined();
    const node = cluster.nodes.find((n) => n.slots.some(([a, b]) => slot >= a && slot <= b))!.label;
    const q = `${P}queues:{default}`;
    expect(lines(t.steps[0]!.commands)).toEqual([
      'node1 - dispatcher CLUSTER SLOTS',
      `${node} ${slot} dispatcher EVAL ${q} ${q}:notify`,
      `${node} ${slot} dispatcher rpush ${q}`,
      `${node} ${slot} dispatcher rpush ${q}:notify 1`,
    ]);
    const pop = t.steps.find((s) => s.actor === 'worker-1')!;
    expect(lines(pop.commands)).toEqual([
      'node1 - worker-1 CLUSTER SLOTS',
      `${node} ${slot} worker-1 EVAL ${q}:delayed ${q} ${q}:notify`,
      `${node} ${slot} worker-1 zrangebyscore ${q}:delayed -inf 1700000000`,
      `${node} ${slot} worker-1 EVAL ${q}:reserved ${q} ${q}:notify`,
      `${node} ${slot} worker-1 zrangebyscore ${q}:reserved -inf 1700000000`,
      `${node} ${slot} worker-1 EVAL ${q} ${q}:reserved ${q}:notify`,
      `${node} ${slot} worker-1 lpop ${q}`,
      `${node} ${slot} worker-1 zadd ${q}:reserved 1700000090`,
      `${node} ${slot} worker-1 lpop ${q}:notify`,
    ]);
    // The state says where the queue's keys are: all on that node.
    expect(pop.state.queues[0]!.nodes).toEqual({ ready: node, delayed: node, reserved: node, notify: node });
  });

  it('sends, node aside, what the same app sends to one server', async () => {
    const yaml = scenario('{default}', '  - at: 0\n    actor: worker-1\n    on: pop\n    note: pops\n');
    const onCluster = await run(yaml);
    const server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
    try {
      const single = parseScenario(yaml.replace('redis:\n  cluster: true\n', ''), 'single.yaml').spec;
      const t = await runScenario(single, { redis: server });
      const sent = (tl: Timeline) => tl.steps.flatMap((s) => s.commands.map((c) => [c.actor, ...c.args]));
      // Laravel 8's PhpRedisConnector SELECTs the connection's database (0) on one server; the
      // cluster client sends CLUSTER SLOTS where that SELECT was, and the rest is the same.
      const selectsAsSlots = sent(t).map((c) => (c[1] === 'SELECT' ? [c[0]!, 'CLUSTER', 'SLOTS'] : c));
      expect(sent(onCluster)).toEqual(selectsAsSlots);
    } finally {
      await server.stop();
    }
  });
});

describe('on a cluster it does not own', () => {
  it('takes turns with another run of the same queue names (test files in parallel), both whole', async () => {
    const target = { ...clusterTarget(cluster), owned: false };
    const spec = parseScenario(
      scenario('{default}', '  - at: 0\n    actor: worker-1\n    on: pop\n    note: pops\n'),
      'c.yaml',
    ).spec;
    const [a, b] = await Promise.all([runScenario(spec, { redis: target }), runScenario(spec, { redis: target })]);
    expect([a.error, b.error]).toEqual([undefined, undefined]);
    // Each its own whole trace: the same commands, none of the other's mixed in.
    const sent = (t: Timeline) => t.steps.flatMap((s) => s.commands.map((c) => [c.actor, ...c.args.slice(0, 1)]));
    expect(sent(a)).toEqual(sent(b));
    expect(a.jobs.map((j) => j.outcome)).toEqual(['succeeded']);
  });

  it('stops, naming the client, when another one uses a key in its slots mid-run', async () => {
    const target = { ...clusterTarget(cluster), owned: false };
    const yaml = scenario('{default}', '  - at: 0\n    actor: worker-1\n    on: pop\n    note: pops\n');
    const spec = parseScenario(yaml, 'c.yaml').spec;
    const slot = keySlot('default');
    const node = cluster.nodes.find((n) => n.slots.some(([a, b]) => slot >= a && slot <= b))!;
    const app = createClient({ url: node.url, RESP: 2 });
    await app.connect();
    try {
      // An app's client reads the run's queue while the run is paced between its steps.
      const run = runScenario(spec, { redis: target, paceMs: 300 });
      await new Promise((r) => setTimeout(r, 450));
      await app.sendCommand(['LLEN', `${P}queues:{default}`]);
      const t = await run;
      expect(t.error).toContain(
        `another client used a key in this run's slots on the cluster (${node.label} 127.0.0.1:`,
      );
      expect(t.error).toContain(`: LLEN ${P}queues:{default})`);
    } finally {
      app.destroy();
    }
  });

  it("claims its slots, leaves the app's keys alone and deletes its own at the end", async () => {
    const c = createClient({ url: cluster.nodes[0]!.url, RESP: 2 });
    await c.connect();
    try {
      // An app key in node1's slots (slot 3300), left where it is.
      await c.sendCommand(['SET', 'b', 'app']);
      const target = { ...clusterTarget(cluster), owned: false };
      const spec = parseScenario(scenario('{default}'), 'c.yaml').spec;
      const t = await runScenario(spec, { redis: target });
      expect(t.error).toBeUndefined();
      const keys = await Promise.all(
        cluster.nodes.map(async (n) => {
          const nc = createClient({ url: n.url, RESP: 2 });
          await nc.connect();
          const k = (await nc.sendCommand(['KEYS', '*'])) as string[];
          nc.destroy();
          return k;
        }),
      );
      expect(keys.flat()).toEqual(['b']);
    } finally {
      await c.sendCommand(['DEL', 'b']);
      c.destroy();
    }
  });
});
