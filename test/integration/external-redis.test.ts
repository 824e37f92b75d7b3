// Someone else's Redis (REDIS_URL): the tool must never lose their data. It refuses to run when
// the scenario's keys already hold data (and leaves them as they were), deletes only its own keys
// at the end, and on Ctrl-C too.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisServer } from '../../src/redis/server.ts';
import { serverWithAdmin, type AdminClient } from '../helpers/admin.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { runScenario } from '../../src/scenarios/runner.ts';

let owner: RedisServer;
let client: AdminClient;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ server: owner, admin: client, stop } = await serverWithAdmin({ db: 0 }));
});
afterAll(() => stop());

/** The same server, seen as someone else's: not owned, so never flushed. */
const external = () => ({ ...owner, owned: false, describe: () => 'REDIS_URL', stop: async () => undefined });
const spec = async (name: string) => (await loadScenarioFile(await resolveScenario(name))).spec;

describe('a server the tool did not start', () => {
  it('with no empty db to claim, refuses to start and leaves every db untouched', async () => {
    await client.flushAll();
    // Every db holds something, so the run has no db of its own to claim (claim.ts).
    for (let db = 1; db < 16; db++)
      await client.sendCommand(['EVAL', `redis.call('select', ${db}); redis.call('set', 'theirs', 'x')`, '0']);
    await client.rPush('queues:default', 'their job');
    await client.set('unrelated', 'x');
    const t = await runScenario(await spec('success'), { redis: external() });
    expect(t.error).toBe(
      // This test's client is in db 0 (CLIENT LIST), the other 15 dbs hold data.
      "refusing to run: no free db on this server (REDIS_URL; 16 tried: 15 hold data or another run's claim, 1 has another client in it): each run needs a db of its own, with no key and no other client in it, so that no other client or run shares its keys or jobs. Free one, or use a server of your own",
    );
    expect(t.steps).toEqual([]);
    expect(await client.lRange('queues:default', 0, -1)).toEqual(['their job']);
    expect(await client.get('unrelated')).toBe('x');
  });

  it('runs on empty keys, deletes only its own keys, and never flushes', async () => {
    await client.flushAll();
    await client.set('unrelated', 'x');
    const t = await runScenario(await spec('reserve'), { redis: external() });
    expect(t.error).toBeUndefined();
    // reserve stops with the job still reserved; the run's end removes it anyway.
    expect(t.steps.at(-1)!.state.queues[0]!.sizes.reserved).toBe(1);
    expect(await client.keys('*')).toEqual(['unrelated']);
  });

  it('cleans its keys up on Ctrl-C mid-run', async () => {
    await client.flushAll();
    const bin = new URL('../../bin/lqsim.js', import.meta.url).pathname;
    const child = spawn(process.execPath, [bin, 'run', 'timeout-max-attempts', '--pace', '400'], {
      env: { ...process.env, REDIS_URL: `redis://127.0.0.1:${owner.port}`, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    for (let i = 0; i < 100 && !/^#2 /m.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    // The job is reserved mid-run, in db 1 (this test's client is in db 0, so the run moved): the
    // run's keys are there. INFO reads no db, so the run's watch lets it be.
    expect(await client.info('keyspace')).toMatch(/^db1:keys=[1-9]/m);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(130);
    expect(await client.info('keyspace')).not.toMatch(/^db\d+:/m);
  });
});
