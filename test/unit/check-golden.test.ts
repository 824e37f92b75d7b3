// checkGolden() and toMatchGolden on a hand-built timeline and temporary files (no Redis): a
// missing golden is written (never in CI), a matching one passes, one that differs fails with the
// step-aligned diff and is rewritten only in update mode (Vitest's -u, read from the matcher's
// `this`), a golden of another scenario or profile says so, and a run on a claimed db matches the
// golden of its scenario's db.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkGolden, matchers } from '../../src/testing/index.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { timelineFixture } from '../fixtures/timeline-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'lqsim-check-golden-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NO_CI = { env: {} };

/** The fixture with its last command changed (a ZREM of attempts 3 instead of 2). */
function changed(): Timeline {
  const t = timelineFixture();
  const zrem = t.steps[3]!.commands[0]!;
  zrem.args = [zrem.args[0]!, zrem.args[1]!, zrem.args[2]!.replace('"attempts":2', '"attempts":3')];
  return t;
}

describe('checkGolden', () => {
  it('writes a missing golden (atomically), then passes against it', () => {
    const file = join(dir, 'a.golden');
    expect(checkGolden(timelineFixture(), file, NO_CI)).toBeNull();
    expect(readFileSync(file, 'utf8')).toMatch(/^# lqsim normalised trace v1\n/);
    expect(readdirSync(dir)).toEqual(['a.golden']);
    expect(checkGolden(timelineFixture(), file, NO_CI)).toBeNull();
  });

  it('fails with the diff when the run differs, and rewrites the file only with update: true', () => {
    const file = join(dir, 'b.golden');
    checkGolden(timelineFixture(), file, NO_CI);
    const before = readFileSync(file, 'utf8');
    const message = checkGolden(changed(), file, NO_CI)!;
    expect(message.split('\n').slice(0, 2)).toEqual([
      `--- a: ${file} (golden)`,
      '+++ b: timeout-max-attempts@5.7 (this run)',
    ]);
    expect(message).toContain('    - ZREM queues:default:reserved ‹SlowJob#ID1 attempts:2›');
    expect(message).toContain('    + ZREM queues:default:reserved ‹SlowJob#ID1 attempts:3›');
    expect(message.split('\n').at(-1)).toBe('1 step differs (1 changed, 0 only in a, 0 only in b), 2 same');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(checkGolden(changed(), file, { ...NO_CI, update: true })).toBeNull();
    expect(readFileSync(file, 'utf8')).not.toBe(before);
    expect(checkGolden(changed(), file, NO_CI)).toBeNull();
  });

  it('never writes when CI is set: a missing golden fails, one that differs is kept', () => {
    const file = join(dir, 'c.golden');
    expect(checkGolden(timelineFixture(), file, { env: { CI: 'true' }, update: true })).toBe(
      `${file}: no such golden file; it is written by a run outside CI (CI is set, so nothing is written), or with lqsim run timeout-max-attempts --golden ${file}`,
    );
    expect(existsSync(file)).toBe(false);
    checkGolden(timelineFixture(), file, NO_CI);
    expect(checkGolden(changed(), file, { env: { CI: '1' }, update: true })).toContain('1 step differs');
  });

  it('says when the golden was written for another scenario or Laravel profile', () => {
    const file = join(dir, 'd.golden');
    checkGolden(timelineFixture(), file, NO_CI);
    const other = { ...changed(), profile: '5.3', scenario: { name: 'other', title: 'x' } };
    expect(checkGolden(other, file, NO_CI)!.split('\n').slice(0, 2)).toEqual([
      'note: this golden was written for scenario timeout-max-attempts, this run is other',
      'note: this golden was written for Laravel 5.7, this run is Laravel 5.3',
    ]);
  });

  it("a run on a claimed db matches the golden of the scenario's db; exactDb does not", () => {
    const file = join(dir, 'e.golden');
    checkGolden(timelineFixture(), file, NO_CI);
    const moved = timelineFixture();
    for (const s of moved.steps)
      for (const c of s.commands) {
        c.db = 2;
        if (c.args[0] === 'SELECT') c.args = ['SELECT', '2'];
      }
    moved.database = { scenario: 0, used: 2 };
    expect(checkGolden(moved, file, NO_CI)).toBeNull();
    const exact = checkGolden(moved, file, { ...NO_CI, exactDb: true })!;
    expect(exact).toContain('    + [db 2] SELECT 2');
  });

  it('a run that ended with an error is not compared, nor written', () => {
    const file = join(dir, 'f.golden');
    expect(checkGolden({ ...timelineFixture(), error: 'boom' }, file, NO_CI)).toBe(
      `${file}: not compared, the run ended with an error: boom`,
    );
    expect(existsSync(file)).toBe(false);
  });
});

describe('toMatchGolden', () => {
  const vitestState = (update: 'all' | 'new' | 'none') => ({
    isNot: false,
    snapshotState: { _updateSnapshot: update },
  });
  // A relative file is read from the working directory, as `lqsim check --golden` reads it.
  // The matcher reads CI from the environment, as in a user's suite; .ci/run sets it, so it is
  // taken out here (checkGolden with CI in its env is tested above).
  const cwd = process.cwd();
  beforeAll(() => {
    process.chdir(dir);
    vi.stubEnv('CI', undefined);
    vi.stubEnv('CONTINUOUS_INTEGRATION', undefined);
  });
  afterAll(() => {
    process.chdir(cwd);
    vi.unstubAllEnvs();
  });

  it("resolves the file from the working directory, and follows Vitest's update mode", () => {
    const missing = matchers.toMatchGolden.call(vitestState('none'), timelineFixture(), 'g.golden');
    expect(missing.pass).toBe(false);
    expect(missing.message()).toContain(`${join(dir, 'g.golden')}: no such golden file`);
    expect(matchers.toMatchGolden.call(vitestState('new'), timelineFixture(), 'g.golden').pass).toBe(true);
    expect(existsSync(join(dir, 'g.golden'))).toBe(true);
    const differs = matchers.toMatchGolden.call(vitestState('new'), changed(), 'g.golden');
    expect(differs.pass).toBe(false);
    expect(differs.message().split('\n')[0]).toBe(
      `toMatchGolden: ${join(dir, 'g.golden')} differs from this run (vitest -u rewrites it)`,
    );
    // vitest -u
    expect(matchers.toMatchGolden.call(vitestState('all'), changed(), 'g.golden').pass).toBe(true);
    expect(matchers.toMatchGolden.call(vitestState('none'), changed(), 'g.golden').pass).toBe(true);
  });

  it('negated, passes only on a golden that differs', () => {
    const not = { ...vitestState('all'), isNot: true };
    checkGolden(timelineFixture(), join(dir, 'h.golden'), NO_CI);
    expect(matchers.toMatchGolden.call(not, changed(), 'h.golden').pass).toBe(false); // differs: .not holds
    expect(matchers.toMatchGolden.call(not, timelineFixture(), 'h.golden').pass).toBe(true); // matches: .not fails
    expect(matchers.toMatchGolden.call(not, timelineFixture(), 'nothing.golden').pass).toBe(true); // missing: fails
  });

  it('through expect.extend, in this very Vitest run', () => {
    expect.extend(matchers);
    const file = join(dir, 'i.golden');
    checkGolden(timelineFixture(), file, NO_CI);
    const e = expect as unknown as (v: unknown) => { toMatchGolden(f: string): void };
    e(timelineFixture()).toMatchGolden(file);
    // This run is not `vitest -u`, so a golden that differs fails and stays as it is.
    const before = readFileSync(file, 'utf8');
    expect(() => e(changed()).toMatchGolden(file)).toThrow(`toMatchGolden: ${file} differs from this run`);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
