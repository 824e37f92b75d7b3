// lqsim explain on the rate limiters' releases: a job that a limiter refused on every attempt
// fails with MaxAttemptsExceededException without running, and the finding says which middleware
// spent its attempts. The input is the tool's own ndjson of a shipped scenario whose trace is
// identical to real Laravel 8.83's (test/integration/conformance.test.ts): explain reads it as it
// reads a capture. What it must say is derived from RateLimited::handle and RateLimiter (8.83):
// at the max, tooManyAttempts reads the count, then the timer (`has`), and availableIn reads the
// timer again before the release; ThrottlesExceptions' circuit reads the same.
import { describe, expect, it } from 'vitest';
import { lqsim } from '../helpers/cli.ts';

const ndjsonOf = async (scenario: string): Promise<string> => {
  const r = await lqsim(['run', scenario, '--format', 'ndjson']);
  expect(r.code).toBe(0);
  return r.stdout;
};

const findings = async (ndjson: string): Promise<Array<{ kind: string; certainty: string; title: string }>> => {
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'lqsim-limiters-'));
  try {
    const file = join(dir, 'run.ndjson');
    writeFileSync(file, ndjson);
    const r = await lqsim(['explain', file, '--format', 'json']);
    expect(r.stderr).toBe('');
    return (JSON.parse(r.stdout) as { findings: Array<{ kind: string; certainty: string; title: string }> }).findings;
  } finally {
    rmSync(dir, { recursive: true, force: true }); // the test's own temp dir, never left behind
  }
};

describe('lqsim explain: attempts spent by a rate limiter', () => {
  it('rate-limited-release: SendInvoice#7, refused by the limiter on attempts 1, 2 and 3, fails unrun', async () => {
    const found = (await findings(await ndjsonOf('rate-limited-release'))).filter(
      (f) => f.kind === 'attempts-spent-by-middleware',
    );
    expect(found).toHaveLength(1);
    expect(found[0]!.certainty).toBe('certain');
    expect(found[0]!.title).toMatch(
      /^SendInvoice#7 reserved for attempt 4 of 3 and deleted at once: .* its attempts spent by RateLimited: RateLimited's limiter 56deca22a707214865f7ea3ae6391d67 was at its max on attempts 1, 2, 3/,
    );
  });

  it('throttled-exceptions: the circuit released the job once, but it succeeded afterwards: no such finding', async () => {
    const found = (await findings(await ndjsonOf('throttled-exceptions'))).filter(
      (f) => f.kind === 'attempts-spent-by-middleware',
    );
    expect(found).toEqual([]);
  });
});
