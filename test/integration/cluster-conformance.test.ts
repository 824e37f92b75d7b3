// `lqsim conformance` on a Redis Cluster: real Laravel 8.83 (Debian's, phpredis' RedisCluster,
// conformance/laravel/harness.php configuring `clusters`) against the model, on a local 3-master
// cluster the tool starts, MONITOR on every node; the traces compared after normalisation and,
// command for command, the node that saw each (compare.ts' nodeDifferences).
// The nodes expected below are derived by hand: `redis-cli --cluster create` with three masters
// gives node1 slots 0-5460, node2 5461-10922, node3 10923-16383 (node1.. by lowest slot);
// CLUSTER KEYSLOT gives 5718 for every key with the tag {default}, prefixed or not, and 5080 for
// laravel_database_queues:default:delayed. phpredis sends CLUSTER SLOTS on the seed (node1) once
// per process (conformance/laravel/captures-cluster/, FINDINGS in /work/issue28-laravel-cluster.md).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceResult } from '../../src/conformance/compare.ts';
import { conformScenario } from '../../src/conformance/compare.ts';
import type { RealRun } from '../../src/conformance/real-laravel.ts';
import { runWithRealLaravel } from '../../src/conformance/real-laravel.ts';
import { makeChalk } from '../../src/output/colour.ts';
import type { RedisClusterServer } from '../../src/redis/cluster-nodes.ts';
import { acquireRedisCluster } from '../../src/redis/cluster-server.ts';
import { SCENARIOS_DIR } from '../../src/scenarios/catalog.ts';
import { clusterTarget } from '../../src/scenarios/cluster-config.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { RedisTarget } from '../../src/scenarios/runner.ts';
import { renderDiff } from '../../src/trace/render-diff.ts';
import { lqsim } from '../helpers/cli.ts';

const fixture = (name: string) => new URL(`../fixtures/conformance/${name}.yaml`, import.meta.url).pathname;
// The shipped cluster scenarios (conformance.test.ts plays the others, on one server).
const SHIPPED = readdirSync(SCENARIOS_DIR)
  .filter((f) => f.startsWith('cluster-') && f.endsWith('.yaml'))
  .map((f) => join(SCENARIOS_DIR, f))
  .sort();

function explain(r: ConformanceResult): string {
  if (r.status === 'different')
    return `${r.outcomes.join('\n')}\n${renderDiff(r.diff, { chalk: makeChalk(0), labels: ['tool@8', 'laravel 8.83'] })}`;
  return JSON.stringify(r);
}

/** Each command of the real run as "node slot actor#process ARGS0 [key]": where it ran, and whose. */
function wire(run: RealRun): string[] {
  return run.steps.flatMap((s) =>
    s.commands
      .filter((c) => c.source === 'client')
      .map(
        (c) =>
          `${c.node} ${c.slot ?? '-'} ${c.actor}#${c.process} ${c.args[0]}${c.args[0] === 'CLUSTER' ? ` ${c.args[1]}` : ''}`,
      ),
  );
}

describe('lqsim conformance on a Redis Cluster: real Laravel 8.83 = the model, node for node', () => {
  let cluster: RedisClusterServer;
  let redis: RedisTarget;
  beforeAll(async () => {
    cluster = await acquireRedisCluster();
    redis = clusterTarget(cluster);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  async function realRun(name: string): Promise<RealRun> {
    const { spec } = await loadScenarioFile(fixture(name));
    const run = await runWithRealLaravel(spec, { redis });
    expect(run.error).toBeUndefined();
    return run;
  }

  it('ships the cluster scenarios, each saying redis.cluster (and no other does)', async () => {
    expect(SHIPPED.map((f) => f.slice(SCENARIOS_DIR.length + 1))).toEqual([
      'cluster-hash-tag.yaml',
      'cluster-prefix-hash-tag.yaml',
      'cluster-without-hash-tag.yaml',
    ]);
    for (const f of readdirSync(SCENARIOS_DIR).filter((x) => x.endsWith('.yaml'))) {
      const { spec } = await loadScenarioFile(join(SCENARIOS_DIR, f));
      expect(spec.redis.cluster === true, f).toBe(f.startsWith('cluster-'));
    }
  });

  const files = [
    ...SHIPPED,
    ...['cluster-fixture-hash-tag', 'cluster-prefix', 'cluster-fixture-without-hash-tag'].map((n) => fixture(n)),
  ];
  for (const file of files) {
    it(`${file.split('/').slice(-2).join('/')}: identical, node for node`, async () => {
      const { spec } = await loadScenarioFile(file);
      const r = await conformScenario(spec, redis, { file });
      expect(r.status, explain(r)).toBe('identical');
    });
  }

  it("'{default}' with no prefix: each process's CLUSTER SLOTS on node1, every queue command on node2 (slot 5718)", async () => {
    const run = await realRun('cluster-fixture-hash-tag');
    const lines = wire(run);
    // Three web requests (one dispatch each) and worker-1's one process: four CLUSTER SLOTS.
    expect(lines.filter((l) => l.includes('CLUSTER SLOTS'))).toEqual([
      'node1 - dispatcher#1 CLUSTER SLOTS',
      'node1 - worker-1#1 CLUSTER SLOTS',
      'node1 - dispatcher#2 CLUSTER SLOTS',
      'node1 - dispatcher#3 CLUSTER SLOTS',
    ]);
    const queue = lines.filter((l) => !l.includes('CLUSTER SLOTS'));
    expect(queue.length).toBeGreaterThan(10);
    for (const l of queue) expect(l).toMatch(/^node2 5718 (dispatcher#[123]|worker-1#1) (EVAL|ZADD|ZREM)$/);
    // The key names as sent: no prefix, the tag kept.
    const keys = run.steps.flatMap((s) => s.commands.filter((c) => c.args[0] === 'ZADD').map((c) => c.args[1]));
    expect(keys).toContain('queues:{default}:delayed');
  });

  it('the prefix is in the keys phpredis sends and hashes; the BLPOP waits on node2', async () => {
    const run = await realRun('cluster-prefix');
    const lines = wire(run);
    expect(lines).toContain('node2 5718 worker-1#1 BLPOP');
    for (const l of lines.filter((x) => !x.includes('CLUSTER SLOTS'))) expect(l).toMatch(/^node2 5718 /);
    const blpop = run.steps.flatMap((s) => s.commands).find((c) => c.args[0] === 'BLPOP')!;
    expect(blpop.args).toEqual(['BLPOP', 'laravel_database_queues:{default}:notify', '5']);
  });

  it('a plain name: the push throws ErrorException to the app and sends nothing; the delayed ZADD lands on node1; the worker reports and sends nothing', async () => {
    const run = await realRun('cluster-fixture-without-hash-tag');
    const message = 'RedisCluster::eval(): All keys do not map to the same slot';
    expect(run.thrown).toEqual([{ step: 0, exception: 'ErrorException', message }]);
    expect(wire(run)).toEqual([
      'node1 - dispatcher#1 CLUSTER SLOTS',
      'node1 - worker-1#1 CLUSTER SLOTS',
      'node1 - dispatcher#2 CLUSTER SLOTS',
      'node1 5080 dispatcher#2 ZADD',
    ]);
    // The request's report, then the worker's, once a loop: getNextJob's catch (t+0, t+4, t+8 by
    // sleep(1) + --sleep=3), until 9.
    expect(run.reported).toEqual(Array.from({ length: 4 }, () => ({ exception: 'ErrorException', message })));
    expect(run.steps.filter((s) => s.actor === 'worker-1').map((s) => `t+${s.t - run.start} ${s.title}`)).toEqual([
      't+0 worker-1 sleeps 1s',
      't+1 worker-1 sleeps 3s',
      't+4 worker-1 sleeps 1s',
      't+5 worker-1 sleeps 3s',
      't+8 worker-1 sleeps 1s',
      't+9 worker-1 sleeps 3s',
    ]);
  });

  it("the model's worker loops as real Laravel's does when its pop throws (no command shows it: the steps' times do)", async () => {
    const { spec } = await loadScenarioFile(fixture('cluster-fixture-without-hash-tag'));
    const real = await runWithRealLaravel(spec, { redis });
    const tool = await runScenario(spec, { redis, laravel: '8' });
    expect(tool.error).toBeUndefined();
    const times = (steps: ReadonlyArray<{ t: number; actor: string }>, start: number) =>
      steps.map((s) => `t+${s.t - start} ${s.actor}`);
    expect(times(tool.steps, tool.start)).toEqual(times(real.steps, real.start));
  });
});

describe('the CLI on a cluster scenario: it starts a cluster for it, beside the one server for the rest', () => {
  it('lqsim conformance, in the order given', async () => {
    const { code, stdout, stderr } = await lqsim(['conformance', 'dispatch', 'cluster-without-hash-tag']);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^identical +dispatch +1 steps, 4 commands$/m);
    // The push refused and sent nothing; the delayed one's CLUSTER SLOTS and ZADD; the worker's CLUSTER SLOTS.
    expect(stdout).toMatch(/^identical +cluster-without-hash-tag +\d+ steps, \d+ commands$/m);
    expect(stdout).toContain('2 identical, 0 different');
    expect(stderr).toMatch(/Redis Cluster/);
  });

  it('lqsim diff <cluster scenario>@8 laravel:<it>', async () => {
    const { code, stdout, stderr } = await lqsim([
      'diff',
      'cluster-prefix-hash-tag@8',
      'laravel:cluster-prefix-hash-tag',
    ]);
    expect(code, stderr + stdout).toBe(0);
    expect(stdout).toMatch(/^0 steps differ, \d+ same$/m);
  });
});
