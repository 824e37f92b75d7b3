// Conformance on a cluster: the seed connection phpredis' RedisCluster constructor opens, sends
// CLUSTER SLOTS on and closes before anyone can name it is given to the process whose CLIENT
// SETNAME (harness.php names each master's connection right after the constructor) follows it on
// the seed node. The lines are in the shape conformance/laravel/captures-cluster/ recorded
// (case setname): node1's CLUSTER SLOTS from c1, then SETNAME from c2; node2's SETNAME and EVAL.
import { describe, expect, it } from 'vitest';
import { AddressBook } from '../../src/conformance/address-book.ts';
import { actorConnectionName } from '../../src/redis/connections.ts';

const RUN = 'ab12cd34';
const web = actorConnectionName(RUN, 'dispatcher', 1);
const worker = actorConnectionName(RUN, 'worker-1', 1);
const line = (node: string, port: number, ...args: string[]) =>
  `@${node} 1700000000.000001 [0 127.0.0.1:${port}] ${args.map((a) => `"${a}"`).join(' ')}`;

function book(): AddressBook {
  return new AddressBook([], RUN, 'node1');
}

describe("the seed connection's CLUSTER SLOTS", () => {
  it('belongs to the process whose SETNAME comes next on the seed node', () => {
    const b = book();
    b.learnSeedConnections([
      line('node1', 40001, 'CLUSTER', 'SLOTS'),
      line('node2', 40002, 'CLIENT', 'SETNAME', web),
      line('node1', 40003, 'CLIENT', 'SETNAME', web),
      line('node2', 40002, 'EVAL', 'return 1', '0'),
      line('node1', 40004, 'CLUSTER', 'SLOTS'),
      line('node1', 40005, 'CLIENT', 'SETNAME', worker),
    ]);
    expect(b.ownerOf('node1/127.0.0.1:40001')).toEqual({ actor: 'dispatcher', process: 1 });
    expect(b.ownerOf('node1/127.0.0.1:40004')).toEqual({ actor: 'worker-1', process: 1 });
    // Only the seed connections: the named ones are learned from CLIENT LIST.
    expect(b.ownerOf('node1/127.0.0.1:40003')).toBeUndefined();
    expect(b.ownerOf('node2/127.0.0.1:40002')).toBeUndefined();
  });

  it("is nobody's without a SETNAME of this run after it, or on another node", () => {
    const b = book();
    b.learnSeedConnections([
      line('node1', 40001, 'CLUSTER', 'SLOTS'),
      line('node1', 40003, 'CLIENT', 'SETNAME', 'lqsim:ffffffff:dispatcher:1'),
      line('node2', 40006, 'CLUSTER', 'SLOTS'),
      line('node2', 40007, 'CLIENT', 'SETNAME', web),
    ]);
    expect(b.ownerOf('node1/127.0.0.1:40001')).toBeUndefined();
    expect(b.ownerOf('node2/127.0.0.1:40006')).toBeUndefined();
  });

  it('on one server (no seed node) gives nothing away', () => {
    const b = new AddressBook([], RUN);
    b.learnSeedConnections(['1700000000.000001 [0 127.0.0.1:40001] "CLUSTER" "SLOTS"']);
    expect(b.ownerOf('127.0.0.1:40001')).toBeUndefined();
  });
});
