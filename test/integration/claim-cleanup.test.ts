// A run on someone else's server (REDIS_URL) that fails mid-way still removes its keys, its mark
// and its claim. The failures here are of a command sent ahead (one whose reply Laravel never
// reads, ConnectionHub.sendAhead), whose error every later command of the run throws: the end of
// the run must not be one of them. A private redis-server stands for someone else's; the test's
// own client sits in db 15, out of the runs' way, and looks at every db after the run.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RedisServer } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { serverWithAdmin, type AdminClient } from '../helpers/admin.ts';

let server: RedisServer;
let admin: AdminClient;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ server, admin, stop } = await serverWithAdmin());
  await admin.sendCommand(['ACL', 'SETUSER', 'loses-zadd', 'on', '>pw', '~*', '&*', '+@all']);
});
afterAll(() => stop());
beforeEach(async () => {
  await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '0']);
  await admin.flushAll();
});

const as = (user: string | null) => ({
  url: user === null ? `redis://127.0.0.1:${server.port}` : `redis://${user}:pw@127.0.0.1:${server.port}`,
  owned: false,
  kind: 'external',
  version: server.version,
  describe: () => 'REDIS_URL',
});
const spec = async (name: string) => (await loadScenarioFile(await resolveScenario(name))).spec;

/** Every key of every db, by db (KEYS from a script that selects each db; nothing is left selected). */
async function everyKey(): Promise<Record<number, string[]>> {
  const found: Record<number, string[]> = {};
  for (let db = 0; db < 16; db++) {
    const keys = (await admin.sendCommand([
      'EVAL',
      `redis.call('select', ${db}) return redis.call('keys', '*')`,
      '0',
    ])) as string[];
    if (keys.length > 0) found[db] = keys.sort();
  }
  return found;
}

describe('a REDIS_URL run whose write fails mid-way', () => {
  // block-for (Laravel 5.7, block_for 5): the worker BLPOPs queues:default, the dispatcher pushes
  // (RPUSH, sent ahead), the BLPOP returns the job and the worker reserves it with a plain ZADD
  // onto queues:default:reserved, sent ahead too (RedisQueue::blockingPop). Steps: #0 the worker
  // blocks, #1 the push, then the worker's wake and ZADD.
  it('maxmemory reached (OOM): no key, no mark and no claim left, and the error is the OOM', async () => {
    const t = await runScenario(await spec('block-for'), {
      redis: as(null),
      onStep: async (step) => {
        // After the first step every write the server runs out of memory for (RPUSH, ZADD) is refused.
        if (step.index === 0) await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '1']);
      },
    });
    await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '0']);
    expect(t.error).toMatch(/^OOM command not allowed when used memory > 'maxmemory'/);
    expect(t.warnings.filter((w) => /could not be deleted/.test(w))).toEqual([]);
    expect(await everyKey()).toEqual({});
  });

  it('ZADD taken away mid-run (ACL): no key, no mark and no claim left, and the error is the NOPERM', async () => {
    const t = await runScenario(await spec('block-for'), {
      redis: as('loses-zadd'),
      onStep: async (step) => {
        if (step.index === 0) await admin.sendCommand(['ACL', 'SETUSER', 'loses-zadd', '-zadd']);
      },
    });
    await admin.sendCommand(['ACL', 'SETUSER', 'loses-zadd', '+zadd']);
    expect(t.error).toMatch(/^NOPERM this user has no permissions to run the 'zadd' command/);
    expect(t.warnings.filter((w) => /could not be deleted/.test(w))).toEqual([]);
    expect(await everyKey()).toEqual({});
  });
});
