// Redis TTLs in the run's virtual time (src/redis/virtual-expiry.ts), on a real redis-server, with
// the scheduler the runner and conformance share: an actor's connection sets keys with a TTL as
// Laravel does (`SET k v EX 30 NX` for a lock, in the cache's db 1); after each step the observer's
// sweep persists them and remembers when they expire in virtual time; before a later instant the
// expired ones are deleted. The observer's commands and their [lua] lines are in no trace and are
// no other client's use of the run's dbs.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionHub } from '../../src/redis/connections.ts';
import { isMonitorOk, parseMonitorLine } from '../../src/redis/monitor-line.ts';
import { MonitorCapture } from '../../src/redis/monitor.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import type { Expiry } from '../../src/redis/virtual-expiry.ts';
import { VirtualExpiry } from '../../src/redis/virtual-expiry.ts';
import type { ActorContext } from '../../src/sim/scheduler.ts';
import { Scheduler } from '../../src/sim/scheduler.ts';
import { attributeLines } from '../../src/scenarios/attribute.ts';
import { ForeignWatch } from '../../src/scenarios/foreign-watch.ts';

const T0 = 1_700_000_000;
let server: RedisServer;
beforeAll(async () => {
  server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
});
afterAll(() => server.stop());

let hub: ConnectionHub | null = null;
let capture: MonitorCapture | null = null;
afterEach(async () => {
  await capture?.stop();
  await hub?.close();
  hub = null;
  capture = null;
});

/**
 * A run of `body` (one actor, worker-1, on a connection in db 1) collected as the runner's barrier
 * steps are: after each step the sweep, then the barrier, its lines handed to the service.
 */
async function run(
  body: (ctx: ActorContext, send: (...args: string[]) => Promise<unknown>, expiry: VirtualExpiry) => Promise<void>,
  /** Lines read as they come (a streaming run's sink), with no barrier after the steps. */
  streamed = false,
) {
  hub = new ConnectionHub(server.url, 'vexp0001');
  await hub.start();
  await hub.observer.sendCommand(['FLUSHALL']);
  capture = await MonitorCapture.start(server.url, hub.observer);
  const warnings: string[] = [];
  const expired: Expiry[] = [];
  const expiry = new VirtualExpiry({
    onExpire: (e) => expired.push(e),
    observer: hub.observer,
    dbs: [0, 1],
    start: T0,
    observerAddr: hub.observerAddr,
    onWarning: (m) => warnings.push(m),
  });
  const actor = await hub.connect('worker-1');
  const send = (...args: string[]) => actor.client.sendCommand(args);
  await send('SELECT', '1');
  const lines: string[] = [];
  const scheduler = new Scheduler({
    start: T0,
    until: null,
    maxSteps: 100,
    beforeInstant: (at) => expiry.beforeInstant(at),
  });
  scheduler.spawn('worker-1', T0, (ctx) => body(ctx, send, expiry));
  const h = hub;
  const c = capture;
  if (streamed)
    // MONITOR's lines as a busy server delivers them: a little behind the replies.
    c.sink = (raw) => {
      setTimeout(() => {
        if (!isMonitorOk(raw)) expiry.see(parseMonitorLine(raw));
        lines.push(raw);
      }, 30);
    };
  await scheduler.run(async (done) => {
    await expiry.afterStep(done.t);
    if (streamed) return;
    const step = await c.barrier(h.observer);
    for (const l of step) if (!isMonitorOk(l)) expiry.see(parseMonitorLine(l));
    lines.push(...step);
  });
  return { expiry, warnings, lines, expired, hub: h };
}

/** What the observer reads in db 1 (from inside a script: the observer stays where it is). */
const pttl = (key: string) =>
  hub!.observer.sendCommand(['EVAL', "redis.call('select', 1) return redis.call('pttl', KEYS[1])", '1', key]);

describe('Redis TTLs in virtual time', () => {
  it('a key set with EX 30 at t+0 survives real time, is there at t+30 and gone at t+30.001', async () => {
    const seen: Array<[number, string, unknown]> = [];
    const at = (ctx: ActorContext) => Math.round((ctx.instant() - T0) * 1000) / 1000;
    const { expiry, warnings, lines, expired } = await run(async (ctx, send) => {
      await send('SET', 'lock', 'owner', 'EX', '30', 'NX');
      await send('SET', 'brief', 'v', 'EX', '1');
      await send('SET', 'rewritten', 'v', 'EX', '10');
      await ctx.sleep(0.5);
      // The sweep after t+0 took the TTLs off: 1.2 s of real time later `brief` is still there.
      seen.push([at(ctx), 'pttl brief', await pttl('brief')]);
      await new Promise((r) => setTimeout(r, 1200));
      seen.push([at(ctx), 'exists brief', await send('EXISTS', 'brief')]);
      await ctx.sleep(0.5);
      seen.push([at(ctx), 'exists brief', await send('EXISTS', 'brief')]);
      await ctx.sleep(0.001);
      seen.push([at(ctx), 'exists brief', await send('EXISTS', 'brief')]);
      await ctx.sleep(3.999);
      await send('SET', 'rewritten', 'w'); // no TTL any more: not deleted at its old expiry
      await send('SET', 'lock', 'other', 'EX', '30', 'NX'); // refused: the lock keeps its expiry
      await ctx.sleep(5.001);
      seen.push([at(ctx), 'exists rewritten', await send('EXISTS', 'rewritten')]);
      await ctx.sleep(19.999);
      seen.push([at(ctx), 'exists lock', await send('EXISTS', 'lock')]);
      seen.push([at(ctx), 'get lock', await send('GET', 'lock')]);
      await ctx.sleep(0.001);
      seen.push([at(ctx), 'exists lock', await send('EXISTS', 'lock')]);
    });
    expect(seen).toEqual([
      [0.5, 'pttl brief', -1],
      [0.5, 'exists brief', 1],
      [1, 'exists brief', 1],
      [1.001, 'exists brief', 0],
      [10.001, 'exists rewritten', 1],
      [30, 'exists lock', 1],
      [30, 'get lock', 'owner'],
      [30.001, 'exists lock', 0],
    ]);
    expect(warnings).toEqual([]);
    expect(expiry.lost).toEqual([]);
    expect(expiry.expiries()).toEqual([]);
    expect(expired).toEqual([
      { db: 1, key: 'brief', at: T0 + 1 },
      { db: 1, key: 'lock', at: T0 + 30 },
    ]);

    // Not one of the service's commands is traced: the actor's own, in order, are all there is.
    const traced = attributeLines(lines, hub!, { index: 0, t: T0 }, new Map()).commands;
    expect(traced.map((c) => [c.actor, c.db, ...c.args])).toEqual([
      ['worker-1', 1, 'SELECT', '1'], // Redis 7 shows a SELECT in the db it selects
      ['worker-1', 1, 'SET', 'lock', 'owner', 'EX', '30', 'NX'],
      ['worker-1', 1, 'SET', 'brief', 'v', 'EX', '1'],
      ['worker-1', 1, 'SET', 'rewritten', 'v', 'EX', '10'],
      ['worker-1', 1, 'EXISTS', 'brief'],
      ['worker-1', 1, 'EXISTS', 'brief'],
      ['worker-1', 1, 'EXISTS', 'brief'],
      ['worker-1', 1, 'SET', 'rewritten', 'w'],
      ['worker-1', 1, 'SET', 'lock', 'other', 'EX', '30', 'NX'],
      ['worker-1', 1, 'EXISTS', 'rewritten'],
      ['worker-1', 1, 'EXISTS', 'lock'],
      ['worker-1', 1, 'GET', 'lock'],
      ['worker-1', 1, 'EXISTS', 'lock'],
    ]);
    // ... though MONITOR saw them: the sweeps' PERSISTs and the DELs of what expired, in db 1.
    const lua = lines.map(parseMonitorLine).filter((l) => l.client === 'lua' && l.db === 1);
    expect(
      lua
        .filter((l) => l.args[0] === 'persist')
        .map((l) => l.args[1])
        .sort(),
    ).toEqual(['brief', 'lock', 'rewritten']);
    expect(lua.filter((l) => l.args[0] === 'del').map((l) => l.args[1])).toEqual(['brief', 'lock']);
    // Nor are they another client's use of the run's dbs.
    const watch = new ForeignWatch(hub!, new Set([hub!.observerAddr]), [0, 1]);
    expect(lines.map(parseMonitorLine).flatMap((l) => watch.push(l) ?? [])).toEqual([]);
  });

  it('remembers each key with its virtual expiry, per db, for the state pane', async () => {
    let remembered: unknown = null;
    await run(async (ctx, send, expiry) => {
      await send('SET', 'lock', 'owner', 'EX', '30', 'NX');
      await ctx.sleep(2.5);
      await send('SETEX', 'job-exceptions:uuid-1', '86400', '0');
      await send('SELECT', '0');
      await send('SET', 'overlap', 'owner', 'EX', '5', 'NX');
      await ctx.sleep(1);
      remembered = expiry.expiries();
    });
    expect(remembered).toEqual([
      { db: 0, key: 'overlap', at: T0 + 7.5 },
      { db: 1, key: 'lock', at: T0 + 30 },
      { db: 1, key: 'job-exceptions:uuid-1', at: T0 + 2.5 + 86400 },
    ]);
  });

  it('a TTL in milliseconds (PX 1500) runs out to the millisecond', async () => {
    const seen: unknown[] = [];
    await run(async (ctx, send) => {
      await send('SET', 'k', 'v', 'PX', '1500');
      await ctx.sleep(1.5);
      seen.push(await send('EXISTS', 'k'));
      await ctx.sleep(0.001);
      seen.push(await send('EXISTS', 'k'));
    });
    expect(seen).toEqual([1, 0]);
  });

  it('says so when a TTL ran out in real time before the sweep reached it', async () => {
    const { expiry, warnings } = await run(async (ctx, send) => {
      await send('SET', 'kept', 'v', 'EX', '30');
      await send('SET', 'short', 'v', 'EX', '1');
      await new Promise((r) => setTimeout(r, 1300)); // a stalled step: Redis' own clock runs on
      await ctx.sleep(1);
    });
    expect(expiry.lost).toEqual([{ db: 1, key: 'short', t: T0, command: 'SET' }]);
    expect(warnings).toEqual([
      "at t+0s short (db 1) was given a TTL (SET) that ran out in real time before the step's end took it into virtual time (the step took longer than the TTL): Redis deleted it, which Laravel's clock would not have done yet, so the trace may differ from Laravel's from here",
    ]);
    expect(expiry.expiries()).toEqual([{ db: 1, key: 'kept', at: T0 + 30 }]);
  });

  it('a key rewritten without a TTL is not deleted at its old expiry, with lines read as they come', async () => {
    const seen: unknown[] = [];
    await run(async (ctx, send, expiry) => {
      await send('SET', 'k', 'v', 'EX', '5');
      await ctx.sleep(2);
      await send('SET', 'k', 'w');
      // The next instant waits for this step's lines (its sweep's line) before it deletes k.
      await ctx.sleep(4);
      seen.push(await send('GET', 'k'), expiry.expiries());
    }, true);
    expect(seen).toEqual(['w', []]);
  });

  it('looks into a db only after a step that left a key with a TTL there (and once, at first, into all)', async () => {
    const { lines } = await run(async (ctx, send) => {
      await send('SET', 'a', 'v');
      await ctx.sleep(1);
      await send('GET', 'a');
      await ctx.sleep(1);
      await send('SET', 'lock', 'owner', 'EX', '30', 'NX');
      await ctx.sleep(1);
      await send('GET', 'a');
    });
    const scans = lines.map(parseMonitorLine).filter((l) => l.client === 'lua' && l.args[0] === 'keys');
    // t+0: the first sweep, every db; t+1: nothing with a TTL; t+2: the lock's db; t+3: nothing.
    expect(scans.map((l) => l.db)).toEqual([0, 1, 1]);
  });

  it('says nothing of a key given a TTL and deleted in the same step (a lock taken and released)', async () => {
    const { expiry, warnings } = await run(async (ctx, send) => {
      await send('SET', 'lock', 'owner', 'EX', '30', 'NX');
      await send('DEL', 'lock');
      await send('EXPIRE', 'never-there', '30'); // EXPIRE on a missing key does nothing
      await ctx.sleep(1);
    });
    expect([expiry.lost, warnings, expiry.expiries()]).toEqual([[], [], []]);
  });
});
