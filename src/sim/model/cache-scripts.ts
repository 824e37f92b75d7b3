// What the cache store's Lua scripts do to the model's keys, and what they reply, read off their
// texts (src/sim/cache-scripts.ts). Lua's numbers become integer replies (truncated), false a nil,
// a status reply ('OK') a string; `ARGV[1] >= HGET start` compares two strings, byte by byte.
import type { CacheScript } from '../lua.ts';
import type { Origin } from './keyspace.ts';
import type { StringKeys } from './strings.ts';

/** Lua's tostring of a number that is an integer (`ARGV[2] + ARGV[3]`), as HMSET stores it. */
function luaNumber(x: number): string {
  return Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(14)));
}

/** Lua's string comparison (strcoll in the C locale: bytes). */
function before(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function runCacheScript(
  ks: StringKeys,
  script: CacheScript,
  keys: readonly string[],
  argv: readonly string[],
  origin: Origin,
): unknown {
  const key = keys[0]!;
  const now = origin.at;
  switch (script.name) {
    case 'releaseLock': {
      if (ks.get(key, now) !== argv[0]) return 0;
      return ks.del(key, now);
    }
    case 'add': {
      if (ks.exists(key, now)) return null;
      ks.set(key, argv[0]!, { ex: Number(argv[1]) }, origin);
      return 'OK';
    }
    case 'durationLimiter': {
      const [micro, time, decay, slots] = argv.map(String) as [string, string, string, string];
      const end = Number(time) + Number(decay);
      const reset = () => {
        ks.hmset(
          key,
          [
            ['start', time],
            ['end', luaNumber(end)],
            ['count', '1'],
          ],
          origin,
        );
        return [ks.expire(key, Number(decay) * 2, now), end, Number(slots) - 1];
      };
      if (!ks.exists(key, now)) return reset();
      if (before(micro, ks.hget(key, 'start', now)!) >= 0 && before(micro, ks.hget(key, 'end', now)!) <= 0) {
        const count = ks.hincrby(key, 'count', 1, origin);
        return [count <= Number(slots) ? 1 : null, ks.hget(key, 'end', now), Number(slots) - count];
      }
      return reset();
    }
    case 'tooManyAttempts': {
      const [micro, time, decay, slots] = argv.map(String) as [string, string, string, string];
      const end = Number(time) + Number(decay);
      if (!ks.exists(key, now)) return [0, end];
      if (before(micro, ks.hget(key, 'start', now)!) >= 0 && before(micro, ks.hget(key, 'end', now)!) <= 0)
        return [ks.hget(key, 'end', now), Number(slots) - Number(ks.hget(key, 'count', now))];
      return [0, end];
    }
  }
}
