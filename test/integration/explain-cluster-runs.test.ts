// lqsim's own cluster runs fed back into explain: `lqsim run cluster-hash-tag --format ndjson` (on
// a local 3-master cluster the CLI starts) carries each command's node and slot, and explain reads
// them as a cluster capture whose actors are the run's processes. Expected by hand: the {default}
// tag hashes to slot 5718 (CLUSTER KEYSLOT default), in the second of three even ranges (node2,
// masters named by lowest slot); a plain `default` queue's scripts never reach Redis, so only the
// two processes' CLUSTER SLOTS do (RedisQueue::pushRaw, Worker::getNextJob).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lqsim } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'lqsim-explain-cluster-runs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runToNdjson(scenario: string): Promise<string> {
  const run = await lqsim(['run', scenario, '--format', 'ndjson']);
  expect(run.code, run.stderr).toBe(0);
  const file = join(dir, `${scenario}.ndjson`);
  writeFileSync(file, run.stdout);
  return file;
}

describe("explain on lqsim's own cluster runs", () => {
  it('cluster-hash-tag: every queue command on node2 in slot 5718, each actor a process', async () => {
    const file = await runToNdjson('cluster-hash-tag');
    const r = await lqsim(['explain', '--format', 'json', file]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as {
      steps: Array<{ commands: Array<{ actor: string; node?: string; slot?: number; args: string[] }> }>;
      settings: {
        cluster?: { merged?: boolean; processes?: boolean; queues: Array<{ queue: string; spansSlots: boolean }> };
      };
    };
    const commands = json.steps.flatMap((s) => s.commands);
    for (const c of commands)
      expect([c.node, c.slot]).toEqual(c.args[0] === 'CLUSTER' ? ['node1', undefined] : ['node2', 5718]);
    // Two dispatches, each a web request of its own (a process, a RedisCluster, a CLUSTER SLOTS), and the worker.
    expect([...new Set(commands.map((c) => c.actor))].sort()).toEqual([
      'dispatcher',
      'dispatcher (process 2)',
      'worker-1',
    ]);
    expect(json.settings.cluster).toMatchObject({
      merged: true,
      processes: true,
      queues: [{ queue: '{default}', spansSlots: false }],
    });
  }, 60_000);

  it('cluster-without-hash-tag: only the CLUSTER SLOTS of both processes, and the configuration says why', async () => {
    const file = await runToNdjson('cluster-without-hash-tag');
    const r = await lqsim(['explain', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('cluster clients: 2 CLUSTER SLOTS (lines 1, 2)');
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      'queues: no queue command after the cluster clients connected: what a capture shows when phpredis refuses every script',
    );
  }, 60_000);
});
