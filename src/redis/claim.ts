// A run on someone else's server (REDIS_URL) holds an exclusive claim on the logical db it writes
// to, for its whole life. Two runs on one URL (test files in parallel in CI) would otherwise pick
// the same empty db and corrupt each other's traces, and a db with no keys may still have a client
// in it (an app's `queue:work` blocked in BLPOP) that would be handed the run's jobs.
//
// A db is free when it holds no key and no other client has it selected. The claim is a key in
// that db (`lqsim:claim`, with an expiry a heartbeat renews) plus a mark (`lqsim:run`, no expiry)
// naming the run and every key it may create, both set by one script that first checks the db
// (scripts are atomic: of two runs looking at one db only one gets it). CLIENT cannot run inside
// a script, so who is in the db is asked with CLIENT LIST just before the script and again just
// after it (behind a MONITOR barrier, after which the run's watch sees anyone who selects the db);
// a client found there the second time makes the run give the db back and try the next.
//
// A process killed with SIGKILL cannot delete its keys: its claim expires, its mark and keys stay.
// The claim script takes such a db back when it finds no claim, a mark, and nothing but the mark
// and keys the mark lists (any other key is someone's data, and the db is never touched), deletes
// them and says so. The end of the run deletes its keys, its mark and its claim in one script.
// Everything here goes through the observer connection, whose commands are never traced.
//
// Some keys are named only as the run goes (the cache's `job-exceptions:<uuid>`): the mark lists
// them by prefix (`prefixes`), and a key that begins with one is the run's as a listed key is,
// found with KEYS inside the same scripts (a read Redis 6.2 lets a script write after), in a db
// that holds nothing but the run's own keys. A run with a cache store on Redis holds two dbs
// (the queue's `redis.database`, the cache's `redis.cache_database`): claimDatabases claims each
// this way, one after the other, never one the run already holds.
import type { Sender } from './claim-clients.ts';
import { clientsInDb, describeClient } from './claim-clients.ts';
import { RedisRefusedError } from './errors.ts';

export const CLAIM_KEY = 'lqsim:claim';
/**
 * The persistent mark: `{"token": <run>, "keys": [...], "prefixes": [...]}`, the keys the run may
 * create, and the beginnings of those it names as it goes (`prefixes`, absent when none).
 */
export const MARK_KEY = 'lqsim:run';
/** How long a claim lives without a heartbeat. */
export const CLAIM_TTL_MS = 30_000;
/** Logical dbs tried; Redis has 16 unless configured otherwise (SELECT beyond them is an error). */
const MAX_DBS = 16;

/**
 * KEYS: claim, mark; ARGV: db, token, ttl (ms), the new mark. Looks at the db from inside the
 * script (`select` there changes the script's db only, so the observer selects nothing it does not
 * take). Returns {1, dead run's token or '', swept keys...}, {0, 'claimed' | 'data'}, or
 * {-1, command, key, error} for a command the server refused (ACL, out-of-range db, OOM), tried
 * before anything is written.
 */
const TAKE = `local function call(...)
  local r = redis.pcall(...)
  if type(r) == 'table' and r.err then
    local args = {...}
    error({args[1], args[2] or '', r.err}, 0)
  end
  return r
end
local claim, mark = ARGV[1], ARGV[2]
local function glob(prefix)
  return (string.gsub(prefix, '([%*%?%[%]\\\\])', '\\\\%1')) .. '*'
end
local function take()
  call('select', ARGV[3])
  if call('exists', claim) == 1 then return {0, 'claimed'} end
  call('exists', mark)
  local size = call('dbsize')
  local swept = {}
  local dead = ''
  if size > 0 then
    if call('type', mark)['ok'] ~= 'string' then return {0, 'data'} end
    local ok, listed = pcall(cjson.decode, call('get', mark))
    if not ok or type(listed) ~= 'table' or type(listed.keys) ~= 'table' then return {0, 'data'} end
    local seen = {}
    local function listedKey(k)
      if type(k) == 'string' and not seen[k] and k ~= claim and k ~= mark then
        seen[k] = true
        if call('exists', k) == 1 then swept[#swept + 1] = k end
      end
    end
    for _, k in ipairs(listed.keys) do listedKey(k) end
    if type(listed.prefixes) == 'table' then
      for _, p in ipairs(listed.prefixes) do
        if type(p) == 'string' and p ~= '' then
          local found = call('keys', glob(p))
          table.sort(found) -- KEYS' order is the hash table's; the notice lists them in order
          for _, k in ipairs(found) do listedKey(k) end
        end
      end
    end
    if size ~= 1 + #swept then return {0, 'data'} end
    for _, k in ipairs(swept) do call('del', k) end
    call('del', mark)
    dead = tostring(listed.token)
  end
  -- The end's KEYS, tried before anything is written (a user without it is refused now).
  if ARGV[7] ~= '' then call('keys', glob(ARGV[7])) end
  call('get', claim)
  call('pexpire', claim, ARGV[5])
  call('del', claim)
  call('set', mark, ARGV[6])
  call('set', claim, ARGV[4], 'PX', ARGV[5])
  return {1, dead, unpack(swept)}
end
local ok, res = pcall(take)
if ok then return res end
if type(res) == 'table' then return {-1, tostring(res[1]), tostring(res[2]), tostring(res[3])} end
return redis.error_reply(tostring(res))`;

/**
 * KEYS: claim; ARGV: token, ttl (ms), db. In the claimed db whichever the observer is on (a run
 * that holds two dbs leaves it on one of them).
 */
const RENEW = `redis.call('select', ARGV[3])
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0`;

/**
 * ARGV: claim key, mark key, token, the db, how many prefixes, the prefixes, the run's keys (no
 * KEYS, as in TAKE); run in that db whichever the observer is on. Deletes the keys (and those beginning with a prefix), the mark and the claim while
 * the claim is ours, or (claim lost) while the mark still is: never keys of a db someone else has
 * taken since. A key the server will not delete keeps the mark, which lists it for a later run. 1
 * when done, 0 when not ours any more, {-1, key, error} when refused.
 */
const END = `local claim, mark, token = ARGV[1], ARGV[2], ARGV[3]
redis.call('select', ARGV[4])
local prefixes = tonumber(ARGV[5])
local mine = redis.pcall('get', claim) == token
if not mine then
  if redis.pcall('type', mark)['ok'] ~= 'string' then return 0 end
  local ok, listed = pcall(cjson.decode, redis.call('get', mark))
  if not ok or type(listed) ~= 'table' or listed.token ~= token then return 0 end
end
local refused = nil
local function del(k)
  local r = redis.pcall('del', k)
  if type(r) == 'table' and r.err and refused == nil then refused = {-1, k, r.err} end
end
for i = 6 + prefixes, #ARGV do del(ARGV[i]) end
for i = 6, 5 + prefixes do
  local pattern = (string.gsub(ARGV[i], '([%*%?%[%]\\\\])', '\\\\%1')) .. '*'
  local found = redis.pcall('keys', pattern)
  if found.err then
    if refused == nil then refused = {-1, 'KEYS ' .. pattern, found.err} end
  else
    for _, k in ipairs(found) do
      if k ~= claim and k ~= mark then del(k) end
    end
  end
end
if refused == nil then redis.pcall('del', mark) end
if mine then redis.pcall('del', claim) end
return refused or 1`;

export interface DbClaim {
  /** The scenario's db this claim holds the run's keys of. */
  wanted: number;
  db: number;
  /** The scenario's db was not free (data, another run, another client), so the run claimed `db`. */
  moved: boolean;
  /** Why the scenario's db was not taken, for the notice ('' when it was). */
  movedBecause: string;
  /** What the claim did that the user should know: leftovers of a dead run deleted. */
  notices: string[];
  /** Set when a heartbeat found the claim gone (expired while the process stalled, or deleted). */
  lost(): string | null;
  /**
   * Deletes the run's keys, its mark and its claim (if still the run's) and stops the heartbeat;
   * throws when the server refuses (the keys are then left). `keys` false: the run wrote none
   * (refused before its first write), so only the claim and the mark go: a user who may not
   * touch one of the keys is not refused a DEL of it. Safe to call twice.
   */
  release(keys?: boolean): Promise<void>;
}

export interface ClaimOptions {
  /** Every key the run may create (allKeys of its queues): the mark lists them. */
  keys: readonly string[];
  /**
   * The beginnings of keys the run names only as it goes (`laravel_database_laravel_cache:job-exceptions:`):
   * the mark lists them, and a key that begins with one is the run's, swept and deleted as a listed key is.
   */
  prefixes?: readonly string[];
  /**
   * Dbs this run already holds (claimDatabases), each with the scenario's db it holds it for: never
   * tried again, and named as the reason when it is the one wanted.
   */
  taken?: ReadonlyMap<number, number>;
  /** CLIENT IDs of this run's own connections (the observer): never "another client". */
  own: ReadonlySet<string>;
  /**
   * Called once the claim is taken and the observer is on the db, before clients are counted
   * again: a MONITOR barrier, after which the run's watch sees anyone who selects the db.
   */
  settle?: () => Promise<unknown>;
  /**
   * Dbs the run may not move to (other than the scenario's own): where Laravel's client would send
   * no SELECT though the scenario's db has one (phpredis before 6.4 on db 0), a trace compared in
   * the scenario's db would miss a command it cannot make up.
   */
  avoid?: (db: number) => boolean;
  ttlMs?: number;
}

type Take =
  | { taken: true; dead: string; swept: string[] }
  | { taken: false; why: 'claimed' | 'data' }
  | { refused: true; command: string; key: string; error: string };

async function take(
  observer: Sender,
  db: number,
  token: string,
  ttlMs: number,
  mark: string,
  prefix: string,
): Promise<Take> {
  const reply = await observer.sendCommand([
    'EVAL',
    TAKE,
    '0',
    CLAIM_KEY,
    MARK_KEY,
    String(db),
    token,
    String(ttlMs),
    mark,
    prefix,
  ]);
  const r = (Array.isArray(reply) ? reply : []).map(String);
  if (r[0] === '1') return { taken: true, dead: r[1] ?? '', swept: r.slice(2) };
  if (r[0] === '-1') return { refused: true, command: r[1] ?? '', key: r[2] ?? '', error: r[3] ?? '' };
  return { taken: false, why: r[1] === 'claimed' ? 'claimed' : 'data' };
}

/**
 * Claims the scenario's db if it is free, else the first free one; refuses when none is. The
 * observer is left on the claimed db. `token` identifies this run (its connections' run id).
 */
export async function claimDatabase(
  observer: Sender,
  wanted: number,
  token: string,
  opts: ClaimOptions,
): Promise<DbClaim> {
  const ttlMs = opts.ttlMs ?? CLAIM_TTL_MS;
  const prefixes = opts.prefixes ?? [];
  if (prefixes.some((p) => p === '')) throw new Error("a claim cannot mark every key as the run's (an empty prefix)");
  // A run with no prefix writes the mark it always wrote.
  const mark = JSON.stringify(
    prefixes.length === 0 ? { token, keys: opts.keys } : { token, keys: opts.keys, prefixes },
  );
  const taken = opts.taken ?? new Map<number, number>();
  const order = [
    wanted,
    ...Array.from({ length: MAX_DBS }, (_, i) => i).filter((i) => i !== wanted && opts.avoid?.(i) !== true),
  ].filter((i) => !taken.has(i));
  const mine = taken.get(wanted);
  const notices: string[] = [];
  const busy = { data: 0, clients: 0 };
  let movedBecause = mine === undefined ? '' : `is the one this run took for its db ${mine}`;
  let tried = 0;
  for (const db of order) {
    const inside = await clientsInDb(observer, db, opts.own);
    const t = inside.length > 0 ? null : await take(observer, db, token, ttlMs, mark, prefixes[0] ?? '');
    if (t !== null && 'refused' in t) {
      if (t.command === 'select' && /out of range/i.test(t.error)) {
        if (db === wanted) continue; // the scenario's db does not exist here: the others may
        break; // beyond the server's `databases`
      }
      throw refusal(t);
    }
    tried++;
    if (t !== null && t.taken) {
      if (t.swept.length > 0 || t.dead !== '')
        notices.push(
          `db ${db} held what a run that is gone left behind (run ${t.dead}, killed before its cleanup: ${t.swept.length > 0 ? t.swept.join(', ') : 'no key'} and its mark ${MARK_KEY}); nothing else was there and no client was in it, so they were deleted and the db reused`,
        );
      await observer.sendCommand(['SELECT', String(db)]);
      await opts.settle?.();
      const late = await clientsInDb(observer, db, opts.own);
      const claim = held(observer, db, token, ttlMs, opts.keys, prefixes);
      if (late.length === 0) {
        return { ...claim, wanted, moved: db !== wanted, movedBecause, notices };
      }
      // Someone selected the db between the two looks: it is theirs to use, not ours.
      await claim.release();
      inside.push(...late);
    }
    if (inside.length > 0) busy.clients++;
    else busy.data++;
    if (db === wanted)
      movedBecause =
        inside.length > 0
          ? `has another client in it (${describeClient(inside[0]!)})`
          : 'holds other data or another run';
  }
  const why = [
    busy.data > 0 ? `${busy.data} ${busy.data === 1 ? 'holds' : 'hold'} data or another run's claim` : '',
    busy.clients > 0
      ? `${busy.clients} ${busy.clients === 1 ? 'has another client in it' : 'have other clients in them'}`
      : '',
  ].filter((s) => s !== '');
  throw new RedisRefusedError(
    `no free db on this server (REDIS_URL; ${tried} tried${why.length > 0 ? `: ${why.join(', ')}` : ''}): each run needs a db of its own, with no key and no other client in it, so that no other client or run shares its keys or jobs. Free one, or use a server of your own`,
  );
}

function refusal(t: { command: string; key: string; error: string }): RedisRefusedError {
  const on = t.key === '' ? '' : ` on ${t.key}`;
  return new RedisRefusedError(
    `this server's user may not run ${t.command.toUpperCase()}${on}, which a run needs to claim a db (${CLAIM_KEY} and ${MARK_KEY} in the db it takes) and to remove them and its keys at the end (${t.error})`,
  );
}

function held(
  observer: Sender,
  db: number,
  token: string,
  ttlMs: number,
  keys: readonly string[],
  prefixes: readonly string[],
) {
  let lost: string | null = null;
  let released = false;
  let beat: Promise<unknown> = Promise.resolve();
  const timer = setInterval(
    () => {
      beat = observer
        .sendCommand(['EVAL', RENEW, '1', CLAIM_KEY, token, String(ttlMs), String(db)])
        .then((r) => {
          if (Number(r) !== 1 && !released)
            lost = `the claim on db ${db} (${CLAIM_KEY}) was lost: it expired or was deleted`;
        })
        .catch(() => undefined); // a closed connection ends the run by itself
    },
    Math.max(100, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    db,
    lost: () => lost,
    async release(withKeys = true) {
      if (released) return;
      released = true;
      clearInterval(timer);
      await beat;
      const r = await observer.sendCommand([
        'EVAL',
        END,
        '0',
        CLAIM_KEY,
        MARK_KEY,
        token,
        String(db),
        ...(withKeys ? [String(prefixes.length), ...prefixes, ...keys] : ['0']),
      ]);
      if (Array.isArray(r)) {
        const what = String(r[1]);
        throw new Error(`${what.startsWith('KEYS ') ? what : `DEL of ${what}`} refused: ${String(r[2])}`);
      }
      if (Number(r) !== 1)
        throw new Error(
          `the claim on db ${db} was lost before the end and the db is no longer marked as this run's, so its keys were not deleted`,
        );
    },
  };
}

/** One of a run's dbs to claim (claimDatabases): the scenario's db and what the run keeps there. */
export interface WantedDb {
  /** The scenario's db (`redis.database`, `redis.cache_database`). */
  db: number;
  /** The keys the run may create in it (ClaimOptions.keys). */
  keys: readonly string[];
  /** The beginnings of the keys it names as it goes (ClaimOptions.prefixes). */
  prefixes?: readonly string[];
  /** Dbs it may not move to (ClaimOptions.avoid). */
  avoid?: (db: number) => boolean;
}

/** The dbs a run holds, one claim per scenario db. */
export interface DbClaims {
  /** In the order asked, a db asked twice (the cache on the queue's db) claimed once. */
  readonly claims: readonly DbClaim[];
  /** The db the run holds for the scenario's db `db` (`db` itself when none was asked for it). */
  usedDb(db: number): number;
  /** The first claim found lost, or null. */
  lost(): string | null;
  /** Releases every claim (DbClaim.release), each whatever the others did; throws what failed. */
  release(keys?: boolean): Promise<void>;
}

/**
 * Claims each of the scenario's dbs as claimDatabase does, in order (the queue's first), never one
 * the run already holds: two scenario dbs are always two dbs, so a command's db says which of them
 * it ran in. When one cannot be claimed, those already claimed are given back before the error.
 */
export async function claimDatabases(
  observer: Sender,
  wanted: readonly WantedDb[],
  token: string,
  opts: Omit<ClaimOptions, 'keys' | 'prefixes' | 'avoid' | 'taken'>,
): Promise<DbClaims> {
  const merged: WantedDb[] = [];
  for (const w of wanted) {
    const same = merged.find((m) => m.db === w.db);
    if (same === undefined) {
      merged.push({ ...w });
      continue;
    }
    same.keys = [...new Set([...same.keys, ...w.keys])];
    same.prefixes = [...new Set([...(same.prefixes ?? []), ...(w.prefixes ?? [])])];
    const [a, b] = [same.avoid, w.avoid];
    if (b !== undefined) same.avoid = a === undefined ? b : (d) => a(d) || b(d);
  }
  const claims: DbClaim[] = [];
  const taken = new Map<number, number>();
  try {
    for (const w of merged) {
      const claim = await claimDatabase(observer, w.db, token, {
        ...opts,
        keys: w.keys,
        prefixes: w.prefixes,
        avoid: w.avoid,
        taken,
      });
      claims.push(claim);
      taken.set(claim.db, w.db);
    }
  } catch (e) {
    // Nothing was written yet: the claims and marks alone go.
    for (const c of claims) await c.release(false).catch(() => undefined);
    throw e;
  }
  return {
    claims,
    usedDb: (db) => claims.find((c) => c.wanted === db)?.db ?? db,
    lost: () => claims.map((c) => c.lost()).find((l) => l !== null) ?? null,
    async release(keys = true) {
      const failed: string[] = [];
      for (const c of claims)
        await c.release(keys).catch((e: unknown) => failed.push(e instanceof Error ? e.message : String(e)));
      if (failed.length > 0) throw new Error(failed.join('; '));
    },
  };
}
