// lqsim explain on real captures of Laravel 8.83 on a local 3-master Redis Cluster (phpredis 5.3.7's
// RedisCluster; test/fixtures/explain/cluster/README.md says how they were made). What is expected
// is derived by hand from Laravel's source (RedisQueue, Worker, PhpRedisConnector) and the flow;
// slots and nodes are the real cluster's (CLUSTER KEYSLOT, CLUSTER SLOTS), not the tool's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { explainCapture, explainNodeCaptures } from '../../src/explain/index.ts';
import { mergeNodeLines } from '../../src/redis/cluster-capture.ts';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/explain/${path}`, import.meta.url), 'utf8');
const nodes = (flow: string) =>
  ['node1', 'node2', 'node3'].map((label) => ({ label, text: fixture(`cluster/${flow}/${label}.txt`) }));

// CLUSTER SLOTS of the cluster the captures come from: node1 (7311) 0-5460, node2 (7312)
// 5461-10922, node3 (7313) 10923-16383. CLUSTER KEYSLOT there:
const DEFAULT_TAG_SLOT = 5718; // laravel_database_queues:{default}... hash "default"
const PLAIN_SLOTS = [4585, 5080, 5087, 1745]; // laravel_database_queues:default, :delayed, :reserved, :notify

describe('a hash-tagged queue ({default}, prefix laravel_database_) on a 3-master cluster', () => {
  const explained = explainNodeCaptures(nodes('hash-tag'));
  const { configuration, timeline, findings } = explained;

  it('says it is a cluster of three node captures, and where the queue lives: one slot, on node2', () => {
    const cluster = configuration.cluster!;
    expect(cluster.nodes).toEqual(['node1', 'node2', 'node3']);
    // A RedisCluster per process (RedisManager keeps its connection): the worker's, then the dispatcher's.
    expect(cluster.clusterSlots.count).toBe(2);
    expect(cluster.queues.map((q) => [q.prefix, q.queue, q.spansSlots])).toEqual([
      ['laravel_database_', '{default}', false],
    ]);
    expect(cluster.queues[0]!.keys.map((k) => [k.key, k.slot, k.nodes.map((n) => n.node)])).toEqual(
      ['', ':delayed', ':reserved', ':notify'].map((s) => [
        `laravel_database_queues:{default}${s}`,
        DEFAULT_TAG_SLOT,
        ['node2'],
      ]),
    );
    expect(timeline.scenario.description).toContain(
      'queue {default} (prefix laravel_database_): its keys (queue, :delayed, :reserved, :notify) all in slot 5718 (hash tag {default}), on node2',
    );
    expect(timeline.scenario.description).toContain('cannot be tied together from MONITOR alone');
    expect(findings.filter((f) => f.kind === 'keys-span-slots')).toEqual([]);
  });

  it('keys each connection by node: the seed connections on node1 sent CLUSTER SLOTS only', () => {
    const byNode = configuration.connections.map((c) => [c.node, c.role, c.client.startsWith(`${c.node}/`)]);
    expect(byNode).toEqual([
      ['node1', 'other', true],
      ['node2', 'worker', true],
      ['node1', 'other', true],
      ['node2', 'dispatcher', true],
    ]);
  });

  it("is Laravel's flow, step by step, each on its node", () => {
    // By hand from RedisQueue (8.83) and Worker::daemon: the worker starts first (migrate delayed,
    // migrate reserved, pop, and with block_for 2 a BLPOP on :notify); the dispatcher's push wakes it,
    // and retrieveNextJob($queue, false) pops again without migrating; attempt 1 throws: release with
    // backoff 0; the dispatcher's later() is a ZADD; the next poll migrates the released job back and
    // pops it (attempt 2 succeeds: delete); the delayed job waits in :delayed until its 2 s pass.
    const poll = ['migrate delayed', 'migrate reserved', 'pop'];
    const expected: Array<[string, string[]]> = [
      ['seed-1@node1', []], // CLUSTER SLOTS: the worker's RedisCluster
      ['worker-1@node2', [...poll, 'block']],
      ['seed-2@node1', []], // the dispatcher's
      ['dispatcher-1@node2', ['push']],
      ['worker-1@node2', ['pop']],
      ['worker-1@node2', ['release']],
      ['dispatcher-1@node2', ['later']],
      ['worker-1@node2', poll],
      ['worker-1@node2', ['delete']],
      ['worker-1@node2', [...poll, 'block']], // the delayed job not due: BLPOP times out, sleep 1
      ['worker-1@node2', poll],
      ['worker-1@node2', ['release']],
      ['worker-1@node2', poll],
      ['worker-1@node2', ['delete']],
      ['worker-1@node2', [...poll, 'block']],
      ['worker-1@node2', [...poll, 'block']], // then --max-time (8 s) stops it
    ];
    expect(
      timeline.steps.map((s) => [
        s.actor,
        s.commands.filter((c) => c.source === 'client' && c.operation !== undefined).map((c) => c.operation!),
      ]),
    ).toEqual(expected);
    expect(timeline.steps[0]!.title).toBe(
      "cluster client connecting: CLUSTER SLOTS (phpredis' RedisCluster maps the slots to their nodes on its seed)",
    );
    const commands = timeline.steps.flatMap((s) => s.commands);
    // Every command of the queue (its scripts' own too) on node2 in the tag's slot; CLUSTER SLOTS on node1, no key.
    for (const c of commands)
      expect([c.node, c.slot]).toEqual(c.args[0] === 'CLUSTER' ? ['node1', undefined] : ['node2', DEFAULT_TAG_SLOT]);
  });

  it("puts each script's lua lines right after their EVAL in the merged capture", () => {
    const commands = timeline.steps.flatMap((s) => s.commands);
    commands.forEach((c, i) => {
      if (c.source !== 'lua') return;
      const before = commands[i - 1]!;
      expect(before.source === 'lua' || before.args[0] === 'EVAL').toBe(true);
      expect(before.node).toBe(c.node);
    });
    // And in time order otherwise: each client line no earlier than the client line before it.
    const sent = commands.filter((c) => c.source === 'client').map((c) => c.time);
    expect(sent).toEqual([...sent].sort());
  });
});

describe('a plain queue (default, no hash tag) on a 3-master cluster', () => {
  const { configuration, findings } = explainNodeCaptures(nodes('plain'));

  it('finds that its keys span slots, and says what reached Redis: the delayed dispatch, nothing else', () => {
    const [q] = configuration.cluster!.queues;
    expect(q!.keys.map((k) => k.slot)).toEqual(PLAIN_SLOTS);
    // The ZADD of later() (merged line 3, after both processes' CLUSTER SLOTS) reached node1.
    expect(q!.keys.map((k) => k.nodes.map((n) => `${n.node}@${n.line}`))).toEqual([[], ['node1@3'], [], []]);
    const spans = findings.filter((f) => f.kind === 'keys-span-slots');
    expect(spans).toHaveLength(1);
    const [f] = spans;
    expect(f!.lines).toEqual([3]);
    expect(f!.certainty).toBe('likely');
    // What the app saw (events.jsonl: the dispatcher's dispatch.threw, the worker's exception.reported).
    expect(f!.title).toContain('ErrorException "RedisCluster::eval(): All keys do not map to the same slot"');
    expect(f!.title).toContain("a delayed dispatch's ZADD to :delayed");
    expect(f!.alternatives.map((a) => a.kind)).toEqual(['cross-slot-refused-by-server', 'keys-span-slots']);
  });

  it('shows no worker at all: its every migrate was refused before reaching Redis', () => {
    expect(configuration.connections.map((c) => [c.node, c.role])).toEqual([
      ['node1', 'other'],
      ['node1', 'other'],
      ['node1', 'dispatcher'],
    ]);
  });

  it("reads one node's file showing CLUSTER SLOTS as a cluster client's, and finds the same", () => {
    const one = explainCapture(fixture('cluster/plain/node1.txt'));
    expect(one.configuration.cluster!.nodes).toEqual([]);
    expect(one.timeline.scenario.description).toContain('what it sent to the other nodes is not in this capture');
    expect(one.findings.filter((f) => f.kind === 'keys-span-slots').map((f) => f.lines)).toEqual([[4]]);
  });

  it('is no finding on a single server: a plain queue there is fine', () => {
    const single = explainCapture(fixture('laravel8-ran-twice.txt'));
    expect(single.configuration.cluster).toBeUndefined();
    expect(single.findings.filter((f) => f.kind === 'keys-span-slots')).toEqual([]);
    expect(
      single.timeline.steps.flatMap((s) => s.commands).every((c) => c.node === undefined && c.slot === undefined),
    ).toBe(true);
  });
});

describe('three workers polling three queues on three nodes at once (sleep 0)', () => {
  // A window of 4 ms cut from a real capture (README.md): the three daemons' polls interleave
  // within microseconds, so another node's command often falls, in time, between an EVAL and the
  // lines its script ran.
  const { timeline } = explainNodeCaptures(nodes('three-queues'));
  const commands = timeline.steps.flatMap((s) => s.commands);
  // CLUSTER KEYSLOT on the real cluster: mail 4247 (node1), default 5718 (node2), low 15214 (node3).
  const home: Record<string, [string, number]> = {
    '{mail}': ['node1', 4247],
    '{default}': ['node2', 5718],
    '{low}': ['node3', 15214],
  };

  it("exercises the rule: script lines later in time than the next node's command", () => {
    const crossings = commands.filter(
      (c, i) =>
        c.source === 'lua' &&
        commands[i + 1]?.source === 'client' &&
        commands[i + 1]!.node !== c.node &&
        commands[i + 1]!.time < c.time,
    );
    expect(crossings.length).toBeGreaterThan(0);
  });

  it("keeps each script's lines right after their EVAL, in its step, on its node", () => {
    for (const step of timeline.steps)
      step.commands.forEach((c, i) => {
        if (c.source !== 'lua') return;
        const before = step.commands[i - 1]!;
        expect(before.source === 'lua' || before.args[0] === 'EVAL').toBe(true);
        expect(before.node).toBe(c.node);
      });
  });

  it("puts each worker's polls on its queue's node and slot: migrate delayed, migrate reserved, pop", () => {
    for (const step of timeline.steps) {
      const queue = /on (\{\w+\})$/.exec(step.title)?.[1];
      expect(queue).toBeDefined();
      for (const c of step.commands) expect([c.node, c.slot]).toEqual(home[queue!]);
      expect(step.actor.endsWith(`@${home[queue!]![0]}`)).toBe(true);
      const ops = step.commands.filter((c) => c.source === 'client').map((c) => c.operation);
      expect(['migrate delayed', 'migrate reserved', 'pop'].join()).toContain(ops.join());
    }
  });
});

describe('a plain queue with no prefix: its keys on all three nodes', () => {
  it('finds its keys span slots, and the delayed dispatch reached node3', () => {
    const { configuration, findings } = explainNodeCaptures(nodes('plain-no-prefix'));
    const [q] = configuration.cluster!.queues;
    // CLUSTER KEYSLOT of queues:default, :delayed, :reserved, :notify on the real cluster.
    expect([q!.prefix, ...q!.keys.map((k) => k.slot)]).toEqual(['', 11255, 15370, 5202, 7628]);
    // later()'s ZADD to queues:default:delayed (merged line 3): slot 15370 is node3's (10923-16383).
    expect(q!.keys.map((k) => k.nodes.map((n) => `${n.node}@${n.line}`))).toEqual([[], ['node3@3'], [], []]);
    const spans = findings.filter((f) => f.kind === 'keys-span-slots');
    expect(spans.map((f) => [f.lines, f.title.startsWith('queue default has no hash tag')])).toEqual([[[3], true]]);
  });
});

describe('a capture the engine merged (each line marked @node2, src/redis/cluster-capture.ts)', () => {
  it('reads as the node files do: the same steps, nodes, slots and settings', () => {
    for (const flow of ['hash-tag', 'plain', 'plain-no-prefix', 'three-queues']) {
      const files = nodes(flow);
      const merged = mergeNodeLines(
        files.map((n) => ({ node: n.label, lines: n.text.split('\n').filter((l) => l !== '' && l !== 'OK') })),
      );
      const one = explainCapture(merged.join('\n'));
      const three = explainNodeCaptures(files);
      const trace = (e: typeof one) =>
        e.timeline.steps.map((s) => [s.actor, s.title, s.commands.map((c) => [c.node, c.slot, c.args[0]])]);
      expect(trace(one)).toEqual(trace(three));
      expect(one.findings).toEqual(three.findings);
      expect(one.configuration.cluster?.merged).toBe(true);
      expect(one.configuration.cluster?.queues).toEqual(three.configuration.cluster?.queues);
    }
  });
});
