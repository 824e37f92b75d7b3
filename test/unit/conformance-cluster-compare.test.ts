// Conformance on a cluster compares what the normalised traces cannot show: which node saw each
// command, and what the app's dispatch() threw (nodeDifferences, thrownDifferences). Pure.
import { describe, expect, it } from 'vitest';
import { nodeDifferences, thrownDifferences } from '../../src/conformance/compare.ts';
import type { TraceCommand } from '../../src/scenarios/timeline.ts';

const cmd = (step: number, node: string | undefined, ...args: string[]): TraceCommand => ({
  step,
  t: 1700000000,
  actor: 'dispatcher',
  process: 1,
  source: 'client',
  db: 0,
  args,
  time: '1700000000.000001',
  ...(node !== undefined ? { node } : {}),
});

describe('nodeDifferences', () => {
  const tool = [{ commands: [cmd(0, 'node1', 'CLUSTER', 'SLOTS'), cmd(0, 'node2', 'EVAL', 's', '2')] }];

  it('finds none when every command ran on the same node', () => {
    const real = [
      { commands: [cmd(0, 'node1', 'CLUSTER', 'SLOTS')] },
      { commands: [cmd(1, 'node2', 'EVAL', 's', '2')] },
    ];
    expect(nodeDifferences(tool, real)).toEqual([]);
  });

  it('names the command that ran elsewhere, with both nodes', () => {
    const real = [{ commands: [cmd(0, 'node1', 'CLUSTER', 'SLOTS'), cmd(0, 'node3', 'EVAL', 's', '2')] }];
    expect(nodeDifferences(tool, real)).toEqual(['command 2 (EVAL, step 0 / 0) ran on: tool node2, laravel node3']);
  });

  it('a run on one server against a cluster run', () => {
    const real = [{ commands: [cmd(0, undefined, 'CLUSTER', 'SLOTS'), cmd(0, 'node2', 'EVAL', 's', '2')] }];
    expect(nodeDifferences(tool, real)).toEqual([
      'command 1 (CLUSTER, step 0 / 0) ran on: tool node1, laravel the one server',
    ]);
  });

  it('leaves traces of different lengths to the diff', () => {
    expect(nodeDifferences(tool, [{ commands: [cmd(0, 'node3', 'CLUSTER', 'SLOTS')] }])).toEqual([]);
  });
});

describe('thrownDifferences', () => {
  const message = 'RedisCluster::eval(): All keys do not map to the same slot';
  const jobs = [{ outcome: 'not-queued' }, { outcome: 'pending' }] as never;
  const steps = [{ title: `dispatch SendEmail threw ErrorException: ${message}` }] as never;

  it('agrees when each side has the same dispatches that threw, told alike', () => {
    expect(thrownDifferences({ jobs, steps }, { thrown: [{ step: 0, exception: 'ErrorException', message }] })).toEqual(
      [],
    );
  });

  it('counts them', () => {
    expect(thrownDifferences({ jobs, steps }, { thrown: [] })).toEqual([
      'dispatches that threw to the app: tool 1, laravel 0',
    ]);
  });

  it('names an exception the tool does not tell', () => {
    expect(
      thrownDifferences({ jobs, steps }, { thrown: [{ step: 0, exception: 'RedisClusterException', message: 'x' }] }),
    ).toEqual([`laravel's dispatch threw RedisClusterException "x"; no step of the tool's says so`]);
  });
});
