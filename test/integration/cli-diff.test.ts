// `lqsim diff` through the CLI, on real runs. The lines each test expects are derived by hand
// from Laravel's source per version (see the comments), not taken from the tool's output.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { lqsim, lqsimEnv } from '../helpers/cli.ts';

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'lqsim-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (s: string) => s.split('\n');
// Each test starts the CLI (and redis-server) a few times; on a loaded two-core machine that takes a while.
const SLOW = 120_000;

describe('lqsim diff dispatch@5.7 dispatch@8', () => {
  it(
    'shows the push script and the :notify list as the difference',
    async () => {
      const { code, stdout } = await lqsim(['diff', 'dispatch@5.7', 'dispatch@8']);
      expect(code).toBe(1);
      const out = lines(stdout);
      // 5.7 RedisQueue::pushRaw: rpush($this->getQueue($queue), $payload), after Predis' SELECT 0.
      // 8.x pushRaw: eval(LuaScripts::push(), 2, $queue, $queue.':notify', $payload); the script
      // runs rpush KEYS[1] ARGV[1], then rpush KEYS[2] 1. phpredis also SELECTs 0 first. The 8.x
      // skeleton's prefix laravel_database_ is stripped from keys and reported on its own.
      expect(out).toContain('~ key prefix: (none) → laravel_database_ (stripped from the keys below)');
      expect(out).toContain('    = SELECT 0');
      expect(out).toContain('    - RPUSH queues:default ‹SendWelcomeEmail#ID1 attempts:0›');
      expect(out).toContain(
        '    + EVAL ‹push› 2 queues:default queues:default:notify ‹SendWelcomeEmail#ID1 attempts:0›',
      );
      expect(out).toContain('    +   [lua] rpush queues:default:notify 1');
      // 8.x payloads add uuid, maxExceptions, failOnTimeout, backoff and retryUntil; timeoutAt is gone.
      const fields = out.find((l) => l.startsWith('        ID1: '));
      for (const f of [
        '-timeoutAt',
        '+uuid UUID1',
        '+maxExceptions null',
        '+failOnTimeout false',
        '+backoff null',
        '+retryUntil null',
      ])
        expect(fields).toContain(f);
      expect(out.filter((l) => l !== '').at(-1)).toBe(
        '1 step differs (1 changed, 0 only in a, 0 only in b), 0 same; the key prefix differs',
      );
    },
    SLOW,
  );
});

describe('lqsim diff timeout-max-attempts@5.7 timeout-max-attempts@8', () => {
  it(
    'shows 8.x failing the last attempt before the kill, where 5.7 waits for retry_after',
    async () => {
      const { code, stdout } = await lqsim(['diff', 'timeout-max-attempts@5.7', 'timeout-max-attempts@8']);
      expect(code).toBe(1);
      const out = lines(stdout);
      // 5.7 Worker::registerTimeoutHandler only kills the process (no Redis command). At t+90
      // (retry_after 90) the next poll migrates the expired reservation back (zremrangebyrank,
      // rpush of the attempts:1 copy), pops it as attempts 2 (reserved until t+180), and
      // markJobAsFailedIfAlreadyExceedsMaxAttempts deletes it: ZREM of the attempts:2 copy.
      expect(out).toContain('    -   [lua] zremrangebyrank queues:default:reserved 0 0');
      expect(out).toContain('    -   [lua] rpush queues:default ‹ImportCsv#ID1 attempts:1›');
      expect(out).toContain('    -   [lua] zadd queues:default:reserved T+180 ‹ImportCsv#ID1 attempts:2›');
      expect(out).toContain('    - ZREM queues:default:reserved ‹ImportCsv#ID1 attempts:2›');
      // 8.x (5.8.28+) registerTimeoutHandler: markJobAsFailedIfWillExceedMaxAttempts fails the job
      // on its last attempt (tries 1) before kill(): ZREM of the attempts:1 copy at t+60, in the
      // step of worker-1's timeout.
      const zrem = out.indexOf('    + ZREM queues:default:reserved ‹ImportCsv#ID1 attempts:1›');
      expect(zrem).toBeGreaterThan(0);
      const header = out
        .slice(0, zrem)
        .reverse()
        .find((l) => /^[~+=-] /.test(l));
      expect(header).toMatch(/\| #\d+ T\+60 worker-1$/);
      // 8.x pop takes queues:default:notify as a third key and pops the notification too.
      expect(out).toContain('    + EVAL ‹pop› 3 queues:default queues:default:reserved queues:default:notify T+90');
      expect(out).toContain('    +   [lua] lpop queues:default:notify');
      expect(out.filter((l) => l !== '').at(-1)).toMatch(
        /^\d+ steps differ \(\d+ changed, \d+ only in a, 0 only in b\), 0 same; the key prefix differs$/,
      );
    },
    SLOW,
  );
});

describe('lqsim diff: identical traces, other sources, bad input', () => {
  it(
    'exits 0 for a scenario against itself, with the profile named or not',
    async () => {
      const { code, stdout } = await lqsim(['diff', 'dispatch', 'dispatch@5.7']);
      expect(code).toBe(0);
      expect(stdout).toContain('--- a: dispatch@5.7\n+++ b: dispatch@5.7\n');
      expect(stdout.trimEnd().split('\n').at(-1)).toBe('0 steps differ, 1 same');
    },
    SLOW,
  );

  it(
    'reads ndjson from run --format ndjson (prefix found from the keys), also with cjson copies in another key order',
    async () => {
      const { stdout } = await lqsim(['run', 'success', '--laravel', '8', '--format', 'ndjson']);
      const file = join(dir, 'success-8.ndjson');
      writeFileSync(file, stdout);
      const same = await lqsim(['diff', file, 'success@8']);
      expect(same.code).toBe(0);
      expect(same.stdout.trimEnd().split('\n').at(-1)).toMatch(/^0 steps differ, \d+ same$/);
      // What another Redis build's cjson could write: every key order of the reserved copy reversed,
      // in the [lua] zadd and in the ZREM that sends those bytes back. Still the same trace.
      const reversed = (json: string) =>
        JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(json) as object).reverse()));
      const rows = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { source: string; args: string[] });
      const copy = rows.find((r) => r.source === 'lua' && r.args[0] === 'zadd')!.args[3]!;
      expect(reversed(copy)).not.toBe(copy);
      const edited = stdout.split(JSON.stringify(copy).slice(1, -1)).join(JSON.stringify(reversed(copy)).slice(1, -1));
      expect(edited).not.toBe(stdout);
      const other = join(dir, 'success-8-reordered.ndjson');
      writeFileSync(other, edited);
      expect((await lqsim(['diff', other, file])).code).toBe(0);
    },
    SLOW,
  );

  it(
    'exit 2 with one line for an unknown profile, scenario or malformed file',
    async () => {
      const profile = await lqsim(['diff', 'dispatch@9', 'dispatch']);
      expect(profile.code).toBe(2);
      expect(profile.stderr.trim()).toMatch(/^lqsim: dispatch@9: unknown Laravel profile "9" \(known: .*5\.7.*\)$/);
      const scenario = await lqsim(['diff', 'dispatchh', 'dispatch']);
      expect(scenario.code).toBe(2);
      expect(scenario.stderr.trim().split('\n')).toHaveLength(1);
      const bad = join(dir, 'bad.ndjson');
      writeFileSync(bad, '{"step":0}\n');
      const malformed = await lqsim(['diff', bad, 'dispatch']);
      expect(malformed.code).toBe(2);
      expect(malformed.stderr).toBe(`lqsim: ${bad}:1: not an lqsim ndjson row (step, t, actor, source, db, args)\n`);
      expect(readFileSync(bad, 'utf8')).toBe('{"step":0}\n');
    },
    SLOW,
  );

  it(
    'a second operand its profile cannot run is refused before a redis-server is started for the first',
    async () => {
      // chain uses Bus::chain(), which Laravel 5.7 does not have (scenarios/chain.yaml).
      const r = await lqsim(['diff', 'chain', 'chain@5.7']);
      expect(r.code).toBe(2);
      expect(r.stderr).not.toMatch(/using local redis-server/);
      expect(r.stderr.trim()).toMatch(
        /^lqsim: \S+chain\.yaml:\d+:\d+: timeline\.0\.chain: Bus::chain\(\) arrived in Laravel 8\.0/,
      );
      expect(r.stdout).toBe('');
    },
    SLOW,
  );
});

describe("docs/laravel.md's What changed between Laravel versions", () => {
  it('is what scripts/docs-versions.ts generates from the diffs now (its prose checked against them)', async () => {
    const script = new URL('../../scripts/docs-versions.ts', import.meta.url).pathname;
    const tsx = new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url).pathname;
    const { stdout } = await exec(process.execPath, [tsx, script, '--check'], { env: lqsimEnv() });
    expect(stdout).toBe('docs/laravel.md: "What changed between Laravel versions" is current\n');
  }, 300_000);
});
