// On a shared server (REDIS_URL) a run that claims another db than its scenario's is still checked
// in the scenario's terms: the library example's expectation ('SELECT 0' and all) passes on a run
// that claimed db 1, and fails with exactDb; a golden written on db 0 passes on a run that claimed
// db 2, in code (checkGolden) and through the CLI (check, diff, run --golden); `--format json`
// keeps the record of the claim. A real redis-server; its db 0 (and 1) hold "an app's" data first
// so that the run must claim another db.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { scenario } from '../../src/scenarios/builder.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { loadScenario } from '../../src/scenarios/shipped.ts';
import type { ExpectedCommand } from '../../src/testing/index.ts';
import { checkGolden, lua, matchers, payload, same, scoreAt, script, traceMismatch } from '../../src/testing/index.ts';
import { lqsim } from '../helpers/cli.ts';

let owner: RedisServer;
let client: ReturnType<typeof createClient>;
const dir = mkdtempSync(join(tmpdir(), 'lqsim-db-neutral-'));
beforeAll(async () => {
  owner = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
  client = createClient({ url: owner.url });
  client.on('error', () => undefined);
  await client.connect();
});
afterAll(async () => {
  client?.destroy();
  await owner?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The app's data in dbs 0..n-1, so a run on the shared server claims db n. */
async function appDataIn(n: number): Promise<void> {
  await client.flushAll();
  for (let db = 0; db < n; db++)
    await client.sendCommand(['EVAL', `redis.call('select', ${db}); redis.call('set', 'app:key', 'theirs')`, '0']);
}

/** The owner's server as someone else's, through REDIS_URL (not owned: each run claims a db). */
const shared = () => acquireRedis({ env: { ...process.env, REDIS_URL: owner.url } });
const SLOW = 120_000;

// docs/library.md's example (examples/send-invoice.test.ts): its scenario and its expectation,
// derived from Laravel 5.7's RedisQueue and LuaScripts for one job that succeeds on its first try.
const sendInvoice = scenario('send-invoice', 'SendInvoice succeeds on its first try')
  .laravel('5.7')
  .connection('redis', { queue: 'default', retry_after: 90 })
  .worker('worker-1', { tries: 3, timeout: 60 })
  .job('SendInvoice', { class: 'App\\Jobs\\SendInvoice', attempts: [{ run: 2 }] })
  .dispatch('SendInvoice', { at: 0 })
  .build();
/** One job that succeeds on its first try under 5.7, each connection opened by `select`. */
const sentFor = (select: string): ExpectedCommand[] => [
  select,
  ['RPUSH', 'queues:default', payload({ attempts: 0 })],
  select,
  ['EVAL', script('migrateExpiredJobs'), 2, 'queues:default:delayed', 'queues:default', scoreAt(0)],
  lua('zrangebyscore', 'queues:default:delayed', '-inf', scoreAt(0)),
  ['EVAL', script('migrateExpiredJobs'), 2, 'queues:default:reserved', 'queues:default', scoreAt(0)],
  lua('zrangebyscore', 'queues:default:reserved', '-inf', scoreAt(0)),
  ['EVAL', script('pop'), 2, 'queues:default', 'queues:default:reserved', scoreAt(90)],
  lua('lpop', 'queues:default'),
  lua('zadd', 'queues:default:reserved', scoreAt(90), payload({ attempts: 1 }, 'reserved')),
  ['ZREM', 'queues:default:reserved', same('reserved')],
];
const README_EXPECTED = sentFor('SELECT 0');

describe("the README's example on a run that claimed db 1", () => {
  beforeEach(() => appDataIn(1));

  it(
    "passes as written ('SELECT 0'), fails with exactDb, and the trace keeps SELECT 1",
    async () => {
      const t = await runScenario(sendInvoice, { redis: await shared() });
      expect(t.error).toBeUndefined();
      expect(t.database).toEqual({ scenario: 0, used: 1 });
      expect(
        t.steps
          .flatMap((s) => s.commands)
          .filter((c) => c.args[0] === 'SELECT')
          .map((c) => c.args),
      ).toEqual([
        ['SELECT', '1'],
        ['SELECT', '1'],
      ]);
      expect(traceMismatch(t, README_EXPECTED)).toBeNull();
      expect(matchers.toMatchRedisCommands(t, README_EXPECTED).pass).toBe(true);
      expect(matchers.toHaveExecuted(t, 'SendInvoice#1', 1).pass).toBe(true);
      const exact = traceMismatch(t, README_EXPECTED, { exactDb: true })!;
      expect(exact.split('\n')[0]).toBe(
        'assertTrace: the Redis commands differ from the expected ones: 2 differences (expected 11 commands, got 11)',
      );
      expect(exact).toContain('arg 1 is 1, expected 0');
      // A real difference shows the note and the real command.
      const wrong = traceMismatch(t, [README_EXPECTED[0]!, ['RPUSH', 'queues:default', payload({ attempts: 9 })]])!;
      expect(wrong.split('\n')[1]).toBe(
        "SELECT 1 compared as the scenario's db 0: this run claimed db 1 on a shared server",
      );
      expect(wrong).toMatch(/^✓ #0 +t\+0s +dispatcher +SELECT 1$/m);
      // The app's data is as it was, and the run left nothing behind.
      expect(await client.get('app:key')).toBe('theirs');
      expect(await client.sendCommand(['EVAL', "redis.call('select', 1); return redis.call('dbsize')", '0'])).toBe(0);
    },
    SLOW,
  );

  it(
    'phpredis under 5.7 selects no db 0: the SELECT 1 the claim adds is left out, not compared',
    async () => {
      const spec = scenario('phpredis', 'phpredis on db 0')
        .laravel('5.7')
        .redis({ client: 'phpredis' })
        .connection('redis', { queue: 'default', retry_after: 90 })
        .worker('worker-1', { tries: 3, timeout: 60 })
        .job('SendInvoice', { class: 'App\\Jobs\\SendInvoice', attempts: [{ run: 2 }] })
        .dispatch('SendInvoice', { at: 0 })
        .build();
      const t = await runScenario(spec, { redis: await shared() });
      expect(t.error).toBeUndefined();
      expect(t.database).toEqual({ scenario: 0, used: 1, extraSelect: true });
      const withoutSelect = README_EXPECTED.filter((c) => c !== 'SELECT 0');
      expect(traceMismatch(t, withoutSelect)).toBeNull();
      expect(traceMismatch(t, withoutSelect, { exactDb: true })).toContain('+ #0');
    },
    SLOW,
  );
});

describe('a golden written on db 0, checked on a run that claimed db 2', () => {
  const golden = join(dir, 'timeout-max-attempts.golden');

  it(
    'passes with checkGolden and lqsim check; not with exactDb / --exact-db',
    async () => {
      const { spec } = await loadScenario('timeout-max-attempts');
      const own = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
      try {
        const alone = await runScenario(spec, { redis: own });
        expect(alone.database).toBeUndefined();
        expect(checkGolden(alone, golden, { env: {} })).toBeNull(); // written
      } finally {
        await own.stop();
      }
      const text = readFileSync(golden, 'utf8');
      expect(text).toContain('  SELECT 0\n');
      expect(text).not.toContain('[db ');

      await appDataIn(2);
      const t = await runScenario(spec, { redis: await shared() });
      expect(t.database).toEqual({ scenario: 0, used: 2 });
      expect(checkGolden(t, golden, { env: {} })).toBeNull();
      const exact = checkGolden(t, golden, { env: {}, exactDb: true })!;
      expect(exact).toContain('    + [db 2] SELECT 2');
      expect(exact).toContain('db 0 → 2, the command itself the same');
      expect(readFileSync(golden, 'utf8')).toBe(text);

      const env = { REDIS_URL: owner.url };
      await appDataIn(2);
      const check = await lqsim(['check', 'timeout-max-attempts', '--golden', golden], { env });
      expect(check.stdout).toBe(`${golden}: matches timeout-max-attempts@5.7 (7 steps)\n`);
      expect(check.code).toBe(0);
      await appDataIn(2);
      const strict = await lqsim(['check', 'timeout-max-attempts', '--golden', golden, '--exact-db'], { env });
      expect(strict.code).toBe(1);
      expect(strict.stdout).toContain('    + [db 2] SELECT 2'); // the run did claim db 2
    },
    SLOW,
  );

  it(
    'lqsim run --golden on db 2 writes the same golden; lqsim diff against it is identical; --format json keeps the claim',
    async () => {
      const env = { REDIS_URL: owner.url };
      const again = join(dir, 'again.golden');
      await appDataIn(2);
      const run = await lqsim(['run', 'timeout-max-attempts', '--golden', again], { env });
      expect(run.code).toBe(0);
      expect(readFileSync(again, 'utf8')).toBe(readFileSync(golden, 'utf8'));
      await appDataIn(2);
      const diff = await lqsim(['diff', golden, 'timeout-max-attempts'], { env });
      expect(diff.code).toBe(0);
      expect(diff.stdout.split('\n')[2]).toBe(
        "~ b: SELECT 2 compared as the scenario's db 0: this run claimed db 2 on a shared server",
      );
      await appDataIn(2);
      const strict = await lqsim(['diff', golden, 'timeout-max-attempts', '--exact-db'], { env });
      expect(strict.code).toBe(1);
      await appDataIn(2);
      const json = await lqsim(['run', 'timeout-max-attempts', '--format', 'json'], { env });
      expect(JSON.parse(json.stdout).database).toEqual({ scenario: 0, used: 2 });
    },
    SLOW,
  );
});

describe('phpredis before 6.4 on a scenario db other than 0', () => {
  // PhpRedisConnector (5.7) selects only a non-zero `database`: on db 0 it sends no SELECT at all.
  // A run of a db-2 scenario that moved to db 0 would lack the SELECT 2 its scenario sends, which
  // no comparison can make up; so it never moves to db 0 (db 2 taken, db 0 free: it takes db 1).
  const onDb2 = scenario('db-2', 'phpredis on db 2')
    .laravel('5.7')
    .redis({ client: 'phpredis', database: 2 })
    .connection('redis', { queue: 'default', retry_after: 90 })
    .worker('worker-1', { tries: 1 })
    .job('SendInvoice', { class: 'App\\Jobs\\SendInvoice' })
    .dispatch('SendInvoice', { at: 0 })
    .build();

  it(
    'skips db 0, and the scenario-db expectation (SELECT 2 on each connection) passes',
    async () => {
      await client.flushAll();
      await client.sendCommand(['EVAL', "redis.call('select', 2); redis.call('set', 'app:key', 'theirs')", '0']);
      await client.sendCommand(['SELECT', '15']); // the admin client out of the dbs a run may take
      try {
        const t = await runScenario(onDb2, { redis: await shared() });
        expect(t.error).toBeUndefined();
        expect(t.database).toEqual({ scenario: 2, used: 1 });
        const selects = t.steps.flatMap((s) => s.commands).filter((c) => c.args[0] === 'SELECT');
        expect(selects.map((c) => c.args.join(' '))).toEqual(['SELECT 1', 'SELECT 1']);
        expect(traceMismatch(t, sentFor('SELECT 2'))).toBeNull();
      } finally {
        await client.sendCommand(['SELECT', '0']);
      }
    },
    SLOW,
  );
});
