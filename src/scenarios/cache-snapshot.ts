// The cache store's keys after a step, as a step's state shows them: the keys the model holds (the
// locks, the restart signal, the counters, with their virtual expiries), each read back from Redis
// in its own db by the observer (a script selects the db for itself: nothing is traced, and the
// observer stays in the run's db) and compared with the model, so what the state pane says of the
// cache is what Redis holds. A key another client changed ends the run, as a queue's size does.
import type { Client } from '../redis/connections.ts';
import type { LockBook } from '../sim/cache.ts';
import { relativeTime } from '../sim/clock.ts';
import { ModelMismatchError } from '../sim/model/mismatch.ts';
import type { StringEntry } from '../sim/model/strings.ts';
import { heldStrings } from '../sim/model/strings.ts';
import type { CacheKeyState } from './timeline.ts';

const READ = `redis.call('select', ARGV[1])
return redis.call('mget', unpack(KEYS))`;

export async function snapshotCache(
  observer: Client,
  model: Map<string, StringEntry>,
  locks: LockBook,
  o: { now: number; start: number; where: string },
): Promise<CacheKeyState[]> {
  const held = heldStrings(model, o.now).sort((a, b) => a.db - b.db || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const byDb = new Map<number, StringEntry[]>();
  for (const e of held) byDb.set(e.db, [...(byDb.get(e.db) ?? []), e]);
  for (const [db, entries] of byDb) {
    const keys = entries.map((e) => e.key);
    const reply = await observer.sendCommand(['EVAL', READ, String(keys.length), ...keys, String(db)]);
    const values = Array.isArray(reply) ? reply : [];
    entries.forEach((e, i) => {
      const actual = values[i] === null || values[i] === undefined ? null : String(values[i]);
      if (actual === e.value) return;
      throw new ModelMismatchError(
        o.where,
        `${e.key} (db ${db}) should hold ${JSON.stringify(e.value)} (${e.origin.how} at ${relativeTime(e.origin.at, o.start)} by ${e.origin.actor})`,
        actual === null ? 'nothing' : JSON.stringify(actual),
        'another client changed or deleted the key (an app on this server?)',
      );
    });
  }
  return held.map((e) => {
    const holder = locks.holder(e.key);
    return {
      db: e.db,
      key: e.key,
      value: e.value,
      expires: e.expiresAtMs === null ? null : e.expiresAtMs / 1000,
      ...(holder !== null && holder.owner === e.value
        ? { lock: { actor: holder.actor, what: holder.what, since: holder.since } }
        : {}),
    };
  });
}
