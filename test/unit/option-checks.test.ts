// The worker options and job properties a Laravel version does not have are refused with the
// release that brought them, at the field's line:col; options that contradict each other too; and
// the exception class an attempt names is checked. Positions are read off the inline YAML by hand.
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/scenarios/errors.ts';
import { parseScenario } from '../../src/scenarios/load.ts';
import { scenarioSchema } from '../../src/scenarios/schema.ts';
import { versionProblems } from '../../src/scenarios/option-checks.ts';
import { PROFILES } from '../../src/sim/profiles/index.ts';

function errorOf(yaml: string): ScenarioError {
  try {
    parseScenario(yaml, 'f.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('the scenario loaded');
}

const withWorker = (laravel: string, worker: string) => `name: f
title: f
laravel: "${laravel}"
workers:
  - { name: worker-1, ${worker} }
timeline:
  - { at: 0, note: n }
`;

describe('queue:work options a version lacks', () => {
  // Line 5 is `  - { name: worker-1, <worker> }`: the option's value starts after "<key>: ".
  const col = (worker: string, key: string) => '  - { name: worker-1, '.length + worker.indexOf(key) + key.length + 3;
  const cases: Array<[string, string, string, RegExp]> = [
    ['5.7', 'max_jobs: 2', 'max_jobs', /^--max-jobs arrived in Laravel 8\.0\.0 .*; this scenario is Laravel 5\.7$/],
    ['5.7', 'max_time: 60', 'max_time', /^--max-time arrived in Laravel 8\.0\.0 .*; this scenario is Laravel 5\.7$/],
    ['5.7', 'rest: 5', 'rest', /^--rest arrived in Laravel 8\.32\.0 .*; this scenario is Laravel 5\.7$/],
    ['5.7', 'backoff: [1, 5]', 'backoff', /^--backoff arrived in Laravel 8\.0\.0 .*5\.x has --delay/],
    ['5.3', 'stop_when_empty: true', 'stop_when_empty', /^--stop-when-empty arrived in Laravel 5\.7\.2 /],
  ];
  for (const [laravel, worker, key, detail] of cases) {
    it(`${key} in ${laravel}: workers.0.${key} at 5:${col(worker, key)}`, () => {
      const e = errorOf(withWorker(laravel, worker));
      expect([e.line, e.column, e.field]).toEqual([5, col(worker, key), `workers.0.${key}`]);
      expect(e.detail).toMatch(detail);
      expect(e.message).toBe(`f.yaml:5:${col(worker, key)}: workers.0.${key}: ${e.detail}`);
    });
  }

  it('5.7 has --stop-when-empty (5.7.2+); 8 and 13 have every option', () => {
    expect(() => parseScenario(withWorker('5.7', 'stop_when_empty: true'), 'f.yaml')).not.toThrow();
    const all = 'backoff: [1, 5, 10], stop_when_empty: true, max_jobs: 2, max_time: 60, rest: 5';
    for (const v of ['8', '13']) expect(() => parseScenario(withWorker(v, all), 'f.yaml')).not.toThrow();
  });

  it('an option that --once ignores, and --backoff beside --delay, are refused', () => {
    const once = errorOf(withWorker('8', 'once: true, max_jobs: 2'));
    expect([once.line, once.column, once.field]).toEqual([5, 45, 'workers.0.max_jobs']);
    expect(once.detail).toMatch(/^--max-jobs does nothing with once: true/);
    const both = errorOf(withWorker('8', 'delay: 3, backoff: [1, 5]'));
    expect([both.line, both.column, both.field]).toEqual([5, 42, 'workers.0.backoff']);
    expect(both.detail).toMatch(/^give backoff or the deprecated delay, not both/);
  });

  it('a --laravel override to a version that lacks an option: versionProblems names the run', () => {
    const spec = scenarioSchema().parse({
      name: 'f',
      title: 'f',
      laravel: '8',
      workers: [{ name: 'w', max_jobs: 1 }],
      timeline: [{ at: 0, note: 'n' }],
    });
    expect(versionProblems(spec, PROFILES['5.7'], 'this run is Laravel 5.7 (--laravel)')).toEqual([
      {
        path: ['workers', 0, 'max_jobs'],
        detail: '--max-jobs arrived in Laravel 8.0.0 (WorkCommand.php@v8.0.0:31); this run is Laravel 5.7 (--laravel)',
      },
    ]);
    expect(versionProblems(spec, PROFILES['13'], 'x')).toEqual([]);
  });
});

describe('job properties a version lacks', () => {
  const withJob = (laravel: string, job: string) => `name: f
title: f
laravel: "${laravel}"
jobs:
  J:
    class: App\\Jobs\\J
    ${job}
timeline:
  - { at: 0, dispatch: J }
`;
  // Line 7 is `    <key>: <value>`: the value starts at column 5 + key length + 2.
  const cases: Array<[string, string, RegExp]> = [
    ['5.7', 'max_exceptions: 2', /^public \$maxExceptions arrived in Laravel 7\.0\.0 /],
    ['5.7', 'backoff: [5, 10]', /^public \$backoff arrived in Laravel 8\.0\.0 /],
    ['5.7', 'fail_on_timeout: true', /^public \$failOnTimeout arrived in Laravel 8\.43\.0 /],
    ['5.3', 'retry_until: 60', /^retryUntil\(\) arrived in Laravel 5\.5\.0 /],
  ];
  for (const [laravel, job, detail] of cases) {
    const key = job.slice(0, job.indexOf(':'));
    it(`${key} in ${laravel}: jobs.J.${key} at 7:${5 + key.length + 2}`, () => {
      const e = errorOf(withJob(laravel, job));
      expect([e.line, e.column, e.field]).toEqual([7, 5 + key.length + 2, `jobs.J.${key}`]);
      expect(e.detail).toMatch(detail);
      expect(e.detail).toMatch(new RegExp(`this scenario is Laravel ${laravel.replace('.', '\\.')}$`));
    });
  }

  it('what each version has is accepted: retryUntil from 5.7 (timeoutAt), the rest from 8; fail_on_timeout: false anywhere', () => {
    expect(() => parseScenario(withJob('5.7', 'retry_until: 60'), 'f.yaml')).not.toThrow();
    expect(() => parseScenario(withJob('5.3', 'fail_on_timeout: false'), 'f.yaml')).not.toThrow();
    for (const job of ['max_exceptions: 2', 'backoff: [5, 10]', 'fail_on_timeout: true', 'retry_until: 60'])
      for (const v of ['8', '13']) expect(() => parseScenario(withJob(v, job), 'f.yaml')).not.toThrow();
  });
});

describe('the exception class of an attempt', () => {
  const withAttempt = (attempt: string) => `name: f
title: f
jobs:
  J:
    class: App\\Jobs\\J
    attempts:
      - ${attempt}
timeline:
  - { at: 0, dispatch: J }
`;
  const attemptOf = (attempt: string) => parseScenario(withAttempt(attempt), 'f.yaml').spec.jobs.J!.attempts[0];

  it("accepts PHP's classes and an application's namespaced one, a leading backslash dropped", () => {
    expect(attemptOf('{ throw: x, exception: RuntimeException }')).toMatchObject({ exception: 'RuntimeException' });
    expect(attemptOf('{ throw: x, exception: \\TypeError }')).toMatchObject({ exception: 'TypeError' });
    expect(attemptOf('{ fail: x, exception: App\\Exceptions\\ApiDown }')).toMatchObject({
      exception: 'App\\Exceptions\\ApiDown',
    });
    expect(attemptOf('{ fail: true, exception: LogicException }')).toMatchObject({ exception: 'LogicException' });
  });

  it('refuses an unknown global class, a framework class, a misspelling and an exception without throw or fail', () => {
    // Line 7 is `      - { throw: x, exception: <class> }`: "exception" at column 21, its value at 32.
    const unknown = errorOf(withAttempt('{ throw: x, exception: ApiDown }'));
    expect([unknown.line, unknown.column, unknown.field]).toEqual([7, 32, 'jobs.J.attempts.0.exception']);
    expect(unknown.detail).toMatch(
      /^"ApiDown" is not one of PHP's exception classes .* e\.g\. App\\Exceptions\\ApiDown$/,
    );
    expect(errorOf(withAttempt('{ throw: x, exception: runtimeexception }')).detail).toBe(
      "PHP's class is spelt RuntimeException",
    );
    expect(
      errorOf(withAttempt('{ throw: x, exception: Illuminate\\Queue\\MaxAttemptsExceededException }')).detail,
    ).toMatch(/is a framework class/);
    const orphan = errorOf(withAttempt('{ run: 3, exception: RuntimeException }'));
    expect([orphan.line, orphan.field]).toEqual([7, 'jobs.J.attempts.0.exception']);
    expect(orphan.detail).toBe('exception names the class of a throw or a fail; this attempt has neither');
  });
});
