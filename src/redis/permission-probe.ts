// What the run will need, tried before its first write (REDIS_URL). An ACL user may run some
// commands and not others (`-rpush`), or only keys of a pattern (`~app:*`); found mid-run, that is
// an opaque script error with a job already moved and keys left. So once the db is claimed, every
// command the run's profile sends (its client commands, the `redis.call`s of its scripts and the
// observer's reads and DEL) is tried on each of the run's real keys by one script on the observer
// (never traced), on a throwaway value it removes again: the db is left as it was, and a refusal
// names the command and the key. BLPOP cannot run in a script; it is tried on its own, for 10 ms.
import type { Sender } from './claim-clients.ts';
import { RedisRefusedError } from './errors.ts';

/** The commands a run sends on a list key (the ready list, :notify), in an order that ends empty. */
export const LIST_COMMANDS = ['del', 'rpush', 'llen', 'lrange', 'lpop'] as const;
/** On a sorted-set key (:delayed, :reserved). */
export const ZSET_COMMANDS = ['del', 'zadd', 'zcard', 'zrange', 'zrangebyscore', 'zrem', 'zremrangebyrank'] as const;
/** On a key of the cache store (a lock, the restart signal, a counter): probeCacheKeys. */
export const STRING_COMMANDS = ['del', 'set', 'get', 'mget', 'setnx', 'setex', 'incrby'] as const;

export interface ProbePlan {
  /** Keys the run uses as lists. */
  lists: string[];
  /** Keys the run uses as sorted sets. */
  zsets: string[];
  /** Keys a worker may BLPOP (block_for set). */
  blpop: string[];
}

/**
 * ARGV: how many keys are lists, a throwaway member, the list keys, then the sorted-set keys (not
 * KEYS: the ACL check of an EVAL's declared keys names no key).
 * Each command is called as the run would (a value pushed is popped, a member added is removed),
 * DEL first so that a refusal later on a key can still remove what was made there.
 * Returns {} or {command, key, error}.
 */
/** Each step called on `key` as the run would; the first refusal deletes the key and is returned. */
const TRY = `local function try(key, steps)
  for _, s in ipairs(steps) do
    local r = redis.pcall(s[1], key, unpack(s, 2))
    if type(r) == 'table' and r.err then
      redis.pcall('del', key)
      return {s[1], key, r.err}
    end
  end
  return nil
end
`;

const PROBE = `${TRY}local lists = tonumber(ARGV[1])
local v = ARGV[2]
local onList = {{'del'}, {'rpush', v}, {'llen'}, {'lrange', 0, 0}, {'lpop'}}
local onZset = {{'del'}, {'zadd', 0, v}, {'zcard'}, {'zrange', 0, 0}, {'zrangebyscore', '-inf', '+inf', 'limit', 0, 1},
  {'zrem', v}, {'zadd', 0, v}, {'zremrangebyrank', 0, 0}}
for i = 3, #ARGV do
  local steps = onZset
  if i - 2 <= lists then steps = onList end
  local refused = try(ARGV[i], steps)
  if refused then return refused end
end
return {}`;

/** Tries the plan on the claimed db (the observer is on it); throws RedisRefusedError naming what is refused. */
export async function probePermissions(observer: Sender, plan: ProbePlan): Promise<void> {
  const keys = [...plan.lists, ...plan.zsets];
  const reply = await observer.sendCommand([
    'EVAL',
    PROBE,
    '0',
    String(plan.lists.length),
    'lqsim:permission-probe',
    ...keys,
  ]);
  const r = (Array.isArray(reply) ? reply : []).map(String);
  if (r.length > 0) throw refused(r[0]!, r[1]!, r[2]!);
  for (const key of plan.blpop) {
    try {
      await observer.sendCommand(['BLPOP', key, '0.01']);
    } catch (e) {
      throw refused('blpop', key, e instanceof Error ? e.message : String(e));
    }
  }
}

function refused(command: string, key: string, error: string): RedisRefusedError {
  return new RedisRefusedError(
    `this server's user may not run ${command.toUpperCase()} on ${key}, which the run sends (${error.replace(/\s+script: \S+, on @user_script:\d+\.?$/, '')}); nothing was written`,
  );
}

/**
 * The cache store's keys in one db (`select` inside the script: the observer stays where it is):
 * each tried as a string (a lock, a counter: SET, GET, SETNX, SETEX, INCRBY, DEL) and as a hash
 * (DurationLimiter's window: HMSET, HGET, HINCRBY, EXPIRE, EXISTS), and left deleted.
 * ARGV: db, a throwaway value, the keys. Returns {} or {command, key, error}.
 */
const PROBE_CACHE = `${TRY}redis.call('select', ARGV[1])
local v = ARGV[2]
local steps = {{'del'}, {'set', v}, {'get'}, {'mget'}, {'del'}, {'setnx', v}, {'setex', 1, '0'}, {'incrby', 1}, {'del'},
  {'hmset', 'start', '1'}, {'hget', 'start'}, {'hincrby', 'count', 1}, {'expire', 1}, {'exists'}, {'del'}}
for i = 3, #ARGV do
  local refused = try(ARGV[i], steps)
  if refused then return refused end
end
return {}`;

/** Tries the cache store's keys of one db (`db`: the one the run uses); throws RedisRefusedError naming what is refused. */
export async function probeCacheKeys(observer: Sender, db: number, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const reply = await observer.sendCommand(['EVAL', PROBE_CACHE, '0', String(db), 'lqsim:permission-probe', ...keys]);
  const r = (Array.isArray(reply) ? reply : []).map(String);
  if (r.length > 0) throw refused(r[0]!, r[1]!, r[2]!);
}
