// The cache store's keys after a step, as a step's state shows them: the keys the model holds (the
// locks, the restart signal, the counters, with their virtual expiries), each read back from Redis
// in its own db by the observer (a script selects the db for itself: nothing is traced, and the
// observer stays in the run's db) and compared with the model, so what the state pane says of the
// cache is what Redis holds. A key another client changed ends the run, as a queue's size does.
import type { Sender } from '../redis/connections.ts';
import { ToolScript } from '../redis/tool-script.ts';
import type { LockBook } from '../sim/cache.ts';
import { relativeTime } from '../sim/clock.ts';
import { ModelMismatchError } from '../sim/model/mismatch.ts';
import type { StringEntry } from '../sim/model/strings.ts';
import { heldStrings } from '../sim/model/strings.ts';
import type { CacheKeyState } from './timeline.ts';

/**
 * Each key's value: a string's, or a hash's fields flattened (DurationLimiter's window, which GET
 * refuses as WRONGTYPE); false when absent or of another type.
 */
export const READ_CACHE = new ToolScript(
  `redis.call('select', ARGV[1])
local out = {}
for i, k in ipairs(KEYS) do
  local v = redis.pcall('get', k)
  if type(v) == 'table' and v.err then
    v = redis.pcall('hgetall', k)
    if type(v) == 'table' and v.err then v = false end
  end
  out[i] = v
end
return out`,
  "the cache's keys' read-back",
);

/** How a value reads in a message and in the state. */
function shown(e: { value: string; hash?: Map<string, string> }): string {
  return e.hash === undefined ? JSON.stringify(e.value) : JSON.stringify(Object.fromEntries(e.hash));
}

function fromReply(r: unknown): { value: string; hash?: Map<string, string> } | null {
  if (r === null || r === undefined) return null;
  if (!Array.isArray(r)) return { value: String(r) };
  const hash = new Map<string, string>();
  for (let i = 0; i + 1 < r.length; i += 2) hash.set(String(r[i]), String(r[i + 1]));
  return { value: '', hash };
}

function same(a: { value: string; hash?: Map<string, string> }, b: { value: string; hash?: Map<string, string> }) {
  if (a.hash === undefined || b.hash === undefined) return a.hash === b.hash && a.value === b.value;
  return a.hash.size === b.hash.size && [...a.hash].every(([k, v]) => b.hash!.get(k) === v);
}

export async function snapshotCache(
  /** The observer, or ConnectionHub.beforeNext (a step's end sent ahead of the next command). */
  observer: Sender,
  model: Map<string, StringEntry>,
  locks: LockBook,
  o: { now: number; start: number; where: string },
): Promise<CacheKeyState[]> {
  // What the model holds now, with each key's lock holder, copied (an EXPIRE changes an entry in
  // place): a read sent ahead of the next command is answered after the actors have gone on.
  const held = heldStrings(model, o.now)
    .sort((a, b) => a.db - b.db || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((e) => ({ ...e, holder: locks.holder(e.key) }));
  const byDb = new Map<number, StringEntry[]>();
  for (const e of held) byDb.set(e.db, [...(byDb.get(e.db) ?? []), e]);
  // Every db's read goes out at once (one round trip), then each reply is checked in turn.
  const reads = [...byDb].map(([db, entries]) => {
    const keys = entries.map((e) => e.key);
    const rest = [String(keys.length), ...keys, String(db)];
    const reply = READ_CACHE.run(observer, rest);
    reply.catch(() => undefined); // an earlier db's mismatch is the one reported
    return { db, entries, reply };
  });
  for (const { db, entries, reply: sent } of reads) {
    const reply = await sent;
    const values = Array.isArray(reply) ? reply : [];
    entries.forEach((e, i) => {
      const actual = fromReply(values[i]);
      if (actual !== null && same(e, actual)) return;
      throw new ModelMismatchError(
        o.where,
        `${e.key} (db ${db}) should hold ${shown(e)} (${e.origin.how} at ${relativeTime(e.origin.at, o.start)} by ${e.origin.actor})`,
        actual === null ? 'nothing' : shown(actual),
        'another client changed or deleted the key (an app on this server?)',
      );
    });
  }
  return held.map((e) => {
    const holder = e.holder;
    return {
      db: e.db,
      key: e.key,
      value: e.value,
      ...(e.hash !== undefined ? { fields: Object.fromEntries(e.hash) } : {}),
      expires: e.expiresAtMs === null ? null : e.expiresAtMs / 1000,
      ...(holder !== null && holder.owner === e.value
        ? { lock: { actor: holder.actor, what: holder.what, since: holder.since } }
        : {}),
    };
  });
}
