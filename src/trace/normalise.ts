// The normaliser: a trace with everything that changes from run to run taken out, so two runs,
// two profiles, or the tool and real Laravel can be compared command for command.
// - unix times (stand-alone arguments, ZADD scores, migrate/pop ARGV, payload fields such as
//   retryUntil and createdAt) → T+N / T-N relative to the trace's start;
// - job ids (a payload's 32-character Str::random `id`) → ID1, ID2... and uuids → UUID1... in order
//   of first appearance, inside serialize() output too (its s:N lengths rewritten);
// - cache lock owners (Str::random(), 16 characters, a new one per lock object) → OWNER1... in order
//   of first appearance, where a lock command carries one: `SET <lock> <owner> EX n NX`,
//   `SETNX <lock> <owner>` (RedisLock::acquire) and the releaseLock script's ARGV[1] (RedisLock::release);
// - DurationLimiter's microtime(true) (its scripts' ARGV[1]) → T+N to the second: the fraction is
//   the real clock's in a capture, the virtual instant's in a run (conformance, both virtual, keeps it);
// - the key prefix (laravel_database_) stripped from whole-key arguments;
// - JSON re-encoded by the server's cjson (payloads in [lua] commands, and the same bytes when a
//   client sends them back, e.g. the ZREM of a reserved copy) written with sorted keys; every
//   other argument is kept byte for byte.
// - on a shared server, the db the run claimed read as the scenario's (SELECT 3 as SELECT 0, see
//   database.ts) unless `exactDb` is asked for.
// Steps without commands are dropped: a raw capture cannot see them.
import { canonicalJson, normaliseRawJson, parseJsonContainer, payloadIds } from './json-edits.ts';
import { normaliseString, Replacements } from './replace.ts';
import type { TraceLike, TraceLikeCommand } from './trace-like.ts';
import type { DatabaseUse } from '../scenarios/timeline.ts';
import type { DbOptions } from './database.ts';
import { dbRule } from './database.ts';
import { durationLimiter, releaseLock, tooManyAttempts } from '../sim/cache-scripts.ts';

export interface NormalisedCommand {
  source: 'client' | 'lua';
  db: number;
  args: string[];
  /** The script's name for an EVAL, when known (display only). */
  script?: string;
  /**
   * On a Redis Cluster: the node that ran it and its keys' slot. Kept and compared: the tool names
   * nodes by lowest slot, so they are the same on every run, and which node a queue's commands go
   * to is what a cluster trace shows.
   */
  node?: string;
  slot?: number;
}

export interface NormalisedStep {
  /** The step's index in its own trace (display only). */
  index: number;
  /** `T+60` (display only), when the trace knew the step's time. */
  t?: string;
  actor: string;
  /** Display only. */
  title?: string;
  commands: NormalisedCommand[];
}

export interface NormalisedTrace {
  /** scenario, profile, prefix... (display only). */
  meta: Record<string, string>;
  steps: NormalisedStep[];
  /** Set when the claimed db was read as the scenario's (never written to a golden file). */
  database?: DatabaseUse;
  /** Hints about how the trace was read (a golden that looks truncated); display only. */
  notes?: string[];
}

/**
 * The identity of a command when two traces are compared (source, db and args, and on a cluster
 * the node and slot; never the script name).
 */
export function commandKey(c: NormalisedCommand): string {
  if (c.node === undefined && c.slot === undefined) return JSON.stringify([c.source, c.db, c.args]);
  return JSON.stringify([c.source, c.db, c.args, c.node ?? null, c.slot ?? null]);
}

export interface NormaliseOptions extends DbOptions {
  /**
   * Keep DurationLimiter's microtime(true) to the millisecond: both sides are on a virtual clock
   * (conformance shadows PHP's microtime), so its fraction is part of what is compared.
   */
  exactMicrotime?: boolean;
}

export function normaliseTrace(trace: TraceLike, options: NormaliseOptions = {}): NormalisedTrace {
  const rule = dbRule(trace.database, options);
  if (rule !== null)
    trace = {
      ...trace,
      steps: trace.steps.map((s) => ({
        ...s,
        commands: s.commands.map((c) => rule.map(c)).filter((c) => c !== null),
      })),
    };
  const r = new Replacements(trace.start);
  // Ids are known before numbering starts, so a job's id is replaced wherever it shows up first.
  for (const step of trace.steps)
    for (const c of step.commands) for (const a of c.args) payloadIds(parseJsonContainer(a), r.knownIds);
  const reencoded = new Set<string>();
  const prefix = trace.prefix ?? '';
  const steps: NormalisedStep[] = [];
  trace.steps.forEach((step, position) => {
    if (step.commands.length === 0) return;
    const out: NormalisedStep = {
      index: step.index ?? position,
      actor: step.actor,
      commands: step.commands.map((c) => normaliseCommand(c, r, reencoded, prefix, options.exactMicrotime === true)),
    };
    if (step.t !== undefined) out.t = r.time(String(step.t)) ?? String(step.t);
    if (step.title !== undefined) out.title = step.title;
    steps.push(out);
  });
  const meta: Record<string, string> = { ...(trace.meta ?? {}) };
  if (prefix !== '') meta.prefix = prefix;
  return rule === null ? { meta, steps } : { meta, steps, database: rule.use };
}

function normaliseCommand(
  c: TraceLikeCommand,
  r: Replacements,
  reencoded: Set<string>,
  prefix: string,
  exactMicrotime: boolean,
): NormalisedCommand {
  const owner = ownerIndex(c);
  const micro = exactMicrotime ? -1 : microtimeIndex(c);
  const args = c.args.map((arg, i) => {
    if (i === 0) return arg;
    if (i === owner) return r.owner(arg);
    if (i === micro) return r.time(String(Math.floor(Number(arg)))) ?? arg;
    if (prefix !== '' && arg.startsWith(prefix) && arg.length > prefix.length) arg = arg.slice(prefix.length);
    const json = parseJsonContainer(arg);
    if (json === undefined) return normaliseString(arg, r);
    // cjson output: every JSON a script writes, and those exact bytes when a client sends them back.
    if (c.source === 'lua') {
      reencoded.add(arg);
      return canonicalJson(json, r);
    }
    return reencoded.has(arg) ? canonicalJson(json, r) : normaliseRawJson(arg, r);
  });
  const out: NormalisedCommand = { source: c.source, db: c.db, args };
  if (c.script !== undefined) out.script = c.script;
  if (c.node !== undefined) out.node = c.node;
  if (c.slot !== undefined) out.slot = c.slot;
  return out;
}

/**
 * Where DurationLimiter's scripts carry microtime(true) (ARGV[1], after EVAL, the text, 1 and the
 * key): -1 for any other command. Its fraction is the app's real clock (a capture's) or the virtual
 * instant's (the tool's), so it is compared to the second, as its time() in ARGV[2] is.
 */
function microtimeIndex(c: TraceLikeCommand): number {
  if (c.source !== 'client' || c.args[0]?.toUpperCase() !== 'EVAL' || c.args[2] !== '1') return -1;
  const text = c.args[1];
  return text === durationLimiter.source || text === tooManyAttempts.source ? 4 : -1;
}

/** Str::random()'s output: 16 characters of [A-Za-z0-9] (Illuminate\Cache\Lock's owner). */
const OWNER = /^[A-Za-z0-9]{16}$/;

/** Where a client's lock command carries the lock's owner (-1: none). */
function ownerIndex(c: TraceLikeCommand): number {
  if (c.source !== 'client') return -1;
  const name = c.args[0]?.toUpperCase();
  let at = -1;
  // RedisLock::acquire: SET <lock> <owner> EX n NX (a TTL), SETNX <lock> <owner> (none).
  if (name === 'SETNX' || (name === 'SET' && c.args.some((a, i) => i > 2 && a.toUpperCase() === 'NX'))) at = 2;
  // RedisLock::release: EVAL <releaseLock> 1 <lock> <owner>.
  else if (name === 'EVAL' && c.args[1] === releaseLock.source && c.args[2] === '1') at = 4;
  return at >= 0 && OWNER.test(c.args[at] ?? '') ? at : -1;
}
