// The documented start order at one virtual time (src/scenarios/entries/index.ts startOrder):
// dispatches and stops first, then Queue::size calls, then worker processes, whatever the order
// in the file. Expected traces derived by hand from Laravel 5.7 (Predis: SELECT on connect;
// RedisQueue::pushRaw is an RPUSH; RedisQueue::size runs LuaScripts::size over the three keys).
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { secondsBetween } from '../../src/sim/clock.ts';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import { runShipped, useRedis } from '../helpers/run.ts';
import { at, c, evalScript, expectSteps, lua, payload, queue, same } from '../helpers/trace.ts';

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

// Order within one second: `at`, a worker's `start` and `until` count milliseconds. Derived by hand
// from Laravel 8.83: PhpRedisConnector selects the db on every new connection; RedisQueue::pop
// migrates :delayed and :reserved (LuaScripts::migrateExpiredJobs, KEYS from, queue, queue:notify;
// ARGV now), then retrieveNextJob runs LuaScripts::pop (KEYS queue, :reserved, :notify; ARGV
// availableAt(retry_after)); with block_for and nothing popped, BLPOP queue:notify block_for, and
// when that returns a notification, the pop script once more (retrieveNextJob($queue, false)).
// Every time Laravel sends is InteractsWithTime::currentTime()/availableAt(): Carbon's timestamp,
// PHP's time(), a whole second: the floor of the instant. What a process waits for (Worker::sleep,
// pcntl_alarm, the BLPOP timeout, handle()'s run) counts from the exact instant.
describe('instants within one second: the order changes, the seconds Laravel sends do not', () => {
  const P = 'laravel_database_queues:default';
  const D = { ready: P, delayed: `${P}:delayed`, reserved: `${P}:reserved`, notify: `${P}:notify` };
  const R = 'laravel_database_queues:reports';
  const Rq = { ready: R, delayed: `${R}:delayed`, reserved: `${R}:reserved`, notify: `${R}:notify` };
  type Keys = typeof D;
  const SELECT = c('SELECT', '0');
  /** LuaScripts::migrateExpiredJobs at `now` (whole seconds after the start), finding nothing. */
  const migrate8 = (q: Keys, from: string, now: number) =>
    evalScript(
      'migrateExpiredJobs',
      [from, q.ready, q.notify],
      [at(now)],
      [lua('zrangebyscore', from, '-inf', at(now))],
    );
  /** LuaScripts::pop with ARGV now + 90; `reserved` binds the cjson copy it ZADDs. */
  const pop8 = (q: Keys, now: number, reserved?: string) =>
    evalScript(
      'pop',
      [q.ready, q.reserved, q.notify],
      [at(now + 90)],
      reserved
        ? [
            lua('lpop', q.ready),
            lua('zadd', q.reserved, at(now + 90), payload({ attempts: 1 }, reserved)),
            lua('lpop', q.notify),
          ]
        : [lua('lpop', q.ready)],
    );
  /** RedisQueue::pop: migrate :delayed, migrate :reserved, the pop script, all at `now`. */
  const poll8 = (q: Keys, now: number, reserved?: string) => [
    ...migrate8(q, q.delayed, now),
    ...migrate8(q, q.reserved, now),
    ...pop8(q, now, reserved),
  ];
  /** LuaScripts::push: RPUSH the payload, RPUSH a 1 onto :notify. */
  const push8 = (q: Keys, bind: string) =>
    evalScript(
      'push',
      [q.ready, q.notify],
      [payload({ attempts: 0 }, bind)],
      [lua('rpush', q.ready, same(bind)), lua('rpush', q.notify, '1')],
    );

  it('block-for-wakeup (shipped): a push at t+0.5 wakes the BLPOP at once; a --once worker at t+4.5 runs after the one that exited at t+4', async () => {
    const t = await runShipped('block-for-wakeup', redis());
    expectSteps(
      t,
      [
        // t+0: worker-1's first poll finds nothing; block_for 5 → BLPOP :notify 5 (until t+5).
        { actor: 'worker-1', t: 0, kind: 'block', commands: [SELECT, ...poll8(D, 0), c('BLPOP', D.notify, '5')] },
        // t+0.5: the web request's own connection, then the push script.
        { actor: 'dispatcher', t: 0.5, kind: 'dispatch', commands: [SELECT, ...push8(D, 'p1')] },
        // The push's 1 on :notify ends the BLPOP at t+0.5: retrieveNextJob($queue, false) runs the
        // pop script once more, no migrate. Its ARGV is time() + 90 = t+0 + 90, not t+90.5.
        { actor: 'worker-1', t: 0.5, kind: 'pop', commands: pop8(D, 0, 'r1') },
        { actor: 'worker-1', t: 0.5, kind: 'process', commands: [] },
        // handle() runs 2 s from t+0.5: CallQueuedHandler deletes the reserved copy at t+2.5.
        { actor: 'worker-1', t: 2.5, kind: 'delete', commands: [c('ZREM', D.reserved, same('r1'))] },
        // The next poll, at t+2.5, sends time() = t+2; nothing, so BLPOP again (until t+7.5).
        { actor: 'worker-1', t: 2.5, kind: 'block', commands: [...poll8(D, 2), c('BLPOP', D.notify, '5')] },
        // t+3: the dispatch starts before worker-a, which starts at the same instant.
        { actor: 'dispatcher', t: 3, kind: 'dispatch', commands: [SELECT, ...push8(Rq, 'b1'), ...push8(Rq, 'b2')] },
        { actor: 'worker-a', t: 3, kind: 'pop', commands: [SELECT, ...poll8(Rq, 3, 'a1')] },
        { actor: 'worker-a', t: 3, kind: 'process', commands: [] },
        { actor: 'worker-a', t: 4, kind: 'delete', commands: [c('ZREM', Rq.reserved, same('a1'))] },
        // Worker::runNextJob returns: queue:work --once exits, sending nothing.
        { actor: 'worker-a', t: 4, kind: 'stop', commands: [] },
        // worker-b starts at t+4.5, after worker-a has gone, in the same second: time() is t+4.
        { actor: 'worker-b', t: 4.5, kind: 'pop', commands: [SELECT, ...poll8(Rq, 4, 'a2')] },
        { actor: 'worker-b', t: 4.5, kind: 'process', commands: [] },
        { actor: 'worker-b', t: 5.5, kind: 'delete', commands: [c('ZREM', Rq.reserved, same('a2'))] },
        { actor: 'worker-b', t: 5.5, kind: 'stop', commands: [] },
      ],
      laravel8,
    );
    expect(t.steps[2]!.title).toBe(
      "pop: a push's notification woke the BLPOP after 0.5s, so it popped again: reserved PublishPost#1 (attempts 1) until t+90s (retry_after 90s)",
    );
    // The state shows the exact instants a process waits for: the BLPOP ends at t+7.5 at the latest.
    expect(t.steps[5]!.state.workers[0]!.status).toEqual({ kind: 'blocked', queue: 'default', until: t.start + 7.5 });
    expect(t.steps[3]!.state.workers[0]!.status).toMatchObject({ kind: 'running', since: t.start + 0.5 });
    expect(t.steps[12]!.state.workers.map((w) => w.status.kind)).toEqual(['blocked', 'stopped', 'running']);
    // Nothing Laravel sent has a fraction.
    for (const s of t.steps)
      for (const cmd of s.commands) for (const a of cmd.args) expect(a).not.toMatch(/^17\d{8}\.\d+$/);
  });

  it('a worker started at t+0.5 is alarmed at t+10.5 (pcntl_alarm counts from the instant); the restarted process sends t+10', async () => {
    const { spec } = parseScenario(
      `
name: inline
title: inline
laravel: "8"
connections:
  redis: { retry_after: 30 }
workers: [{ name: worker-1, timeout: 10, start: 0.5 }]
jobs:
  Stuck: { class: App\\Jobs\\Stuck, attempts: [{ run: 30 }] }
  Quick: { class: App\\Jobs\\Quick }
timeline:
  - { at: 0, dispatch: Stuck }
  - { at: 10.25, dispatch: Quick }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    const pop30 = (now: number, reserved?: string) =>
      evalScript(
        'pop',
        [D.ready, D.reserved, D.notify],
        [at(now + 30)],
        reserved
          ? [
              lua('lpop', D.ready),
              lua('zadd', D.reserved, at(now + 30), payload({ attempts: 1 }, reserved)),
              lua('lpop', D.notify),
            ]
          : [lua('lpop', D.ready)],
      );
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, kind: 'dispatch', commands: [SELECT, ...push8(D, 'p1')] },
        // Polls at t+0.5 with time() = t+0: the reservation's score is t+30.
        {
          actor: 'worker-1',
          t: 0.5,
          kind: 'pop',
          commands: [SELECT, ...migrate8(D, D.delayed, 0), ...migrate8(D, D.reserved, 0), ...pop30(0, 'r1')],
        },
        // registerTimeoutHandler after the pop: pcntl_alarm(10) at t+0.5 → SIGALRM at t+10.5,
        // before handle() (30 s) returns.
        { actor: 'worker-1', t: 0.5, kind: 'process', commands: [] },
        { actor: 'dispatcher', t: 10.25, kind: 'dispatch', commands: [SELECT, ...push8(D, 'p2')] },
        // The handler: --tries=1 (8.x default) and attempts 1, so markJobAsFailedIfWillExceedMaxAttempts
        // fails it (FailingJob: ZREM of the reserved copy), then Worker::kill.
        { actor: 'worker-1', t: 10.5, kind: 'kill', commands: [c('ZREM', D.reserved, same('r1'))] },
        { actor: 'worker-1', t: 10.5, kind: 'restart', commands: [] },
        // The new process polls at t+10.5, after the dispatch at t+10.25, with time() = t+10.
        {
          actor: 'worker-1',
          t: 10.5,
          kind: 'pop',
          commands: [SELECT, ...migrate8(D, D.delayed, 10), ...migrate8(D, D.reserved, 10), ...pop30(10, 'r2')],
        },
        { actor: 'worker-1', t: 10.5, kind: 'delete', commands: [c('ZREM', D.reserved, same('r2'))] },
      ],
      laravel8,
    );
    expect(t.steps[2]!.title).toBe('process: Stuck#1 attempt 1 starts; handle() runs 30s (the 10s alarm fires first)');
    expect(t.steps[2]!.explain).toMatch(/the alarm fires at t\+10\.5s/);
    // failed_jobs.failed_at is Laravel's Date::now(): the whole second.
    expect(t.failed.map((f) => f.failedAt - t.start)).toEqual([10]);
  });

  it('whole seconds cannot say "after it exited": a process starting at t+4 goes before one already running that wakes at t+4', async () => {
    const yaml = (start: number) => `
name: inline
title: inline
laravel: "8"
workers:
  - { name: worker-a, once: true }
  - { name: worker-b, once: true, start: ${start} }
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ run: 4 }] }
timeline:
  - { at: 0, dispatch: J, count: 2 }
`;
    const order = async (start: number) => {
      const t = await runScenario(parseScenario(yaml(start), 'inline.yaml').spec, { redis: redis() });
      return t.steps.map((s) => `${s.actor}@${secondsBetween(t.start, s.t)} ${s.kind}`);
    };
    // worker-b's start is scheduled when the run begins; worker-a's wake-up from handle() (4 s from
    // t+0) is scheduled at t+0, later, so at t+4 worker-b polls while worker-a still runs its job.
    // Each then goes on in a new step at the same instant (scheduled after the other's pending one):
    // worker-a's delete, worker-b's process, worker-a's exit.
    expect(await order(4)).toEqual([
      'dispatcher@0 dispatch',
      'worker-a@0 pop',
      'worker-a@0 process',
      'worker-b@4 pop',
      'worker-a@4 delete',
      'worker-b@4 process',
      'worker-a@4 stop',
      'worker-b@8 delete',
      'worker-b@8 stop',
    ]);
    expect(await order(4.5)).toEqual([
      'dispatcher@0 dispatch',
      'worker-a@0 pop',
      'worker-a@0 process',
      'worker-a@4 delete',
      'worker-a@4 stop',
      'worker-b@4.5 pop',
      'worker-b@4.5 process',
      'worker-b@8.5 delete',
      'worker-b@8.5 stop',
    ]);
  });
});
