// How a deleted job's life ends, read from its payload as Laravel 8's Worker reads it after an
// exception (handleJobException → markJobAsFailedIfWillExceedMaxAttempts / ...MaxExceptions):
// the delete of a success and fail()'s delete are the same ZREM, so a life is "succeeded" only
// where an exception would have released the job instead, and otherwise says what fails it.
import { describe, expect, it } from 'vitest';
import type { LifeFacts } from '../../src/explain/outcome.ts';
import { lifeEnd } from '../../src/explain/outcome.ts';

const deleted = (f: Partial<LifeFacts>): ReturnType<typeof lifeEnd> =>
  lifeEnd({ first: 'push', last: 'delete', releases: 0, attempts: 1, maxTries: 3, ...f });

describe('a deleted job with tries left', () => {
  it('succeeded: an exception would have released it; only the job itself could fail it', () => {
    const end = deleted({});
    expect(end.outcome).toBe('succeeded');
    expect(end.when).toMatch(/tries left \(attempt 1 of 3\).*\$this->fail\(\)/);
  });

  it('with a retryUntil: failed if handle() threw after it passed (Worker fails it then, whatever the tries)', () => {
    const end = deleted({ retryUntil: 1_795_000_000 });
    expect(end.outcome).toBe('succeeded-or-failed');
    expect(end.when).toContain('handle() threw after its retryUntil (1795000000');
    expect(end.when).toMatch(/else it succeeded on attempt 1 of 3$/);
  });

  it('with maxExceptions: failed if that exception was its maxExceptions-th (the cache counts them across attempts)', () => {
    const end = deleted({ maxExceptions: 2 });
    expect(end.outcome).toBe('succeeded-or-failed');
    expect(end.when).toContain('made 2 exceptions in all (its maxExceptions)');
  });
});

describe('a deleted job on its last try', () => {
  it('without a retryUntil: failed if handle() threw', () => {
    expect(deleted({ attempts: 3 })).toMatchObject({
      outcome: 'succeeded-or-failed',
      when: 'failed if handle() threw on attempt 3 of 3, its last: fail() deletes the job with the same ZREM',
    });
  });

  it('with a retryUntil: from 8.15 only the retryUntil counts, before it the last try too', () => {
    const end = deleted({ attempts: 3, retryUntil: 1_795_000_000 });
    expect(end.outcome).toBe('succeeded-or-failed');
    expect(end.when).toContain('handle() threw after its retryUntil');
    expect(end.when).toContain(
      '(before Laravel 8.15, which ignores the tries for a job with a retryUntil) handle() threw on attempt 3 of 3',
    );
  });

  it("no $tries in the payload and a retryUntil: the worker's --tries only before 8.15", () => {
    const end = deleted({ attempts: 1, maxTries: null, retryUntil: 1_795_000_000 });
    expect(end.when).toContain('handle() threw after its retryUntil');
    expect(end.when).toContain(
      '(before Laravel 8.15, which ignores the tries for a job with a retryUntil) handle() threw on attempt 1 and the worker runs with --tries=1',
    );
  });
});
