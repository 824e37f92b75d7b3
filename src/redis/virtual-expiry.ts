// Redis TTLs in the run's virtual time. Laravel gives keys a TTL (a lock's `SET k owner EX 30 NX`,
// the cache's `SETEX`, an `EXPIRE` inside a limiter's script) that Redis counts in real time, but a
// run takes milliseconds and a lab session is held for minutes: left to Redis, a lock would outlive
// its 30 virtual seconds, or vanish while a person looks at the screen.
//
// So after each step one script on the observer (never traced: the observer's commands and their
// [lua] lines belong to no actor) looks at every key of the run's dbs (`select` inside a script
// changes the script's db only), PERSISTs each that has a TTL and returns it with its PTTL. Its
// virtual expiry is the step's instant + the TTL the step's command gave it (`EX 30`, `PX 1500`,
// read from the step's MONITOR lines: a step that took long in real time takes nothing off it),
// or, where no command says one, + ceil(PTTL / 1000) s (Laravel's TTLs are whole seconds, and the
// few milliseconds between the command and the sweep are not the key's). Before the scheduler
// runs an event at a later instant t, one more script DELs every key whose virtual expiry is
// before t (Redis expires a key when now > its expiry) and forgets it.
//
// A persisted key keeps no sign of its TTL, so what the step did to it is read from its MONITOR
// lines (see()): a key rewritten without a TTL (`SET k v`, `DEL` then `SETNX`) is forgotten, not
// deleted at its old expiry. A key given a TTL in a step that Redis expired in real time before
// the sweep reached it (a 1 s TTL and a stalled process) is gone from the sweep's list of keys: it
// is reported (`lost`, and a warning), never silently missing. The sweep's own MONITOR line is
// where a step's lines end, in a run that reads them as they come as well as at a barrier.
import { relativeTime, toMs } from '../sim/clock.ts';
import type { Sender } from './claim-clients.ts';
import { CLAIM_KEY, MARK_KEY } from './claim.ts';
import { RedisRefusedError } from './errors.ts';
import type { MonitorLine } from './monitor-line.ts';
import { ToolScript } from './tool-script.ts';

/**
 * ARGV: the claim key, the mark key (the tool's own, never touched), the server's expired_keys at
 * the last sweep ('' before the first), the sweep's number in the run (its MONITOR line's, which
 * tells a NOSCRIPT's second line of the same sweep: tool-script.ts), then the dbs. Returns {expired_keys now, then per db
 * {1 when full else 0, key, PTTL, key, PTTL...}}, each key that had a TTL persisted. A db whose
 * INFO keyspace counts no key with a TTL is not looked into: a step that gives none costs no scan.
 * A db's list holds every key (`full`, PTTL -1 for none) only where a key of the run's may have
 * expired in real time: some key expired on the server since the last sweep (Redis' counter), or
 * the db counts more keys with a TTL than KEYS shows (expired, not yet reclaimed). Then a key
 * missing from it was expired by Redis. Redis 6.2 replicates a script that reads the clock (INFO,
 * PTTL) by its effects only.
 */
const SWEEP = new ToolScript(
  `if redis.replicate_commands then redis.replicate_commands() end
local expired = string.match(redis.call('info', 'stats'), 'expired_keys:(%d+)') or ''
local anyExpired = expired ~= ARGV[3] or expired == ''
local keyspace = redis.call('info', 'keyspace')
local out = {expired}
for i = 5, #ARGV do
  local volatile = tonumber(string.match(keyspace, 'db' .. ARGV[i] .. ':keys=%d+,expires=(%d+)') or '0')
  local all, withTtl = {}, {}
  if anyExpired or volatile > 0 then
    redis.call('select', ARGV[i])
    for _, k in ipairs(redis.call('keys', '*')) do
      if k ~= ARGV[1] and k ~= ARGV[2] then
        local ttl = redis.call('pttl', k)
        if ttl >= 0 then
          redis.call('persist', k)
          withTtl[#withTtl + 1] = k
          withTtl[#withTtl + 1] = ttl
        end
        all[#all + 1] = k
        all[#all + 1] = ttl
      end
    end
  end
  if anyExpired or #withTtl / 2 < volatile then
    table.insert(all, 1, 1)
    out[#out + 1] = all
  else
    table.insert(withTtl, 1, 0)
    out[#out + 1] = withTtl
  end
end
return out`,
  'the TTL sweep',
);

/** Where the sweep's number is in its MONITOR line: EVALSHA sha 0 claim mark expired <number>. */
const SWEEP_NUMBER_ARG = 6;

/** ARGV: groups of a db, how many keys, the keys. Deletes them. */
const EXPIRE = new ToolScript(
  `local i = 1
while i <= #ARGV do
  redis.call('select', ARGV[i])
  local n = tonumber(ARGV[i + 1])
  for j = i + 2, i + 1 + n do redis.call('del', ARGV[j]) end
  i = i + 2 + n
end
return 1`,
  "the expired keys' deletes",
);

/**
 * ARGV: a throwaway key, then the dbs. Every command the sweep and the deletes send, tried in each
 * db on the throwaway key, which is removed again. Returns {} or {command, db, error}.
 */
const PROBE = `local k = ARGV[1]
local steps = {{'info', 'stats'}, {'info', 'keyspace'}, {'del', k}, {'set', k, '1', 'EX', '60'}, {'keys', k},
  {'pttl', k}, {'persist', k}, {'del', k}}
for i = 2, #ARGV do
  local r = redis.pcall('select', ARGV[i])
  if type(r) == 'table' and r.err then return {'select', ARGV[i], r.err} end
  for _, s in ipairs(steps) do
    r = redis.pcall(unpack(s))
    if type(r) == 'table' and r.err then
      redis.pcall('del', k)
      return {s[1], ARGV[i], r.err}
    end
  end
end
return {}`;

/** How long beforeInstant waits for a sweep's MONITOR line before it gives up. */
const LINE_WAIT_MS = 5000;

export interface VirtualExpiryOptions {
  /** The observer connection (never traced). */
  observer: Sender;
  /** The run's dbs as the server numbers them (on a shared server, the ones it claimed). */
  dbs: readonly number[];
  /** The run's t=0 (unix seconds), for messages. */
  start: number;
  /**
   * The observer's address. Given, the service reads the run's MONITOR lines (see()): which keys
   * lost their TTL, and which Redis expired in real time. Every line must then be handed to see(),
   * in MONITOR's order, its own sweep's included.
   */
  observerAddr?: string;
  /** A key Redis expired in real time (reported; the run goes on). */
  onWarning?: (message: string) => void;
  /** Each key deleted because its virtual expiry passed. */
  onExpire?: (expired: Expiry) => void;
  /**
   * Sends now, on the observer, what waits to go out ahead of the next traced command
   * (ConnectionHub.beforeNext): a sweep sent that way must be answered before the clock moves.
   */
  flushAhead?: () => Promise<void>;
  /**
   * Whether a client (by address) is one of the run's actors' connections, on which a sweep sent
   * ahead comes (afterStep with beforeNext): another run's sweep on the same server (a test suite's
   * files in parallel on REDIS_URL, each in its own dbs) is not this one's.
   */
  isActor?: (client: string) => boolean;
}

/** A key with a TTL, as the run's virtual clock counts it. */
export interface Expiry {
  db: number;
  key: string;
  /** When it expires (unix seconds, to the millisecond): gone from the first instant after it. */
  at: number;
}

/** A key Redis expired in real time before the sweep after its step reached it. */
export interface LostKey {
  db: number;
  key: string;
  /** The step's instant. */
  t: number;
  /** The command that gave it its TTL (`SET`, `EXPIRE`...). */
  command: string;
}

interface SweptDb {
  full: boolean;
  keys: Map<string, number>;
}

interface Sweep {
  t: number;
  /** Its place among the run's sweeps (1 for the first). */
  seq: number;
  /**
   * Per db (options.dbs' order): the keys that had a TTL and their PTTL before the sweep; where
   * `full`, every key (-1: no TTL), as a key of the db may have expired in real time.
   */
  keys: Promise<SweptDb[]>;
  /** The reply, once afterStep has it (a step's lines read after it are settled at once). */
  found?: SweptDb[];
}

/** What a step's lines did to a key, in order. */
interface KeyLife {
  db: number;
  key: string;
  /** Its TTL taken away or the key deleted, at some point in the step. */
  cleared: boolean;
  /** The last thing done to it: given a TTL by a command that creates it, by one that needs it, or else. */
  last: 'created with ttl' | 'ttl' | 'clear' | 'other';
  /** Something before the last command wrote or read it (an EXPIRE then needs it to exist). */
  touched: boolean;
  command: string;
  /** The TTL the last command gave it, in ms, when it says one relative to now (`EX 30`). */
  ttlMs?: number;
  /** It had a virtual expiry when the step first named it (so it existed). */
  remembered: boolean;
}

export class VirtualExpiry {
  /** The sweep's script: loaded with a run's first commands (RunResources.open), for sweeps sent ahead (afterStep with beforeNext). */
  static readonly script: ToolScript = SWEEP;
  /** db → key → virtual expiry (integer ms) and the sweep that found its TTL. */
  private readonly remembered = new Map<number, Map<string, { ms: number; seq: number }>>();
  private sweeps = 0;
  /** The number of the last sweep whose line has passed. */
  private lastSeq = 0;
  /**
   * At most the earliest virtual expiry remembered (integer ms; may be lower than it, never
   * higher): before an instant at or under it nothing can be due, and nothing is looked at.
   */
  private earliestMs = Infinity;
  readonly lost: LostKey[] = [];
  /** Sweeps whose MONITOR line has not passed yet, oldest first (with observerAddr). */
  private readonly unseen: Sweep[] = [];
  /** What the lines since the last sweep's line did, per `db\nkey`. */
  private window = new Map<string, KeyLife>();
  /** The dbs FLUSHDB/FLUSHALL emptied since the last sweep's line. */
  private flushed = new Set<number>();
  /** A line since the last sweep's may have given a key of the run's dbs a TTL (sweepNeeded): its command. */
  private ttlGiven: string | null = null;
  /** The server's expired_keys at the last sweep. */
  private expiredKeys = '';
  /** Whether the [lua] lines that follow belong to the run (its actor's EVAL) or the tool. */
  private scriptIsRuns = false;
  private settling: Promise<void> = Promise.resolve();
  /** Sweeps whose line has passed and that wait for their reply to be settled. */
  private settlesDue = 0;
  private failure: unknown = null;
  private waiters: Array<() => void> = [];

  /** Told of each key deleted because its virtual expiry passed (a model of the keys forgets it); options' onExpire. */
  onExpire: ((expired: Expiry) => void) | undefined;

  constructor(private readonly o: VirtualExpiryOptions) {
    for (const db of o.dbs) this.remembered.set(db, new Map());
    this.onExpire = o.onExpire;
  }

  /**
   * After a step at `t` (unix seconds), before its snapshot: every TTL in the run's dbs taken off
   * and remembered in virtual time. Resolves once Redis has done it, so the next step's commands
   * come after.
   */
  async afterStep(t: number, sender: Sender = this.o.observer): Promise<void> {
    if (sender === this.o.observer) return this.sweep(t, sender);
    // Sent ahead of the next traced command (a kept run's step end: step-collector.ts): the clock
    // does not move before it is answered (beforeInstant).
    const sweep = this.sweep(t, sender);
    this.ahead.add(sweep);
    void sweep.finally(() => this.ahead.delete(sweep)).catch(() => undefined);
    return sweep;
  }

  /** Sweeps sent ahead of the next traced command (afterStep) and not answered yet. */
  private readonly ahead = new Set<Promise<void>>();

  private async sweep(t: number, sender: Sender): Promise<void> {
    const seq = ++this.sweeps;
    const keys = SWEEP.run(sender, [
      '0',
      CLAIM_KEY,
      MARK_KEY,
      this.expiredKeys,
      String(seq),
      ...this.o.dbs.map(String),
    ]).then((reply) => {
      const r = reply as unknown[];
      this.expiredKeys = String(r[0]);
      return this.o.dbs.map((_db, i) => {
        const [full, ...flat] = (r[1 + i] as unknown[] | undefined) ?? [0];
        return { full: Number(full) === 1, keys: pairs(flat) };
      });
    });
    const sweep: Sweep = { t, seq, keys };
    if (this.o.observerAddr !== undefined) this.unseen.push(sweep);
    const found = await keys;
    sweep.found = found;
    this.o.dbs.forEach((db, i) => {
      const mine = this.remembered.get(db)!;
      const here = found[i]!;
      // Deleted since (a lock released): forgotten. Without the whole list, the lines say so (see()).
      if (here.full) for (const key of mine.keys()) if (!here.keys.has(key)) mine.delete(key);
      for (const [key, pttl] of here.keys) {
        if (pttl < 0) continue;
        // Reading the lines, the step's own TTL is settled from them (settle()): until then what
        // was left of it, never later than the key's expiry; without them, its whole seconds.
        const ms = toMs(t) + (this.o.observerAddr !== undefined ? pttl : wholeSeconds(pttl));
        mine.set(key, { ms, seq: sweep.seq });
        this.earliestMs = Math.min(this.earliestMs, ms);
      }
    });
  }

  /**
   * Tries, before the run's first write, every command the service will send, in each of the
   * run's dbs (someone else's server: an ACL user may lack PERSIST or KEYS); throws RedisRefusedError
   * naming the command.
   */
  async probe(): Promise<void> {
    const r = await this.o.observer.sendCommand(['EVAL', PROBE, '0', 'lqsim:ttl-probe', ...this.o.dbs.map(String)]);
    const [command, db, error] = (Array.isArray(r) ? r : []).map(String);
    if (command === undefined) return;
    throw new RedisRefusedError(
      `this server's user may not run ${command.toUpperCase()} in db ${db}, which the run sends to keep Laravel's TTLs in virtual time (${(error ?? '').replace(/\s+script: \S+, on @user_script:\d+\.?$/, '')}); nothing was written`,
    );
  }

  /**
   * Before the clock moves to `at` (Scheduler's beforeInstant): every key whose virtual expiry is
   * before `at` deleted and forgotten, in one script. Nothing is sent when none is due. A sweep
   * sent ahead is sent now if it has not gone out, and answered first; where a key is due and a
   * sweep's line has not been read, `catchUp` reads the MONITOR lines so far (a kept run's
   * collector: its lines otherwise wait for a mark that goes out with the next command).
   */
  async beforeInstant(at: number, catchUp?: () => Promise<void>): Promise<void> {
    if (this.ahead.size > 0) {
      await this.o.flushAhead?.();
      await Promise.all(this.ahead);
    }
    if (toMs(at) <= this.earliestMs || this.due(at).length === 0) return;
    // A due key may have been rewritten without a TTL in a step whose lines have not come yet.
    // A sweep sent ahead has its line among the next step's: `catchUp` reads the lines so far.
    if (this.o.observerAddr !== undefined) {
      if (this.unseen.length > 0) await catchUp?.();
      await this.linesRead();
    }
    const due = this.due(at);
    if (due.length === 0) return;
    const args: string[] = [];
    for (const db of this.o.dbs) {
      const keys = due.filter((e) => e.db === db).map((e) => e.key);
      if (keys.length > 0) args.push(String(db), String(keys.length), ...keys);
    }
    await EXPIRE.run(this.o.observer, ['0', ...args]);
    for (const e of due) {
      this.remembered.get(e.db)!.delete(e.key);
      this.onExpire?.(e);
    }
  }

  /** Every key the run keeps a virtual expiry for, earliest first (the state pane's). */
  expiries(): Expiry[] {
    const out: Expiry[] = [];
    for (const [db, keys] of this.remembered) for (const [key, e] of keys) out.push({ db, key, at: e.ms / 1000 });
    return out.sort((a, b) => a.at - b.at || a.db - b.db || (a.key < b.key ? -1 : 1));
  }

  /** A MONITOR line of the run, in order (with observerAddr): the run's own and the tool's alike. */
  see(line: MonitorLine): void {
    if (line.client === 'lua') {
      if (this.scriptIsRuns) this.note(line.db, line.args);
      return;
    }
    if (line.client === this.o.observerAddr) {
      this.scriptIsRuns = false;
      if (SWEEP.isCall(line.args)) this.sweepLine(Number(line.args[SWEEP_NUMBER_ARG]));
      return;
    }
    // A step's end read ahead of an actor's next command (ConnectionHub.beforeNext): the tool's,
    // its sweep among them (afterStep).
    if (ToolScript.isToolCall(line.args)) {
      this.scriptIsRuns = false;
      if (SWEEP.isCall(line.args) && this.o.isActor?.(line.client) === true)
        this.sweepLine(Number(line.args[SWEEP_NUMBER_ARG]));
      return;
    }
    this.scriptIsRuns = true;
    this.note(line.db, line.args);
  }

  /**
   * Whether the lines seen since the last sweep's line may have given a key of the run's dbs a
   * TTL: a step that gave none leaves none to take into virtual time (every earlier one was taken
   * off), so a run that reads its lines skips that step's sweep (most steps: a worker's poll gives
   * no TTL). A command not known to leave TTLs alone counts as giving one. Without the lines (no
   * observerAddr), every step is swept.
   */
  sweepNeeded(): boolean {
    return this.o.observerAddr === undefined || this.ttlGiven !== null;
  }

  /** The command that made a sweep needed (sweepNeeded), as its line named it. */
  ttlGivenBy(): string | null {
    return this.ttlGiven;
  }

  /** Throws what reading the lines found wrong (a sweep that failed). */
  throwIfFailed(): void {
    if (this.failure !== null) throw this.failure;
  }

  /** The keys whose virtual expiry is before `at`; finds the earliest expiry again on the way. */
  private due(at: number): Expiry[] {
    const before = toMs(at);
    const due: Expiry[] = [];
    let earliest = Infinity;
    for (const [db, keys] of this.remembered)
      for (const [key, e] of keys) {
        if (e.ms < before) due.push({ db, key, at: e.ms / 1000 });
        earliest = Math.min(earliest, e.ms);
      }
    this.earliestMs = earliest;
    return due.sort((a, b) => a.at - b.at || a.db - b.db || (a.key < b.key ? -1 : 1));
  }

  /** Every sweep's line has passed and what it closed is settled. */
  private async linesRead(): Promise<void> {
    if (this.unseen.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.waiters.push(resolve)),
        new Promise<void>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`MONITOR did not deliver the TTL sweep's line within ${LINE_WAIT_MS} ms`)),
            LINE_WAIT_MS,
          );
        }),
      ]).finally(() => clearTimeout(timer));
    }
    await this.settling;
    this.throwIfFailed();
  }

  /** The sweep's own line: every line of its step came before it. */
  private sweepLine(seq: number): void {
    // A sweep sent again after NOSCRIPT shows twice: its second line closes nothing.
    if (seq <= this.lastSeq) return;
    this.lastSeq = seq;
    const sweep = this.unseen.shift();
    const window = this.window;
    const flushed = this.flushed;
    this.window = new Map();
    this.flushed = new Set();
    this.ttlGiven = null;
    if (sweep === undefined) return; // none sent (lines fed from before the service began)
    const found = sweep.found;
    if (found !== undefined && this.settlesDue === 0) {
      // The sweep's reply is in and nothing settles before it (a step's lines read at its
      // barrier): settled now, so what the step shows is its own.
      try {
        this.settle(sweep, window, flushed, found);
      } catch (e) {
        this.failure ??= e;
      }
    } else {
      this.settlesDue++;
      this.settling = this.settling
        .then(async () => this.settle(sweep, window, flushed, await sweep.keys))
        .catch((e: unknown) => void (this.failure ??= e))
        .finally(() => this.settlesDue--);
    }
    if (this.unseen.length === 0) {
      const waiters = this.waiters;
      this.waiters = [];
      void this.settling.then(() => waiters.forEach((w) => w()));
    }
  }

  private settle(
    sweep: Sweep,
    window: ReadonlyMap<string, KeyLife>,
    flushed: ReadonlySet<number>,
    found: SweptDb[],
  ): void {
    this.o.dbs.forEach((db, i) => {
      const { full, keys } = found[i]!;
      const mine = this.remembered.get(db)!;
      // Forgets a key's expiry found by an earlier sweep than this one (a later sweep's, in a run
      // whose lines come after the next step has begun, is newer than what these lines did).
      const forget = (key: string): void => {
        if ((mine.get(key)?.seq ?? Infinity) < sweep.seq) mine.delete(key);
      };
      if (flushed.has(db)) for (const key of mine.keys()) forget(key);
      // The TTLs of this step's, remembered by afterStep from what was left of them: the command's
      // own, counted from the step's instant, is exact; else the whole seconds left (a TTL found by
      // a later sweep is left as it is).
      for (const [key, ttl] of keys) {
        const entry = mine.get(key);
        if (ttl < 0 || entry?.seq !== sweep.seq) continue;
        const ttlMs = window.get(`${db}\n${key}`)?.ttlMs;
        entry.ms = toMs(sweep.t) + (ttlMs !== undefined && ttl <= ttlMs ? ttlMs : wholeSeconds(ttl));
        this.earliestMs = Math.min(this.earliestMs, entry.ms);
      }
      for (const life of window.values()) {
        if (life.db !== db) continue;
        const ttl = keys.get(life.key);
        if (ttl !== undefined && ttl >= 0) continue;
        // Its TTL taken away in the step (a rewrite, a DEL then a SETNX): no virtual expiry now.
        if (life.cleared) forget(life.key);
        // Given a TTL and not there: expired in real time. Only a full list can say a key is not
        // there, and a list is full wherever one may have expired (SWEEP).
        const existed = life.last === 'created with ttl' || life.touched || (life.remembered && !life.cleared);
        const given = life.last === 'created with ttl' || life.last === 'ttl';
        if (given && full && ttl === undefined && existed)
          this.report({ db, key: life.key, t: sweep.t, command: life.command });
      }
    });
  }

  private report(lost: LostKey): void {
    this.lost.push(lost);
    this.o.onWarning?.(
      `at ${relativeTime(lost.t, this.o.start)} ${lost.key} (db ${lost.db}) was given a TTL (${lost.command}) that ran out in real time before the step's end took it into virtual time (the step took longer than the TTL): Redis deleted it, which Laravel's clock would not have done yet, so the trace may differ from Laravel's from here`,
    );
  }

  /** What one command of the run's lines does to the TTLs of the keys it names. */
  private note(db: number, args: readonly string[]): void {
    if (!this.remembered.has(db)) return;
    const name = (args[0] ?? '').toUpperCase();
    const effects = ttlEffects(name, args);
    if (this.ttlGiven === null && mayGiveTtl(name, effects)) this.ttlGiven = args.slice(0, 2).join(' ');
    for (const [key, effect] of effects) {
      if (key === CLAIM_KEY || key === MARK_KEY) continue;
      if (effect === 'flush') {
        this.flushed.add(db);
        continue;
      }
      const id = `${db}\n${key}`;
      const life = this.window.get(id) ?? {
        db,
        key,
        cleared: false,
        last: 'other',
        touched: false,
        command: '',
        remembered: this.remembered.get(db)!.has(key),
      };
      // Written or read before this command (not deleted just before): an EXPIRE then finds it.
      if (life.command !== '' && life.last !== 'clear') life.touched = true;
      if (effect === 'clear') life.cleared = true;
      life.last = effect;
      life.command = name;
      // A SET ... NX after the key was written in the step may have been refused: its TTL is not known to be the key's.
      const refusable = name === 'SET' && args.slice(3).some((a) => a.toUpperCase() === 'NX') && life.touched;
      life.ttlMs =
        (effect === 'created with ttl' || effect === 'ttl') && !refusable ? relativeTtlMs(name, args) : undefined;
      this.window.set(id, life);
    }
  }
}

type Effect = KeyLife['last'] | 'flush';

const TTL_OPTIONS = new Set(['EX', 'PX', 'EXAT', 'PXAT']);

/** The keys a command names and what it does to their TTL (Redis' rules, for what Laravel sends). */
export function ttlEffects(name: string, args: readonly string[]): Array<[string, Effect]> {
  const key = args[1];
  if (name === 'FLUSHDB' || name === 'FLUSHALL') return [['', 'flush']];
  if (key === undefined) return [];
  switch (name) {
    case 'SET': {
      // Its options, upper-cased here only: every MONITOR line comes through (a job's payload too).
      const options = args.slice(3).map((a) => a.toUpperCase());
      if (options.some((o) => TTL_OPTIONS.has(o))) return [[key, 'created with ttl']];
      // KEEPTTL keeps it; NX changes nothing on a key that exists (a remembered one does).
      return [[key, options.includes('KEEPTTL') || options.includes('NX') ? 'other' : 'clear']];
    }
    case 'SETEX':
    case 'PSETEX':
      return [[key, 'created with ttl']];
    case 'EXPIRE':
    case 'PEXPIRE':
      return [[key, Number(args[2]) > 0 ? 'ttl' : 'clear']];
    case 'EXPIREAT':
    case 'PEXPIREAT':
      return [[key, 'ttl']];
    case 'GETEX':
      if (args.slice(2).some((a) => a.toUpperCase() === 'PERSIST')) return [[key, 'clear']];
      return [[key, args.slice(2).some((a) => TTL_OPTIONS.has(a.toUpperCase())) ? 'ttl' : 'other']];
    case 'DEL':
    case 'UNLINK':
      return args.slice(1).map((k) => [k, 'clear']);
    case 'GETDEL':
    case 'GETSET':
    case 'PERSIST':
    case 'MOVE':
      return [[key, 'clear']];
    case 'RENAME':
    case 'RENAMENX':
      return args.slice(1, 3).map((k) => [k, 'clear']);
    case 'MSET':
      return args.slice(1).flatMap((k, i) => (i % 2 === 0 ? [[k, 'clear'] as [string, Effect]] : []));
    case 'SELECT':
    case 'EVAL':
    case 'EVALSHA':
    case 'ECHO':
    case 'CLIENT':
    case 'AUTH':
    case 'PING':
      return [];
    default:
      return [[key, 'other']];
  }
}

/**
 * Commands that never give a key a TTL (those ttlEffects names apart): Laravel's reads and writes
 * of its queues, cache, locks and limiters, and the tool's own. Any other may (a RESTORE, a COPY),
 * and its step is swept.
 */
const NEVER_GIVE_TTL = new Set([
  ...['GET', 'MGET', 'EXISTS', 'TYPE', 'TTL', 'PTTL', 'KEYS', 'SCAN', 'DBSIZE', 'TIME', 'INFO', 'SETNX'],
  ...['INCR', 'INCRBY', 'INCRBYFLOAT', 'DECR', 'DECRBY', 'APPEND', 'STRLEN'],
  ...['LLEN', 'LRANGE', 'LINDEX', 'LPOP', 'RPOP', 'LPUSH', 'RPUSH', 'BLPOP', 'BRPOP', 'LREM', 'LSET', 'LTRIM'],
  ...['ZADD', 'ZREM', 'ZCARD', 'ZCOUNT', 'ZSCORE', 'ZRANGE', 'ZRANGEBYSCORE', 'ZREVRANGE', 'ZREVRANGEBYSCORE'],
  ...['ZREMRANGEBYRANK', 'ZREMRANGEBYSCORE', 'ZINCRBY', 'ZPOPMIN', 'BZPOPMIN'],
  ...['HSET', 'HMSET', 'HSETNX', 'HGET', 'HMGET', 'HGETALL', 'HDEL', 'HEXISTS', 'HINCRBY', 'HLEN', 'HKEYS'],
  ...['SADD', 'SREM', 'SMEMBERS', 'SISMEMBER', 'SCARD'],
  ...['MULTI', 'EXEC', 'DISCARD', 'WATCH', 'UNWATCH', 'QUIT', 'HELLO', 'PUBLISH'],
]);

/** Whether a command may leave a key with a TTL (conservative: a command not known never to). */
function mayGiveTtl(name: string, effects: ReadonlyArray<[string, Effect]>): boolean {
  if (effects.some(([, e]) => e === 'ttl' || e === 'created with ttl')) return true;
  if (effects.length === 0 || effects.every(([, e]) => e === 'clear' || e === 'flush')) return false;
  return !NEVER_GIVE_TTL.has(name) && !EXPLAINED.has(name);
}

/** Commands ttlEffects tells the effect of (an 'other' from them gives no TTL). */
const EXPLAINED = new Set(['SET', 'GETEX']);

/** A `redis.call('name'` or `redis.pcall("name"` in a script's text, and any call at all. */
const LITERAL_CALL = /redis\.p?call\(\s*(['"])([A-Za-z]+)\1/g;
const ANY_CALL = /redis\.p?call\(/g;
const scriptsForeseen = new Map<string, boolean>();

/**
 * Whether a traced command, about to go out, may leave a key with a TTL: what sweepNeeded will say
 * of its lines, foreseen before they come, never less (a step foreseen to give none has its end
 * read without a round trip: step-collector.ts). A script may if it calls, by name, a command that
 * may with some arguments (SET, SETEX, EXPIRE: its arguments are the script's to choose) or one
 * not known never to, or calls one whose name it computes.
 */
export function commandMayGiveTtl(args: readonly string[]): boolean {
  const name = (args[0] ?? '').toUpperCase();
  if (name !== 'EVAL') return name === 'EVALSHA' || mayGiveTtl(name, ttlEffects(name, args));
  const text = args[1] ?? '';
  let may = scriptsForeseen.get(text);
  if (may === undefined) {
    const named = [...text.matchAll(LITERAL_CALL)].map((m) => m[2]!.toUpperCase());
    may =
      named.length !== (text.match(ANY_CALL) ?? []).length ||
      named.some((n) => n === 'SET' || n === 'GETEX' || mayGiveTtl(n, ttlEffects(n, [n, 'key', '1', '1'])));
    scriptsForeseen.set(text, may);
  }
  return may;
}

/** The TTL a command gives, in ms, when relative to now (`SET k v EX 30`, `SETEX k 30 v`, `EXPIRE k 30`). */
export function relativeTtlMs(name: string, args: readonly string[]): number | undefined {
  const n = (v: string | undefined, unit: number): number | undefined => {
    const x = Number(v);
    return Number.isInteger(x) && x > 0 ? x * unit : undefined;
  };
  switch (name) {
    case 'SETEX':
    case 'EXPIRE':
      return n(args[2], 1000);
    case 'PSETEX':
    case 'PEXPIRE':
      return n(args[2], 1);
    case 'SET':
    case 'GETEX': {
      const from = name === 'SET' ? 3 : 2;
      for (let i = from; i + 1 < args.length; i++) {
        const o = args[i]!.toUpperCase();
        if (o === 'EX') return n(args[i + 1], 1000);
        if (o === 'PX') return n(args[i + 1], 1);
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** A PTTL as the whole seconds Laravel gave (the few ms since the command are not the key's). */
function wholeSeconds(pttl: number): number {
  return Math.ceil(pttl / 1000) * 1000;
}

/** A sweep's flat reply for one db: key → PTTL. */
function pairs(flat: unknown[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < flat.length; i += 2) out.set(String(flat[i]), Number(flat[i + 1]));
  return out;
}
