// A run whose cache store is on Redis holds two dbs of someone else's server (REDIS_URL): the
// queue's (`redis.database`) and the cache's (`redis.cache_database`), each claimed as one db is
// (src/redis/claim.ts), never one the run already holds, each watched, each released. Keys the
// run names as it goes (the cache's `job-exceptions:<uuid>`) are marked by their prefix and swept
// with the same care as listed keys after a SIGKILL. A private redis-server stands for someone
// else's; the test's admin client sits in db 15, out of the runs' way.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLAIM_KEY, claimDatabases, MARK_KEY } from '../../src/redis/claim.ts';
import { newClient } from '../../src/redis/connections.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { getProfile } from '../../src/sim/profiles/index.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { probePlan } from '../../src/scenarios/probe-plan.ts';
import { scenarioQueues } from '../../src/scenarios/queues.ts';
import { RunResources } from '../../src/scenarios/run-resources.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { ForeignUseError } from '../../src/scenarios/foreign-watch.ts';
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
/** Runs a script in `db` from the admin's db 15 (the admin never selects `db` itself). */
const inDb = async (db: number, body: string, ...args: string[]) =>
  admin.sendCommand(['EVAL', `redis.call('select', ${db}) ${body}`, '0', ...args]);
const keysIn = async (db: number) => ((await inDb(db, "return redis.call('keys', '*')")) as unknown as string[]).sort();
const dumpOf = async (db: number) =>
  inDb(
    db,
    "local out = {} for _, k in ipairs(redis.call('keys', '*')) do out[#out + 1] = k out[#out + 1] = redis.call('dump', k) end return out",
  );

const CP = 'laravel_database_';
const RESTART = `${CP}laravel_cache:illuminate:queue:restart`;
const EXCEPTIONS = `${CP}laravel_cache:job-exceptions:`;
const QUEUE_KEYS = [`${CP}queues:default`, `${CP}queues:default:delayed`, `${CP}queues:default:reserved`];
const wanted = () => [
  { db: 0, keys: QUEUE_KEYS },
  { db: 1, keys: [RESTART], prefixes: [EXCEPTIONS] },
];

async function observerOn() {
  const observer = newClient(url());
  await observer.connect();
  const own = new Set([String(await observer.sendCommand(['CLIENT', 'ID']))]);
  return { observer, own };
}

describe('claimDatabases: the queue db and the cache db', () => {
  it('claims both, never giving two scenario dbs one db, marks each with its own keys, and releases both', async () => {
    await inDb(0, "return redis.call('set', 'theirs', 'x')"); // db 0 holds someone's data
    const { observer, own } = await observerOn();
    try {
      const held = await claimDatabases(observer, wanted(), 'abcd1234', { own });
      // The queue's db 0 is not free: the first free db is 1, so the cache's db 1 (wanted) is taken
      // by the run itself and the cache goes to 2.
      expect(held.claims.map((c) => [c.wanted, c.db, c.moved])).toEqual([
        [0, 1, true],
        [1, 2, true],
      ]);
      expect(held.claims[1]!.movedBecause).toBe('is the one this run took for its db 0');
      expect([held.usedDb(0), held.usedDb(1), held.usedDb(7)]).toEqual([1, 2, 7]);
      const markIn = async (db: number) =>
        JSON.parse(String(await inDb(db, "return redis.call('get', ARGV[1])", MARK_KEY)));
      expect(await markIn(1)).toEqual({ token: 'abcd1234', keys: QUEUE_KEYS }); // as one-db runs always wrote it
      expect(await markIn(2)).toEqual({ token: 'abcd1234', keys: [RESTART], prefixes: [EXCEPTIONS] });
      // The run's keys, one named as it went.
      await inDb(1, "return redis.call('rpush', ARGV[1], 'job')", QUEUE_KEYS[0]!);
      await inDb(
        2,
        "redis.call('set', ARGV[1], '1700000000') return redis.call('setex', ARGV[2], 86400, 0)",
        RESTART,
        `${EXCEPTIONS}uuid-1`,
      );
      await held.release();
      expect([await keysIn(1), await keysIn(2)]).toEqual([[], []]);
      expect(await keysIn(0)).toEqual(['theirs']);
    } finally {
      observer.destroy();
    }
  });

  it('claims a db named twice (the cache on the queue db) once, with both lists of keys', async () => {
    const { observer, own } = await observerOn();
    try {
      const held = await claimDatabases(
        observer,
        [
          { db: 0, keys: QUEUE_KEYS },
          { db: 0, keys: [RESTART], prefixes: [EXCEPTIONS] },
        ],
        'abcd1234',
        { own },
      );
      expect(held.claims.map((c) => c.db)).toEqual([0]);
      const mark = JSON.parse(String(await inDb(0, "return redis.call('get', ARGV[1])", MARK_KEY)));
      expect(mark).toEqual({ token: 'abcd1234', keys: [...QUEUE_KEYS, RESTART], prefixes: [EXCEPTIONS] });
      await held.release();
      expect(await keysIn(0)).toEqual([]);
    } finally {
      observer.destroy();
    }
  });

  it('gives back what it claimed when a later db cannot be claimed', async () => {
    // Only dbs 0 and 1 are free: 2-14 hold data, 15 has the admin in it.
    for (let db = 2; db <= 14; db++) await inDb(db, "return redis.call('set', 'theirs', 'x')");
    await inDb(1, "return redis.call('set', 'theirs', 'x')");
    const { observer, own } = await observerOn();
    try {
      await expect(claimDatabases(observer, wanted(), 'abcd1234', { own })).rejects.toThrow(
        /no free db on this server \(REDIS_URL; 15 tried: 14 hold data/,
      );
      expect(await keysIn(0)).toEqual([]); // the queue's claim and mark are gone again
    } finally {
      observer.destroy();
    }
  });
});

/** The claim child (test/helpers/claim-child.ts) holding both dbs, killed with SIGKILL once it wrote its keys. */
async function killedClaim(write: Array<{ db: number; key: string }>): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(new URL('../helpers/claim-child.ts', import.meta.url)),
      JSON.stringify({ url: url(), ttlMs: 30_000, wanted: wanted(), write }),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, signal) => r(signal)));
  try {
    for (let i = 0; i < 400 && !out.includes('held'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(out).toBe('held [0,1]\n');
  } finally {
    child.kill('SIGKILL'); // whatever happened: no process of the test's outlives it
  }
  expect(await exited).toBe('SIGKILL');
  // Its claims would expire within 30 s; the test does not wait for them.
  for (const db of [0, 1])
    expect(Number(await inDb(db, "return redis.call('pexpire', ARGV[1], 1)", CLAIM_KEY))).toBe(1);
  await new Promise((r) => setTimeout(r, 20));
}

describe('the leftovers of a two-db run killed with SIGKILL', () => {
  const write = [
    { db: 0, key: QUEUE_KEYS[2]! },
    { db: 1, key: RESTART },
    { db: 1, key: `${EXCEPTIONS}9b1d3c1e-0000-4000-8000-000000000001` },
    { db: 1, key: `${EXCEPTIONS}9b1d3c1e-0000-4000-8000-000000000002` },
  ];

  it('are swept from both dbs, the keys named by prefix too, and the next run says so', async () => {
    await killedClaim(write);
    expect(await keysIn(1)).toEqual([MARK_KEY, RESTART, write[2]!.key, write[3]!.key].sort());
    const { observer, own } = await observerOn();
    try {
      const held = await claimDatabases(observer, wanted(), 'abcd1234', { own });
      expect(held.claims.map((c) => c.db)).toEqual([0, 1]);
      expect(held.claims[0]!.notices).toEqual([
        `db 0 held what a run that is gone left behind (run deadbeef, killed before its cleanup: ${QUEUE_KEYS[2]} and its mark lqsim:run); nothing else was there and no client was in it, so they were deleted and the db reused`,
      ]);
      expect(held.claims[1]!.notices).toEqual([
        `db 1 held what a run that is gone left behind (run deadbeef, killed before its cleanup: ${RESTART}, ${write[2]!.key}, ${write[3]!.key} and its mark lqsim:run); nothing else was there and no client was in it, so they were deleted and the db reused`,
      ]);
      expect(await keysIn(1)).toEqual([CLAIM_KEY, MARK_KEY]);
      await held.release();
    } finally {
      observer.destroy();
    }
  });

  it("beside anyone else's key are never touched, prefix keys included: the cache moves on", async () => {
    await killedClaim(write);
    await inDb(1, "return redis.call('set', 'theirs', 'x')");
    const before = await dumpOf(1);
    const { observer, own } = await observerOn();
    try {
      const held = await claimDatabases(observer, wanted(), 'abcd1234', { own });
      expect(held.claims.map((c) => [c.wanted, c.db])).toEqual([
        [0, 0],
        [1, 2],
      ]);
      expect(held.claims[1]!.movedBecause).toBe('holds other data or another run');
      expect(await dumpOf(1)).toEqual(before);
      await held.release();
    } finally {
      observer.destroy();
    }
  });

  it('a prefix with glob characters matches only keys that begin with it', async () => {
    const { observer, own } = await observerOn();
    try {
      const odd = 'app[1]*?\\:';
      const held = await claimDatabases(observer, [{ db: 3, keys: [], prefixes: [odd] }], 'abcd1234', { own });
      await inDb(3, "redis.call('set', ARGV[1], 'x') return redis.call('set', ARGV[2], 'x')", `${odd}x`, 'app1zz:y');
      await held.release();
      // `app1zz:y` would match the prefix read as a glob; it is not the run's, so the end keeps it.
      expect(await keysIn(3)).toEqual(['app1zz:y']);
    } finally {
      observer.destroy();
    }
  });
});

describe("RunResources with the queue db and the cache db on someone else's server", () => {
  const external = () => ({
    url: url(),
    owned: false,
    kind: 'external',
    version: server.version,
    describe: () => 'REDIS_URL',
  });

  async function opened(o: { virtualTtl?: boolean } = {}) {
    const spec = (await loadScenarioFile(await resolveScenario('success'))).spec;
    const profile = getProfile(spec.laravel);
    const queues = scenarioQueues(spec, spec.redis.prefix ?? profile.defaultPrefix);
    const plan = probePlan(spec, profile, queues);
    const held = new RunResources(
      external(),
      plan,
      [{ db: 0 }, { db: 1, keys: [RESTART], prefixes: [EXCEPTIONS], field: 'redis.cache_database' }],
      o,
    );
    const timeline = { notices: [], warnings: [] } as unknown as Timeline;
    await held.open({ spec, profile, queues, timeline });
    return { held, timeline };
  }

  it('tells which db each scenario db uses, notes the cache db it moved and why, and gives both back', async () => {
    await inDb(1, "return redis.call('set', 'theirs', 'x')"); // the cache's db holds data
    const { held, timeline } = await opened();
    try {
      expect([held.usedDb(0), held.usedDb(1), held.db]).toEqual([0, 2, 0]);
      // The scenario's Laravel 5.7 client, predis, SELECTs every db, 0 included.
      expect([held.selectDb, held.selectDbFor(0), held.selectDbFor(1)]).toEqual([0, 0, 2]);
      expect(timeline.notices).toEqual([
        "db 1 (redis.cache_database) holds other data or another run on this server (REDIS_URL), so the run used the empty db 2: Laravel's SELECT shows 2",
      ]);
      expect(timeline.database).toEqual({
        scenario: 0,
        used: 0,
        others: [{ scenario: 1, used: 2, field: 'redis.cache_database' }],
      });
      // The cache's connection, as Laravel's would, in the db it was given.
      const cache = await held.hub.connect('worker-1');
      await cache.client.sendCommand(['SELECT', String(held.usedDb(1))]);
      await cache.client.sendCommand(['SETEX', `${EXCEPTIONS}uuid-1`, '86400', '0']);
      await cache.client.sendCommand(['SET', RESTART, '1700000000']);
    } finally {
      await held.release(timeline);
    }
    expect(timeline.error).toBeUndefined();
    expect([await keysIn(0), await keysIn(2)]).toEqual([[], []]);
    expect(await keysIn(1)).toEqual(['theirs']);
  });

  it("stops on another client's command in the cache's db, naming that db", async () => {
    const { held, timeline } = await opened();
    const other = newClient(url());
    try {
      await other.connect();
      await other.sendCommand(['SELECT', '1']);
      await other.sendCommand(['GET', RESTART]);
      const lines = await held.capture!.barrier(held.hub.observer);
      expect(() => held.watchLines(lines)).toThrow(ForeignUseError);
      expect(() => held.watchLines(lines)).toThrow(
        /^another client used this run's db 1 \(127\.0\.0\.1:\d+: SELECT 1; 127\.0\.0\.1:\d+: GET /,
      );
    } finally {
      other.destroy();
      await held.release(timeline);
    }
  });

  it("keeps its claims' own TTLs out of the TTL sweep", async () => {
    const { held, timeline } = await opened({ virtualTtl: true });
    try {
      const cache = await held.hub.connect('worker-1');
      await cache.client.sendCommand(['SELECT', '1']);
      await cache.client.sendCommand(['SET', `${CP}laravel_cache:lock`, 'owner', 'EX', '30', 'NX']);
      await held.afterStep(1700000000);
      // The step's lines, as the runner hands them on: the TTL its command gave (EX 30) is the key's.
      held.watchLines(await held.capture!.barrier(held.hub.observer));
      expect(held.expiries()).toEqual([{ db: 1, used: 1, key: `${CP}laravel_cache:lock`, at: 1700000030 }]);
      for (const db of [0, 1]) {
        expect(Number(await inDb(db, "return redis.call('pttl', ARGV[1])", CLAIM_KEY))).toBeGreaterThan(0);
        expect(Number(await inDb(db, "return redis.call('pttl', ARGV[1])", MARK_KEY))).toBe(-1);
      }
      expect(Number(await inDb(1, "return redis.call('pttl', ARGV[1])", `${CP}laravel_cache:lock`))).toBe(-1);
    } finally {
      await held.release(timeline);
    }
  });
});
