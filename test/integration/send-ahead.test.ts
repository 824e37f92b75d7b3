// Commands whose reply Laravel never reads are sent without waiting for it (ConnectionHub.sendAhead),
// and the trace stays the same only because nothing any other connection sends overtakes them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionHub } from '../../src/redis/connections.ts';
import { NodeRedisPort } from '../../src/redis/port.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import type { LuaScript } from '../../src/sim/lua.ts';

let server: RedisServer;
beforeAll(async () => {
  server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
});
afterAll(async () => server?.stop());

const LLEN: LuaScript = {
  name: 'size',
  numberOfKeys: 1,
  source: "return redis.call('llen', KEYS[1])",
} as LuaScript;

async function twoActors(run: string) {
  const hub = new ConnectionHub(server.url, run);
  await hub.start();
  const a = new NodeRedisPort(await hub.connect('dispatcher'), hub, null);
  const b = new NodeRedisPort(await hub.connect('worker-1'), hub, null);
  return { hub, a, b };
}

describe('commands sent ahead', () => {
  it('resolve before their reply, and run before anything another connection or the observer sends after them', async () => {
    const { hub, a, b } = await twoActors('ahead1');
    const key = 'ahead1:list';
    for (let i = 0; i < 2000; i++) await a.rpush(key, `job-${i}`);
    // Another actor's command, then the observer's read: each sees all 2,000 pushes done.
    expect(Number(await b.eval(LLEN, [key], []))).toBe(2000);
    for (let i = 0; i < 500; i++) await a.rpush(key, `job-${i}`);
    expect(Number(await hub.observer.sendCommand(['LLEN', key]))).toBe(2500);
    await hub.observer.sendCommand(['DEL', key]);
    await hub.close();
  });

  it("one that fails fails the next command any actor sends, with Redis' error", async () => {
    const { hub, a, b } = await twoActors('ahead2');
    await a.zadd('ahead2:z', Number.NaN, 'member'); // ZADD ... NaN: Redis answers an error
    await expect(b.eval(LLEN, ['ahead2:list'], [])).rejects.toThrow(/not a valid float/);
    await hub.close();
  });

  it('closing a connection waits for what it sent ahead', async () => {
    const { hub, a } = await twoActors('ahead3');
    for (let i = 0; i < 1000; i++) await a.rpush('ahead3:list', 'x');
    await a.close();
    expect(Number(await hub.observer.sendCommand(['LLEN', 'ahead3:list']))).toBe(1000);
    await hub.observer.sendCommand(['DEL', 'ahead3:list']);
    await hub.close();
  });
});
