// The model of the queue keys (src/sim/model): Redis' list and sorted-set semantics, and each of
// Laravel's Lua scripts' effect and reply, derived by hand from the script texts (quoted before each
// case) and Redis' documentation, never from the tool's output.
import { describe, expect, it } from 'vitest';
import { compareMembers, Keyspace } from '../../src/sim/model/keyspace.ts';
import { popReserved, popTaken, runScript } from '../../src/sim/model/scripts.ts';
import { PROFILES } from '../../src/sim/profiles/index.ts';
import type { LuaScript } from '../../src/sim/lua.ts';

const by = { actor: 'test', at: 0 };
const o = { ...by, how: 'pushed' };
const Q = {
  ready: 'queues:default',
  delayed: 'queues:default:delayed',
  reserved: 'queues:default:reserved',
  notify: 'queues:default:notify',
};

/** The list's entries, head first (the model's LRANGE 0 -1). */
function lrange(ks: Keyspace, key: string): string[] {
  const out: string[] = [];
  for (let i = 0; ks.listAt(key, i) !== undefined; i++) out.push(ks.listAt(key, i)!.value);
  return out;
}

const script = (profile: keyof typeof PROFILES, name: keyof (typeof PROFILES)['8']['scripts']): LuaScript => {
  const s = PROFILES[profile].scripts[name];
  if (!s) throw new Error(`${profile} has no ${name}`);
  return s;
};

describe('Keyspace: Redis semantics', () => {
  it('RPUSH replies with the length after the push; LPOP takes from the head; an empty list pops nil', () => {
    const ks = new Keyspace();
    expect(ks.rpush('l', ['a'], o)).toBe(1);
    expect(ks.rpush('l', ['b', 'c'], o)).toBe(3);
    expect(ks.lpop('l')?.value).toBe('a');
    expect(ks.llen('l')).toBe(2);
    expect(ks.lpop('l')?.value).toBe('b');
    expect(ks.lpop('l')?.value).toBe('c');
    expect(ks.lpop('l')).toBeNull();
    expect(ks.lpop('never')).toBeNull();
  });

  it('a long list stays in order through many pushes and pops (the deque compacts)', () => {
    const ks = new Keyspace();
    for (let i = 0; i < 5000; i++) ks.rpush('l', [String(i)], o);
    for (let i = 0; i < 3000; i++) expect(ks.lpop('l')?.value).toBe(String(i));
    ks.rpush('l', ['x'], o);
    expect(ks.llen('l')).toBe(2001);
    expect(ks.head('l')?.value).toBe('3000');
    expect(ks.listAt('l', 2000)?.value).toBe('x');
  });

  it('ZADD replies 1 for a new member, 0 for one whose score it updates; ZREM 1 or 0', () => {
    const ks = new Keyspace();
    expect(ks.zadd('z', 5, 'a', o)).toBe(1);
    expect(ks.zadd('z', 3, 'a', o)).toBe(0);
    expect(ks.zcard('z')).toBe(1);
    expect(ks.zsetEntry('z', 'a')?.score).toBe(3);
    expect(ks.zrem('z', 'a')).toBe(1);
    expect(ks.zrem('z', 'a')).toBe(0);
    expect(ks.zrem('none', 'a')).toBe(0);
  });

  it('ZRANGEBYSCORE -inf max orders by score, then by the members’ bytes; the max is inclusive', () => {
    const ks = new Keyspace();
    // Equal scores: memcmp of UTF-8. "a" 61 < "b" 62 < "ä" C3A4 < U+FFFD EFBFBD < U+1F600 F09F9880.
    for (const m of ['\u{1F600}', 'b', '\uFFFD', 'ä', 'a']) ks.zadd('z', 10, m, o);
    ks.zadd('z', 9, 'zz', o);
    ks.zadd('z', 11, 'late', o);
    expect(ks.zrangeToScore('z', 10).map((e) => e.member)).toEqual(['zz', 'a', 'b', 'ä', '\uFFFD', '\u{1F600}']);
    expect(ks.zrangeToScore('z', 10, 2).map((e) => e.member)).toEqual(['zz', 'a']);
    expect(ks.zrangeToScore('z', 10, 0)).toEqual([]);
    expect(ks.zrangeToScore('z', 8)).toEqual([]);
    // A score update moves the member.
    ks.zadd('z', 0, 'late', o);
    expect(ks.zrangeToScore('z', 9).map((e) => e.member)).toEqual(['late', 'zz']);
  });

  it('compareMembers is code point order (UTF-8 bytes), not UTF-16 units', () => {
    expect(compareMembers('\u{1F600}', '\uFFFD')).toBeGreaterThan(0);
    expect(compareMembers('\uFFFD', '\u{1F600}')).toBeLessThan(0);
    expect(compareMembers('ab', 'abc')).toBeLessThan(0);
    expect(compareMembers('x', 'x')).toBe(0);
  });

  it('a BLPOP on an empty list waits; the next push serves it after the command, oldest waiter first', () => {
    const ks = new Keyspace();
    const w1 = ks.blpop('l', 'worker-1');
    const w2 = ks.blpop('l', 'worker-2');
    expect(w1.served).toBeNull();
    // RPUSH's reply counts the entry that then goes to the waiter.
    expect(ks.rpush('l', ['job'], o)).toBe(1);
    expect(w1.served).toBeNull();
    ks.endCommand();
    expect(w1.served?.value).toBe('job');
    expect(w2.served).toBeNull();
    expect(ks.llen('l')).toBe(0);
    ks.unblock(w2);
    ks.rpush('l', ['next'], o);
    ks.endCommand();
    expect(w2.served).toBeNull();
    expect(ks.llen('l')).toBe(1);
    // A BLPOP on a list that holds something takes its head at once.
    expect(ks.blpop('l', 'worker-3').served?.value).toBe('next');
  });

  it('unserve: a BLPOP Redis had timed out leaves its entry at the head of the list', () => {
    const ks = new Keyspace();
    const w = ks.blpop('l', 'worker-1');
    ks.rpush('l', ['first', 'second'], o);
    ks.endCommand();
    expect(lrange(ks, 'l')).toEqual(['second']);
    ks.unserve(w);
    expect(lrange(ks, 'l')).toEqual(['first', 'second']);
  });
});

describe("Laravel's scripts on the model", () => {
  it('push (5.8+): rpush KEYS[1] ARGV[1]; rpush KEYS[2] 1; returns nothing', () => {
    const ks = new Keyspace();
    expect(runScript(ks, script('8', 'push'), [Q.ready, Q.notify], ['{"p":1}'], by)).toBeNull();
    expect(runScript(ks, script('13', 'push'), [Q.ready, Q.notify], ['{"p":2}'], by)).toBeNull();
    expect(lrange(ks, Q.ready)).toEqual(['{"p":1}', '{"p":2}']);
    expect(lrange(ks, Q.notify)).toEqual(['1', '1']);
  });

  it('later (12.45+): zadd KEYS[1] ARGV[1] ARGV[2]; returns nothing', () => {
    const ks = new Keyspace();
    expect(runScript(ks, script('13', 'later'), [Q.delayed], ['1700000060', '{"p":1}'], by)).toBeNull();
    expect(ks.zsetEntry(Q.delayed, '{"p":1}')?.score).toBe(1700000060);
  });

  it('migrateExpiredJobs 5.3 moves what is due (score <= now, in score order) and returns true (1)', () => {
    const ks = new Keyspace();
    ks.zadd(Q.delayed, 105, 'c', o);
    ks.zadd(Q.delayed, 100, 'b', o);
    ks.zadd(Q.delayed, 99, 'a', o);
    expect(runScript(ks, script('5.3', 'migrateExpiredJobs'), [Q.delayed, Q.ready], ['100'], by)).toBe(1);
    expect(lrange(ks, Q.ready)).toEqual(['a', 'b']);
    expect(ks.zcard(Q.delayed)).toBe(1);
    // Nothing due: still true.
    expect(runScript(ks, script('5.3', 'migrateExpiredJobs'), [Q.delayed, Q.ready], ['100'], by)).toBe(1);
  });

  it('migrateExpiredJobs 5.4-5.7 returns the moved jobs (val), an empty table when none', () => {
    const ks = new Keyspace();
    ks.zadd(Q.reserved, 130, 'r2', o);
    ks.zadd(Q.reserved, 130, 'r1', o);
    const m = script('5.7', 'migrateExpiredJobs');
    expect(runScript(ks, m, [Q.reserved, Q.ready], ['129'], by)).toEqual([]);
    expect(runScript(ks, m, [Q.reserved, Q.ready], ['130'], by)).toEqual(['r1', 'r2']);
    expect(lrange(ks, Q.ready)).toEqual(['r1', 'r2']);
    expect(ks.llen(Q.notify)).toBe(0);
  });

  it('migrateExpiredJobs 5.8-8: all 250 due jobs, in order, and one notification per job', () => {
    const ks = new Keyspace();
    const members = Array.from({ length: 250 }, (_, i) => `job-${String(i).padStart(3, '0')}`);
    for (const m of members) ks.zadd(Q.delayed, 100, m, o);
    const moved = runScript(ks, script('8', 'migrateExpiredJobs'), [Q.delayed, Q.ready, Q.notify], ['100'], by);
    expect(moved).toEqual(members);
    expect(lrange(ks, Q.ready)).toEqual(members);
    expect(ks.llen(Q.notify)).toBe(250);
    expect(ks.zcard(Q.delayed)).toBe(0);
  });

  it("migrateExpiredJobs 9.23+: zrangebyscore ... 'limit', 0, ARGV[2]: -1 moves all, 2 moves two, 0 none", () => {
    const m = script('13', 'migrateExpiredJobs');
    const fill = () => {
      const ks = new Keyspace();
      for (const x of ['a', 'b', 'c']) ks.zadd(Q.delayed, 100, x, o);
      return ks;
    };
    let ks = fill();
    expect(runScript(ks, m, [Q.delayed, Q.ready, Q.notify], ['100', '-1'], by)).toEqual(['a', 'b', 'c']);
    ks = fill();
    expect(runScript(ks, m, [Q.delayed, Q.ready, Q.notify], ['100', '2'], by)).toEqual(['a', 'b']);
    expect(ks.zcard(Q.delayed)).toBe(1);
    expect(ks.llen(Q.notify)).toBe(2);
    ks = fill();
    expect(runScript(ks, m, [Q.delayed, Q.ready, Q.notify], ['100', '0'], by)).toEqual([]);
    expect(ks.llen(Q.ready)).toBe(0);
  });

  it('pop 5.4-5.7: lpop KEYS[1]; the reserved copy goes to KEYS[2] at ARGV[1]; no notify list', () => {
    const ks = new Keyspace();
    ks.rpush(Q.ready, ['j1'], o);
    ks.rpush(Q.notify, ['1'], o); // not the 5.7 script's: it must stay
    const pop = script('5.7', 'pop');
    expect(popTaken(ks, pop, [Q.ready, Q.reserved])).toBe('j1');
    popReserved(ks, [Q.ready, Q.reserved], ['1700000090'], 'j1-reserved', by);
    expect(ks.zsetEntry(Q.reserved, 'j1-reserved')?.score).toBe(1700000090);
    expect(ks.llen(Q.notify)).toBe(1);
    expect(popTaken(ks, pop, [Q.ready, Q.reserved])).toBeNull();
  });

  it('pop 5.8+: lpop KEYS[3] only when a job was taken', () => {
    const ks = new Keyspace();
    ks.rpush(Q.notify, ['1', '1'], o);
    const pop = script('8', 'pop');
    expect(popTaken(ks, pop, [Q.ready, Q.reserved, Q.notify])).toBeNull();
    expect(ks.llen(Q.notify)).toBe(2);
    ks.rpush(Q.ready, ['j1'], o);
    expect(popTaken(ks, pop, [Q.ready, Q.reserved, Q.notify])).toBe('j1');
    expect(ks.llen(Q.notify)).toBe(1);
  });

  it('release: zrem KEYS[2] ARGV[1]; zadd KEYS[1] ARGV[2] ARGV[1]; return true (1), even when nothing was removed', () => {
    const ks = new Keyspace();
    ks.zadd(Q.reserved, 130, 'r', o);
    expect(runScript(ks, script('5.3', 'release'), [Q.delayed, Q.reserved], ['r', '1700000010'], by)).toBe(1);
    expect(ks.zcard(Q.reserved)).toBe(0);
    expect(ks.zsetEntry(Q.delayed, 'r')?.score).toBe(1700000010);
    expect(runScript(ks, script('8', 'release'), [Q.delayed, Q.reserved], ['gone', '1700000010'], by)).toBe(1);
    expect(ks.zcard(Q.delayed)).toBe(2);
  });

  it('size: llen + zcard + zcard; clear (8.9+): that size, and all four keys deleted', () => {
    const ks = new Keyspace();
    ks.rpush(Q.ready, ['a', 'b'], o);
    ks.rpush(Q.notify, ['1', '1'], o);
    ks.zadd(Q.delayed, 1, 'c', o);
    ks.zadd(Q.reserved, 1, 'd', o);
    const keys = [Q.ready, Q.delayed, Q.reserved];
    expect(runScript(ks, script('5.7', 'size'), keys, [], by)).toBe(4);
    expect(runScript(ks, script('8', 'clear'), [...keys, Q.notify], [], by)).toBe(4);
    expect([ks.llen(Q.ready), ks.zcard(Q.delayed), ks.zcard(Q.reserved), ks.llen(Q.notify)]).toEqual([0, 0, 0, 0]);
  });

  it('a push serves a BLPOP blocked on :notify (5.8+) once the script has run', () => {
    const ks = new Keyspace();
    const w = ks.blpop(Q.notify, 'worker-1');
    runScript(ks, script('8', 'push'), [Q.ready, Q.notify], ['j'], by);
    ks.endCommand();
    expect(w.served?.value).toBe('1');
    expect(ks.llen(Q.notify)).toBe(0);
    expect(ks.llen(Q.ready)).toBe(1);
  });
});

describe('Keyspace.version: moves with every change of a key, and with nothing else', () => {
  it('stays for reads and for writes that find nothing to change: LPOP of an empty list, ZREM of no member, DEL of no key', () => {
    const ks = new Keyspace();
    const v = ks.version;
    ks.llen(Q.ready);
    ks.zrangeToScore(Q.delayed, Infinity);
    expect(ks.lpop(Q.ready)).toBeNull();
    expect(ks.zrem(Q.reserved, 'x')).toBe(0);
    ks.zremFirst(Q.delayed, 3);
    ks.del(Q.notify);
    expect(ks.rpush(Q.ready, [], o)).toBe(0);
    expect(ks.version).toBe(v);
  });

  it('moves for a push, a pop that takes, a ZADD, a ZREM that removes, a migrate, a DEL, a served BLPOP', () => {
    const ks = new Keyspace();
    const steps: Array<() => unknown> = [
      () => ks.rpush(Q.ready, ['a'], o),
      () => ks.lpop(Q.ready),
      () => ks.zadd(Q.delayed, 5, 'b', o),
      () => ks.zadd(Q.reserved, 9, 'c', o),
      () => ks.zrem(Q.reserved, 'c'),
      () => ks.zremFirst(Q.delayed, 1),
      () => ks.rpush(Q.notify, ['1'], o),
      () => ks.del(Q.notify),
    ];
    for (const step of steps) {
      const v = ks.version;
      step();
      expect(ks.version).toBeGreaterThan(v);
    }
    // A BLPOP that waits changes nothing; the push that serves it changes the list twice over.
    const waiter = ks.blpop(Q.ready, 'worker-1');
    const v = ks.version;
    ks.rpush(Q.ready, ['d'], o);
    ks.endCommand();
    expect(waiter.served?.value).toBe('d');
    expect(ks.llen(Q.ready)).toBe(0);
    expect(ks.version).toBeGreaterThan(v + 1);
  });
});
