// A cluster's MONITOR lines: which arguments are keys and their slots (Redis' CRC16 rule, checked
// against `redis-cli cluster keyslot` on Redis 7.0.15), the masters named by lowest slot, and the
// merge of each node's lines into one capture.
import { describe, expect, it } from 'vitest';
import { mergeNodeLines } from '../../src/redis/cluster-capture.ts';
import { nodeOfSlot, nodesFromClusterSlots } from '../../src/redis/cluster-nodes.ts';
import { nodeLine, parseMonitorLine, splitNodeLine } from '../../src/redis/monitor-line.ts';
import { commandKeys, commandSlot, keySlot } from '../../src/redis/slot.ts';

describe('key slots', () => {
  it('hashes a key, or its first non-empty {tag}, as Redis does', () => {
    // `redis-cli -p 7101 cluster keyslot <key>` on this machine's Redis 7.0.15.
    expect(keySlot('a')).toBe(15495);
    expect(keySlot('b')).toBe(3300);
    expect(keySlot('queues:{default}')).toBe(keySlot('default'));
    expect(keySlot('{default}:notify')).toBe(keySlot('default'));
    // An empty tag is no tag: the whole key is hashed.
    expect(keySlot('{}queues')).not.toBe(keySlot(''));
  });

  it('finds the keys of the commands Laravel sends, and whether they share a slot', () => {
    const push = ['EVAL', 'script', '2', 'queues:default', 'queues:default:notify', '{"id":1}'];
    expect(commandKeys(push)).toEqual(['queues:default', 'queues:default:notify']);
    expect(commandSlot(push)).toBe('cross');
    expect(commandSlot(['EVAL', 's', '2', 'queues:{default}', 'queues:{default}:notify', 'p'])).toBe(
      keySlot('default'),
    );
    expect(commandKeys(['BLPOP', 'queues:{default}:notify', '5'])).toEqual(['queues:{default}:notify']);
    expect(commandSlot(['CLUSTER', 'SLOTS'])).toBeNull();
    expect(commandKeys(['ZADD', 'q:delayed', '17', 'p'])).toEqual(['q:delayed']);
  });
});

describe('cluster masters', () => {
  // CLUSTER SLOTS as a 3-master cluster answers it (entries in no particular order).
  const reply = [
    [10923, 16383, ['127.0.0.1', 7003, 'c']],
    [0, 5460, ['127.0.0.1', 7001, 'a']],
    [5461, 10922, ['127.0.0.1', 7002, 'b']],
  ];
  const nodes = nodesFromClusterSlots(reply, (h, p) => `redis://${h}:${p}`);

  it('names them node1.. by lowest slot, whatever their ports', () => {
    expect(nodes.map((n) => [n.label, n.port])).toEqual([
      ['node1', 7001],
      ['node2', 7002],
      ['node3', 7003],
    ]);
    expect(nodeOfSlot(nodes, keySlot('default')).label).toBe('node2'); // 5718
    expect(nodeOfSlot(nodes, 16383).label).toBe('node3');
  });

  it('refuses a map that leaves slots uncovered', () => {
    expect(() => nodesFromClusterSlots(reply.slice(1), (h, p) => `${h}:${p}`)).toThrow(/covers 10923 of 16384/);
  });
});

describe("merging the nodes' MONITOR lines", () => {
  it("orders by time, keeps a script's [lua] lines after their EVAL, and marks each line with its node", () => {
    const merged = mergeNodeLines([
      { node: 'node1', lines: ['1700000000.000100 [0 127.0.0.1:5001] "CLUSTER" "SLOTS"'] },
      {
        node: 'node2',
        lines: [
          '1700000000.000300 [0 127.0.0.1:5002] "EVAL" "s" "1" "{q}"',
          // A script's line can be printed after another node's next command: it stays with its EVAL.
          '1700000000.000500 [0 lua] "rpush" "{q}" "p"',
        ],
      },
      { node: 'node3', lines: ['1700000000.000400 [0 127.0.0.1:5003] "GET" "x"'] },
    ]);
    expect(merged.map((l) => splitNodeLine(l).node)).toEqual(['node1', 'node2', 'node2', 'node3']);
    expect(parseMonitorLine(merged[2]!)).toMatchObject({ node: 'node2', client: 'lua', args: ['rpush', '{q}', 'p'] });
  });

  it("keeps node order for equal times and a node's own order always", () => {
    const at = '1700000000.000100';
    const merged = mergeNodeLines([
      { node: 'node2', lines: [`${at} [0 a:1] "GET" "b"`] },
      { node: 'node1', lines: [`${at} [0 a:1] "GET" "c"`, `${at} [0 a:1] "GET" "d"`] },
    ]);
    expect(merged).toEqual([
      nodeLine('node2', `${at} [0 a:1] "GET" "b"`),
      nodeLine('node1', `${at} [0 a:1] "GET" "c"`),
      nodeLine('node1', `${at} [0 a:1] "GET" "d"`),
    ]);
  });

  it('parses a plain line as before, with no node', () => {
    expect(parseMonitorLine('1700000000.000100 [0 127.0.0.1:5001] "PING"').node).toBeUndefined();
  });
});
