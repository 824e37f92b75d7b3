// Runs on someone else's server (REDIS_URL) each hold a db of their own (src/redis/claim.ts):
// claimed atomically, released at the end, expiring when the process dies; parallel runs on one
// URL never share a db; another client using a run's db ends that run with an error. A client
// parked in a db occupies it (CLIENT LIST), so this test's own admin connection sits in db 15, out
// of the runs' way, and looks into other dbs from inside a script or once the runs are over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { CLAIM_KEY, claimDatabase } from '../../src/redis/claim.ts';
import { newClient } from '../../src/redis/connections.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { lqsim } from '../helpers/cli.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';

let owner: RedisServer;
beforeAll(async () => {
  owner = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
});
afterAll(async () => {
  await owner.stop();
});

/** The same server, seen as someone else's (REDIS_URL): not owned, so claimed, never flushed. */
const external = () => ({ ...owner, owned: false, describe: () => 'REDIS_URL', stop: async () => undefined });
const spec = async (name: string) => (await loadScenarioFile(await resolveScenario(name))).spec;
async function clientOn(db: number) {
  const c = createClient({ socket: { host: owner.host, port: owner.port }, database: db });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

/** The admin connection: in db 15, which the runs here never reach. */
const adminOn15 = () => clientOn(15);
/** Runs a script in `db` from the admin's db 15 (the admin never selects `db` itself). */
const inDb = (admin: Awaited<ReturnType<typeof clientOn>>, db: number, body: string, ...keys: string[]) =>
  admin.sendCommand(['EVAL', `redis.call('select', ${db}) ${body}`, String(keys.length), ...keys]);

/** A trace without wall-clock times and with the db a run landed on taken out. */
function essence(t: Timeline) {
  return t.steps.map((s) => ({
    actor: s.actor,
    title: s.title,
    commands: s.commands.map((c) =>
      c.args[0] === 'SELECT' ? ['SELECT', '<db>'] : [c.actor, c.process, c.source, ...c.args],
    ),
  }));
}

describe('claims on a server the tool did not start', () => {
  it('runs in parallel on one URL each get a db of their own, and each trace is the one run alone', async () => {
    const admin = await adminOn15();
    await admin.flushAll();
    const scenario = await spec('failure-release');
    const alone = await runScenario(scenario, { redis: external() });
    expect(alone.error).toBeUndefined();
    const runs = await Promise.all(Array.from({ length: 4 }, () => runScenario(scenario, { redis: external() })));
    const dbs = runs.map((t) => t.steps[0]!.commands.find((c) => c.args[0] === 'SELECT')?.args[1] ?? '0');
    expect(new Set(dbs).size).toBe(4);
    for (const t of runs) {
      expect(t.error).toBeUndefined();
      expect(essence(t)).toEqual(essence(alone));
    }
    // Every run released its claim and deleted its keys.
    for (let db = 0; db < 16; db++)
      expect(await inDb(admin, db, "return redis.call('keys', '*')"), `db ${db}`).toEqual([]);
    admin.destroy();
  });

  it('holds the claim (with an expiry) while it runs and never shows it in the trace', async () => {
    const admin = await adminOn15();
    await admin.flushAll();
    let seen: string | undefined;
    const t = await runScenario(await spec('success'), {
      redis: external(),
      // INFO reads no db: the run's watch lets it be. Mid-run db 0 holds the run's keys, one of
      // them (the claim) with an expiry of at most 30 s.
      onStep: async (step) => {
        if (step.index === 0) seen = /^db0:(.*)$/m.exec(await admin.info('keyspace'))?.[1];
      },
    });
    expect(t.error).toBeUndefined();
    const [, keys, expires] = /^keys=(\d+),expires=(\d+)/.exec(seen ?? '') ?? [];
    expect(Number(keys)).toBeGreaterThanOrEqual(3); // the claim, the mark, queues:default
    expect(Number(expires)).toBe(1); // the claim's (how long: the heartbeat test below)
    expect(t.steps.flatMap((s) => s.commands).some((c) => c.args.includes(CLAIM_KEY))).toBe(false);
    expect(await inDb(admin, 0, "return redis.call('keys', '*')")).toEqual([]);
    admin.destroy();
  });

  it('moves on from a db another run holds, and gets it back once that claim has expired', async () => {
    const admin = await adminOn15();
    await admin.flushAll();
    // A run killed with SIGKILL left it: held long enough for a run started on a loaded machine to
    // find it, and waited out (not slept for) before the second run.
    await inDb(admin, 0, "return redis.call('set', KEYS[1], 'dead-run', 'PX', 3000)", CLAIM_KEY);
    const first = await runScenario(await spec('success'), { redis: external() });
    expect(first.notices?.[0]).toContain('so the run used the empty db 1');
    for (let i = 0; i < 100 && Number(await inDb(admin, 0, "return redis.call('exists', KEYS[1])", CLAIM_KEY)) > 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    const second = await runScenario(await spec('success'), { redis: external() });
    expect(second.notices).toEqual([]);
    admin.destroy();
  });

  it('ends the run with an error when another client touches its keys, and says which', async () => {
    const admin = await adminOn15();
    await admin.flushAll();
    const intruder = await clientOn(14);
    const t = await runScenario(await spec('timeout-max-attempts'), {
      redis: external(),
      onStep: async (step) => {
        // Someone else's app pushes onto the run's queue in the run's db, from a script.
        if (step.index === 1)
          await intruder.sendCommand([
            'EVAL',
            "redis.call('select', 0) return redis.call('rpush', KEYS[1], ARGV[1])",
            '1',
            'queues:default',
            '{"job":"theirs"}',
          ]);
      },
    });
    expect(t.error).toMatch(
      /^another client used this run's db 0 \(127\.0\.0\.1:\d+: RPUSH queues:default \(in a script\)\): the trace would no longer be Laravel's alone/,
    );
    // The run stopped at the next step; its claim and its keys are gone (theirs too: it was in the run's queue).
    expect(await inDb(admin, 0, "return redis.call('keys', '*')")).toEqual([]);
    intruder.destroy();
    admin.destroy();
  });

  it('notices a claim that is lost (deleted or expired) at the next heartbeat', async () => {
    // The tool's own kind of connection (RESP2, as the observer is).
    const observer = newClient(`redis://${owner.host}:${owner.port}`);
    await observer.connect();
    await observer.sendCommand(['FLUSHALL']);
    const own = new Set([String(await observer.sendCommand(['CLIENT', 'ID']))]);
    const claim = await claimDatabase(observer, 0, 'abcd1234', { keys: ['queues:default'], own, ttlMs: 300 });
    expect(claim).toMatchObject({ db: 0, moved: false });
    expect(claim.lost()).toBeNull();
    await new Promise((r) => setTimeout(r, 250)); // a heartbeat renews it past its first 300 ms
    expect(await observer.sendCommand(['GET', CLAIM_KEY])).toBe('abcd1234');
    expect(Number(await observer.sendCommand(['PTTL', CLAIM_KEY]))).toBeGreaterThan(0);
    expect(Number(await observer.sendCommand(['PTTL', CLAIM_KEY]))).toBeLessThanOrEqual(300);
    expect(claim.lost()).toBeNull();
    await observer.sendCommand(['DEL', CLAIM_KEY]);
    await new Promise((r) => setTimeout(r, 250));
    expect(claim.lost()).toBe(`the claim on db 0 (${CLAIM_KEY}) was lost: it expired or was deleted`);
    await claim.release();
    observer.destroy();
  });

  it('refuses a second run at once on a server the tool started (each run flushes it), with a clear error', async () => {
    const scenario = await spec('success');
    const results = await Promise.allSettled([
      runScenario(scenario, { redis: owner }),
      runScenario(scenario, { redis: owner }),
    ]);
    expect(results[0].status).toBe('fulfilled');
    expect((results[0] as PromiseFulfilledResult<Timeline>).value.error).toBeUndefined();
    expect(results[1]).toMatchObject({ status: 'rejected' });
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain(
      'which lqsim started and flushes for each run: await one run before the next',
    );
    // One after the other is fine.
    expect((await runScenario(scenario, { redis: owner })).error).toBeUndefined();
  });

  it('the CLI says where the run moved on stderr, as a note, and never in the trace on stdout', async () => {
    const admin = await adminOn15();
    await admin.flushAll();
    await inDb(admin, 0, "return redis.call('set', 'theirs', 'x')");
    const r = await lqsim(['run', 'dispatch'], {
      env: { REDIS_URL: `redis://127.0.0.1:${owner.port}`, LQSIM_REDIS: '' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "lqsim: note: db 0 holds other data or another run on this server (REDIS_URL), so the run used the empty db 1: Laravel's SELECT shows 1\n",
    );
    expect(r.stdout).not.toContain('empty db');
    expect(r.stdout).toContain('SELECT 1');
    admin.destroy();
  });
});
