// The class of the exception a job throws, or gives to $this->fail(): what failed() and failed_jobs
// get, per version, against a real redis-server. Derived by hand from Laravel's source:
// - 7.0+ Worker::process `catch (Throwable $e)` hands it to handleJobException as it is
//   (Queue/Worker.php@v7.0.0:359; Debian's 8.83 the same), and Job::fail($e) logs that $e;
// - 5.3-6.x catch `Exception $e` as it is but wrap any other Throwable (an Error) in
//   Symfony\Component\Debug\Exception\FatalThrowableError (Queue/Worker.php@v5.7.29:330-335,
//   @v5.3.31:206-211); symfony/debug 3.1 (Laravel 5.3's composer.json) prefixes a TypeError's
//   message with "Type error: " (Exception/FatalThrowableError.php@v3.1.10:25-27), 4.1 (5.7) not;
// - $this->fail($e) in 5.4+ is FailingJob::handle / Job::fail with that $e; in 5.3 it only calls
//   Job::failed($e) (InteractsWithQueue.php@v5.3.31:44-48), and CallQueuedHandler::call then
//   deletes the job as after a success (CallQueuedHandler.php@v5.3.31:49-51): no failed_jobs row.
// None of this changes a command: the wire is the ordinary release / ZREM; the tests say so too.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { laravel53 } from '../../src/sim/profiles/laravel-5.3.ts';
import { c, expectSteps, migrate, payload, popDue, popScript, queue, releaseScript, same } from '../helpers/trace.ts';
import { useRedis } from '../helpers/run.ts';

const redis = useRedis();
const SELECT = c('SELECT', '0');
const Q = queue('default');

async function run(yaml: string): Promise<Timeline> {
  return runScenario(parseScenario(yaml, 'inline.yaml').spec, { redis: redis() });
}

const scenario = (laravel: string, attempts: string) => `
name: inline
title: inline
laravel: "${laravel}"
workers:
  - { name: worker-1, tries: 2 }
jobs:
  J:
    class: App\\Jobs\\J
    attempts: ${attempts}
timeline:
  - { at: 0, dispatch: J }
`;

describe('8: the class reaches failed() and failed_jobs as it is', () => {
  it('throw RuntimeException, then an application class: the second, last try is recorded with its class', async () => {
    const t = await run(
      scenario(
        '8',
        '[{ throw: "API down", exception: RuntimeException }, { throw: "still down", exception: App\\Exceptions\\ApiDown }]',
      ),
    );
    expect(t.failed.map((f) => [f.exception, f.message])).toEqual([['App\\Exceptions\\ApiDown', 'still down']]);
    expect(t.steps.filter((s) => s.kind === 'release' || s.kind === 'fail').map((s) => s.title)).toEqual([
      'J#1 throws RuntimeException("API down"): released to :delayed for 0s (backoff), attempt 1 of 2',
      'J#1 throws ApiDown("still down") on attempt 2 of 2: failed',
    ]);
  });

  it('an Error (TypeError) is not wrapped: failed_jobs says TypeError', async () => {
    const t = await run(scenario('8', '[{ throw: "bad", exception: TypeError }]'));
    expect(t.failed.map((f) => [f.exception, f.message])).toEqual([['TypeError', 'bad']]);
  });

  it('$this->fail(new DomainException("gave up")) and $this->fail(new LogicException) (no message)', async () => {
    const t1 = await run(scenario('8', '[{ fail: "gave up", exception: DomainException }]'));
    expect(t1.failed.map((f) => [f.exception, f.message])).toEqual([['DomainException', 'gave up']]);
    expect(t1.steps.at(-1)!.title).toBe(
      'J#1 calls $this->fail(new DomainException("gave up")): deleted and recorded as failed',
    );
    const t2 = await run(scenario('8', '[{ fail: true, exception: LogicException }]'));
    expect(t2.failed.map((f) => [f.exception, f.message])).toEqual([['LogicException', '']]);
    // Without a class: Job::fail's own ManuallyFailedException, as before.
    const t3 = await run(scenario('8', '[fail]'));
    expect(t3.failed.map((f) => f.exception)).toEqual(['Illuminate\\Queue\\ManuallyFailedException']);
  });
});

describe('5.x wraps an Error in FatalThrowableError', () => {
  it('5.7: the same commands as any exception (release, then ZREM); failed_jobs gets FatalThrowableError with the message', async () => {
    const t = await run(
      scenario('5.7', '[{ throw: "bad arg", exception: ArgumentCountError }, { throw: "oops", exception: Error }]'),
    );
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
      // attempts 1 < --tries=2: released with --delay=0.
      { actor: 'worker-1', t: 0, kind: 'release', commands: releaseScript(Q, 'r1', 0) },
      { actor: 'worker-1', t: 0, kind: 'pop', commands: popDue(Q, 0, 'r1', 'r2', 2) },
      // attempts 2 >= 2: failed, ZREM only.
      { actor: 'worker-1', t: 0, kind: 'fail', commands: [c('ZREM', Q.reserved, same('r2'))] },
    ]);
    expect(t.failed.map((f) => [f.exception, f.message])).toEqual([
      ['Symfony\\Component\\Debug\\Exception\\FatalThrowableError', 'oops'],
    ]);
    expect(t.steps[4]!.explain).toMatch(/^Error is not an Exception: .* wraps it in Symfony\\Component/);
  });

  it('5.3: symfony/debug 3.1 prefixes a TypeError (and its ArgumentCountError) with "Type error: "; an Exception is kept', async () => {
    const typeError = await run(scenario('5.3', '[{ throw: "bad arg", exception: ArgumentCountError }]'));
    expect(typeError.failed.map((f) => [f.exception, f.message])).toEqual([
      ['Symfony\\Component\\Debug\\Exception\\FatalThrowableError', 'Type error: bad arg'],
    ]);
    const error = await run(scenario('5.3', '[{ throw: "div", exception: DivisionByZeroError }]'));
    expect(error.failed.map((f) => f.message)).toEqual(['div']);
    const runtime = await run(scenario('5.3', '[{ throw: "x", exception: RuntimeException }]'));
    expect(runtime.failed.map((f) => f.exception)).toEqual(['RuntimeException']);
  });
});

describe("5.3's $this->fail() only calls failed()", () => {
  it('the job is deleted as after a success (the same ZREM): no failed_jobs row, outcome succeeded', async () => {
    const t = await run(scenario('5.3', '[{ fail: "nope", exception: DomainException }]'));
    // 5.3: attempts start at 1 on the ready list, the reserved copy says 2; retry_after 90.
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, commands: [SELECT, c('RPUSH', Q.ready, payload({ attempts: 1 }))] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [
            SELECT,
            ...migrate(Q.delayed, Q.ready, 0),
            ...migrate(Q.reserved, Q.ready, 0),
            ...popScript(Q, 0, 90, payload({ attempts: 2 }, 'r1')),
          ],
        },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r1'))] },
      ],
      laravel53,
    );
    expect(t.failed).toEqual([]);
    expect(t.jobs[0]).toMatchObject({ outcome: 'succeeded', executions: 1 });
    expect(t.steps[2]!.title).toMatch(
      /^J#1 calls \$this->fail\(new DomainException\("nope"\)\): 5\.3 only calls its failed\(\)/,
    );
    // And 5.7 (5.4+) fails it: the same ZREM, but a failed_jobs row.
    const t57 = await run(scenario('5.7', '[{ fail: "nope", exception: DomainException }]'));
    expect(t57.failed.map((f) => [f.exception, f.message])).toEqual([['DomainException', 'nope']]);
  });
});
