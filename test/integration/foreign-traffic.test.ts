// Someone else's Redis (REDIS_URL) in use by someone else while a run goes on. A second client
// writes to the same server throughout the run: its commands must not appear in the trace (MONITOR
// shows every client; attribution keeps only the run's own connections) and every key it wrote
// must survive the run's cleanup, which deletes only the run's own keys and never flushes.
// Where the run writes (claim.ts): the scenario's db if it is free (no key, no other client in
// it), else the first free db, Laravel's SELECT then naming that db. A client in the run's db is
// not traffic to ignore but a client that could take its jobs: that ends the run (claim.test.ts).
// The test's admin connection sits in db 15, out of the runs' way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { c, expectSteps, migrate, payload, popScript, queue, same } from '../helpers/trace.ts';

let owner: RedisServer;
beforeAll(async () => {
  owner = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
});
afterAll(async () => {
  await owner.stop();
});

const newClient = (db: number) => createClient({ socket: { host: owner.host, port: owner.port }, database: db });
type Client = ReturnType<typeof newClient>;
async function clientOn(db: number): Promise<Client> {
  const client = newClient(db);
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Someone else's client: a SET, an RPUSH and an EVAL every few milliseconds until stopped. */
function foreignWriter(client: Client, tag: string): { stop(): Promise<number> } {
  let n = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      n++;
      await client.set(`${tag}:key:${n}`, `${tag} value ${n}`);
      await client.rPush(`${tag}:list`, `${tag} item ${n}`);
      await client.sendCommand(['EVAL', `return redis.call('incr', KEYS[1])`, '1', `${tag}:counter`]);
      await new Promise((r) => setTimeout(r, 3));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return n;
    },
  };
}

async function expectForeignKeysIntact(client: Client, tag: string, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) expect(await client.get(`${tag}:key:${i}`)).toBe(`${tag} value ${i}`);
  expect(await client.lLen(`${tag}:list`)).toBe(n);
  expect(await client.get(`${tag}:counter`)).toBe(String(n));
}

const external = () => ({ ...owner, owned: false, describe: () => 'REDIS_URL', stop: async () => undefined });

/**
 * `success` (Laravel 5.7, Predis): the dispatch connection sends SELECT <db> then RPUSH; the
 * worker's first poll SELECTs <db>, migrates :delayed and :reserved, pops; the job runs 2 s and
 * is deleted with ZREM of the reserved copy (as in scenarios.test.ts, with the db as a parameter).
 */
function expectSuccessTrace(t: Timeline, db: number): void {
  const Q = queue('default');
  const SELECT = c('SELECT', String(db));
  expectSteps(t, [
    { actor: 'dispatcher', t: 0, commands: [SELECT, c('RPUSH', Q.ready, payload({ attempts: 0 }))] },
    {
      actor: 'worker-1',
      t: 0,
      kind: 'pop',
      commands: [
        SELECT,
        ...migrate(Q.delayed, Q.ready, 0),
        ...migrate(Q.reserved, Q.ready, 0),
        ...popScript(Q, 0, 90, payload({ attempts: 1 }, 'r')),
      ],
    },
    { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
    { actor: 'worker-1', t: 2, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r'))] },
  ]);
  for (const cmd of t.steps.flatMap((s) => s.commands)) {
    expect(cmd.db, cmd.args.join(' ')).toBe(db);
    expect(cmd.args.join(' '), 'foreign traffic in the trace').not.toContain('foreign');
  }
}

async function runSuccess(onFirstStep: () => void): Promise<Timeline> {
  const spec = (await loadScenarioFile(await resolveScenario('success'))).spec;
  let started = false;
  return runScenario(spec, {
    redis: external(),
    paceMs: 40, // time for the writers to interleave with every step
    onStep: () => {
      if (!started) onFirstStep();
      started = true;
    },
  });
}

describe('another client writing to the same server during a run', () => {
  it('in another db, connecting mid-run: its commands are not traced, its keys survive, only the run keys go', async () => {
    const admin = await clientOn(15);
    await admin.flushAll();
    let other: Client | undefined;
    let writer: ReturnType<typeof foreignWriter> | undefined;
    // db 0 is free when the run starts, so it stays in the scenario's db 0. The writer connects
    // afterwards: a new connection starts in db 0 and SELECTs 5 from there, which is not using db 0.
    const t = await runSuccess(() => {
      void clientOn(5).then((c) => {
        other = c;
        writer = foreignWriter(c, 'foreign5');
      });
    });
    const n = await writer!.stop();
    expect(n).toBeGreaterThan(5);
    expect(t.error).toBeUndefined();
    expect(t.warnings).toEqual([]);
    expectSuccessTrace(t, 0);
    const db5 = await clientOn(5);
    await expectForeignKeysIntact(db5, 'foreign5', n);
    expect((await db5.keys('*')).filter((k) => !k.startsWith('foreign5:'))).toEqual([]);
    const db0 = await clientOn(0);
    expect(await db0.keys('*')).toEqual([]);
    for (const c of [db0, db5, other!, admin]) c.destroy();
  });

  it("in the scenario's db, which holds data: the run moves to a free db and the other client's keys stay", async () => {
    const admin = await clientOn(15);
    await admin.flushAll();
    const other0 = await clientOn(0);
    await other0.rPush('queues:default', 'their own job'); // a real app's queue on db 0
    const other1 = await clientOn(1); // in db 1, with nothing written yet
    const writer0 = foreignWriter(other0, 'foreign0');
    let writer1: ReturnType<typeof foreignWriter> | undefined;
    // db 0 holds data, db 1 has a client in it: the run takes db 2. The second writer starts
    // writing to db 1 once the run goes on.
    const t = await runSuccess(() => (writer1 = foreignWriter(other1, 'foreign1')));
    const [n0, n1] = [await writer0.stop(), await writer1!.stop()];
    expect(t.notices).toEqual([
      expect.stringMatching(
        /^db 0 has another client in it \(127\.0\.0\.1:\d+, last command \w+\) on this server \(REDIS_URL\), so the run used the empty db 2: Laravel's SELECT shows 2$/,
      ),
    ]);
    expect(t.error).toBeUndefined();
    expect(t.warnings).toEqual([]);
    expectSuccessTrace(t, 2);
    // Their job was never popped by our worker, and nothing of theirs was deleted.
    expect(await other0.lRange('queues:default', 0, -1)).toEqual(['their own job']);
    await expectForeignKeysIntact(other0, 'foreign0', n0);
    await expectForeignKeysIntact(other1, 'foreign1', n1);
    expect((await other1.keys('*')).filter((k) => !k.startsWith('foreign1:'))).toEqual([]);
    const db2 = await clientOn(2);
    expect(await db2.keys('*')).toEqual([]);
    for (const c of [db2, other1, other0, admin]) c.destroy();
  });

  it("joining the run's db mid-run: the run ends with an error naming the client, and its keys stay", async () => {
    const admin = await clientOn(15);
    await admin.flushAll();
    const other = await clientOn(7);
    await other.sendCommand(['CLIENT', 'SETNAME', 'their-app']);
    let writer: ReturnType<typeof foreignWriter> | undefined;
    const t = await runSuccess(() => {
      void other.sendCommand(['SELECT', '0']).then(() => (writer = foreignWriter(other, 'foreign0')));
    });
    const n = await writer!.stop();
    expect(t.error).toMatch(/^another client used this run's db 0 \(127\.0\.0\.1:\d+ "their-app": SELECT 0[;)]/);
    await expectForeignKeysIntact(other, 'foreign0', n);
    expect((await other.keys('*')).filter((k) => !k.startsWith('foreign0:'))).toEqual([]);
    for (const c of [other, admin]) c.destroy();
  });
});
