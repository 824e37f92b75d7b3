// What `lqsim explain` knows about a line of a real app's MONITOR capture (DESIGN "Explain runs
// the pipeline backwards"): which of Laravel's Lua scripts an EVAL sends, compared with every
// profile's text byte for byte (so the profiles whose scripts match are the version range), what
// queue operation a command is, and the prefix, queue and kind of a queue key. Pure.
import type { LuaScript, ScriptName } from '../sim/lua.ts';
import { later1245, migrateExpiredJobs923 } from '../sim/profiles/scripts-12.ts';
import { migrateExpiredJobs53, pop53, release53, size53 } from '../sim/profiles/scripts-5.3.ts';
import { migrateExpiredJobs54, pop54, release54 } from '../sim/profiles/scripts-5.4.ts';
import { clear89, migrateExpiredJobs58, pop58, push58 } from '../sim/profiles/scripts-5.8.ts';
import type { ProfileName } from '../sim/profiles/index.ts';
import { PROFILE_NAMES, PROFILES, scriptsOf } from '../sim/profiles/index.ts';
import { commandName } from '../sim/command-name.ts';
import { ownCopy } from '../redis/own-string.ts';
import type { CacheCommand } from './cache-store.ts';
import { parseCacheKey, recogniseCacheCommand } from './cache-store.ts';

/** One of Laravel's scripts, and every profile that sends exactly this text. */
export interface KnownScript {
  name: ScriptName;
  /** Laravel's method: "LuaScripts::pop()". */
  method: string;
  profiles: ProfileName[];
  /** The Laravel releases whose RedisQueue EVALs exactly this text. */
  releases: Releases;
}

/** A range of Laravel releases, "major.minor" inclusive ("13.x": every 13 release). */
export interface Releases {
  from: string;
  to: string;
}

/**
 * Which releases send each text (shared/reference/laravel-versions.md 1.3-1.4: LuaScripts.php at
 * each tag, and when RedisQueue began to EVAL it). Texts shared between files are one object.
 */
const RELEASES = new Map<LuaScript, Releases>([
  [pop53, { from: '5.3', to: '5.3' }],
  [release53, { from: '5.3', to: '5.3' }],
  [migrateExpiredJobs53, { from: '5.3', to: '5.3' }],
  [size53, { from: '5.3', to: '13.x' }],
  [pop54, { from: '5.4', to: '5.7' }],
  [release54, { from: '5.4', to: '13.x' }],
  [migrateExpiredJobs54, { from: '5.4', to: '5.7' }],
  [push58, { from: '5.8', to: '13.x' }],
  [pop58, { from: '5.8', to: '13.x' }],
  [migrateExpiredJobs58, { from: '5.8', to: '9.22' }],
  [clear89, { from: '8.9', to: '13.x' }],
  [migrateExpiredJobs923, { from: '9.23', to: '13.x' }],
  [later1245, { from: '12.45', to: '13.x' }],
]);

/** "9.23" as [9, 23]; "13.x" as [13, Infinity]. */
function release(v: string): [number, number] {
  const [major, minor] = v.split('.');
  return [Number(major), minor === 'x' ? Infinity : Number(minor)];
}
const before = (a: string, b: string): boolean => {
  const [x, y] = [release(a), release(b)];
  return x[0] < y[0] || (x[0] === y[0] && x[1] < y[1]);
};

/** The releases that send every one of these scripts, or null when none does (or none is given). */
export function releasesSendingAll(scripts: Iterable<KnownScript>): Releases | null | undefined {
  let range: Releases | undefined;
  for (const s of scripts) {
    const r = s.releases;
    range =
      range === undefined
        ? { ...r }
        : { from: before(range.from, r.from) ? r.from : range.from, to: before(r.to, range.to) ? r.to : range.to };
  }
  if (range === undefined) return undefined;
  return before(range.to, range.from) ? null : range;
}

/**
 * The attempt a job's :reserved copy is for, as Laravel counts it (`RedisJob::attempts()`), when
 * the capture's scripts are those of `releases`. The pop script raises the popped payload's
 * `attempts` by one in the copy it writes. From 5.4, dispatch sets 0 and attempts() is the popped
 * payload's count plus one: the copy's number. In 5.3 dispatch sets 1 and attempts() returns the
 * popped payload's count as it is (v5.3.31 RedisQueue::createPayload, RedisJob::attempts()): one
 * less than the copy's. Unknown releases (no script, or 5.3 to 13.x): the copy's number.
 */
export function attemptOfReservedCopy(copyAttempts: number, releases: Releases | null | undefined): number {
  return releases?.to === '5.3' ? copyAttempts - 1 : copyAttempts;
}

/**
 * Whether a worker's timeout fails the job (deleting it) before it kills the worker, for captures
 * of these releases: from 5.8.28 (Worker::registerTimeoutHandler, markJobAsFailedIfWillExceedMaxAttempts);
 * before, the alarm kills the worker and sends nothing. undefined where the range spans both (5.8).
 */
export function timeoutFailsJob(releases: Releases | null | undefined): boolean | undefined {
  if (releases === null || releases === undefined) return undefined;
  if (before(releases.to, '5.8')) return false;
  if (before('5.8', releases.from)) return true;
  return undefined;
}

/** "5.3", "5.8 to 9.22", "9.23 to 13.x". */
export function releasesName(r: Releases): string {
  return r.from === r.to ? r.from : `${r.from} to ${r.to}`;
}

const KNOWN = new Map<string, KnownScript>();
for (const profile of PROFILE_NAMES) {
  for (const script of scriptsOf(PROFILES[profile])) {
    const known = KNOWN.get(script.source);
    const releases = RELEASES.get(script);
    if (releases === undefined) throw new Error(`no releases known for ${script.method} of profile ${profile}`);
    if (known === undefined)
      KNOWN.set(script.source, { name: script.name, method: script.method, profiles: [profile], releases });
    else known.profiles.push(profile);
  }
}

/** The Laravel script with exactly this text, or undefined (another app's Lua, or a version no profile has). */
export function recogniseScript(source: string): KnownScript | undefined {
  return KNOWN.get(source);
}

/** The profiles that send every one of these scripts, oldest first (none: they never go together). */
export function profilesSendingAll(scripts: Iterable<KnownScript>): ProfileName[] {
  let left: ProfileName[] = [...PROFILE_NAMES];
  for (const s of scripts) left = left.filter((p) => s.profiles.includes(p));
  return left;
}

export type QueueKeyKind = 'ready' | 'delayed' | 'reserved' | 'notify';

/** A key of Laravel's Redis queue: `<prefix>queues:<queue>[:delayed|:reserved|:notify]`. */
export interface QueueKey {
  /** The connection's prefix ("laravel_database_" in the 8.x skeleton; "" before 5.8's default). */
  prefix: string;
  queue: string;
  kind: QueueKeyKind;
}

const QUEUE_KEY = /^(.*?)queues:(.+?)(?::(delayed|reserved|notify))?$/;

/** Keys read lately: a capture names the same few keys on every line (shared: never to be changed). */
const KEYS = new Map<string, QueueKey | null>();
/** Distinct keys kept: an app's other traffic may name a new key on every line; those are read again. */
const KEYS_KEPT = 4096;

export function parseQueueKey(key: string): QueueKey | undefined {
  const known = KEYS.get(key);
  if (known !== undefined) return known ?? undefined;
  // Kept beyond its line: a copy, not a slice that holds the line (or its read chunk).
  const own = ownCopy(key);
  const m = QUEUE_KEY.exec(own);
  const parsed: QueueKey | null =
    m === null ? null : { prefix: m[1]!, queue: m[2]!, kind: (m[3] as QueueKeyKind | undefined) ?? 'ready' };
  if (KEYS.size < KEYS_KEPT) KEYS.set(own, parsed);
  return parsed ?? undefined;
}

/** Laravel's queue operations, as `lqsim explain` labels the commands that carry them out. */
export type Operation =
  | 'push'
  | 'later'
  | 'pop'
  | 'migrate delayed'
  | 'migrate reserved'
  | 'reserve'
  | 'release'
  | 'delete'
  | 'block'
  | 'size'
  | 'clear'
  | 'select'
  | 'script'
  /** The cache store's traffic (explain/cache-store.ts): the restart signal, locks, counters, limiters. */
  | 'cache';

export interface Recognised {
  op: Operation;
  /** The first queue key it names (for a migrate, the set the due jobs leave). */
  key?: QueueKey;
  /** An EVAL of one of Laravel's scripts. */
  script?: KnownScript;
  /** What a cache command does (op 'cache'). */
  cache?: CacheCommand;
}

/** Whether an operation is the queue's own (not the cache store's, not a SELECT). */
export function isQueueOperation(op: string | undefined): boolean {
  return op !== undefined && op !== 'cache' && op !== 'select' && op !== 'script';
}

/**
 * The queue operation of one MONITOR line's command (`client` "lua" for a command a script ran),
 * or undefined for traffic that is not Laravel's queue. Only shapes Laravel sends are taken:
 * a command on a queue key from an unknown script or app is not claimed.
 */
export function recogniseCommand(
  args: readonly string[],
  client: string,
  /** How many args the line has, when `args` holds only its first (a first pass's reading). */
  argc = args.length,
): Recognised | undefined {
  const name = args[0] === undefined ? undefined : commandName(args[0]);
  if (name === undefined) return undefined;
  if (client === 'lua') {
    // Inside one of the scripts: its EVAL line says which operation it is.
    const key = args[1] === undefined ? undefined : parseQueueKey(args[1]);
    if (key !== undefined) return shared('script', key);
    // A cache store's script (a lock's release, the limiters'): its line on a cache key.
    return args[1] !== undefined && parseCacheKey(args[1]) !== undefined ? CACHE_SCRIPT : undefined;
  }
  if (name === 'SELECT' && argc === 2) return SELECT;
  if (name === 'EVAL') {
    const script = args[1] === undefined ? undefined : recogniseScript(args[1]);
    if (script === undefined) return cacheOf(args, argc);
    const first = args[3] === undefined ? undefined : parseQueueKey(args[3]);
    if (first === undefined) return { op: scriptOperation(script.name, first), script };
    return shared(scriptOperation(script.name, first), first, script);
  }
  const key = args[1] === undefined ? undefined : parseQueueKey(args[1]);
  if (key === undefined) return cacheOf(args, argc);
  if (name === 'RPUSH' && key.kind === 'ready' && argc === 3) return shared('push', key);
  if (name === 'ZADD' && key.kind === 'delayed' && argc === 4) return shared('later', key);
  if (name === 'ZADD' && key.kind === 'reserved' && argc === 4) return shared('reserve', key);
  if (name === 'ZREM' && key.kind === 'reserved' && argc === 3) return shared('delete', key);
  if (name === 'BLPOP' && (key.kind === 'ready' || key.kind === 'notify')) return shared('block', key);
  return undefined;
}

function cacheOf(args: readonly string[], argc: number): Recognised | undefined {
  const cache = recogniseCacheCommand(args, argc);
  return cache === undefined ? undefined : { op: 'cache', cache };
}

// Each line's recognition is shared (never to be changed): one object per key (parseQueueKey
// gives each key's once) and operation, or script for an EVAL, not one per line; a script's
// commands alone are half a capture's lines.
const SELECT: Recognised = { op: 'select' };
const CACHE_SCRIPT: Recognised = { op: 'script' };
const SHARED = new WeakMap<QueueKey, Map<Operation | KnownScript, Recognised>>();

function shared(op: Operation, key: QueueKey, script?: KnownScript): Recognised {
  let onKey = SHARED.get(key);
  if (onKey === undefined) SHARED.set(key, (onKey = new Map()));
  let r = onKey.get(script ?? op);
  if (r === undefined) onKey.set(script ?? op, (r = script === undefined ? { op, key } : { op, key, script }));
  return r;
}

function scriptOperation(name: ScriptName, first: QueueKey | undefined): Operation {
  switch (name) {
    case 'migrateExpiredJobs':
      return first?.kind === 'reserved' ? 'migrate reserved' : 'migrate delayed';
    case 'push':
    case 'later':
    case 'pop':
    case 'release':
    case 'size':
    case 'clear':
      return name;
  }
}
