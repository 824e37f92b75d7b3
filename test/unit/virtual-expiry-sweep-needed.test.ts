// When a run that reads its MONITOR lines sweeps (src/redis/virtual-expiry.ts, sweepNeeded): only
// after lines that may have left a key of the run's dbs with a TTL. Each case below is Redis'
// rule for the command (https://redis.io/commands): SET's EX/PX, SETEX, EXPIRE with a positive
// count and the like give one; reads, list and sorted-set writes, DEL and a SET without options do
// not; a command the tool does not know may (RESTORE takes a TTL), so it is swept.
import { describe, expect, it } from 'vitest';
import type { MonitorLine } from '../../src/redis/monitor-line.ts';
import { commandMayGiveTtl, VirtualExpiry } from '../../src/redis/virtual-expiry.ts';
import { add, durationLimiter, releaseLock, tooManyAttempts } from '../../src/sim/cache-scripts.ts';

const OBSERVER = '127.0.0.1:50000';
const ACTOR = '127.0.0.1:50001';
const line = (client: string, db: number, ...args: string[]): MonitorLine => ({ time: '1.0', db, client, args });

function service() {
  return new VirtualExpiry({
    observer: { sendCommand: () => Promise.reject(new Error('nothing is sent here')) },
    dbs: [0, 1],
    start: 1_700_000_000,
    observerAddr: OBSERVER,
  });
}

/** Whether a sweep is needed after the run's actor sent `args` in db `db`. */
function afterOne(db: number, ...args: string[]): boolean {
  const e = service();
  e.see(line(ACTOR, db, ...args));
  return e.sweepNeeded();
}

describe('the sweep after a step', () => {
  it('is skipped after lines that give no TTL', () => {
    const e = service();
    expect(e.sweepNeeded()).toBe(false);
    e.see(line(ACTOR, 0, 'GET', 'laravel_cache:illuminate:queue:restart'));
    // A worker's pop: the script's own commands come as [db lua] lines after it.
    e.see(line(ACTOR, 0, 'EVAL', 'local job = ...', '3', 'queues:default'));
    e.see(line('lua', 0, 'zrangebyscore', 'queues:default:delayed', '-inf', '1700000000'));
    e.see(line('lua', 0, 'lpop', 'queues:default'));
    e.see(line('lua', 0, 'zadd', 'queues:default:reserved', '1700000090', '{}'));
    e.see(line(ACTOR, 0, 'RPUSH', 'queues:default', '{}'));
    e.see(line(ACTOR, 1, 'DEL', 'lock'));
    e.see(line(ACTOR, 1, 'SET', 'key', 'v'));
    e.see(line(ACTOR, 1, 'SET', 'key', 'v', 'NX'));
    e.see(line(ACTOR, 1, 'EXPIRE', 'key', '0'));
    e.see(line(ACTOR, 1, 'INCRBY', 'counter', '1'));
    e.see(line(ACTOR, 0, 'SELECT', '1'));
    expect(e.sweepNeeded()).toBe(false);
  });

  it.each([
    [['SET', 'lock', 'owner', 'EX', '5', 'NX']],
    [['SET', 'k', 'v', 'px', '1500']],
    [['SETEX', 'k', '30', 'v']],
    [['PSETEX', 'k', '1500', 'v']],
    [['EXPIRE', 'k', '30']],
    [['PEXPIREAT', 'k', '1700000000000']],
    [['GETEX', 'k', 'EX', '3']],
    [['RESTORE', 'k', '3000', '\x00']],
    [['COPY', 'a', 'b']],
  ])('follows %j', (args) => {
    expect(afterOne(1, ...args)).toBe(true);
  });

  it("follows a TTL a script's own command gives (DurationLimiter's EXPIRE), and not the observer's", () => {
    const e = service();
    e.see(line(ACTOR, 1, 'EVAL', 'local function reset() ...', '1', 'limiter'));
    e.see(line('lua', 1, 'hmset', 'limiter', 'start', '1', 'end', '2', 'count', '1'));
    expect(e.sweepNeeded()).toBe(false);
    e.see(line('lua', 1, 'expire', 'limiter', '120'));
    expect(e.sweepNeeded()).toBe(true);
    // The tool's own scripts' lines belong to no actor.
    const f = service();
    f.see(line(OBSERVER, 0, 'EVALSHA', 'abc', '0'));
    f.see(line('lua', 1, 'setex', 'k', '30', 'v'));
    expect(f.sweepNeeded()).toBe(false);
  });

  it("does not follow a TTL given in a db that is not the run's", () => {
    expect(afterOne(5, 'SETEX', 'k', '30', 'v')).toBe(false);
  });

  it("is needed again only after a new TTL once the sweep's own line has passed", async () => {
    const sent: string[][] = [];
    const e = new VirtualExpiry({
      // A sweep's reply: expired_keys, then per db "not full" and no key with a TTL.
      observer: { sendCommand: async (args) => (sent.push(args), ['0', [0], [0]]) },
      dbs: [0, 1],
      start: 1_700_000_000,
      observerAddr: OBSERVER,
    });
    e.see(line(ACTOR, 1, 'SETEX', 'k', '30', 'v'));
    expect(e.sweepNeeded()).toBe(true);
    await e.afterStep(1_700_000_000);
    // Another of the observer's scripts is not the sweep.
    e.see(line(OBSERVER, 0, 'EVALSHA', 'not-the-sweep', '0'));
    expect(e.sweepNeeded()).toBe(true);
    expect(sent[0]!.slice(0, 1)).toEqual(['EVALSHA']);
    e.see(line(OBSERVER, 0, ...sent[0]!));
    expect(e.sweepNeeded()).toBe(false);
    // A second line of the same sweep (sent again after NOSCRIPT) closes nothing: the TTL after it stays.
    e.see(line(ACTOR, 1, 'SET', 'k2', 'v', 'EX', '9'));
    e.see(line(OBSERVER, 0, ...sent[0]!));
    expect(e.sweepNeeded()).toBe(true);
  });

  it('is always needed without the lines (no observer address to read them by)', () => {
    const e = new VirtualExpiry({
      observer: { sendCommand: () => Promise.reject(new Error('nothing is sent here')) },
      dbs: [0],
      start: 1_700_000_000,
    });
    expect(e.sweepNeeded()).toBe(true);
  });
});

// What a kept run foresees from the commands it sends (commandMayGiveTtl), before their lines come:
// never less than what sweepNeeded then says of those lines. Laravel's scripts, read from their
// texts (the profiles' and the cache store's, as the model sends them).
describe('a TTL foreseen from the commands a step sends', () => {
  const evalOf = (source: string) => ['EVAL', source, '1', 'k'];

  it("foresees none from the queue's scripts in every profile, nor from a lock's release or a limiter's look", async () => {
    const modules = await Promise.all([
      import('../../src/sim/profiles/scripts-5.3.ts'),
      import('../../src/sim/profiles/scripts-5.4.ts'),
      import('../../src/sim/profiles/scripts-5.8.ts'),
      import('../../src/sim/profiles/scripts-12.ts'),
    ]);
    const scripts = modules.flatMap((m) => Object.values(m) as Array<{ name: string; source: string }>);
    expect(scripts.length).toBeGreaterThanOrEqual(15);
    for (const s of scripts) expect([s.name, commandMayGiveTtl(evalOf(s.source))]).toEqual([s.name, false]);
    expect(commandMayGiveTtl(evalOf(releaseLock.source))).toBe(false);
    expect(commandMayGiveTtl(evalOf(tooManyAttempts.source))).toBe(false);
  });

  it("foresees one from the cache's add (SETEX) and DurationLimiter's acquire (EXPIRE)", () => {
    expect(commandMayGiveTtl(evalOf(add.source))).toBe(true);
    expect(commandMayGiveTtl(evalOf(durationLimiter.source))).toBe(true);
  });

  it('foresees one from a script whose SET takes its options from ARGV, or whose command is computed', () => {
    expect(commandMayGiveTtl(evalOf("return redis.call('set', KEYS[1], ARGV[1], ARGV[2], ARGV[3])"))).toBe(true);
    expect(commandMayGiveTtl(evalOf('return redis.call(ARGV[1], KEYS[1])'))).toBe(true);
    expect(commandMayGiveTtl(evalOf("return redis.pcall('restore', KEYS[1], 0, ARGV[1])"))).toBe(true);
    expect(commandMayGiveTtl(['EVALSHA', 'a'.repeat(40), '0'])).toBe(true);
  });

  it('reads a command sent on its own as sweepNeeded reads its line', () => {
    for (const args of [
      ['SET', 'lock', 'owner', 'EX', '5', 'NX'],
      ['SETEX', 'k', '30', 'v'],
      ['EXPIRE', 'k', '30'],
      ['RESTORE', 'k', '0', 'x'],
    ])
      expect([args, commandMayGiveTtl(args)]).toEqual([args, true]);
    for (const args of [
      ['GET', 'k'],
      ['SET', 'k', 'v'],
      ['SET', 'k', 'v', 'NX'],
      ['RPUSH', 'queues:default', '{}'],
      ['DEL', 'k'],
      ['BLPOP', 'queues:default', '5'],
      ['SELECT', '1'],
    ])
      expect([args, commandMayGiveTtl(args)]).toEqual([args, false]);
  });
});
