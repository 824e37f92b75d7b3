// lqsim explain on a Redis Cluster's capture, one file per node: how the files are named and merged
// (by MONITOR's time, stable, a file's own order kept, a script's lines with their EVAL), and that
// connections are keyed by node and address. Lines written by hand here, so each rule is seen alone.
import { describe, expect, it } from 'vitest';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { CONFIGURATION_ARGS, isProblem } from '../../src/explain/capture.ts';
import { mergeNodeCaptures, nodeCaptures } from '../../src/explain/cluster-capture.ts';
import { explainNodeCaptures } from '../../src/explain/index.ts';

/** Laravel 8's push script as MONITOR prints it (a first pass reads no arg past its keys). */
const PUSH =
  "-- Push the job onto the queue...\\nredis.call('rpush', KEYS[1], ARGV[1])\\n-- Push a notification onto the \\\"notify\\\" queue...\\nredis.call('rpush', KEYS[2], 1)";

const lines = (nodes: Array<{ label: string; text: string }>) =>
  mergeNodeCaptures(nodes).map((e) => {
    if (isProblem(e)) return `${e.node}:${e.nodeLineNo} problem`;
    return `${e.lineNo} ${e.node}:${e.nodeLineNo} ${e.line.client} ${e.line.args.join(' ')}`;
  });

describe('naming the node captures', () => {
  it('names a node after its file without the extension, or LABEL=FILE', () => {
    const exists = (p: string) => p === 'x=y.txt';
    expect(nodeCaptures(['caps/7101.txt', 'node2=caps/b.log', 'n3=x=y.txt'], exists)).toEqual([
      { file: 'caps/7101.txt', label: '7101' },
      { file: 'caps/b.log', label: 'node2' },
      { file: 'x=y.txt', label: 'n3' },
    ]);
    // A file that exists as written is a file, `=` and all: its name is then no node name.
    expect(() => nodeCaptures(['x=y.txt'], exists)).toThrow('x=y.txt: node name "x=y" is not a name');
  });

  it('refuses a name twice, naming both files', () => {
    expect(() => nodeCaptures(['a/node1.txt', 'b/node1.txt'], () => false)).toThrow(
      "b/node1.txt: node name node1 is a/node1.txt's already: name one with LABEL=FILE",
    );
  });
});

describe('merging the node captures by time', () => {
  it("keeps a script's lua lines right after their EVAL, though another node's line falls between in time", () => {
    const a = [
      'OK',
      '1700000000.000100 [0 127.0.0.1:5000] "EVAL" "return 1" "1" "k"',
      '1700000000.000300 [0 lua] "get" "k"',
      '1700000000.000301 [0 lua] "get" "k2"',
    ].join('\n');
    const b = ['OK', '1700000000.000200 [0 127.0.0.1:5000] "GET" "x"'].join('\n');
    expect(
      lines([
        { label: 'a', text: a },
        { label: 'b', text: b },
      ]),
    ).toEqual([
      '1 a:2 a/127.0.0.1:5000 EVAL return 1 1 k',
      '2 a:3 lua get k',
      '3 a:4 lua get k2',
      '4 b:2 b/127.0.0.1:5000 GET x',
    ]);
  });

  it('keeps file order on equal times, and never reorders a file', () => {
    const a = ['1700000000.000500 [0 127.0.0.1:1] "GET" "a1"', '1700000000.000100 [0 127.0.0.1:1] "GET" "a2"'].join(
      '\n',
    );
    const b = ['1700000000.000500 [0 127.0.0.1:2] "GET" "b1"', '1700000000.000400 [0 127.0.0.1:2] "GET" "b2"'].join(
      '\n',
    );
    // Heads a1 and b1 tie (a's file first); then a2 (earlier than b1); then b1, b2 in b's order.
    expect(
      lines([
        { label: 'a', text: a },
        { label: 'b', text: b },
      ]),
    ).toEqual([
      '1 a:1 a/127.0.0.1:1 GET a1',
      '2 a:2 a/127.0.0.1:1 GET a2',
      '3 b:1 b/127.0.0.1:2 GET b1',
      '4 b:2 b/127.0.0.1:2 GET b2',
    ]);
  });

  it('compares times to the microsecond', () => {
    const a = '1795654968.426062 [0 127.0.0.1:1] "GET" "later"';
    const b = '1795654968.426061 [0 127.0.0.1:2] "GET" "sooner"';
    expect(
      lines([
        { label: 'a', text: a },
        { label: 'b', text: b },
      ]).map((l) => l.split(' ').at(-1)),
    ).toEqual(['sooner', 'later']);
  });

  it('keys connections by node and address: the same port on two nodes is two connections', () => {
    // Each node's own queue (a slot lives on one node: {q} on n1, {r} on n2).
    const push = (t: string, q: string) =>
      `${t} [0 127.0.0.1:40000] "ZADD" "queues:{${q}}:delayed" "1700000100" "{\\"id\\":\\"x\\",\\"attempts\\":0}"`;
    const explained = explainNodeCaptures([
      { label: 'n1', text: push('1700000000.000001', 'q') },
      { label: 'n2', text: push('1700000000.000002', 'r') },
    ]);
    const connections = explained.configuration.connections.map((c) => [c.client, c.node, c.role]);
    expect(connections).toEqual([
      ['n1/127.0.0.1:40000', 'n1', 'dispatcher'],
      ['n2/127.0.0.1:40000', 'n2', 'dispatcher'],
    ]);
    // Each is an actor named with its node; every command carries its node and slot (CLUSTER
    // KEYSLOT q = 11958, r = 7893, asked of a real cluster).
    const commands = explained.timeline.steps.flatMap((s) => s.commands);
    expect(commands.map((c) => [c.actor, c.node, c.slot])).toEqual([
      ['dispatcher-1@n1', 'n1', 11958],
      ['dispatcher-2@n2', 'n2', 7893],
    ]);
  });

  it('merges and numbers alike in the first pass (its args only) and the second (whole lines)', () => {
    // An EVAL whose last arg is not MONITOR's (a non-printable byte): the first pass does not read
    // that far, the second finds it a problem; its script's lines still go with it, after node b's
    // GET that falls between in time.
    const a = [
      `1700000000.000100 [0 127.0.0.1:1] "EVAL" "${PUSH}" "2" "queues:q" "queues:q:notify" "bad\u0001"`,
      '1700000000.000300 [0 lua] "rpush" "queues:q" "bad"',
    ].join('\n');
    const b = '1700000000.000200 [0 127.0.0.1:2] "GET" "x"';
    const order = (wanted?: Parameters<typeof mergeNodeCaptures>[1]) =>
      mergeNodeCaptures(
        [
          { label: 'a', text: a },
          { label: 'b', text: b },
        ],
        wanted,
      ).map((e) => `${e.lineNo} ${e.node}:${e.nodeLineNo}${isProblem(e) ? ' problem' : ''}`);
    expect(order(CONFIGURATION_ARGS)).toEqual(['1 a:1', '2 a:2', '3 b:1']);
    expect(order()).toEqual(['1 a:1 problem', '2 a:2', '3 b:1']);
  });

  it("tells a problem line by its node's file and line", () => {
    const merged = mergeNodeCaptures([
      { label: 'a', text: '1700000000.000001 [0 127.0.0.1:1] "GET" "k"\nnot monitor' },
    ]);
    const problem = merged.find(isProblem);
    expect(problem).toMatchObject({ node: 'a', nodeLineNo: 2, lineNo: 2 });
    expect((merged[0] as CapturedLine).line.client).toBe('a/127.0.0.1:1');
  });

  it('finds no cross-slot queue whose scripts ran: a server not in cluster mode took them', () => {
    // Laravel 8's push script on queue default (no hash tag), prefix none: keys in two slots.
    const push =
      '1700000000.000001 [0 127.0.0.1:1] "EVAL" "-- Push the job onto the queue...\\nredis.call(\'rpush\', KEYS[1], ARGV[1])\\n-- Push a notification onto the \\"notify\\" queue...\\nredis.call(\'rpush\', KEYS[2], 1)" "2" "queues:default" "queues:default:notify" "{}"';
    const zadd = '1700000000.000002 [0 127.0.0.1:1] "ZADD" "queues:default:delayed" "1700000100" "{}"';
    // One node's capture of a cluster client (CLUSTER SLOTS): a cluster's, read alone.
    const slots = '1700000000.000000 [0 127.0.0.1:9] "CLUSTER" "SLOTS"';
    const spans = (text: string) =>
      explainNodeCaptures([{ label: 'a', text: `${slots}\n${text}` }]).findings.filter(
        (f) => f.kind === 'keys-span-slots',
      );
    expect(spans(zadd)).toHaveLength(1);
    expect(spans(`${push}\n${zadd}`)).toEqual([]);
    // Given as two nodes' files, the scripts across slots say they are no cluster's at all.
    expect(() =>
      explainNodeCaptures([
        { label: 'a', text: `${push}\n${zadd}` },
        { label: 'b', text: '' },
      ]),
    ).toThrow(
      /^a, b are not one Redis Cluster's nodes: Laravel's scripts over queue default's keys, in 4 slots, ran \(line 1\)/,
    );
  });
});
