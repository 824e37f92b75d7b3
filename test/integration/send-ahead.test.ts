// Commands whose reply Laravel never reads are sent without waiting for it (ConnectionHub.sendAhead),
// and the trace stays the same only because nothing any other connection sends overtakes them.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../src/redis/connections.ts';
import { AHEAD_WINDOW, ConnectionHub } from '../../src/redis/connections.ts';
import { MonitorCapture } from '../../src/redis/monitor.ts';
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
  const ca = await hub.connect('dispatcher');
  const cb = await hub.connect('worker-1');
  return {
    hub,
    a: new NodeRedisPort(ca, hub, null),
    b: new NodeRedisPort(cb, hub, null),
    ca: ca.client,
    cb: cb.client,
  };
}

/** twoActors, each port's first command (which waits for nothing: NodeRedisPort's prepare) sent and answered. */
async function twoStartedActors(run: string) {
  const actors = await twoActors(run);
  await actors.a.rpush(`${run}:a`, 'x');
  await actors.b.rpush(`${run}:b`, 'x');
  await actors.hub.observer.sendCommand(['PING']);
  return actors;
}

/** What reaches the sockets from now until restore(), as node-redis writes it (in a setImmediate of its own). */
function socketWrites(): { written: string[]; restore: () => void } {
  const written: string[] = [];
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (this: net.Socket, chunk: unknown, ...rest: unknown[]) {
    written.push(String(chunk));
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof write;
  return { written, restore: () => (net.Socket.prototype.write = write) };
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

  it("a connection's SELECT sent ahead (a server the tool started) goes in the write of the command after it, and its failure fails the next command", async () => {
    const hub = new ConnectionHub(server.url, 'ahead5');
    await hub.start();
    const conn = await hub.connect('worker-1');
    const writes: string[][] = [];
    const send = conn.client.sendCommand.bind(conn.client);
    conn.client.sendCommand = ((args, options) => {
      writes.push([...(args as string[])]);
      return send(args, options);
    }) as typeof send;
    // 16 dbs (redis-server's default): db 99 does not exist, so the SELECT fails and the RPUSH after
    // it lands in db 0 of the tool's own server; the next command any actor sends says so.
    const a = new NodeRedisPort(conn, hub, 99, true);
    await a.rpush('ahead5:list', 'x');
    expect(writes).toEqual([
      ['SELECT', '99'],
      ['RPUSH', 'ahead5:list', 'x'],
    ]);
    const b = new NodeRedisPort(await hub.connect('dispatcher'), hub, null);
    await expect(b.eval(LLEN, ['ahead5:list'], [])).rejects.toThrow(/DB index is out of range/);
    // The failure sticks (every later send of the run throws it): the cleanup goes out regardless.
    await hub.afterAhead.sendCommand(['DEL', 'ahead5:list']);
    await hub.close();
  });

  it('keep at most AHEAD_WINDOW unanswered per connection (100,000 pushes must not queue at once)', async () => {
    const hub = new ConnectionHub(server.url, 'ahead4');
    await hub.start();
    const conn = await hub.connect('dispatcher');
    let unanswered = 0;
    let most = 0;
    const send = conn.client.sendCommand.bind(conn.client);
    conn.client.sendCommand = ((args, options) => {
      most = Math.max(most, ++unanswered);
      return send(args, options).finally(() => unanswered--);
    }) as typeof send;
    const a = new NodeRedisPort(conn, hub, null);
    for (let i = 0; i < 3 * AHEAD_WINDOW; i++) await a.rpush('ahead4:list', 'x');
    expect(most).toBe(AHEAD_WINDOW);
    await a.close();
    expect(Number(await hub.observer.sendCommand(['LLEN', 'ahead4:list']))).toBe(3 * AHEAD_WINDOW);
    await hub.observer.sendCommand(['DEL', 'ahead4:list']);
    await hub.close();
  });

  it('after an activation that sent ahead on two connections, flushed() resolves once node-redis has written them; on one connection it is undefined', async () => {
    const hub = new ConnectionHub(server.url, 'ahead6');
    await hub.start();
    const cache = (await hub.connect('worker-1')).client;
    const queue = (await hub.connect('worker-1')).client;
    const { written, restore } = socketWrites();
    try {
      void hub.sendAhead(queue, ['RPUSH', 'ahead6:list', 'a'], (e) => e);
      expect(hub.flushed()).toBeUndefined();
      void hub.sendAhead(cache, ['GET', 'ahead6:restart'], (e) => e);
      void hub.sendAhead(queue, ['LLEN', 'ahead6:list'], (e) => e);
      expect(written.join('')).not.toContain('LLEN');
      const flushed = hub.flushed();
      expect(flushed).toBeInstanceOf(Promise);
      await flushed;
      const sent = written.join('');
      for (const name of ['RPUSH', 'GET', 'LLEN']) expect(sent).toContain(name);
      // Each call looks at what went out ahead since the last one.
      expect(hub.flushed()).toBeUndefined();
    } finally {
      restore();
    }
    await hub.observer.sendCommand(['DEL', 'ahead6:list']);
    await hub.close();
  });

  it('one on another connection than commands still unanswered waits in the hub, not in the actor, and goes out once they are answered', async () => {
    const { hub, a, b, ca, cb } = await twoStartedActors('ahead7');
    const events: string[] = [];
    const spy = (name: string, client: Client) => {
      const send = client.sendCommand.bind(client);
      client.sendCommand = ((args, options) => {
        const what = `${name} ${(args as string[]).join(' ')}`;
        events.push(`sent ${what}`);
        return send(args, options).finally(() => events.push(`answered ${what}`));
      }) as typeof send;
    };
    spy('a', ca);
    spy('b', cb);
    // A step's mark is taken by the next command sent, whenever that one goes out.
    let marks = ['lqsim-mark-1'];
    hub.takeMarks = () => marks.splice(0);
    for (let i = 0; i < 3; i++) await a.rpush('ahead7:a', `a${i}`);
    marks = ['lqsim-mark-2'];
    // Sent while a's pushes are unanswered: the actor goes on at once, the command waits.
    await b.rpush('ahead7:a', 'b');
    events.push('b goes on');
    await a.rpush('ahead7:a', 'a-after');
    events.push('a goes on');
    expect(events.slice(0, 3)).toEqual([
      'sent a ECHO lqsim-mark-1',
      'sent a RPUSH ahead7:a a0',
      'sent a RPUSH ahead7:a a1',
    ]);
    expect(events.some((e) => e.startsWith('sent b'))).toBe(false);
    await hub.observer.sendCommand(['PING']);
    const at = (e: string) => {
      const i = events.indexOf(e);
      expect(i, e).toBeGreaterThanOrEqual(0);
      return i;
    };
    // Each actor went on before its command went out.
    expect(at('b goes on')).toBeLessThan(at('sent b RPUSH ahead7:a b'));
    expect(at('a goes on')).toBeLessThan(at('sent a RPUSH ahead7:a a-after'));
    // b's push (and the mark taken when it was sent) went out only after a's three were answered,
    // and a's next only after b's was; the marks went with the commands they were taken by.
    expect(at('sent b ECHO lqsim-mark-2')).toBeGreaterThan(at('answered a RPUSH ahead7:a a2'));
    expect(at('sent b RPUSH ahead7:a b')).toBe(at('sent b ECHO lqsim-mark-2') + 1);
    expect(at('sent a RPUSH ahead7:a a-after')).toBeGreaterThan(at('answered b RPUSH ahead7:a b'));
    expect(await hub.observer.sendCommand(['LRANGE', 'ahead7:a', '0', '-1'])).toEqual([
      'x',
      'a0',
      'a1',
      'a2',
      'b',
      'a-after',
    ]);
    await hub.observer.sendCommand(['DEL', 'ahead7:a', 'ahead7:b']);
    await hub.close();
  });

  it('one waiting in the hub behind a command that failed is never sent, and the failure fails the next command', async () => {
    const { hub, a, b } = await twoStartedActors('ahead8');
    await a.zadd('ahead8:z', Number.NaN, 'member'); // an error reply
    await b.rpush('ahead8:b', 'y'); // waits for it in the hub; never goes out
    await a.rpush('ahead8:a', 'z'); // waits behind b's; never goes out either
    // A command whose reply the actor awaits waits for them, and throws Redis' error.
    await expect(b.eval(LLEN, ['ahead8:b'], [])).rejects.toThrow(/not a valid float/);
    expect(await hub.afterAhead.sendCommand(['LRANGE', 'ahead8:b', '0', '-1'])).toEqual(['x']);
    expect(await hub.afterAhead.sendCommand(['LRANGE', 'ahead8:a', '0', '-1'])).toEqual(['x']);
    await hub.afterAhead.sendCommand(['DEL', 'ahead8:a', 'ahead8:b']);
    await hub.close();
  });

  it('after an activation whose command waited in the hub, flushed() resolves once it has gone out and been written', async () => {
    const { hub, a, b } = await twoStartedActors('ahead9');
    await hub.flushed(); // the two sends above began on one connection and ended on the other
    expect(hub.flushed()).toBeUndefined();
    const { written, restore } = socketWrites();
    try {
      await a.rpush('ahead9:a', 'a');
      await b.rpush('ahead9:a', 'b-waits');
      const flushed = hub.flushed();
      expect(flushed).toBeInstanceOf(Promise);
      expect(written.join('')).not.toContain('b-waits');
      await flushed;
      expect(written.join('')).toContain('b-waits');
    } finally {
      restore();
    }
    await hub.observer.sendCommand(['DEL', 'ahead9:a', 'ahead9:b']);
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

  it("a barrier (a run's end) goes behind the one connection still answering, on it, without waiting for its reply", async () => {
    const { hub, ca, cb } = await twoStartedActors('ahead10');
    const capture = await MonitorCapture.start(server.url, hub.observer);
    const sent = (client: Client, into: string[]) => {
      const send = client.sendCommand.bind(client);
      client.sendCommand = ((args: string[], o?: unknown) => {
        into.push(args.join(' '));
        return send(args, o as never);
      }) as typeof send;
    };
    const onA: string[] = [];
    const onObserver: string[] = [];
    sent(ca, onA);
    sent(hub.observer, onObserver);
    try {
      // A script Redis takes 50 ms to run, sent ahead on a's connection: unanswered meanwhile.
      const slow = `local t = redis.call('TIME') local s = t[1] * 1000000 + t[2] repeat local n = redis.call('TIME') until n[1] * 1000000 + n[2] - s > 50000 return 1`;
      const answered = hub.sendAhead(ca, ['EVAL', slow, '0'], (e) => e);
      await answered; // resolves at once: sent ahead
      const via = hub.barrierConnection();
      expect(via).toBeDefined();
      const t0 = Date.now();
      const lines = await capture.barrier(hub.observer, 5000, via);
      expect(lines.some((l) => l.includes('"EVAL" "local t = redis.call'))).toBe(true);
      // On a's connection, behind the script; the observer sent nothing and waited for nothing.
      expect(onA.at(-1)).toMatch(/^ECHO lqsim-barrier-/);
      expect(onObserver).toEqual([]);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(40); // Redis ran the script first
      // Nothing unanswered: none (the observer sends at once); on two connections, or behind a
      // BLPOP: none either (the observer waits for them).
      await hub.othersSettled(hub.observer);
      expect(hub.barrierConnection()).toBeUndefined();
      void hub.sendAhead(ca, ['EVAL', slow, '0'], (e) => e);
      void hub.sendAhead(cb, ['EVAL', slow, '0'], (e) => e);
      expect(hub.barrierConnection()).toBeUndefined();
      await hub.othersSettled(hub.observer);
      void hub.sendAhead(ca, ['EVAL', slow, '0'], (e) => e);
      hub.noteBlocking(ca, 1);
      expect(hub.barrierConnection()).toBeUndefined();
      hub.noteBlocking(ca, -1);
      await hub.othersSettled(hub.observer);
    } finally {
      await capture.stop();
      await hub.close();
    }
  });
});
