// Small things the CLI said wrong or did in the wrong order: a paced ndjson run that printed
// nothing, refusals that started a redis-server first, `new` into a missing folder, `list`'s
// columns, and explain's header for a capture that does not tell the Laravel version.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lqsim } from '../helpers/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lqsim-messages-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const STARTED_REDIS = /using local redis-server/;

describe('lqsim run --format ndjson --pace', () => {
  it('prints every command, as an unpaced run does', async () => {
    const paced = await lqsim(['run', 'dispatch', '--format', 'ndjson', '--pace', '5']);
    expect(paced.code, paced.stderr).toBe(0);
    const lines = paced.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: number; args: string[] });
    // dispatch.yaml (5.7): one web request connects, selects db 0 and RPUSHes the payload.
    expect(lines.map((c) => [c.step, c.args[0], c.args[1]])).toEqual([
      [0, 'SELECT', '0'],
      [0, 'RPUSH', 'queues:default'],
    ]);
    const unpaced = await lqsim(['run', 'dispatch', '--format', 'ndjson']);
    expect(paced.stdout).toBe(unpaced.stdout);
  });
});

describe('a refusal comes before any redis-server is started', () => {
  const CHAIN_ON_57 =
    /^lqsim: \S+chain\.yaml:42:12: timeline\.0\.chain: Bus::chain\(\) arrived in Laravel 8\.0; the 5\.7 profile chains with ->chain\(\) only/;

  it('run chain --laravel 5.7', async () => {
    const r = await lqsim(['run', 'chain', '--laravel', '5.7']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(CHAIN_ON_57);
    expect(r.stderr).not.toMatch(STARTED_REDIS);
  });

  it('check chain --laravel 5.7', async () => {
    const r = await lqsim(['check', 'chain', '--laravel', '5.7', '--golden', join(dir, 'chain.golden'), '--update']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(CHAIN_ON_57);
    expect(r.stderr).not.toMatch(STARTED_REDIS);
    expect(existsSync(join(dir, 'chain.golden'))).toBe(false);
  });

  it('CI=1 check --update', async () => {
    const r = await lqsim(['check', 'dispatch', '--golden', join(dir, 'd.golden'), '--update'], { env: { CI: '1' } });
    expect(r).toMatchObject({
      code: 2,
      stderr:
        'lqsim: check --update: refusing to rewrite a golden file in CI (CI is set); update it locally and commit it\n',
    });
  });
});

describe('lqsim new into a folder that does not exist', () => {
  it('says so, and creates nothing', async () => {
    const r = await lqsim(['new', 'sub/dir/x'], { cwd: dir });
    expect(r).toMatchObject({
      code: 2,
      stderr: `lqsim: new: no directory ${join(dir, 'sub/dir')} to write x.yaml in; create it first\n`,
    });
    expect(existsSync(join(dir, 'sub'))).toBe(false);
  });
});

describe('lqsim list', () => {
  it('lines the titles up whatever the profile ([8] and [5.7] alike)', async () => {
    const r = await lqsim(['list']);
    const lines = r.stdout.trim().split('\n');
    const titleAt = (line: string): number => /\]\s+/.exec(line)!.index + /\]\s+/.exec(line)![0].length;
    expect(lines.some((l) => l.includes('[8] '))).toBe(true);
    expect(lines.some((l) => l.includes('[5.7] '))).toBe(true);
    expect(new Set(lines.map(titleAt)).size).toBe(1);
  });
});

describe('lqsim explain of a capture with no script', () => {
  it('says the version could not be told, not "Laravel unknown profile"', async () => {
    const capture = join(dir, 'dispatch-only.txt');
    const payload = JSON.stringify({
      uuid: 'u1',
      displayName: 'App\\Jobs\\X',
      job: 'X',
      data: {},
      id: 'u1',
      attempts: 0,
    });
    await writeFile(
      capture,
      [
        '1700000000.000000 [0 127.0.0.1:50000] "SELECT" "0"',
        `1700000000.001000 [0 127.0.0.1:50000] "RPUSH" "queues:default" ${JSON.stringify(payload)}`,
        '',
      ].join('\n'),
    );
    const r = await lqsim(['explain', capture]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[1]).toBe(`Laravel version not told by this capture (no script), capture ${capture}`);
    expect(r.stdout).not.toMatch(/unknown profile/);
  });
});
