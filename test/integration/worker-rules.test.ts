// Worker rules the shipped scenarios do not exercise, each as a small inline scenario against a
// real redis-server, with the expected trace derived by hand from Laravel 5.7's Worker (seed 002:
// markJobAsFailedIfAlreadyExceedsMaxAttempts, markJobAsFailedIfWillExceedMaxAttempts,
// handleJobException, registerTimeoutHandler/timeoutForJob) and InteractsWithQueue.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { laravel53 } from '../../src/sim/profiles/laravel-5.3.ts';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { useRedis } from '../helpers/run.ts';
import type { CmdPattern } from '../helpers/trace.ts';
import {
  at,
  c,
  emptyPoll,
  evalScript,
  expectSteps,
  lua,
  migrate,
  payload,
  popDue as popDueHelper,
  popScript,
  queue,
  releaseScript,
  same,
} from '../helpers/trace.ts';

const redis = useRedis();
const SELECT = c('SELECT', '0');
const Q = queue('default');

async function run(yaml: string): Promise<Timeline> {
  const { spec } = parseScenario(yaml, 'inline.yaml');
  return runScenario(spec, { redis: redis() });
}

const scenario = (worker: string, job: string, extra = '') => `
name: inline
title: inline
${extra}
workers:
  - { name: worker-1, ${worker} }
jobs:
  J:
    class: App\\Jobs\\J
${job}
timeline:
  - { at: 0, dispatch: J }
`;

const firstPop = (r: string, retryAfter = 90): CmdPattern[] => [
  SELECT,
  ...migrate(Q.delayed, Q.ready, 0),
  ...migrate(Q.reserved, Q.ready, 0),
  ...popScript(Q, 0, retryAfter, payload({ attempts: 1 }, r)),
];
const release = (r: string, due: number): CmdPattern[] => releaseScript(Q, r, due);
const popDue = (tt: number, from: string, to: string, attempts: number): CmdPattern[] =>
  popDueHelper(Q, tt, from, to, attempts);
const dispatched = (fields: Record<string, unknown> = {}) => ({
  actor: 'dispatcher',
  t: 0,
  commands: [SELECT, c('RPUSH', Q.ready, payload({ attempts: 0, ...fields }))],
});

describe('job-level options override the worker', () => {
  it('public $tries = 2 beats --tries=1: the first failure is released, the second fails', async () => {
    const t = await run(scenario('tries: 1, sleep: 1', '    tries: 2\n    attempts: [{ throw: boom }]'));
    expectSteps(t, [
      // maxTries 2 travels in the payload, and $tries is serialized as the class's own property.
      dispatched({
        maxTries: 2,
        'data.command':
          'O:10:"App\\Jobs\\J":8:{s:5:"tries";i:2;s:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;s:10:"chainQueue";N;s:5:"delay";N;s:7:"chained";a:0:{}}',
      }),
      { actor: 'worker-1', t: 0, kind: 'pop', commands: firstPop('r1') },
      // attempts 1 < job tries 2 → release(--delay=0): due at once.
      { actor: 'worker-1', t: 0, kind: 'release', commands: release('r1', 0) },
      { actor: 'worker-1', t: 0, kind: 'pop', commands: popDue(0, 'r1', 'r2', 2) },
      // attempts 2 <= 2, so it runs; it throws, and attempts 2 >= 2 fails it: ZREM only.
      { actor: 'worker-1', t: 0, kind: 'fail', commands: [c('ZREM', Q.reserved, same('r2'))] },
    ]);
    expect(t.failed).toMatchObject([{ exception: 'Exception', message: 'boom' }]);
    expect(t.jobs[0]).toMatchObject({ executions: 2 });
  });

  it('public $timeout = 10 beats --timeout=60: the alarm fires after 10 s', async () => {
    const t = await run(scenario('timeout: 60', '    timeout: 10\n    attempts: [{ run: 20 }]', 'until: 10'));
    expectSteps(t, [
      dispatched({ timeout: 10 }),
      { actor: 'worker-1', t: 0, kind: 'pop', commands: firstPop('r1') },
      { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
      { actor: 'worker-1', t: 10, kind: 'kill', commands: [] },
      { actor: 'worker-1', t: 10, kind: 'restart', commands: [] },
      { actor: 'worker-1', t: 10, kind: 'pop', commands: [SELECT, ...emptyPoll(Q, 10)] },
    ]);
    expect(t.steps[3]!.title).toContain('after 10s');
  });

  it('retryUntil: retried while now <= timeoutAt, then failed unrun with MaxAttemptsExceededException', async () => {
    // --tries=0 (unlimited) so only timeoutAt (t+15) decides; --delay=10.
    const t = await run(
      scenario('tries: 0, delay: 10, sleep: 10', '    retry_until: 15\n    attempts: [{ throw: boom }]'),
    );
    expectSteps(t, [
      dispatched({ timeoutAt: 1_700_000_015 }),
      { actor: 'worker-1', t: 0, kind: 'pop', commands: firstPop('r1') },
      // willExceed: timeoutAt 15 > now 0 and tries 0 → release to t+10.
      { actor: 'worker-1', t: 0, kind: 'release', commands: release('r1', 10) },
      { actor: 'worker-1', t: 0, kind: 'pop', commands: emptyPoll(Q, 0) },
      // alreadyExceeds: now 10 <= timeoutAt 15 → it runs (attempts 2); throws; released to t+20.
      { actor: 'worker-1', t: 10, kind: 'pop', commands: popDue(10, 'r1', 'r2', 2) },
      { actor: 'worker-1', t: 10, kind: 'release', commands: release('r2', 20) },
      { actor: 'worker-1', t: 10, kind: 'pop', commands: emptyPoll(Q, 10) },
      // alreadyExceeds: now 20 > timeoutAt 15 → failJob before firing.
      { actor: 'worker-1', t: 20, kind: 'pop', commands: popDue(20, 'r2', 'r3', 3) },
      { actor: 'worker-1', t: 20, kind: 'fail', commands: [c('ZREM', Q.reserved, same('r3'))] },
    ]);
    expect(t.failed).toMatchObject([{ exception: 'Illuminate\\Queue\\MaxAttemptsExceededException' }]);
    expect(t.jobs[0]).toMatchObject({ executions: 2, outcome: 'failed' });
  });
});

describe('what the job itself does', () => {
  it('$this->release(30): the release script, no exception handling, and a retry at t+30', async () => {
    const t = await run(scenario('tries: 3, sleep: 30', '    attempts: [{ release: 30 }, succeed]'));
    expectSteps(t, [
      dispatched(),
      { actor: 'worker-1', t: 0, kind: 'pop', commands: firstPop('r1') },
      { actor: 'worker-1', t: 0, kind: 'release', commands: release('r1', 30) },
      { actor: 'worker-1', t: 0, kind: 'pop', commands: emptyPoll(Q, 0) },
      { actor: 'worker-1', t: 30, kind: 'pop', commands: popDue(30, 'r1', 'r2', 2) },
      { actor: 'worker-1', t: 30, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r2'))] },
    ]);
    expect(t.failed).toEqual([]);
  });

  it('$this->fail(): deleted (ZREM) and logged with ManuallyFailedException; no second delete', async () => {
    const t = await run(scenario('tries: 3', '    attempts: [fail]'));
    expectSteps(t, [
      dispatched(),
      { actor: 'worker-1', t: 0, kind: 'pop', commands: firstPop('r1') },
      { actor: 'worker-1', t: 0, kind: 'fail', commands: [c('ZREM', Q.reserved, same('r1'))] },
    ]);
    expect(t.failed).toMatchObject([{ exception: 'Illuminate\\Queue\\ManuallyFailedException' }]);
  });

  it('$this->delete(): one ZREM, not failed, and CallQueuedHandler does not delete again', async () => {
    const t = await run(scenario('tries: 3', '    attempts: [delete]'));
    expectSteps(t, [
      dispatched(),
      { actor: 'worker-1', t: 0, kind: 'pop', commands: firstPop('r1') },
      { actor: 'worker-1', t: 0, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r1'))] },
    ]);
    expect(t.failed).toEqual([]);
    expect(t.jobs[0]).toMatchObject({ outcome: 'deleted' });
  });
});

describe('the alarm', () => {
  it('--sleep longer than --timeout kills an idle worker: the alarm armed after an empty pop fires during the sleep', async () => {
    const t = await run(`
name: inline
title: inline
until: 60
workers:
  - { name: worker-1, sleep: 90, timeout: 60 }
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 50, note: nothing to do }
`);
    expectSteps(t, [
      { actor: 'worker-1', t: 0, kind: 'pop', commands: [SELECT, ...emptyPoll(Q, 0)] },
      { actor: 'worker-1', t: 60, kind: 'kill', commands: [] },
      { actor: 'worker-1', t: 60, kind: 'restart', commands: [] },
      { actor: 'worker-1', t: 60, kind: 'pop', commands: [SELECT, ...emptyPoll(Q, 60)] },
    ]);
    expect(t.steps[1]!.title).toContain('killed while idle');
  });

  it('--once arms no alarm (runNextJob never registers the timeout handler): a 120 s job is not killed', async () => {
    const t = await run(scenario('once: true, timeout: 60', '    attempts: [{ run: 120 }]'));
    expectSteps(t, [
      dispatched(),
      { actor: 'worker-1', t: 0, kind: 'pop', commands: firstPop('r1') },
      { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
      { actor: 'worker-1', t: 120, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r1'))] },
      // runNextJob returns: the --once process exits (run-end.ts waits for it).
      { actor: 'worker-1', t: 120, kind: 'stop', commands: [] },
    ]);
  });
});

describe('alarm and sleep rules that changed between versions', () => {
  it('8.x resets the alarm after a job (resetTimeoutHandler, 6.13+): a following BLPOP longer than --timeout is not killed', async () => {
    // --timeout=10, an 8 s job, block_for 30: 5.x would carry the job's alarm (t+10) into the
    // next getNextJob; 8.x clears it after the job, and re-arms only after the next pop.
    const t = await run(`
name: inline
title: inline
laravel: "8"
until: 20
connections:
  redis: { queue: default, retry_after: 90, block_for: 30 }
workers:
  - { name: worker-1, timeout: 10 }
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ run: 8 }] }
timeline:
  - { at: 0, dispatch: J }
`);
    expect(t.steps.map((s) => [s.t - t.start, s.kind])).toEqual([
      [0, 'dispatch'],
      [0, 'pop'],
      [0, 'process'],
      [8, 'delete'],
      [8, 'block'],
    ]);
    const block = t.steps[4]!;
    // pop script first (nothing), then BLPOP on :notify; the trail is this step's own.
    expect(block.commands.filter((c) => c.source === 'client').map((c) => c.args[0])).toEqual([
      'EVAL',
      'EVAL',
      'EVAL',
      'BLPOP',
    ]);
    expect(block.commands.at(-1)!.args).toEqual(['BLPOP', 'laravel_database_queues:default:notify', '30']);
    expect(block.methods[0]).toBe('Worker::getNextJob');
  });

  it('5.3 sleeps --sleep after a job exception (runNextJob catches it, then sleeps)', async () => {
    const t = await run(
      scenario('tries: 3, delay: 10, sleep: 5', '    attempts: [{ throw: boom }, succeed]', 'laravel: "5.3"'),
    );
    // 5.7 polls again at t+0 after the release; 5.3 first sleeps 5 s.
    expect(t.steps.map((s) => [s.t - t.start, s.kind]).slice(0, 5)).toEqual([
      [0, 'dispatch'],
      [0, 'pop'],
      [0, 'release'],
      [5, 'pop'],
      [10, 'pop'],
    ]);
  });
});

describe("config/queue.php 'retry_after' => null, through RedisConnector::connect", () => {
  const nullRetryAfter = (laravel: string) =>
    scenario(
      'once: true',
      '    attempts: [{ run: 5 }]',
      `laravel: "${laravel}"\nconnections:\n  redis: { queue: default, retry_after: null, block_for: null }`,
    );

  it("5.7 (5.5+: `$config['retry_after'] ?? 60`): null becomes 60, so :reserved is migrated and the pop reserves until now + 60", async () => {
    // RedisConnector.php@v5.7.29:48 hands RedisQueue 60, not null; RedisQueue::migrate then runs
    // both migrations (`! is_null($this->retryAfter)`) and retrieveNextJob sends availableAt(60).
    const t = await run(nullRetryAfter('5.7'));
    expectSteps(t, [
      dispatched(),
      { actor: 'worker-1', t: 0, kind: 'pop', commands: firstPop('r1', 60) },
      { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
      { actor: 'worker-1', t: 5, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r1'))] },
      { actor: 'worker-1', t: 5, kind: 'stop', commands: [] },
    ]);
  });

  it("5.3 (`Arr::get($config, 'retry_after', 60)` keeps a null): no :reserved migration, and the pop reserves with score now", async () => {
    // RedisConnector.php@v5.3.31:49; RedisQueue::pop@v5.3.31:132-139 migrates :delayed, skips
    // :reserved while $this->expire is null, and evals pop with `$this->getTime() + $this->expire`,
    // i.e. now. 5.3 pushes attempts 1, so the reserved copy says 2.
    const t = await run(nullRetryAfter('5.3'));
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, commands: [SELECT, c('RPUSH', Q.ready, payload({ attempts: 1 }))] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...migrate(Q.delayed, Q.ready, 0), ...popScript(Q, 0, 0, payload({ attempts: 2 }, 'r1'))],
        },
        { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
        { actor: 'worker-1', t: 5, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r1'))] },
        { actor: 'worker-1', t: 5, kind: 'stop', commands: [] },
      ],
      laravel53,
    );
  });
});

describe('why markJobAsFailedIfAlreadyExceedsMaxAttempts failed a job', () => {
  // 5.7, --tries=1, retry_after 30, a 60 s job. worker-1 pops at t+0 (reserved until t+30) and
  // runs it with no alarm (--timeout=0); worker-2 starts at t+30: its migrate of :reserved moves
  // the expired reservation back (score t+30 <= now), its pop reserves attempts 2 > tries 1, and
  // Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts fails it, while worker-1 still runs it.
  it('says the first attempt is still running on the other worker, not that it was killed', async () => {
    const t = await run(`
name: inline
title: inline
connections: { redis: { retry_after: 30 } }
workers:
  - { name: worker-1, tries: 1, timeout: 0 }
  - { name: worker-2, tries: 1, timeout: 0, start: 30 }
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ run: 60 }] }
timeline:
  - { at: 0, dispatch: J }
`);
    const failed = t.steps.find((s) => s.actor === 'worker-2' && s.kind === 'fail');
    expect(failed?.t).toBe(t.start + 30);
    expect(failed?.title).toBe('J#1 attempt 2 > tries 1: MaxAttemptsExceededException before it runs');
    expect(failed?.explain).toMatch(/^worker-1 is still running attempt 1: its reservation expired first/);
    expect(t.failed.map((f) => [f.job, f.exception])).toEqual([
      ['J#1', 'Illuminate\\Queue\\MaxAttemptsExceededException'],
    ]);
  });

  it('says a job the timeout killed finally fails, once its reservation expired', async () => {
    const t = await run(`
name: inline
title: inline
workers:
  - { name: worker-1, tries: 1, timeout: 60, sleep: 30 }
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ run: 120 }] }
timeline:
  - { at: 0, dispatch: J }
`);
    const failed = t.steps.find((s) => s.kind === 'fail');
    expect(failed?.t).toBe(t.start + 90);
    expect(failed?.explain).toMatch(/^This is how a job killed by the timeout finally fails/);
  });
});

describe('a --once worker whose BLPOP (block_for) finds an empty queue: the run waits for it to exit', () => {
  // Worker::runNextJob (--once) polls once and returns: with nothing popped it sleeps --sleep
  // first (`$this->sleep($options->sleep)`), so the run goes on until that exit (run-end.ts).
  const emptyOnce = (laravel: string, extra = '') => `
name: inline
title: inline
laravel: "${laravel}"
connections:
  redis: { block_for: 5 }
workers:
  - { name: worker-1, once: true${extra} }
timeline:
  - { at: 0, note: nothing is dispatched }
`;

  it('8: pop script, BLPOP :notify 5, which times out at t+5 without a second pop; --sleep=3, then it exits at t+8', async () => {
    const t = await run(emptyOnce('8'));
    const P = 'laravel_database_queues:default';
    const N = `${P}:notify`;
    // LuaScripts::migrateExpiredJobs (8.x: KEYS from, to, to:notify; ARGV now) finding nothing.
    const migrate8 = (from: string) =>
      evalScript('migrateExpiredJobs', [from, P, N], [at(0)], [lua('zrangebyscore', from, '-inf', at(0))]);
    expectSteps(
      t,
      [
        // RedisQueue::pop → migrate (:delayed, then :reserved: retry_after 90 is set) →
        // retrieveNextJob($queue, $block = true): the pop script finds nothing ({false, false}), so
        // `! $job && ! is_null($this->blockFor) && $block` → blpop([$queue.':notify'], 5).
        {
          actor: 'worker-1',
          t: 0,
          kind: 'block',
          commands: [
            SELECT,
            ...migrate8(`${P}:delayed`),
            ...migrate8(`${P}:reserved`),
            ...evalScript('pop', [P, `${P}:reserved`, N], [at(90)], [lua('lpop', P)]),
            c('BLPOP', N, '5'),
          ],
        },
        // The BLPOP returns nil at t+5: the `if` is false, so retrieveNextJob returns [null, null]
        // with no `retrieveNextJob($queue, false)`: nothing reaches Redis. runNextJob sleeps 3 s.
        { actor: 'worker-1', t: 5, kind: 'pop', commands: [] },
        // runNextJob returns; queue:work --once exits.
        { actor: 'worker-1', t: 8, kind: 'stop', commands: [] },
      ],
      laravel8,
    );
    expect(t.steps[1]!.title).toBe(
      'pop: BLPOP timed out after 5s (block_for) with nothing: no job on default; sleeping 3s (--sleep)',
    );
    expect(t.steps[0]!.explain).not.toMatch(/pops again when it wakes/);
    expect(t.steps[2]!.title).toBe('worker-1 exits after one poll that found no job (--once)');
    expect(t.steps[2]!.state.workers[0]!.status).toEqual({ kind: 'stopped', reason: '--once' });
  });

  it('5.7: RedisQueue::blockingPop BLPOPs the ready list itself, times out at t+5 (no ZADD), --sleep=3, exit at t+8', async () => {
    const t = await run(emptyOnce('5.7'));
    expectSteps(t, [
      // RedisQueue::pop → migrate → retrieveNextJob: block_for is set, so blockingPop($queue):
      // blpop($queue, 5) on queues:default, no pop script.
      {
        actor: 'worker-1',
        t: 0,
        kind: 'block',
        commands: [
          SELECT,
          ...migrate(Q.delayed, Q.ready, 0),
          ...migrate(Q.reserved, Q.ready, 0),
          c('BLPOP', Q.ready, '5'),
        ],
      },
      // $rawBody is empty: blockingPop returns [null, null] without the ZADD to :reserved.
      { actor: 'worker-1', t: 5, kind: 'pop', commands: [] },
      { actor: 'worker-1', t: 8, kind: 'stop', commands: [] },
    ]);
    expect(t.steps[1]!.title).toMatch(/^pop: BLPOP timed out after 5s \(block_for\) with nothing: no job on default/);
  });

  it('a daemon worker blocked on an empty queue would poll forever: the run ends at its BLPOP, as before', async () => {
    const t = await run(emptyOnce('8').replace('once: true', 'sleep: 3'));
    expect(t.steps.map((s) => [s.t - t.start, s.kind])).toEqual([[0, 'block']]);
  });

  it('a daemon worker sent SIGTERM while it sleeps exits on its own: the run waits for its Worker::stop', async () => {
    const t = await run(`
name: inline
title: inline
laravel: "8"
workers:
  - { name: worker-1, sleep: 3 }
timeline:
  - { at: 4, stop: worker-1 }
`);
    expect(t.steps.map((s) => [s.t - t.start, s.kind, s.commands.length])).toEqual([
      [0, 'pop', 7],
      [3, 'pop', 6],
      [4, 'stop', 0],
      // SIGTERM cuts the sleep short; the loop sees $shouldQuit and stops, sending nothing.
      [4, 'stop', 0],
    ]);
    expect(t.steps[3]!.title).toBe('worker-1 exits: SIGTERM was received (Worker::stop)');
  });

  it('a push wakes the BLPOP: the wake-up step says so, and (8) that it popped again', async () => {
    const withJob = (laravel: string) => `
name: inline
title: inline
laravel: "${laravel}"
connections:
  redis: { block_for: 5 }
workers:
  - { name: worker-1, once: true }
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 2, dispatch: J }
`;
    const t8 = await run(withJob('8'));
    expect(t8.steps.map((s) => [s.t - t8.start, s.kind])).toEqual([
      [0, 'block'],
      [2, 'dispatch'],
      [2, 'pop'],
      [2, 'delete'],
      [2, 'stop'],
    ]);
    expect(t8.steps[2]!.title).toMatch(
      /^pop: a push's notification woke the BLPOP after 2s, so it popped again: reserved J#1/,
    );
    expect(t8.steps[4]!.title).toBe('worker-1 exits after one job (--once)');
    const t57 = await run(withJob('5.7'));
    expect(t57.steps[2]!.title).toMatch(/^pop: a push woke the BLPOP after 2s: reserved J#1/);
  });
});

describe("the worker's status in each step's state", () => {
  it('holds the job between the pop and handle(); after the outcome a --once worker is done and exits next, not polling', async () => {
    const { spec } = parseScenario(
      `
name: inline
title: inline
laravel: "8"
workers: [{ name: worker-1, once: true }]
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ run: 5 }] }
timeline:
  - { at: 0, dispatch: J }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    const status = t.steps.map((s) => [s.kind, s.state.workers[0]!.status]);
    expect(status).toEqual([
      ['dispatch', { kind: 'starting' }],
      ['pop', { kind: 'reserved', job: 'J#1', attempt: 1 }],
      // handle() runs 5 s; 8.x arms no alarm for --once (Worker::runNextJob), so there is no `alarm`.
      ['process', { kind: 'running', job: 'J#1', since: t.start, attempt: 1, ends: t.start + 5 }],
      ['delete', { kind: 'done', job: 'J#1' }],
      ['stop', { kind: 'stopped', reason: '--once' }],
    ]);
  });
});
