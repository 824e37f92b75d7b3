// A REDIS_URL run killed with SIGKILL cannot delete its keys: its claim (lqsim:claim) expires, its
// keys and its mark (lqsim:run, which lists them) stay. The next run on that server recognises
// them by the mark alone, and only when nothing else is in the db (no other key, no client): it
// deletes them, takes the db and says so. A db where the owner's data sits beside the leftovers is
// never touched. A private redis-server stands for someone else's; the owner's data is in db 5,
// and the test's own client in db 15, both out of the runs' way.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLAIM_KEY, MARK_KEY } from '../../src/redis/claim.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { LQSIM_BIN, lqsimEnv } from '../helpers/cli.ts';
import { serverWithAdmin, type AdminClient } from '../helpers/admin.ts';

let server: RedisServer;
let admin: AdminClient;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ server, admin, stop } = await serverWithAdmin());
});
afterAll(() => stop());
beforeEach(async () => {
  await admin.flushAll();
});

const url = () => `redis://127.0.0.1:${server.port}`;
const external = () => ({
  url: url(),
  owned: false,
  kind: 'external',
  version: server.version,
  describe: () => 'REDIS_URL',
});
const spec = async (name: string) => (await loadScenarioFile(await resolveScenario(name))).spec;
/** Runs a script in `db` from the admin's db 15 (the admin never selects `db` itself). */
const inDb = async (db: number, body: string, ...args: string[]) =>
  admin.sendCommand(['EVAL', `redis.call('select', ${db}) ${body}`, '0', ...args]);
const keysIn = async (db: number) => ((await inDb(db, "return redis.call('keys', '*')")) as unknown as string[]).sort();
/** Every key of `db` with its DUMP (type, value and encoding: byte-identical or not). */
const dumpOf = async (db: number) =>
  inDb(
    db,
    "local out = {} for _, k in ipairs(redis.call('keys', '*')) do out[#out + 1] = k out[#out + 1] = redis.call('dump', k) end return out",
  );

/** The owner's data in db 5: a list, a hash, a string with an expiry. */
async function ownerData(): Promise<void> {
  await inDb(
    5,
    "redis.call('rpush', 'queues:default', 'their job') redis.call('hset', 'user:1', 'name', 'Ann') redis.call('set', 'session', 'x', 'EX', 3600)",
  );
}

/**
 * `lqsim run timeout-max-attempts --pace 400` on REDIS_URL, killed with SIGKILL once step #2 is
 * printed (the job is reserved: the run's keys hold it). Resolves once the process is gone.
 */
async function killedRun(): Promise<string> {
  const child = spawn(process.execPath, [LQSIM_BIN, 'run', 'timeout-max-attempts', '--pace', '400'], {
    env: lqsimEnv({ REDIS_URL: url(), LQSIM_REDIS: '' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, signal) => r(signal)));
  for (let i = 0; i < 200 && !/^#2 /m.test(out); i++) await new Promise((r) => setTimeout(r, 50));
  expect(out).toMatch(/^#2 /m);
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return out;
}

/** What the killed run left in db 0: its keys (the reserved job), its mark, its claim until it expires. */
async function expectLeftovers(): Promise<void> {
  expect(await keysIn(0)).toEqual([CLAIM_KEY, MARK_KEY, 'queues:default:reserved'].sort());
  const mark = JSON.parse(String(await inDb(0, "return redis.call('get', ARGV[1])", MARK_KEY))) as {
    token: string;
    keys: string[];
  };
  expect(mark.keys).toEqual(['queues:default', 'queues:default:delayed', 'queues:default:reserved']);
  expect(Number(await inDb(0, "return redis.call('pttl', ARGV[1])", MARK_KEY))).toBe(-1); // the mark never expires
  // The claim would expire within 30 s; the test does not wait for it.
  expect(Number(await inDb(0, "return redis.call('pexpire', ARGV[1], 1)", CLAIM_KEY))).toBe(1);
  await new Promise((r) => setTimeout(r, 20));
}

describe('the leftovers of a REDIS_URL run killed with SIGKILL', () => {
  it('are removed by the next run, which takes their db and says so; the owner data stays byte-identical', async () => {
    await ownerData();
    const before = await dumpOf(5);
    await killedRun();
    await expectLeftovers();
    const t = await runScenario(await spec('success'), { redis: external() });
    expect(t.error).toBeUndefined();
    expect(t.notices).toEqual([
      expect.stringMatching(
        /^db 0 held what a run that is gone left behind \(run [0-9a-f]{8}, killed before its cleanup: queues:default:reserved and its mark lqsim:run\); nothing else was there and no client was in it, so they were deleted and the db reused$/,
      ),
    ]);
    // The run used db 0 (its SELECT says so), and nothing is left there afterwards.
    expect(t.steps[0]!.commands[0]!.args).toEqual(['SELECT', '0']);
    expect(await keysIn(0)).toEqual([]);
    expect(await dumpOf(5)).toEqual(before);
  });

  it('beside the owner data in the same db are never touched: the next run takes another db', async () => {
    await killedRun();
    await expectLeftovers();
    await inDb(0, "return redis.call('set', 'theirs', 'x')"); // someone's key beside the leftovers
    const before = await dumpOf(0);
    const t = await runScenario(await spec('success'), { redis: external() });
    expect(t.error).toBeUndefined();
    expect(t.notices).toEqual([
      "db 0 holds other data or another run on this server (REDIS_URL), so the run used the empty db 1: Laravel's SELECT shows 1",
    ]);
    expect(await dumpOf(0)).toEqual(before);
    expect(await keysIn(1)).toEqual([]);
  });
});
