// The `kill` entry: SIGKILL to a worker process from outside, against a real redis-server, with
// the expected commands derived by hand from Laravel 8.83 (LuaScripts of 5.8+ with the :notify
// list; PhpRedisConnector selects the db on every new connection; Worker::daemon). A process
// killed from outside sends nothing more, and no handler of Laravel's runs; supervisord starts a
// new process, which is a new connection (SELECT again) and knows nothing of the job.
import { describe, expect, it } from 'vitest';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import type { Arg, CmdPattern, StepPattern } from '../helpers/trace.ts';
import { c, expectSteps, payload, same } from '../helpers/trace.ts';
import { runShipped, useRedis } from '../helpers/run.ts';
import { wire } from '../helpers/wire-8.ts';

const redis = useRedis();
const SELECT = c('SELECT', '0');
// The 8.x wire with retry_after 600 (test/helpers/wire-8.ts).
const { Q, push, poll: wirePoll } = wire('8', { retryAfter: 600 });
/** RedisQueue::pop at t: `moved` are the expired reservations migrated back from :reserved. */
const poll = (t: number, o: { moved?: Arg[]; reserved?: Arg } = {}): CmdPattern[] =>
  wirePoll(t, { expired: o.moved, reserved: o.reserved });

describe('killed-mid-job (shipped): SIGKILL from outside while handle() runs', () => {
  it('sends nothing at the kill; the new process polls on a new connection until retry_after; then attempt 2 runs', async () => {
    const t = await runShipped('killed-mid-job', redis());
    const emptyPolls: StepPattern[] = [180, 240, 300, 360, 420, 480, 540].map((s) => ({
      actor: 'worker-1',
      t: s,
      kind: 'pop',
      commands: poll(s),
    }));
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [SELECT, ...push('p')],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...poll(0, { reserved: payload({ attempts: 1 }, 'r1') })],
        },
        { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
        // SIGKILL at t+120: no catch, finally or timeout handler: not one command.
        { actor: 'worker-1', t: 120, kind: 'kill', commands: [] },
        { actor: 'worker-1', t: 120, kind: 'restart', commands: [] },
        // The new process: a new phpredis connection selects the db again; r1 (score t+600) stays.
        { actor: 'worker-1', t: 120, kind: 'pop', commands: [SELECT, ...poll(120)] },
        ...emptyPolls,
        // t+600: the reservation has expired: migrate moves r1 back, the pop reserves attempts 2.
        {
          actor: 'worker-1',
          t: 600,
          kind: 'pop',
          commands: poll(600, { moved: [same('r1')], reserved: payload({ attempts: 2 }, 'r2') }),
        },
        { actor: 'worker-1', t: 600, kind: 'process', commands: [] },
        // $tries = 3: attempt 2 runs 60 s and succeeds: CallQueuedHandler deletes the reserved copy.
        { actor: 'worker-1', t: 660, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r2'))] },
      ],
      laravel8,
    );
    const killed = t.steps[3]!.state;
    expect(killed.workers[0]!.status).toEqual({ kind: 'killed', job: 'ImportCsv#1' });
    expect(killed.queues[0]!.reserved).toMatchObject([{ job: 'ImportCsv#1', attempts: 1, score: t.start + 600 }]);
    expect(t.steps[5]!.state.workers[0]!.generation).toBe(2);
    expect(t.jobs[0]).toMatchObject({ outcome: 'succeeded', executions: 2 });
    // The commands of the second process say so in every export (TraceCommand.process).
    expect(new Set(t.steps[1]!.commands.map((x) => x.process))).toEqual(new Set([1]));
    expect(new Set(t.steps[5]!.commands.map((x) => x.process))).toEqual(new Set([2]));
  });
});

async function inline(yaml: string): Promise<Timeline> {
  return runScenario(parseScenario(yaml, 'inline.yaml').spec, { redis: redis() });
}

describe('kill: where the process is, and what supervisord does', () => {
  it('restart: false leaves the worker dead; a kill of a process that exited kills nothing', async () => {
    const t = await inline(`
name: inline
title: inline
laravel: "8"
workers:
  - { name: worker-1, sleep: 10 }
  - { name: worker-2, once: true }
timeline:
  - { at: 5, kill: worker-1, restart: false }
  - { at: 6, kill: worker-2 }
`);
    const titles = t.steps.map((s) => `${s.actor}@${s.t - t.start} ${s.kind}: ${s.title}`);
    expect(titles).toEqual([
      'worker-1@0 pop: pop: no job on default; sleeping 10s (--sleep)',
      'worker-2@0 pop: pop: no job on default; sleeping 3s (--sleep)',
      'worker-2@3 stop: worker-2 exits after one poll that found no job (--once)',
      'worker-1@5 kill: SIGKILL to worker-1 (from outside): the process dies while idle',
      'worker-2@6 kill: SIGKILL to worker-2: nothing to kill, it exited (--once)',
    ]);
    expect(t.steps.at(-1)!.state.workers.map((w) => w.status.kind)).toEqual(['killed', 'stopped']);
  });

  it('refuses a kill at or before the worker starts: there is no process yet', () => {
    expect(() =>
      parseScenario(
        `
name: inline
title: inline
workers: [{ name: worker-1, start: 10 }]
timeline:
  - { at: 10, kill: worker-1 }
`,
        'inline.yaml',
      ),
    ).toThrow(/inline\.yaml:6:\d+: timeline\.0\.at: worker-1 starts at 10: a kill at 10 finds no process/);
  });

  it('with --tries=1 the job fails when popped again after retry_after, and the narration names the kill from outside, not the timeout', async () => {
    const { spec } = parseScenario(
      `
name: inline
title: inline
laravel: "8"
connections:
  redis: { retry_after: 60 }
workers:
  - { name: worker-1, tries: 1, timeout: 500, sleep: 30 }
jobs:
  Report: { class: App\\Jobs\\Report, attempts: [{ run: 300 }] }
timeline:
  - { at: 0, dispatch: Report }
  - { at: 10, kill: worker-1 }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    // Polls of the new process at t+10, t+40, t+70: the reservation (t+0 + 60) has expired by
    // t+70, so it is migrated back, popped with attempts 2 > tries 1, and failed before it runs.
    const fail = t.steps.find((s) => s.kind === 'fail')!;
    expect(fail.t - t.start).toBe(70);
    expect(fail.title).toBe('Report#1 attempt 2 > tries 1: MaxAttemptsExceededException before it runs');
    expect(fail.explain).toMatch(/^This is how a job whose worker was killed from outside \(SIGKILL/);
  });
});
