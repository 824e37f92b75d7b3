// The documented start order at one virtual time (src/scenarios/entries/index.ts startOrder):
// dispatches and stops first, then Queue::size calls, then worker processes, whatever the order
// in the file. Expected traces derived by hand from Laravel 5.7 (Predis: SELECT on connect;
// RedisQueue::pushRaw is an RPUSH; RedisQueue::size runs LuaScripts::size over the three keys).
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { useRedis } from '../helpers/run.ts';
import { c, evalScript, expectSteps, lua, payload, queue } from '../helpers/trace.ts';

const redis = useRedis();
const Q = queue('default');

describe('entries at the same virtual second', () => {
  it('a size written before a dispatch still runs after it, and counts the job', async () => {
    const { spec } = parseScenario(
      `
name: inline
title: inline
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 5, size: default }
  - { at: 5, dispatch: J }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    expectSteps(t, [
      {
        actor: 'dispatcher',
        t: 5,
        kind: 'dispatch',
        commands: [c('SELECT', '0'), c('RPUSH', Q.ready, payload({ attempts: 0 }))],
      },
      {
        actor: 'dispatcher',
        t: 5,
        kind: 'size',
        commands: [
          c('SELECT', '0'),
          ...evalScript(
            'size',
            [Q.ready, Q.delayed, Q.reserved],
            [],
            [lua('llen', Q.ready), lua('zcard', Q.delayed), lua('zcard', Q.reserved)],
          ),
        ],
      },
    ]);
    expect(t.steps[1]!.title).toBe("Queue::size('default') = 1");
  });

  it('a worker starting at the second of a dispatch polls after it, and finds the job', async () => {
    const { spec } = parseScenario(
      `
name: inline
title: inline
workers: [{ name: worker-1, start: 3 }]
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 3, dispatch: J }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    expect(t.steps.slice(0, 2).map((s) => [s.actor, s.t - t.start, s.kind])).toEqual([
      ['dispatcher', 3, 'dispatch'],
      ['worker-1', 3, 'pop'],
    ]);
    expect(t.steps[1]!.title).toMatch(/^pop: reserved J#1 \(attempts 1\)/);
  });
});
