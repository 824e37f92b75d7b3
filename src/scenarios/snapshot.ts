// Reads the queue keys after a step (from the observer connection, which the trace ignores), so
// every step carries the state it left behind and views can step backwards without re-running.
import type { Sender } from '../redis/connections.ts';
import { integerReply, stringArrayReply } from '../redis/reply.ts';
import { keySlot } from '../redis/slot.ts';
import { ToolScript } from '../redis/tool-script.ts';
import type { QueueKeys } from '../sim/keys.ts';
import type { JobRegistry } from '../sim/registry.ts';
import type { ListEntry, QueueState, ZsetEntry } from './timeline.ts';

/** Entries kept per key in a snapshot; sizes are always exact. */
export const SNAPSHOT_LIMIT = 50;

export async function snapshotQueues(
  observer: Sender,
  queues: readonly QueueKeys[],
  registry: Pick<JobRegistry, 'labelOfPayload'>,
  /** 5.8+: also count queues:<q>:notify (one "1" per job pushed or migrated and not yet popped). */
  notify = false,
  limit = SNAPSHOT_LIMIT,
  /** On a cluster: the node that holds a key ("node2"), for QueueState.nodes. */
  nodeOf?: (key: string) => string,
  /**
   * The queues' db, which the script selects itself: for a sender whose connection may be in
   * another (ConnectionHub.beforeNext, whichever connection sends next).
   */
  db?: number,
): Promise<QueueState[]> {
  const last = String(limit - 1);
  const results = nodeOf === undefined ? await readAll(observer, queues, notify, last, db) : await readEach();
  async function readEach(): Promise<unknown[][]> {
    // With no entries asked for (limit 0), the sizes alone: no payload is read back or parsed.
    const range = (args: string[]): Promise<unknown> => (limit > 0 ? observer.sendCommand(args) : Promise.resolve([]));
    const reads = queues.map((q) =>
      Promise.all([
        observer.sendCommand(['LLEN', q.ready]),
        range(['LRANGE', q.ready, '0', last]),
        observer.sendCommand(['ZCARD', q.delayed]),
        range(['ZRANGE', q.delayed, '0', last, 'WITHSCORES']),
        observer.sendCommand(['ZCARD', q.reserved]),
        range(['ZRANGE', q.reserved, '0', last, 'WITHSCORES']),
        notify ? observer.sendCommand(['LLEN', q.notify]) : Promise.resolve(null),
      ]),
    );
    return Promise.all(reads);
  }
  return queues.map((q, i) => {
    const [llen, ready, zdelayed, delayed, zreserved, reserved, lnotify] = results[i]!;
    return {
      name: q.name,
      keys: { ready: q.ready, delayed: q.delayed, reserved: q.reserved, ...(notify ? { notify: q.notify } : {}) },
      ...(nodeOf === undefined
        ? {}
        : {
            nodes: {
              ready: nodeOf(q.ready),
              delayed: nodeOf(q.delayed),
              reserved: nodeOf(q.reserved),
              ...(notify ? { notify: nodeOf(q.notify) } : {}),
            },
            slots: {
              ready: keySlot(q.ready),
              delayed: keySlot(q.delayed),
              reserved: keySlot(q.reserved),
              ...(notify ? { notify: keySlot(q.notify) } : {}),
            },
          }),
      sizes: {
        ready: integerReply(llen, `LLEN ${q.ready}`),
        delayed: integerReply(zdelayed, `ZCARD ${q.delayed}`),
        reserved: integerReply(zreserved, `ZCARD ${q.reserved}`),
        ...(notify ? { notify: integerReply(lnotify, `LLEN ${q.notify}`) } : {}),
      },
      ready: stringArrayReply(ready, `LRANGE ${q.ready}`).map((raw): ListEntry => entryOf(registry, raw)),
      delayed: zsetEntries(stringArrayReply(delayed, `ZRANGE ${q.delayed} WITHSCORES`), registry),
      reserved: zsetEntries(stringArrayReply(reserved, `ZRANGE ${q.reserved} WITHSCORES`), registry),
    };
  });
}

/**
 * KEYS: each queue's ready, delayed and reserved keys (and its notify key when ARGV[2] is 1);
 * ARGV[1]: the last index of each list to read (-1: the sizes alone); ARGV[3]: the db to read in
 * ('' for the caller's: a SELECT in a script is the script's alone). A key's size is counted from
 * its entries where they are fewer than asked for (all of it), else read. Per queue, what the reads of
 * readEach give, in that order.
 */
export const READ_QUEUES = new ToolScript(
  `local last = tonumber(ARGV[1])
local per = ARGV[2] == '1' and 4 or 3
if ARGV[3] ~= '' then redis.call('select', ARGV[3]) end
local function read(key, zset)
  local card = zset and 'zcard' or 'llen'
  if last < 0 then return redis.call(card, key), {} end
  local r = zset and redis.call('zrange', key, 0, last, 'WITHSCORES') or redis.call('lrange', key, 0, last)
  local n = zset and #r / 2 or #r
  if n <= last then return n, r end
  return redis.call(card, key), r
end
local out = {}
for i = 1, #KEYS, per do
  local ready, readyEntries = read(KEYS[i], false)
  local delayed, delayedEntries = read(KEYS[i + 1], true)
  local reserved, reservedEntries = read(KEYS[i + 2], true)
  local q = {ready, readyEntries, delayed, delayedEntries, reserved, reservedEntries}
  if per == 4 then q[7] = redis.call('llen', KEYS[i + 3]) end
  out[#out + 1] = q
end
return out`,
  "the queues' snapshot",
);

/**
 * One server's queues in one script (tool-script.ts): one command, which can go ahead of the next
 * traced command (a step's end with no round trip of its own: step-collector.ts), instead of six
 * or seven a queue. A cluster's keys are on several nodes: read one by one.
 */
async function readAll(
  observer: Sender,
  queues: readonly QueueKeys[],
  notify: boolean,
  last: string,
  db: number | undefined,
): Promise<unknown[][]> {
  const keys = queues.flatMap((q) =>
    notify ? [q.ready, q.delayed, q.reserved, q.notify] : [q.ready, q.delayed, q.reserved],
  );
  const rest = [String(keys.length), ...keys, last, notify ? '1' : '0', db === undefined ? '' : String(db)];
  const reply = await READ_QUEUES.run(observer, rest);
  const perQueue = Array.isArray(reply) ? (reply as unknown[]) : [];
  return queues.map((_q, i) => {
    const r = perQueue[i];
    if (!Array.isArray(r)) throw new Error(`the queues' snapshot script returned ${JSON.stringify(reply)}`);
    return notify ? r : [...r, null];
  });
}

/**
 * One entry per distinct payload for the whole run: a payload that sits in a list for a thousand
 * steps is parsed once and stored once, not once per snapshot (a run of N jobs has ~3N steps).
 * Entries are shared between snapshots, so nothing may modify them.
 */
const entries = new WeakMap<object, Map<string, ListEntry>>();
function entryOf(registry: Pick<JobRegistry, 'labelOfPayload'>, raw: string): ListEntry {
  let byRaw = entries.get(registry);
  if (!byRaw) entries.set(registry, (byRaw = new Map()));
  let entry = byRaw.get(raw);
  if (!entry) byRaw.set(raw, (entry = { ...registry.labelOfPayload(raw), raw }));
  return entry;
}

function zsetEntries(flat: string[], registry: Pick<JobRegistry, 'labelOfPayload'>): ZsetEntry[] {
  const out: ZsetEntry[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const raw = flat[i]!;
    out.push({ ...entryOf(registry, raw), score: Number(flat[i + 1]) });
  }
  return out;
}

export function queuesAreEmpty(queues: readonly QueueState[]): boolean {
  return queues.every((q) => q.sizes.ready === 0 && q.sizes.delayed === 0 && q.sizes.reserved === 0);
}
