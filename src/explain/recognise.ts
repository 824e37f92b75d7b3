// What `lqsim explain` knows about a line of a real app's MONITOR capture (DESIGN "Explain runs
// the pipeline backwards"): which of Laravel's Lua scripts an EVAL sends, compared with every
// profile's text byte for byte (so the profiles whose scripts match are the version range), what
// queue operation a command is, and the prefix, queue and kind of a queue key. Pure.
import type { ScriptName } from '../sim/lua.ts';
import type { ProfileName } from '../sim/profiles/index.ts';
import { PROFILE_NAMES, PROFILES, scriptsOf } from '../sim/profiles/index.ts';

/** One of Laravel's scripts, and every profile that sends exactly this text. */
export interface KnownScript {
  name: ScriptName;
  /** Laravel's method: "LuaScripts::pop()". */
  method: string;
  profiles: ProfileName[];
}

const KNOWN = new Map<string, KnownScript>();
for (const profile of PROFILE_NAMES) {
  for (const script of scriptsOf(PROFILES[profile])) {
    const known = KNOWN.get(script.source);
    if (known === undefined)
      KNOWN.set(script.source, { name: script.name, method: script.method, profiles: [profile] });
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

export function parseQueueKey(key: string): QueueKey | undefined {
  const m = QUEUE_KEY.exec(key);
  if (m === null) return undefined;
  return { prefix: m[1]!, queue: m[2]!, kind: (m[3] as QueueKeyKind | undefined) ?? 'ready' };
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
  | 'script';

export interface Recognised {
  op: Operation;
  /** The first queue key it names (for a migrate, the set the due jobs leave). */
  key?: QueueKey;
  /** An EVAL of one of Laravel's scripts. */
  script?: KnownScript;
}

/**
 * The queue operation of one MONITOR line's command (`client` "lua" for a command a script ran),
 * or undefined for traffic that is not Laravel's queue. Only shapes Laravel sends are taken:
 * a command on a queue key from an unknown script or app is not claimed.
 */
export function recogniseCommand(args: readonly string[], client: string): Recognised | undefined {
  const name = args[0]?.toUpperCase();
  if (name === undefined) return undefined;
  if (client === 'lua') {
    // Inside one of the scripts: its EVAL line says which operation it is.
    const key = args[1] === undefined ? undefined : parseQueueKey(args[1]);
    return key === undefined ? undefined : { op: 'script', key };
  }
  if (name === 'SELECT' && args.length === 2) return { op: 'select' };
  if (name === 'EVAL') {
    const script = args[1] === undefined ? undefined : recogniseScript(args[1]);
    if (script === undefined) return undefined;
    const first = args[3] === undefined ? undefined : parseQueueKey(args[3]);
    return { op: scriptOperation(script.name, first), ...(first ? { key: first } : {}), script };
  }
  const key = args[1] === undefined ? undefined : parseQueueKey(args[1]);
  if (key === undefined) return undefined;
  if (name === 'RPUSH' && key.kind === 'ready' && args.length === 3) return { op: 'push', key };
  if (name === 'ZADD' && key.kind === 'delayed' && args.length === 4) return { op: 'later', key };
  if (name === 'ZADD' && key.kind === 'reserved' && args.length === 4) return { op: 'reserve', key };
  if (name === 'ZREM' && key.kind === 'reserved' && args.length === 3) return { op: 'delete', key };
  if (name === 'BLPOP' && (key.kind === 'ready' || key.kind === 'notify')) return { op: 'block', key };
  return undefined;
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
