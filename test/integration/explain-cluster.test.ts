// lqsim explain on a real Redis Cluster capture of Laravel 8.83 (one file per node), end to end:
// the CLI's outputs carry each line's node and slot, bad node names are one-line errors, and the
// TUI's state pane replays the merged capture on a private redis-server, step by step, to the
// states derived by hand from the flow (test/fixtures/explain/cluster/README.md).
import { describe, expect, it, afterEach, beforeEach } from 'vitest';
import { join } from 'node:path';
import type { NodeCapture } from '../../src/explain/cluster-capture.ts';
import { forEachCaptureEntry } from '../../src/explain/cluster-capture.ts';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { replayCapture } from '../../src/explain/replay.ts';
import { captureTimeline } from '../../src/explain/timeline.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import type { Step } from '../../src/scenarios/timeline.ts';
import { lqsim } from '../helpers/cli.ts';

const dir = (flow: string) => new URL(`../fixtures/explain/cluster/${flow}/`, import.meta.url).pathname;
const files = (flow: string) => ['node1', 'node2', 'node3'].map((n) => `${dir(flow)}${n}.txt`);

describe('lqsim explain node1.txt node2.txt node3.txt', () => {
  it('json: every command carries its node, and its slot where it has keys', async () => {
    const r = await lqsim(['explain', '--format', 'json', ...files('hash-tag')]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as {
      steps: Step[];
      settings: { cluster?: { nodes: string[] } };
    };
    const commands = json.steps.flatMap((s) => s.commands);
    // 2 CLUSTER SLOTS on node1 (the seed); the queue's 77 lines on node2 (`grep -c` of the files).
    expect(commands.filter((c) => c.node === 'node1').map((c) => [c.args.join(' '), c.slot])).toEqual([
      ['CLUSTER SLOTS', undefined],
      ['CLUSTER SLOTS', undefined],
    ]);
    expect(commands.filter((c) => c.node === 'node2' && c.slot === 5718)).toHaveLength(77);
    expect(commands).toHaveLength(79);
    expect(json.settings.cluster?.nodes).toEqual(['node1', 'node2', 'node3']);
  });

  it("ndjson and text name each line's node (LABEL=FILE names it)", async () => {
    const [a, b, c] = files('plain');
    const nd = await lqsim(['explain', '--format', 'ndjson', `n1=${a}`, `b=${b}`, `c=${c}`]);
    expect(nd.code).toBe(0);
    const rows = nd.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((row) => row.record === undefined);
    expect(rows.map((row) => [row.actor, row.node, row.slot])).toEqual([
      ['seed-1@n1', 'n1', undefined],
      ['seed-2@n1', 'n1', undefined],
      ['dispatcher-1@n1', 'n1', 5080],
    ]);
    const text = await lqsim(['explain', `n1=${a}`, `b=${b}`, `c=${c}`]);
    // Each cluster client's CLUSTER SLOTS is a step of its own (#0, #1: two processes connecting).
    expect(text.stdout).toMatch(/#0 .* seed-1@n1 +cluster client connecting: CLUSTER SLOTS/);
    expect(text.stdout).toMatch(/#1 .* seed-2@n1 +cluster client connecting: CLUSTER SLOTS/);
    expect(text.stdout).toMatch(/#2 .* dispatcher-1@n1 +later: /);
    expect(text.stdout).toContain('cluster: 3 nodes, a MONITOR capture each (n1, b, c)');
  });

  it('refuses a node name given twice, or stdin among node files, in one line, exit 2', async () => {
    const [a, b] = files('plain');
    const twice = await lqsim(['explain', `n=${a}`, `n=${b}`]);
    expect([twice.code, twice.stderr.trim().split('\n')]).toEqual([
      2,
      [`lqsim: explain: n=${b}: node name n is ${a}'s already: name one with LABEL=FILE`],
    ]);
    const stdin = await lqsim(['explain', a!, '-']);
    expect([stdin.code, stdin.stderr.trim()]).toEqual([
      2,
      "lqsim: explain: - (stdin) is one capture: give a cluster's node captures as files",
    ]);
  });
});

describe("the TUI's state pane on a cluster capture", () => {
  let server: RedisServer;
  beforeEach(async () => {
    server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
  });
  afterEach(async () => server?.stop());

  it('replays the merged capture: the queue after each step, in Redis itself', async () => {
    const nodes: NodeCapture[] = ['node1', 'node2', 'node3'].map((label) => ({
      label,
      file: `${dir('hash-tag')}${label}.txt`,
    }));
    const lines: CapturedLine[] = [];
    await forEachCaptureEntry(nodes, (e) => {
      if (!isProblem(e)) lines.push(e);
    });
    const config = captureConfiguration(lines, { nodes: nodes.map((n) => n.label) });
    const { findings } = captureTimeline(lines, config, { file: 'cluster' });
    const steps: Step[] = [];
    await replayCapture({
      file: nodes,
      source: 'cluster',
      config,
      problems: [],
      problemCount: 0,
      findings,
      url: server.url,
      onStep: async (step) => {
        steps.push(step);
      },
    });
    const sizes = steps.map((s) => {
      const q = s.state.queues.find((x) => x.name === '{default}');
      return q === undefined ? null : [q.sizes.ready, q.sizes.delayed, q.sizes.reserved, q.sizes.notify];
    });
    // By hand (ready, :delayed, :reserved, :notify): the push (1 ready, 1 notify); the pop after
    // BLPOP woke (reserved 1, notify popped); release with backoff 0 (to :delayed); later()'s ZADD
    // (2 delayed); the poll migrates the released job (due) and pops it, the delayed one waits; the
    // delete; a poll that finds nothing; at t+4 the delayed job migrates and is popped, released,
    // popped again and deleted; the last polls find nothing.
    expect(sizes).toEqual([
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [1, 0, 0, 1],
      [0, 0, 1, 0],
      [0, 1, 0, 0],
      [0, 2, 0, 0],
      [0, 1, 1, 0],
      [0, 1, 0, 0],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
  });
});

describe('several files that are not one cluster', () => {
  it('are refused in one line naming why (a slot on two files, a script across slots run), exit 2', async () => {
    const dir = join(import.meta.dirname, '../../conformance/laravel/captures');
    const [a, b] = ['case-a.monitor.txt', 'case-b.monitor.txt'].map((f) => join(dir, f));
    const r = await lqsim(['explain', a!, b!]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^lqsim: explain: case-a\.monitor, case-b\.monitor are not one Redis Cluster's nodes: slot 4585's keys show in case-a\.monitor \(line \d+\) and case-b\.monitor \(line \d+\), and a slot lives on one node; Laravel's scripts over queue default's keys, in 4 slots, ran \(line \d+\), which a cluster refuses\./,
    );
  });
});

describe('node files with no cluster client in them', () => {
  it('are read as the nodes given, and the header says that is all that makes them a cluster', async () => {
    const dir = join(import.meta.dirname, '../fixtures/explain/cluster/three-queues');
    const r = await lqsim(['explain', ...['node1', 'node2', 'node3'].map((n) => join(dir, `${n}.txt`))]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.replace(/\n/g, ' ')).toContain(
      "cluster clients: none (no CLUSTER SLOTS in any file, so no process connected while it was captured): the files are read as one cluster's nodes because they were given so",
    );
  });
});
