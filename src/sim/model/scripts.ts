// What each of Laravel's Lua scripts does to the queue keys, and what it returns, read off the
// texts in src/sim/profiles/scripts-*.ts (every profile's variant: 5.3's migrate returns true,
// 5.4+'s the moved jobs; 5.8+ pushes a "1" to :notify per job and pops one per reservation; 9.23+
// migrates at most ARGV[2] jobs). Replies are as node-redis gives them over RESP2: Lua true is 1,
// false and no return value are nil, a table of strings is an array.
import type { LuaScript } from '../lua.ts';
import type { Keyspace, Origin } from './keyspace.ts';

/** What a script's text says about its shape, worked out once per script object. */
interface Traits {
  /** migrateExpiredJobs ends with `return val` (5.4+), not `return true` (5.3). */
  returnsMoved: boolean;
  /** migrateExpiredJobs reads `'limit', 0, ARGV[2]` (9.23+). */
  limited: boolean;
  /** pop / migrate / push take the :notify list (5.8+). */
  notify: boolean;
}

const traitsOf = new WeakMap<LuaScript, Traits>();
function traits(script: LuaScript): Traits {
  let t = traitsOf.get(script);
  if (t === undefined) {
    t = {
      returnsMoved: /return val\s*$/.test(script.source),
      limited: script.source.includes("'limit', 0, ARGV[2]"),
      notify:
        script.name === 'push' ||
        ((script.name === 'pop' || script.name === 'migrateExpiredJobs') && script.numberOfKeys === 3),
    };
    traitsOf.set(script, t);
  }
  return t;
}

/** An entry's origin: one object literal of one shape (what every entry keeps; cheaper than a spread). */
export function by(o: Omit<Origin, 'how'>, how: string, of?: string): Origin {
  return { actor: o.actor, at: o.at, how, of };
}

/** Migrate's rpush goes in chunks of 100 (`for i = 1, #val, 100`). */
export const MIGRATE_CHUNK = 100;

/**
 * The effect of EVAL <script> on the keys, and its reply, for every script but pop (popTaken /
 * popReserved: its reply carries a string the model cannot compute, cjson's re-encoding). The
 * blocked BLPOPs a push serves are served by the caller's Keyspace.endCommand().
 */
export function runScript(
  ks: Keyspace,
  script: LuaScript,
  keys: readonly string[],
  argv: readonly string[],
  origin: Omit<Origin, 'how'>,
): unknown {
  switch (script.name) {
    case 'push':
      // rpush KEYS[1] ARGV[1]; rpush KEYS[2] 1; no return: nil.
      ks.rpush(keys[0]!, [argv[0]!], by(origin, 'pushed'));
      ks.rpush(keys[1]!, ['1'], by(origin, 'notified', argv[0]));
      return null;
    case 'later':
      // zadd KEYS[1] ARGV[1] ARGV[2]; no return: nil.
      ks.zadd(keys[0]!, Number(argv[0]), argv[1]!, by(origin, 'pushed (later)'));
      return null;
    case 'migrateExpiredJobs':
      return migrate(ks, script, keys, argv, origin);
    case 'release':
      // zrem KEYS[2] ARGV[1]; zadd KEYS[1] ARGV[2] ARGV[1]; return true.
      ks.zrem(keys[1]!, argv[0]!);
      ks.zadd(keys[0]!, Number(argv[1]), argv[0]!, by(origin, 'released'));
      return 1;
    case 'size':
      return ks.llen(keys[0]!) + ks.zcard(keys[1]!) + ks.zcard(keys[2]!);
    case 'clear': {
      // size of the first three, then del of every key the script was given.
      const size = ks.llen(keys[0]!) + ks.zcard(keys[1]!) + ks.zcard(keys[2]!);
      for (const key of keys.slice(0, script.numberOfKeys)) ks.del(key);
      return size;
    }
    case 'pop':
      throw new Error('runScript: the pop script is popTaken + popReserved');
  }
}

/**
 * migrateExpiredJobs: zrangebyscore KEYS[1] -inf ARGV[1] (9.23+: limit 0 ARGV[2]), zremrangebyrank
 * of those, rpush onto KEYS[2] in chunks of 100, and (5.8+) one rpush of 1 onto KEYS[3] per job of
 * each chunk. Returns the moved jobs (5.4+) or true (5.3).
 */
function migrate(
  ks: Keyspace,
  script: LuaScript,
  keys: readonly string[],
  argv: readonly string[],
  origin: Omit<Origin, 'how'>,
): unknown {
  const t = traits(script);
  const [from, to, notify] = keys as [string, string, string | undefined];
  // ZRANGEBYSCORE's LIMIT with a negative count returns everything.
  const val = ks.zrangeToScore(from, Number(argv[0]), t.limited ? Number(argv[1]) : -1);
  const moved = val.map((e) => e.member);
  if (val.length > 0) {
    ks.zremFirst(from, val.length);
    const how = `migrated from ${from}`;
    for (let i = 0; i < moved.length; i += MIGRATE_CHUNK) {
      const chunk = moved.slice(i, i + MIGRATE_CHUNK);
      ks.rpush(to, chunk, by(origin, how));
      if (t.notify && notify !== undefined) for (const of of chunk) ks.rpush(notify, ['1'], by(origin, 'notified', of));
    }
  }
  return t.returnsMoved ? moved : 1;
}

/**
 * The pop script's first half: lpop KEYS[1], and (5.8+) when that took a job, lpop KEYS[3]. Returns
 * the job the model expects it to take (null: none). The reservation follows with popReserved once
 * the reply names the cjson-encoded copy.
 */
export function popTaken(ks: Keyspace, script: LuaScript, keys: readonly string[]): string | null {
  const taken = ks.lpop(keys[0]!);
  if (taken === null) return null;
  if (traits(script).notify) ks.lpop(keys[2]!);
  return taken.value;
}

/** The pop script's second half: zadd KEYS[2] ARGV[1] <reserved>. */
export function popReserved(
  ks: Keyspace,
  keys: readonly string[],
  argv: readonly string[],
  reserved: string,
  origin: Omit<Origin, 'how'>,
): void {
  ks.zadd(keys[1]!, Number(argv[0]), reserved, by(origin, 'reserved'));
}
