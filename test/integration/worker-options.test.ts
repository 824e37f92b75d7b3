// queue:work's --backoff lists, --max-jobs, --max-time, --stop-when-empty and --rest, against a real
// redis-server, with the expected commands derived by hand from Laravel's source, never from the
// tool's output:
// - Worker::daemon (Debian's 8.83 Queue/Worker.php:127-195; Queue/Worker.php@v13.26.1:218-293):
//   `[$startTime, $jobsProcessed] = [hrtime(true) / 1e9, 0]`; per loop: getNextJob,
//   registerTimeoutHandler($job), then `$jobsProcessed++; runJob; if ($options->rest > 0)
//   $this->sleep($options->rest)` or `$this->sleep($options->sleep)`, resetTimeoutHandler, and
//   stopIfNecessary (8.83 :294-310): shouldQuit, memory, queue:restart, `stopWhenEmpty &&
//   is_null($job)`, `maxTime && hrtime(true) / 1e9 - $startTime >= maxTime`, `maxJobs &&
//   $jobsProcessed >= maxJobs`; a stop returns 0 from queue:work.
// - Worker::calculateBackoff (8.83 :591-601): explode(',', job backoff() ?? $options->backoff),
//   `(int) ($backoff[$job->attempts() - 1] ?? last($backoff))`.
// - The wire of 8.83 (5.8+ scripts with :notify; phpredis SELECT 0 on every connection; prefix
//   laravel_database_) and of 13.x (the same, migrateExpiredJobs with ARGV[2] = -1 and
//   `limit 0 -1`; prefix laravel-database-): reference laravel-versions.md §1.1, §1.4.
// - What the supervisor does after a clean exit is the tool's documented rule (docs/scenarios.md,
//   "Writing a scenario"): a new process after --max-jobs / --max-time when `restart`, none after
//   --stop-when-empty.
import { describe, expect, it } from 'vitest';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import { laravel57 } from '../../src/sim/profiles/laravel-5.7.ts';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import * as t57 from '../helpers/trace.ts';
import { c, expectSteps, payload, same } from '../helpers/trace.ts';
import { wire } from '../helpers/wire-8.ts';
import { useRedis } from '../helpers/run.ts';

const redis = useRedis();
const SELECT = c('SELECT', '0');

async function run(yaml: string): Promise<Timeline> {
  return runScenario(parseScenario(yaml, 'inline.yaml').spec, { redis: redis() });
}

describe.each(['8', '13'] as const)('Laravel %s', (laravel) => {
  const w = wire(laravel);

  it('--backoff=1,5,10: attempt N waits backoff[N-1], the last value repeating; --tries=5 fails the fifth', async () => {
    const t = await run(`
name: inline
title: inline
laravel: "${laravel}"
workers:
  - { name: worker-1, tries: 5, sleep: 5, backoff: [1, 5, 10] }
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ throw: down }] }
timeline:
  - { at: 0, dispatch: J }
`);
    // calculateBackoff: attempts 1 → "1", 2 → "5", 3 → "10", 4 → none, so last(): "10".
    // Polls every --sleep=5 s: a release due at t+1 is popped at t+5, t+10's at t+10, t+20's at t+20.
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, kind: 'dispatch', commands: [SELECT, ...w.push('p')] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...w.poll(0, { reserved: payload({ attempts: 1 }, 'r1') })],
        },
        { actor: 'worker-1', t: 0, kind: 'release', commands: w.release('r1', 1) },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: w.poll(0) },
        {
          actor: 'worker-1',
          t: 5,
          kind: 'pop',
          commands: w.poll(5, { moved: [same('r1')], reserved: payload({ attempts: 2 }, 'r2') }),
        },
        { actor: 'worker-1', t: 5, kind: 'release', commands: w.release('r2', 10) },
        { actor: 'worker-1', t: 5, kind: 'pop', commands: w.poll(5) },
        {
          actor: 'worker-1',
          t: 10,
          kind: 'pop',
          commands: w.poll(10, { moved: [same('r2')], reserved: payload({ attempts: 3 }, 'r3') }),
        },
        { actor: 'worker-1', t: 10, kind: 'release', commands: w.release('r3', 20) },
        { actor: 'worker-1', t: 10, kind: 'pop', commands: w.poll(10) },
        { actor: 'worker-1', t: 15, kind: 'pop', commands: w.poll(15) },
        {
          actor: 'worker-1',
          t: 20,
          kind: 'pop',
          commands: w.poll(20, { moved: [same('r3')], reserved: payload({ attempts: 4 }, 'r4') }),
        },
        { actor: 'worker-1', t: 20, kind: 'release', commands: w.release('r4', 30) },
        { actor: 'worker-1', t: 20, kind: 'pop', commands: w.poll(20) },
        { actor: 'worker-1', t: 25, kind: 'pop', commands: w.poll(25) },
        {
          actor: 'worker-1',
          t: 30,
          kind: 'pop',
          commands: w.poll(30, { moved: [same('r4')], reserved: payload({ attempts: 5 }, 'r5') }),
        },
        // attempts 5 >= --tries=5: markJobAsFailedIfWillExceedMaxAttempts fails it: ZREM only.
        { actor: 'worker-1', t: 30, kind: 'fail', commands: w.zrem('r5') },
      ],
      w.profile,
    );
    expect(t.steps[2]!.title).toBe(
      'J#1 throws Exception("down"): released to :delayed for 1s (backoff), attempt 1 of 5',
    );
    expect(t.steps[12]!.title).toMatch(/released to :delayed for 10s \(backoff\), attempt 4 of 5$/);
    expect(t.failed).toMatchObject([{ exception: 'Exception', message: 'down' }]);
    expect(t.steps[0]!.state.workers[0]!.options).toMatchObject({ backoff: '1,5,10' });
  });

  it("--backoff loses to the job's own $backoff (Job::backoff() is not null)", async () => {
    const t = await run(`
name: inline
title: inline
laravel: "${laravel}"
until: 0
workers:
  - { name: worker-1, tries: 3, backoff: [1, 5, 10] }
jobs:
  J: { class: App\\Jobs\\J, backoff: 7, attempts: [{ throw: down }] }
timeline:
  - { at: 0, dispatch: J }
`);
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, kind: 'dispatch', commands: [SELECT, ...w.push('p')] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...w.poll(0, { reserved: payload({ attempts: 1, backoff: '7' }, 'r1') })],
        },
        // The payload's backoff "7": calculateBackoff explodes that, not --backoff: due at t+7.
        { actor: 'worker-1', t: 0, kind: 'release', commands: w.release('r1', 7) },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: w.poll(0) },
      ],
      w.profile,
    );
  });

  it('--max-jobs=2: the loop that took the second job stops; the supervisor starts a new process, which takes the third', async () => {
    const t = await run(`
name: inline
title: inline
laravel: "${laravel}"
workers:
  - { name: worker-1, max_jobs: 2 }
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 0, dispatch: J, count: 3 }
`);
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [SELECT, ...w.push('p1'), ...w.push('p2'), ...w.push('p3')],
        },
        // $jobsProcessed 1: stopIfNecessary goes on.
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...w.poll(0, { reserved: payload({ attempts: 1 }, 'r1') })],
        },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: w.zrem('r1') },
        // $jobsProcessed 2 >= --max-jobs=2: Worker::stop after this job; nothing is sent.
        { actor: 'worker-1', t: 0, kind: 'pop', commands: w.poll(0, { reserved: payload({ attempts: 1 }, 'r2') }) },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: w.zrem('r2') },
        { actor: 'worker-1', t: 0, kind: 'stop', commands: [] },
        { actor: 'worker-1', t: 0, kind: 'restart', commands: [] },
        // The new process: a new connection (SELECT), its own $jobsProcessed.
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...w.poll(0, { reserved: payload({ attempts: 1 }, 'r3') })],
        },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: w.zrem('r3') },
      ],
      w.profile,
    );
    expect(t.steps[5]!.title).toBe('worker-1 exits: it has taken 2 jobs (--max-jobs=2)');
    expect(t.steps[5]!.state.workers[0]!.status).toEqual({ kind: 'stopped', reason: '--max-jobs=2' });
    expect(t.steps[7]!.state.workers[0]!.generation).toBe(2);
    expect(t.jobs.map((j) => j.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('--max-time=10 is checked at the end of a loop: after a 15 s job, at t+15; the new process measures from its own start', async () => {
    const t = await run(`
name: inline
title: inline
laravel: "${laravel}"
until: 20
workers:
  - { name: worker-1, max_time: 10, sleep: 4 }
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ run: 15 }] }
timeline:
  - { at: 0, dispatch: J }
`);
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, kind: 'dispatch', commands: [SELECT, ...w.push('p')] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...w.poll(0, { reserved: payload({ attempts: 1 }, 'r1') })],
        },
        { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
        { actor: 'worker-1', t: 15, kind: 'delete', commands: w.zrem('r1') },
        // 15 - 0 >= 10: stop (queue:work returns 0), then the supervisor's new process at t+15.
        { actor: 'worker-1', t: 15, kind: 'stop', commands: [] },
        { actor: 'worker-1', t: 15, kind: 'restart', commands: [] },
        { actor: 'worker-1', t: 15, kind: 'pop', commands: [SELECT, ...w.poll(15)] },
        // 19 - 15 < 10: it polls on.
        { actor: 'worker-1', t: 19, kind: 'pop', commands: w.poll(19) },
      ],
      w.profile,
    );
    expect(t.steps[4]!.title).toBe('worker-1 exits: 15s since it started ≥ --max-time=10');
  });
});

describe('--max-time with nothing to do, and restart: false (8)', () => {
  const w = wire('8');
  it('polls at t+0, 4, 8; the loop that ends at t+12 stops; with restart: false no new process starts', async () => {
    const t = await run(`
name: inline
title: inline
laravel: "8"
until: 30
workers:
  - { name: worker-1, max_time: 10, sleep: 4, restart: false }
timeline:
  - { at: 0, note: nothing is dispatched }
`);
    expectSteps(
      t,
      [
        { actor: 'worker-1', t: 0, kind: 'pop', commands: [SELECT, ...w.poll(0)] },
        { actor: 'worker-1', t: 4, kind: 'pop', commands: w.poll(4) },
        { actor: 'worker-1', t: 8, kind: 'pop', commands: w.poll(8) },
        // The sleep after the t+8 poll ends at t+12: 12 - 0 >= 10.
        { actor: 'worker-1', t: 12, kind: 'stop', commands: [] },
      ],
      laravel8,
    );
    expect(t.steps[3]!.state.workers[0]!.status).toEqual({ kind: 'stopped', reason: '--max-time' });
  });
});

describe('--stop-when-empty', () => {
  it('8: the pop that finds nothing is followed by --sleep, then the exit; nothing restarts it, and the run waits for it', async () => {
    const w = wire('8');
    const t = await run(`
name: inline
title: inline
laravel: "8"
workers:
  - { name: worker-1, stop_when_empty: true, sleep: 3 }
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 0, dispatch: J }
`);
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, kind: 'dispatch', commands: [SELECT, ...w.push('p')] },
        // A job: `stopWhenEmpty && is_null($job)` is false.
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...w.poll(0, { reserved: payload({ attempts: 1 }, 'r1') })],
        },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: w.zrem('r1') },
        // No job: Worker::sleep(3), then stopIfNecessary stops.
        { actor: 'worker-1', t: 0, kind: 'pop', commands: w.poll(0) },
        { actor: 'worker-1', t: 3, kind: 'stop', commands: [] },
      ],
      laravel8,
    );
    expect(t.steps[4]!.title).toBe(
      'worker-1 exits: its pop found no job (--stop-when-empty), after sleeping 3s (--sleep)',
    );
    expect(t.steps[4]!.state.workers[0]!.status).toEqual({ kind: 'stopped', reason: '--stop-when-empty' });
  });

  it('5.7 (5.7.2+): the same rule on the 5.4-5.7 wire: RPUSH, 2-key scripts, Predis SELECT', async () => {
    // Worker::daemon@v5.7.29:93-127 and stopIfNecessary :199-210 (`stopWhenEmpty && is_null($job)`).
    const Q = t57.queue('default');
    const t = await run(`
name: inline
title: inline
laravel: "5.7"
workers:
  - { name: worker-1, stop_when_empty: true, sleep: 3 }
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 0, dispatch: J }
`);
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [SELECT, c('RPUSH', Q.ready, payload({ attempts: 0 }))],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [
            SELECT,
            ...t57.migrate(Q.delayed, Q.ready, 0),
            ...t57.migrate(Q.reserved, Q.ready, 0),
            ...t57.popScript(Q, 0, 90, payload({ attempts: 1 }, 'r1')),
          ],
        },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r1'))] },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: t57.emptyPoll(Q, 0) },
        { actor: 'worker-1', t: 3, kind: 'stop', commands: [] },
      ],
      laravel57,
    );
  });
});

describe('--rest (8)', () => {
  const w = wire('8');
  it('Worker::sleep(--rest) after each job, before the next poll', async () => {
    const t = await run(`
name: inline
title: inline
laravel: "8"
workers:
  - { name: worker-1, rest: 5 }
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 0, dispatch: J, count: 2 }
`);
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, kind: 'dispatch', commands: [SELECT, ...w.push('p1'), ...w.push('p2')] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...w.poll(0, { reserved: payload({ attempts: 1 }, 'r1') })],
        },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: w.zrem('r1') },
        { actor: 'worker-1', t: 0, kind: 'rest', commands: [] },
        // The second job waits in the ready list while the worker rests.
        { actor: 'worker-1', t: 5, kind: 'pop', commands: w.poll(5, { reserved: payload({ attempts: 1 }, 'r2') }) },
        { actor: 'worker-1', t: 5, kind: 'delete', commands: w.zrem('r2') },
      ],
      laravel8,
    );
    expect(t.steps[3]!.title).toBe('worker-1 rests 5s after J#1 (--rest)');
    expect(t.steps[3]!.state.workers[0]!.status).toEqual({ kind: 'idle', until: t.start + 5, why: '--rest' });
  });

  it("a rest longer than the job's alarm: SIGALRM during the rest fails the job it was armed for (a released one: ZREM of nothing, a failed_jobs row), then kills", async () => {
    // --tries=1 --timeout=20 --rest=30; the job releases itself for 5 s. The alarm (armed at the
    // pop for t+20) is reset only after the rest, so it fires during it. The handler:
    // markJobAsFailedIfWillExceedMaxAttempts (attempts 1 >= 1) → Job::fail: not deleted (released)
    // → delete(): ZREM of r1, which the release already moved to :delayed → failed_jobs; then kill.
    // The new process finds r1 due (t+5 <= t+20), pops attempts 2 > 1: failed again, unrun.
    const t = await run(`
name: inline
title: inline
laravel: "8"
workers:
  - { name: worker-1, tries: 1, timeout: 20, rest: 30 }
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ release: 5 }, succeed] }
timeline:
  - { at: 0, dispatch: J }
`);
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, kind: 'dispatch', commands: [SELECT, ...w.push('p')] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...w.poll(0, { reserved: payload({ attempts: 1 }, 'r1') })],
        },
        { actor: 'worker-1', t: 0, kind: 'release', commands: w.release('r1', 5) },
        { actor: 'worker-1', t: 0, kind: 'rest', commands: [] },
        { actor: 'worker-1', t: 20, kind: 'kill', commands: w.zrem('r1') },
        { actor: 'worker-1', t: 20, kind: 'restart', commands: [] },
        {
          actor: 'worker-1',
          t: 20,
          kind: 'pop',
          commands: [SELECT, ...w.poll(20, { moved: [same('r1')], reserved: payload({ attempts: 2 }, 'r2') })],
        },
        { actor: 'worker-1', t: 20, kind: 'fail', commands: w.zrem('r2') },
      ],
      laravel8,
    );
    expect(t.steps[3]!.title).toBe(
      'worker-1 rests 30s after J#1 (--rest); the alarm armed for it fires first, at t+20s',
    );
    expect(t.steps[4]!.title).toBe(
      'SIGALRM after 20s (--timeout): worker-1 is killed during --rest after J#1, which the handler fails first (attempt 1 of 1)',
    );
    expect(t.failed.map((f) => [f.failedAt - t.start, f.exception])).toEqual([
      [20, 'Illuminate\\Queue\\MaxAttemptsExceededException'],
      [20, 'Illuminate\\Queue\\MaxAttemptsExceededException'],
    ]);
  });

  it('a job that succeeded before the alarm: the handler finds it deleted, so only the kill', async () => {
    const t = await run(`
name: inline
title: inline
laravel: "8"
until: 25
workers:
  - { name: worker-1, tries: 1, timeout: 20, rest: 30 }
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ run: 10 }] }
timeline:
  - { at: 0, dispatch: J }
`);
    // Job::fail on a deleted job: markAsFailed, `if ($this->isDeleted()) return;` — no command.
    const kill = t.steps.find((s) => s.kind === 'kill')!;
    expect([kill.t - t.start, kill.commands]).toEqual([20, []]);
    expect(kill.title).toBe('SIGALRM after 20s (--timeout): worker-1 is killed during --rest after J#1');
    expect(t.failed).toEqual([]);
  });
});
