// A stop entry with `restart`: SIGTERM, the process finishes its job and exits (Worker::daemon's
// stopIfNecessary sees $shouldQuit), then supervisord starts the same program again with the
// options changed: same worker name, a new process (a new connection, so SELECT again) that runs
// with the new --sleep. Derived by hand from Laravel 5.7's Worker::daemon, with sleep 3 → 7.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { useRedis } from '../helpers/run.ts';
import { c, emptyPoll, expectSteps, migrate, payload, popScript, queue, same } from '../helpers/trace.ts';

const redis = useRedis();
const Q = queue('default');
const SELECT = c('SELECT', '0');

describe('stop with restart', () => {
  it('restarts the same worker with its new options once its job is done', async () => {
    const { spec } = parseScenario(
      `
name: inline
title: inline
laravel: "5.7"
until: 17
connections: { redis: { queue: default, retry_after: 90 } }
workers: [{ name: worker-1, sleep: 3 }]
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ run: 10 }] }
timeline:
  - { at: 0, dispatch: J }
  - { at: 1, stop: worker-1, restart: { sleep: 7 } }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    expectSteps(t, [
      { actor: 'dispatcher', t: 0, commands: [SELECT, c('RPUSH', Q.ready, payload({ attempts: 0 }))] },
      {
        actor: 'worker-1',
        t: 0,
        kind: 'pop',
        commands: [
          SELECT,
          ...migrate(Q.delayed, Q.ready, 0),
          ...migrate(Q.reserved, Q.ready, 0),
          ...popScript(Q, 0, 90, payload({ attempts: 1 }, 'r1')),
        ],
      },
      { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
      // SIGTERM at t+1: handle() goes on; nothing is sent.
      { actor: 'worker-1', t: 1, kind: 'stop', commands: [] },
      { actor: 'worker-1', t: 10, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r1'))] },
      // stopIfNecessary: $shouldQuit → Worker::stop; queue:work returns 0.
      { actor: 'worker-1', t: 10, kind: 'stop', commands: [] },
      { actor: 'worker-1', t: 10, kind: 'restart', commands: [] },
      // The new process: its own connection (SELECT), then --sleep=7 between empty polls.
      { actor: 'worker-1', t: 10, kind: 'pop', commands: [SELECT, ...emptyPoll(Q, 10)] },
      { actor: 'worker-1', t: 17, kind: 'pop', commands: emptyPoll(Q, 17) },
    ]);
    const last = t.steps.at(-1)!.state.workers;
    expect(last.map((w) => w.name)).toEqual(['worker-1']);
    expect(last[0]!.generation).toBe(2);
    expect(last[0]!.options).toMatchObject({ sleep: 7 });
    expect(last[0]!.status).toEqual({ kind: 'idle', until: t.start + 24 });
  });

  it('a process killed while its restart is under way is started again, with the new options', async () => {
    // --timeout=5 and a 10 s handle(): SIGALRM kills the process at t+5 (5.7: kill only, nothing
    // sent) after the SIGTERM at t+1; supervisord's restart goes on, with --timeout=20.
    const { spec } = parseScenario(
      `
name: inline
title: inline
laravel: "5.7"
until: 5
connections: { redis: { queue: default, retry_after: 90 } }
workers: [{ name: worker-1, timeout: 5 }]
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ run: 10 }] }
timeline:
  - { at: 0, dispatch: J }
  - { at: 1, stop: worker-1, restart: { timeout: 20 } }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    expectSteps(t, [
      { actor: 'dispatcher', t: 0, commands: [SELECT, c('RPUSH', Q.ready, payload({ attempts: 0 }))] },
      {
        actor: 'worker-1',
        t: 0,
        kind: 'pop',
        commands: [
          SELECT,
          ...migrate(Q.delayed, Q.ready, 0),
          ...migrate(Q.reserved, Q.ready, 0),
          ...popScript(Q, 0, 90, payload({ attempts: 1 }, 'r1')),
        ],
      },
      { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
      { actor: 'worker-1', t: 1, kind: 'stop', commands: [] },
      { actor: 'worker-1', t: 5, kind: 'kill', commands: [] },
      { actor: 'worker-1', t: 5, kind: 'restart', commands: [] },
      // J#1 stays in :reserved until t+90: the new process finds nothing.
      { actor: 'worker-1', t: 5, kind: 'pop', commands: [SELECT, ...emptyPoll(Q, 5)] },
    ]);
    const w = t.steps.at(-1)!.state.workers[0]!;
    expect([w.generation, w.options.timeout]).toEqual([2, 20]);
  });

  it('a kill from outside while a restart is under way: supervisord still starts the program again', async () => {
    // No restart: given on the kill: the restart under way decides (the SIGTERM alone would not).
    const { spec } = parseScenario(
      `
name: inline
title: inline
laravel: "5.7"
until: 2
connections: { redis: { queue: default, retry_after: 90 } }
workers: [{ name: worker-1 }]
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ run: 10 }] }
timeline:
  - { at: 0, dispatch: J }
  - { at: 1, stop: worker-1, restart: { sleep: 7 } }
  - { at: 2, kill: worker-1 }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    expect(t.steps.map((s) => [s.kind, s.t - t.start])).toEqual([
      ['dispatch', 0],
      ['pop', 0],
      ['process', 0],
      ['stop', 1],
      ['kill', 2],
      ['restart', 2],
      ['pop', 2],
    ]);
    // The new process: a new connection (SELECT), and J#1 waits in :reserved until t+90.
    const sent = t.steps.at(-1)!.commands.filter((c) => c.source === 'client');
    expect(sent.map((c) => c.args[0])).toEqual(['SELECT', 'EVAL', 'EVAL', 'EVAL']);
    const w = t.steps.at(-1)!.state.workers[0]!;
    expect([w.generation, w.options.sleep, w.status]).toEqual([2, 7, { kind: 'idle', until: t.start + 9 }]);
  });
});
