// A job's retryUntil(), $maxExceptions counting timeouts, and $timeout beating --timeout, in the
// Laravel 8 profile against a real redis-server; the commands derived by hand from Debian's 8.83
// Queue/Worker.php (test/helpers/wire-8.ts has the wire):
// - markJobAsFailedIfAlreadyExceedsMaxAttempts (before the job runs): `if ($retryUntil &&
//   Carbon::now()->getTimestamp() <= $retryUntil) return;` else MaxAttemptsExceededException;
// - markJobAsFailedIfWillExceedMaxAttempts (after a throw, and in the alarm's handler): fail when
//   `$job->retryUntil() <= now`; `! $job->retryUntil() && $maxTries > 0 && attempts >= $maxTries`
//   (8.15+, #35214: --tries does not count while retryUntil is set);
// - markJobAsFailedIfWillExceedMaxExceptions: the cache counter job-exceptions:<uuid>, also
//   incremented by the alarm's handler (8.0, #33521); fail when `$maxExceptions <= count`;
// - timeoutForJob: `$job->timeout()` when not null, else --timeout.
import { describe, expect, it } from 'vitest';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { c, expectSteps, payload, same } from '../helpers/trace.ts';
import { wire } from '../helpers/wire-8.ts';
import { useRedis } from '../helpers/run.ts';

const redis = useRedis();
const SELECT = c('SELECT', '0');

async function run(yaml: string): Promise<Timeline> {
  return runScenario(parseScenario(yaml, 'inline.yaml').spec, { redis: redis() });
}

describe('retryUntil (8.15+)', () => {
  it('--tries=1 does not count while it lasts; a throw after it passed fails the job with that exception', async () => {
    const w = wire('8');
    const t = await run(`
name: inline
title: inline
laravel: "8"
workers:
  - { name: worker-1, tries: 1, sleep: 5, backoff: 10 }
jobs:
  J:
    class: App\\Jobs\\J
    retry_until: 25
    attempts:
      - { throw: early }
      - { throw: second }
      - { run: 8, throw: late, exception: RuntimeException }
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
          commands: [SELECT, ...w.poll(0, { reserved: payload({ attempts: 1, retryUntil: t.start + 25 }, 'r1') })],
        },
        // retryUntil t+25 > t+0, and --tries is ignored: released for --backoff=10.
        { actor: 'worker-1', t: 0, kind: 'release', commands: w.release('r1', 10) },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: w.poll(0) },
        { actor: 'worker-1', t: 5, kind: 'pop', commands: w.poll(5) },
        // alreadyExceeds: t+10 <= t+25, so attempt 2 runs (2 > --tries=1 does not matter).
        {
          actor: 'worker-1',
          t: 10,
          kind: 'pop',
          commands: w.poll(10, { moved: [same('r1')], reserved: payload({ attempts: 2 }, 'r2') }),
        },
        { actor: 'worker-1', t: 10, kind: 'release', commands: w.release('r2', 20) },
        { actor: 'worker-1', t: 10, kind: 'pop', commands: w.poll(10) },
        { actor: 'worker-1', t: 15, kind: 'pop', commands: w.poll(15) },
        {
          actor: 'worker-1',
          t: 20,
          kind: 'pop',
          commands: w.poll(20, { moved: [same('r2')], reserved: payload({ attempts: 3 }, 'r3') }),
        },
        { actor: 'worker-1', t: 20, kind: 'process', commands: [] },
        // It throws at t+28: retryUntil t+25 <= t+28, willExceed fails it with the RuntimeException.
        { actor: 'worker-1', t: 28, kind: 'fail', commands: w.zrem('r3') },
      ],
      laravel8,
    );
    expect(t.steps[2]!.title).toBe(
      'J#1 throws Exception("early"): released to :delayed for 10s (backoff), attempt 1, retried until retryUntil (t+25s) whatever --tries says',
    );
    expect(t.steps[11]!.title).toBe('J#1 throws RuntimeException("late"): failed, retryUntil (t+25s) has passed');
    expect(t.failed.map((f) => [f.exception, f.message])).toEqual([['RuntimeException', 'late']]);
  });

  it('a job popped after its retryUntil fails unrun with MaxAttemptsExceededException, whatever --tries', async () => {
    const w = wire('8');
    const t = await run(`
name: inline
title: inline
laravel: "8"
workers:
  - { name: worker-1, tries: 5, sleep: 5, start: 5 }
jobs:
  J: { class: App\\Jobs\\J, retry_until: 3 }
timeline:
  - { at: 0, dispatch: J }
`);
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, kind: 'dispatch', commands: [SELECT, ...w.push('p')] },
        {
          actor: 'worker-1',
          t: 5,
          kind: 'pop',
          commands: [SELECT, ...w.poll(5, { reserved: payload({ attempts: 1 }, 'r1') })],
        },
        // now t+5 > retryUntil t+3: failed before it runs (ZREM), attempts 1 of 5 notwithstanding.
        { actor: 'worker-1', t: 5, kind: 'fail', commands: w.zrem('r1') },
      ],
      laravel8,
    );
    expect(t.steps[2]!.title).toBe(
      'J#1 attempt 1: retryUntil (t+3s) has passed: MaxAttemptsExceededException before it runs',
    );
    expect(t.jobs[0]).toMatchObject({ outcome: 'failed', executions: 0 });
  });
});

describe('$maxExceptions counts timeouts (8.0+), and $timeout beats --timeout', () => {
  it("the first timeout is kept in :reserved; the second, in the alarm's handler, reaches $maxExceptions = 2: ZREM, then the kill", async () => {
    // retry_after 15, $timeout 10 (--timeout 60 loses), --tries 5. Popped at t+0 (reserved until
    // t+15), killed at t+10 with nothing sent (attempts 1 < 5, count 1 < 2); the new process polls
    // at t+10 and t+15, where :reserved gives it back; attempt 2 (until t+30) is killed at t+25
    // after count 2 >= 2 fails it (the exception is the handler's MaxAttemptsExceededException).
    const w = wire('8', { retryAfter: 15 });
    const t = await run(`
name: inline
title: inline
laravel: "8"
connections:
  redis: { retry_after: 15 }
workers:
  - { name: worker-1, tries: 5, timeout: 60, sleep: 5 }
jobs:
  J: { class: App\\Jobs\\J, max_exceptions: 2, timeout: 10, attempts: [{ run: 20 }] }
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
          commands: [SELECT, ...w.poll(0, { reserved: payload({ attempts: 1, maxExceptions: 2, timeout: 10 }, 'r1') })],
        },
        { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
        { actor: 'worker-1', t: 10, kind: 'kill', commands: [] },
        { actor: 'worker-1', t: 10, kind: 'restart', commands: [] },
        { actor: 'worker-1', t: 10, kind: 'pop', commands: [SELECT, ...w.poll(10)] },
        {
          actor: 'worker-1',
          t: 15,
          kind: 'pop',
          commands: w.poll(15, { expired: [same('r1')], reserved: payload({ attempts: 2 }, 'r2') }),
        },
        { actor: 'worker-1', t: 15, kind: 'process', commands: [] },
        // The queues are now empty and nothing runs: the run ends here (run-end.ts), before the
        // supervisor's new process would poll.
        { actor: 'worker-1', t: 25, kind: 'kill', commands: w.zrem('r2') },
      ],
      laravel8,
    );
    expect(t.steps[3]!.title).toBe(
      'SIGALRM after 10s (--timeout): worker-1 is killed while running J#1; it stays in :reserved',
    );
    expect(t.steps[8]!.title).toBe(
      'SIGALRM after 10s (--timeout): J#1 is failed first ($maxExceptions = 2 reached); then worker-1 is killed',
    );
    expect(t.failed.map((f) => f.exception)).toEqual(['Illuminate\\Queue\\MaxAttemptsExceededException']);
  });
});
