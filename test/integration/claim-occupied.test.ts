// A db with no keys is not free when another client has it selected: an app's `php artisan
// queue:work` blocked in `BLPOP queues:default` on an empty db holds no key, and Redis hands the
// first element pushed onto queues:default in that db to it (BLPOP serves the longest-waiting
// client). So runs on someone else's server (REDIS_URL) never claim such a db, and a client that
// comes into a run's db later ends that run with an error naming it. The app's workers here are
// plain connections doing what queue:work's RedisQueue does on Laravel 5.6-5.7 with block_for:
// BLPOP on the ready list. The test's own client sits in db 15, out of the runs' way.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { CLAIM_KEY, claimDatabase, MARK_KEY } from '../../src/redis/claim.ts';
import { newClient } from '../../src/redis/connections.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';

let server: RedisServer;
let admin: Awaited<ReturnType<typeof clientOn>>;
beforeAll(async () => {
  server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
  admin = await clientOn(15);
});
afterAll(async () => {
  admin.destroy();
  await server.stop();
});

/** Every client a test opened: closed after each test, pass or fail, so the next finds its dbs free. */
const opened: Array<{ destroy(): void }> = [];
afterEach(() => {
  for (const c of opened.splice(0)) c.destroy();
});

async function clientOn(db: number, name?: string) {
  const c = createClient({ socket: { host: server.host, port: server.port }, database: db, name });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}
const external = () => ({
  url: `redis://127.0.0.1:${server.port}`,
  owned: false,
  kind: 'external',
  version: server.version,
  describe: () => 'REDIS_URL',
});
const spec = async (name: string) => (await loadScenarioFile(await resolveScenario(name))).spec;
const dbOf = (t: Awaited<ReturnType<typeof runScenario>>) =>
  Number(t.steps.flatMap((s) => s.commands).find((c) => c.args[0] === 'SELECT')?.args[1] ?? '0');

/** An app's worker blocked in BLPOP queues:default on `db`; `got` is what it was handed, if anything. */
async function appWorker(db: number) {
  const client = await clientOn(db, `app-worker-${db}`);
  opened.push(client);
  const id = String(await client.clientId());
  let got: unknown = null;
  const blpop = client.sendCommand(['BLPOP', 'queues:default', '0'], { timeout: 0 } as never).then(
    (r) => (got = r),
    () => undefined,
  );
  // Blocked once CLIENT LIST says so (flag b).
  for (let i = 0; i < 100 && !/flags=b/.test(String(await admin.sendCommand(['CLIENT', 'LIST', 'ID', id]))); i++)
    await new Promise((r) => setTimeout(r, 10));
  return {
    got: () => got,
    stop: async () => {
      client.destroy();
      await blpop;
    },
  };
}

describe('a db another client is in', () => {
  it("an app's worker blocked in BLPOP on an empty db keeps runs out: no job of the runs reaches it, parallel runs included", async () => {
    await admin.flushAll();
    const app = await clientOn(0);
    opened.push(app);
    await app.set('app:config', 'theirs'); // the app's own data in db 0
    const workers = await Promise.all([0, 1, 2, 3].map(appWorker));
    const scenario = await spec('failure-release');
    const runs = await Promise.all(Array.from({ length: 3 }, () => runScenario(scenario, { redis: external() })));
    for (const t of runs) {
      expect(t.error).toBeUndefined();
      // failure-release dispatches one ChargeCard and runs it twice: the run's own worker got it.
      expect(t.jobs.map((j) => j.outcome)).toEqual(['succeeded']);
      expect(dbOf(t)).toBeGreaterThanOrEqual(4);
    }
    expect(new Set(runs.map(dbOf)).size).toBe(3);
    // The app's workers were handed nothing and still wait.
    expect(workers.map((w) => w.got())).toEqual([null, null, null, null]);
    const blocked = String(await admin.sendCommand(['CLIENT', 'LIST']))
      .split('\n')
      .filter((l) => / name=app-worker-\d+ /.test(l) && /flags=b/.test(l));
    expect(blocked).toHaveLength(4);
    for (const w of workers) await w.stop();
    expect(await app.get('app:config')).toBe('theirs');
    app.destroy();
  });

  it("the scenario's db taken by a blocked worker: the run says which client made it move", async () => {
    await admin.flushAll();
    const worker = await appWorker(0);
    const t = await runScenario(await spec('success'), { redis: external() });
    expect(t.error).toBeUndefined();
    expect(t.notices).toEqual([
      expect.stringMatching(
        /^db 0 has another client in it \(127\.0\.0\.1:\d+ "app-worker-0", last command blpop\) on this server \(REDIS_URL\), so the run used the empty db 1: Laravel's SELECT shows 1$/,
      ),
    ]);
    expect(worker.got()).toBeNull();
    await worker.stop();
  });

  it('a client that comes into the db between the claim and the second look: the claim is given back and the next db taken', async () => {
    await admin.flushAll();
    const observer = newClient(`redis://127.0.0.1:${server.port}`);
    await observer.connect();
    opened.push(observer);
    const own = new Set([String(await observer.sendCommand(['CLIENT', 'ID']))]);
    let late: Awaited<ReturnType<typeof clientOn>> | undefined;
    const claim = await claimDatabase(observer, 0, 'abcd1234', {
      keys: ['queues:default'],
      own,
      // Right after the claim script: someone selects db 0 (the barrier's moment in a run).
      settle: async () => {
        late ??= await clientOn(0, 'late-comer');
        opened.push(late);
      },
    });
    expect(claim.db).toBe(1);
    expect(claim.moved).toBe(true);
    expect(claim.movedBecause).toMatch(/^has another client in it \(127\.0\.0\.1:\d+ "late-comer"/);
    // db 0 was given back whole: no claim, no mark.
    expect(await admin.sendCommand(['EVAL', "redis.call('select', 0) return redis.call('keys', '*')", '0'])).toEqual(
      [],
    );
    expect(await observer.sendCommand(['GET', CLAIM_KEY])).toBe('abcd1234');
    expect(JSON.parse(String(await observer.sendCommand(['GET', MARK_KEY])))).toEqual({
      token: 'abcd1234',
      keys: ['queues:default'],
    });
    await claim.release();
    expect(await observer.sendCommand(['DBSIZE'])).toBe(0);
    late!.destroy();
    observer.destroy();
  });

  it("an app worker that selects the run's db mid-run and blocks there: the run stops, naming it and what it sent", async () => {
    await admin.flushAll();
    const app = await clientOn(9, 'app-worker');
    opened.push(app);
    const t = await runScenario(await spec('timeout-max-attempts'), {
      redis: external(),
      onStep: async (step) => {
        if (step.index === 1) {
          await app.sendCommand(['SELECT', '0']);
          void app.sendCommand(['BLPOP', 'queues:default', '1'], { timeout: 0 } as never).catch(() => undefined);
        }
      },
    });
    expect(t.error).toMatch(
      /^another client used this run's db 0 \(127\.0\.0\.1:\d+ "app-worker": SELECT 0; 127\.0\.0\.1:\d+ "app-worker": BLPOP queues:default\): the trace would no longer be Laravel's alone, and that client could take the run's jobs, so the run stops/,
    );
    app.destroy();
  });
});
