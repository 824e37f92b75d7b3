// The model checked against Redis as it runs (DESIGN.md). Every actor's RedisPort is wrapped in a
// CheckedPort that applies each command to the Keyspace (what the queue keys should hold) when it
// is sent, in the order Redis runs them (one actor runs at a time), and compares the reply with the
// model's: at once for a reply Laravel reads that the model cannot foresee whole (a BLPOP's; the
// first pop of each payload shape, whose reserved copy shows cjson's key order), when it arrives
// for every other command. Those are sent ahead: the ones whose reply Laravel never reads (RPUSH,
// ZADD, push, later, migrate, release), and the ones whose reply the model foresees (the cache
// store's commands, ZREM, size, clear, an empty queue's pop, a pop whose reserved copy the model
// can write: ReservedCopies), with which the actor goes on at once (foresee). The runner compares
// the queues' sizes where it reads them. A difference is a ModelMismatchError: thrown by the
// command that read it, or (a reply that arrives later) by the next command of any actor or the
// step's end.
import type { AnyScript, CacheScript, LuaScript } from '../lua.ts';
import type { ForeseenArgs, OnReply, PendingBlpop, RedisPort } from '../redis-port.ts';
import { setArgs } from '../redis-port.ts';
import type { ListEntry, Origin, Waiter } from './keyspace.ts';
import { Keyspace } from './keyspace.ts';
import type { Describer } from './mismatch.ts';
import { describeEntry, describeOrigin, describePayload, describeReply, jobs, ModelMismatchError } from './mismatch.ts';
import { by, popReserved, popTaken, runScript } from './scripts.ts';
import type { StringEntry } from './strings.ts';
import { heldStrings, StringKeys } from './strings.ts';
import { runCacheScript } from './cache-scripts.ts';
import { ReservedCopies } from './reserved-copies.ts';

export interface ModelCheckEnv extends Describer {
  /** The exact virtual instant now (when an entry was pushed, for messages). */
  now(): number;
  /** Real milliseconds (a BLPOP the server may have timed out in real time); default Date.now. */
  realMs?: () => number;
}

/** A queue's keys and sizes as the runner read them (QueueState fits). */
export interface QueueSizes {
  keys: { ready: string; delayed: string; reserved: string; notify?: string };
  sizes: { ready: number; delayed: number; reserved: number; notify?: number };
}

/** The likely cause of a pop's reply that is no pop script's. */
const NOT_POP = 'not the pop script’s reply';

/** The likely cause when a job the model holds is gone from Redis. */
const TOOK = "another client took it (an app's queue:work on this server?)";

/** What the model holds in a queue key: its size, and its first entry (none when empty). */
export type ModelSizes = (
  key: string,
  kind: 'list' | 'zset',
) => { size: number; head: () => { value: string; origin: Origin } | ListEntry | undefined };

export class ModelCheck {
  readonly keyspace = new Keyspace();
  /** The cache store's keys (locks, the restart signal, counters), in every db the run uses. */
  readonly strings = new Map<string, StringEntry>();
  private failure: Error | null = null;
  /** The pop script's reserved copies, foreseen once a pop of their shape has come back. */
  readonly reservedCopies = new ReservedCopies();
  /** Each actor's commands so far, on all its connections (a foreseen reply that differs counts those after it). */
  private readonly sentBy = new Map<string, number>();

  constructor(readonly env: ModelCheckEnv) {}

  /** Counts a command of `actor`'s that goes out. */
  counted(actor: string): void {
    this.sentBy.set(actor, (this.sentBy.get(actor) ?? 0) + 1);
  }

  /** How many commands `actor` has sent (counted). */
  sentSoFar(actor: string): number {
    return this.sentBy.get(actor) ?? 0;
  }

  /** The actor's port, checked. */
  /** `db`: the logical db the connection is in (the cache store's keys are modelled per db). */
  port(actor: string, inner: RedisPort, db = 0): RedisPort {
    return new CheckedPort(this, actor, inner, new StringKeys(this.strings, db));
  }

  /**
   * What the model holds of the cache store's keys at `now`, as one string: equal at two moments,
   * those keys, their values and their expiries were the same then (expired keys left out, as
   * Redis leaves them). `ttl`: whether any of them expires.
   */
  stringsAt(now: number): { print: string; ttl: boolean } {
    const held = heldStrings(this.strings, now);
    let ttl = false;
    const parts: string[] = [];
    for (const e of held) {
      if (e.expiresAtMs !== null) ttl = true;
      parts.push(JSON.stringify([e.db, e.key, e.value, e.hash === undefined ? null : [...e.hash], e.expiresAtMs]));
    }
    return { print: parts.sort().join('\n'), ttl };
  }

  /** A difference found where nobody can throw it (a reply sent ahead): the next check throws it. */
  fail(e: Error): void {
    this.failure ??= e;
  }

  throwIfFailed(): void {
    if (this.failure !== null) throw this.failure;
  }

  /** The difference found so far, if any (a command sent ahead rejects with it instead of throwing). */
  get failed(): Error | null {
    return this.failure;
  }

  /**
   * The queues' sizes the runner read after a step (snapshotQueues), against the model's. `where`
   * names the step: "at the end of step 7 (t+5s, worker-1)".
   */
  compareSizes(queues: readonly QueueSizes[], where: string, model: ModelSizes = this.sizesNow()): void {
    this.throwIfFailed();
    for (const q of queues) {
      const { keys, sizes } = q;
      this.compareSize(where, 'LLEN', keys.ready, sizes.ready, model(keys.ready, 'list'), 'list');
      this.compareSize(where, 'ZCARD', keys.delayed, sizes.delayed, model(keys.delayed, 'zset'), 'zset');
      this.compareSize(where, 'ZCARD', keys.reserved, sizes.reserved, model(keys.reserved, 'zset'), 'zset');
      if (keys.notify !== undefined && sizes.notify !== undefined)
        this.compareSize(where, 'LLEN', keys.notify, sizes.notify, model(keys.notify, 'list'), 'notify');
    }
  }

  /** What the model holds in each queue key as it is now (each key's size, and its first entry). */
  sizesNow(): ModelSizes {
    const ks = this.keyspace;
    return (key, kind) => ({
      size: kind === 'list' ? ks.llen(key) : ks.zcard(key),
      head: () =>
        kind === 'zset'
          ? ks.zrangeToScore(key, Infinity, 1).map((e) => ({ value: e.member, origin: e.origin }))[0]
          : ks.head(key),
    });
  }

  /**
   * What the model holds in these queues' keys at this moment, kept for compareSizes once Redis'
   * sizes of the same moment come (a step's end read ahead of the next command: step-collector.ts).
   */
  sizesAt(queues: ReadonlyArray<QueueSizes['keys']>): ModelSizes {
    const now = this.sizesNow();
    const kept = new Map<string, ReturnType<ModelSizes>>();
    const keep = (key: string, kind: 'list' | 'zset') => {
      const { size, head } = now(key, kind);
      const first = size === 0 ? undefined : head();
      kept.set(key, { size, head: () => first });
    };
    for (const keys of queues) {
      keep(keys.ready, 'list');
      keep(keys.delayed, 'zset');
      keep(keys.reserved, 'zset');
      if (keys.notify !== undefined) keep(keys.notify, 'list');
    }
    return (key, kind) => kept.get(key) ?? now(key, kind);
  }

  private compareSize(
    where: string,
    command: string,
    key: string,
    actual: number,
    model: ReturnType<ModelSizes>,
    kind: 'list' | 'zset' | 'notify',
  ): void {
    const expected = model.size;
    if (actual === expected) return;
    const unit = kind === 'notify' ? (n: number) => `${n} notification${n === 1 ? '' : 's'}` : jobs;
    // What the model holds first there, when Redis holds less: likely what was taken.
    const head = actual >= expected ? undefined : model.head();
    const first =
      head !== undefined
        ? ` (first ${describeEntry(this.env, head.value, head.origin)}, ${describeOrigin(this.env, head.origin)})`
        : '';
    const cause =
      actual < expected
        ? kind === 'notify'
          ? "another client popped its notifications (an app's queue:work blocked on it?)"
          : `another client took ${expected - actual === 1 ? 'a job' : jobs(expected - actual)} from it (an app's queue:work on this server?)`
        : `another client added ${actual - expected === 1 ? 'a job' : jobs(actual - expected)} to it`;
    throw new ModelMismatchError(
      `${where}, ${command} ${key}`,
      `${key} should hold ${unit(expected)}${first}`,
      String(actual),
      cause,
    );
  }
}

const CACHE_SCRIPT_NAMES = new Set<string>(['releaseLock', 'add', 'durationLimiter', 'tooManyAttempts']);
function isCacheScript(s: AnyScript): s is CacheScript {
  return CACHE_SCRIPT_NAMES.has(s.name);
}

/** A reply compared with the model's: null, an integer, or an array of strings. */
function sameReply(expected: unknown, actual: unknown): boolean {
  if (!Array.isArray(expected)) return expected === actual;
  if (!Array.isArray(actual) || actual.length !== expected.length) return false;
  for (let i = 0; i < expected.length; i++) if (expected[i] !== actual[i]) return false;
  return true;
}

/** The wire form of a command in a message, with payloads named by job. */
function wire(d: Describer, name: string, args: ReadonlyArray<string | number>): string {
  const shown = args.map((a) => (typeof a === 'string' && a.startsWith('{') ? `‹${describePayload(d, a)}›` : a));
  return [name, ...shown].join(' ');
}

function evalWire(d: Describer, script: LuaScript, keys: readonly string[], argv: ReadonlyArray<string | number>) {
  return wire(d, `EVAL ‹${script.name}› ${script.numberOfKeys}`, [...keys, ...argv]);
}

class CheckedPort implements RedisPort {
  private closed = false;

  constructor(
    private readonly check: ModelCheck,
    private readonly actor: string,
    private readonly inner: RedisPort,
    /** The cache store's keys in this connection's db. */
    private readonly strings: StringKeys,
  ) {}

  private get ks(): Keyspace {
    return this.check.keyspace;
  }

  private origin(): Omit<Origin, 'how'> {
    return { actor: this.actor, at: this.check.env.now() };
  }

  /** Before a command: a difference found so far is thrown; the command is counted (ModelCheck.counted). */
  private begin(): void {
    this.check.throwIfFailed();
    this.check.counted(this.actor);
  }

  /**
   * A command whose reply the model foresees, sent without waiting for it (as a command sent ahead:
   * ConnectionHub.sendAhead keeps every other connection behind it): the actor goes on at once with
   * `expected`, and Redis' reply is compared when it comes. Only a command whose whole reply the
   * model knows comes here (a pop that takes a job once its reserved copy can be written). A
   * difference fails the run (ModelCheck.fail: the next command any actor sends, or the step's
   * end, throws it), naming how many commands this actor had issued since on the foreseen reply.
   */
  private async foresee<T>(
    expected: T,
    send: (onReply: OnReply) => Promise<void>,
    same: (reply: unknown) => boolean,
    differs: (reply: unknown) => ModelMismatchError,
  ): Promise<T> {
    const at = this.check.sentSoFar(this.actor);
    await send((reply) => {
      if (!same(reply)) this.check.fail(differs(reply).foreseenBy(this.actor, this.check.sentSoFar(this.actor) - at));
    });
    return expected;
  }

  async eval(script: AnyScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    this.begin();
    await this.inner.beforeSend?.('EVAL', keys);
    if (isCacheScript(script)) return this.cacheScript(script, keys, args);
    const argv = args.map(String);
    if (script.name === 'pop') return this.pop(script as LuaScript, keys, argv, args);
    const expected = runScript(this.ks, script as LuaScript, keys, argv, this.origin());
    this.ks.endCommand();
    return this.foresee(
      expected,
      (onReply) => this.inner.evalIgnoringReply(script, keys, args, onReply),
      (reply) => sameReply(expected, reply),
      (reply) => this.scriptMismatch(script as LuaScript, keys, args, expected, reply),
    );
  }

  /**
   * The pop script: the job the model expects at the head, then its reservation. An empty queue's
   * pop replies [nil, nil], which the model foresees; so is the reserved copy of a job, once a pop
   * of a payload of its shape has shown cjson's key order (ReservedCopies). Until then the reply is
   * awaited, and names the copy.
   */
  private async pop(script: LuaScript, keys: string[], argv: string[], args: Array<string | number>) {
    const head = this.ks.head(keys[0]!);
    const expected = popTaken(this.ks, script, keys);
    if (expected === null)
      return this.foresee<unknown>(
        [null, null],
        (onReply) => this.inner.evalIgnoringReply(script, keys, args, onReply),
        (reply) => Array.isArray(reply) && reply.length === 2 && reply[0] === null && reply[1] === null,
        (reply) => this.emptyPopMismatch(script, keys, args, reply),
      );
    const copies = this.check.reservedCopies;
    const foreseen = copies.foresee(expected);
    if (foreseen !== null) {
      popReserved(this.ks, keys, argv, foreseen, this.origin());
      return this.foresee<unknown>(
        [expected, foreseen],
        (onReply) => this.inner.evalIgnoringReply(script, keys, args, onReply),
        (reply) => Array.isArray(reply) && reply.length === 2 && reply[0] === expected && reply[1] === foreseen,
        (reply) => this.jobPopMismatch(script, keys, args, expected, head!, reply, foreseen),
      );
    }
    const reply = await this.inner.eval(script, keys, args);
    const [job, reserved] = Array.isArray(reply) ? (reply as unknown[]) : [undefined, undefined];
    // The common case first, with nothing but string compares (messages parse payloads).
    if (job === expected && typeof reserved === 'string') {
      popReserved(this.ks, keys, argv, reserved, this.origin());
      copies.learn(expected, reserved);
      return reply;
    }
    this.throwMismatch(this.jobPopMismatch(script, keys, args, expected, head!, reply, null));
  }

  /**
   * A pop that should have taken `expected` and replied otherwise; `foreseen`: the reserved copy the
   * model wrote for it (ReservedCopies), where it did not wait for the reply.
   */
  private jobPopMismatch(
    script: LuaScript,
    keys: string[],
    args: Array<string | number>,
    expected: string,
    head: { origin: Origin },
    reply: unknown,
    foreseen: string | null,
  ): ModelMismatchError {
    const [job, reserved] = Array.isArray(reply) ? (reply as unknown[]) : [undefined, undefined];
    const d = this.check.env;
    const command = `${this.actor}'s pop (${evalWire(d, script, keys, args)})`;
    if (job === expected && foreseen !== null && typeof reserved === 'string')
      return new ModelMismatchError(
        command,
        `the reserved copy should be ${JSON.stringify(foreseen)}, as cjson wrote the copy of an earlier payload of the same keys in this run`,
        JSON.stringify(reserved),
        "the server's cjson orders or writes it otherwise than it did for that pop (the model's error: please report it)",
      );
    const should = `${keys[0]} should hold ${describePayload(d, expected)} first (${describeOrigin(d, head.origin)})`;
    if (job === null || job === undefined) return new ModelMismatchError(command, should, 'nothing', TOOK);
    // Awaited, the model is as the pop found it: the job Redis gave is further down the list. Foreseen,
    // the actor has gone on since: a job of the run's own is one that was queued behind.
    const later =
      typeof job === 'string' && (foreseen === null ? this.isQueuedLater(keys[0]!, job) : d.labelOf(job).job !== null);
    return new ModelMismatchError(
      command,
      should,
      describeReply(d, job),
      later
        ? `another client took ${describePayload(d, expected)} first (an app's queue:work on this server?)`
        : typeof job === 'string'
          ? `another client pushed it onto ${keys[0]}`
          : NOT_POP,
    );
  }

  /** A pop the model foresaw finding the queue empty, that replied otherwise. */
  private emptyPopMismatch(script: LuaScript, keys: string[], args: Array<string | number>, reply: unknown) {
    const d = this.check.env;
    const job = Array.isArray(reply) ? (reply as unknown[])[0] : undefined;
    return new ModelMismatchError(
      `${this.actor}'s pop (${evalWire(d, script, keys, args)})`,
      `${keys[0]} should be empty`,
      describeReply(d, job ?? reply),
      typeof job === 'string' ? `another client pushed it onto ${keys[0]}` : NOT_POP,
    );
  }

  /** A difference this command's reply shows; one an earlier reply showed (sent ahead) goes first. */
  private throwMismatch(e: ModelMismatchError): never {
    this.check.throwIfFailed();
    throw e;
  }

  /** Whether `value` is among the next entries of the model's list (a message's likely cause; bounded). */
  private isQueuedLater(key: string, value: string): boolean {
    for (let i = 0; i < 1000; i++) {
      const e = this.ks.listAt(key, i);
      if (e === undefined) return false;
      if (e.value === value) return true;
    }
    return false;
  }

  private scriptMismatch(
    script: LuaScript,
    keys: readonly string[],
    args: ReadonlyArray<string | number>,
    expected: unknown,
    reply: unknown,
  ): ModelMismatchError {
    const d = this.check.env;
    const command = `${this.actor}'s ${script.name} (${evalWire(d, script, keys, args)})`;
    if (script.name === 'migrateExpiredJobs' && Array.isArray(expected) && Array.isArray(reply)) {
      const fewer = reply.length < expected.length;
      return new ModelMismatchError(
        command,
        expected.length === 0
          ? `nothing on ${keys[0]} should be due`
          : `${keys[0]} should have had ${jobs(expected.length)} due to move (${describeReply(d, expected)})`,
        describeReply(d, reply),
        fewer
          ? `another client took jobs from ${keys[0]} (an app's queue:work on this server?)`
          : `another client added to ${keys[0]}`,
      );
    }
    if (script.name === 'size' || script.name === 'clear') {
      return new ModelMismatchError(
        command,
        `the queue should hold ${jobs(Number(expected))}`,
        describeReply(d, reply),
        Number(reply) < Number(expected)
          ? "another client took jobs from it (an app's queue:work on this server?)"
          : 'another client added jobs to it',
      );
    }
    return new ModelMismatchError(
      command,
      `Laravel's script returns ${describeReply(d, expected)}`,
      describeReply(d, reply),
      'the server did not run the script as Laravel wrote it (a proxy, or a server that answers otherwise?)',
    );
  }

  // The commands sent ahead are the most frequent (a push, two migrates per poll): no async frame
  // of their own, the inner port's promise is theirs.
  async evalIgnoringReply(
    script: AnyScript,
    keys: string[],
    args: Array<string | number>,
    onReply?: OnReply,
  ): Promise<void> {
    if (this.check.failed !== null) throw this.check.failed;
    this.check.counted(this.actor);
    if (isCacheScript(script)) throw new Error(`${script.method}'s reply is one Laravel reads`);
    // A client that refuses it sends nothing, so the model's keys stay as they are.
    await this.inner.beforeSend?.('EVAL', keys);
    const expected = runScript(this.ks, script as LuaScript, keys, args.map(String), this.origin());
    this.ks.endCommand();
    const check = (reply: unknown) => {
      onReply?.(reply);
      if (!sameReply(expected, reply)) this.check.fail(this.scriptMismatch(script, keys, args, expected, reply));
    };
    return this.inner.evalIgnoringReply(script, keys, args, check);
  }

  rpush(key: string, value: string, onReply?: OnReply): Promise<void> {
    if (this.check.failed !== null) return Promise.reject(this.check.failed);
    this.check.counted(this.actor);
    const expected = this.ks.rpush(key, [value], by(this.origin(), 'pushed'));
    this.ks.endCommand();
    return this.inner.rpush(key, value, (reply) => {
      onReply?.(reply);
      if (reply === expected) return;
      const fewer = typeof reply === 'number' && reply < expected;
      this.check.fail(
        new ModelMismatchError(
          `${this.actor}'s push (${wire(this.check.env, 'RPUSH', [key, value])})`,
          `${key} should hold ${jobs(expected)} after it`,
          describeReply(this.check.env, reply),
          fewer
            ? `another client took jobs from ${key} (an app's queue:work on this server?)`
            : `another client pushed to ${key}`,
        ),
      );
    });
  }

  zadd(key: string, score: number, member: string, onReply?: OnReply): Promise<void> {
    if (this.check.failed !== null) return Promise.reject(this.check.failed);
    this.check.counted(this.actor);
    const how = key.endsWith(':reserved') ? 'reserved' : 'pushed (later)';
    const expected = this.ks.zadd(key, score, member, by(this.origin(), how));
    this.ks.endCommand();
    return this.inner.zadd(key, score, member, (reply) => {
      onReply?.(reply);
      if (reply === expected) return;
      this.check.fail(
        new ModelMismatchError(
          `${this.actor}'s ${how === 'reserved' ? 'reservation' : 'later'} (${wire(this.check.env, 'ZADD', [key, score, member])})`,
          expected === 1 ? `the payload should be new to ${key}` : `${key} should already hold the payload`,
          describeReply(this.check.env, reply),
          expected === 1 ? `another client had added it to ${key}` : `another client removed it from ${key}`,
        ),
      );
    });
  }

  async zrem(key: string, member: string): Promise<number> {
    this.begin();
    const held = this.ks.zsetEntry(key, member);
    const expected = this.ks.zrem(key, member);
    return this.foresee(
      expected,
      (onReply) => this.inner.sendForeseen(['ZREM', key, member], onReply),
      (reply) => reply === expected,
      (reply) => {
        const d = this.check.env;
        return new ModelMismatchError(
          `${this.actor}'s delete (${wire(d, 'ZREM', [key, member])})`,
          held !== undefined
            ? `${key} should hold that copy (${describeOrigin(d, held.origin)}), so ZREM removes 1`
            : `${key} should no longer hold that copy (moved on or never there), so ZREM removes 0`,
          describeReply(d, reply),
          held !== undefined
            ? "another client removed it (an app's queue:work, or a queue:clear, on this server?)"
            : `another client added it to ${key}`,
        );
      },
    );
  }

  async blpop(key: string, timeout: number): Promise<PendingBlpop> {
    this.begin();
    const waiter = this.ks.blpop(key, this.actor);
    const realMs = this.check.env.realMs ?? Date.now;
    const sentAt = realMs();
    const pending = await this.inner.blpop(key, timeout);
    let replied = false;
    const result = pending.result.then((reply) => {
      replied = true;
      this.blpopReplied(waiter, reply, timeout, pending.expiresInRealTime && realMs() - sentAt >= timeout * 1000 - 50);
      return reply;
    });
    return {
      label: pending.label,
      expiresInRealTime: pending.expiresInRealTime,
      result,
      stillBlocked: () => pending.stillBlocked(),
      // No push the model saw served it and no reply came (a timeout in real time replies nil):
      // still blocked, unless another client pushed, which its reply then says (blpopReplied).
      mayHaveEnded: () => replied || waiter.served !== null,
      cancel: () => pending.cancel(),
    };
  }

  /**
   * A BLPOP's reply against what the model served it. Nil for a served BLPOP is a push that went
   * to someone else, unless the server had timed it out in real time first (the scheduler warns of
   * that): the entry then stayed in the list.
   */
  private blpopReplied(waiter: Waiter, reply: [string, string] | null, timeout: number, timedOutInRealTime: boolean) {
    const served: ListEntry | null = waiter.served;
    if (reply === null) {
      if (served === null) return this.ks.unblock(waiter);
      // After the process ended, a nil is the closed connection's, not the server's.
      if (this.closed) return;
      if (timedOutInRealTime) return this.ks.unserve(waiter);
    } else {
      if (served === null) this.ks.unblock(waiter);
      if (served !== null && reply[1] === served.value) return;
    }
    const d = this.check.env;
    const command = `${this.actor}'s ${wire(d, 'BLPOP', [waiter.key, timeout])}`;
    const expected =
      served === null
        ? `nothing should have been pushed onto ${waiter.key} since it blocked`
        : `it should have got ${describeEntry(d, served.value, served.origin)} (${describeOrigin(d, served.origin)})`;
    const cause =
      served === null
        ? `another client pushed to ${waiter.key}`
        : reply === null
          ? `another client blocked on ${waiter.key} took it (an app's queue:work on this server?)`
          : `another client took ${describeEntry(d, served.value, served.origin)} first (an app's queue:work on this server?)`;
    this.check.fail(
      new ModelMismatchError(command, expected, reply === null ? 'nil' : describeReply(d, reply[1]), cause),
    );
  }

  /** Below the model only: what it foresees, it foresees through the command's own method. */
  sendForeseen(args: ForeseenArgs): Promise<void> {
    return Promise.reject(new Error(`${args[0]} goes through its own method, which the model checks`));
  }

  // The cache store's commands: Laravel reads every reply, and the model foresees each.

  private now(): number {
    return this.check.env.now();
  }

  /**
   * A cache command sent on the model's word (foresee): `held` is what the model holds of `key`
   * as the command goes out (after it, for one that changes the key), for the message.
   */
  private foreseeString<T>(args: ForeseenArgs, expected: T, key: string, cause: string): Promise<T> {
    const held = this.strings.entry(key, this.now());
    return this.foresee(
      expected,
      (onReply) => this.inner.sendForeseen(args, onReply),
      (reply) => reply === expected,
      (reply) => this.cacheMismatch(wire(this.check.env, args[0], args.slice(1)), key, held, cause, reply),
    );
  }

  /** A cache reply that differs from the model's: who set the key, and what another client likely did. */
  private cacheMismatch(
    command: string,
    key: string,
    held: StringEntry | undefined,
    cause: string,
    reply: unknown,
  ): ModelMismatchError {
    const d = this.check.env;
    return new ModelMismatchError(
      `${this.actor}'s ${command}`,
      held === undefined
        ? `${key} should not exist`
        : `${key} should hold ${JSON.stringify(held.value)} (${describeOrigin(d, held.origin)})`,
      typeof reply === 'string' ? JSON.stringify(reply) : describeReply(d, reply),
      `${cause} (another client on this server changed the key?)`,
    );
  }

  async get(key: string): Promise<string | null> {
    this.begin();
    const expected = this.strings.get(key, this.now());
    return this.foreseeString(['GET', key], expected, key, 'GET read another value');
  }

  async mget(keys: string[]): Promise<Array<string | null>> {
    this.begin();
    await this.inner.beforeSend?.('MGET', keys);
    const now = this.now();
    const held = keys.map((k) => this.strings.entry(k, now));
    const expected = held.map((e) => e?.value ?? null);
    return this.foresee(
      expected,
      (onReply) => this.inner.sendForeseen(['MGET', ...keys], onReply),
      (reply) => sameReply(expected, reply),
      (reply) => {
        const got = Array.isArray(reply) ? (reply as unknown[]) : [];
        const i = Math.max(
          0,
          expected.findIndex((e, n) => got[n] !== e),
        );
        return this.cacheMismatch(`MGET ${keys.join(' ')}`, keys[i]!, held[i], 'MGET read another value', got[i]);
      },
    );
  }

  async set(key: string, value: string, o: { ex?: number; nx?: boolean } = {}): Promise<'OK' | null> {
    this.begin();
    const expected = this.strings.set(key, value, o, by(this.origin(), o.nx === true ? 'locked' : 'set'));
    return this.foreseeString(setArgs(key, value, o), expected, key, 'the lock was taken or freed by someone else');
  }

  async setnx(key: string, value: string): Promise<number> {
    this.begin();
    const expected = this.strings.set(key, value, { nx: true }, by(this.origin(), 'locked')) === 'OK' ? 1 : 0;
    return this.foreseeString(['SETNX', key, value], expected, key, 'the lock was taken or freed by someone else');
  }

  async setex(key: string, seconds: number, value: string): Promise<void> {
    this.begin();
    this.strings.set(key, value, { ex: seconds }, by(this.origin(), 'set'));
    await this.foreseeString(['SETEX', key, String(seconds), value], 'OK', key, 'SETEX was refused');
  }

  async incrby(key: string, n: number): Promise<number> {
    this.begin();
    const expected = this.strings.incrby(key, n, by(this.origin(), 'counted'));
    return this.foreseeString(['INCRBY', key, String(n)], expected, key, 'the counter was changed by someone else');
  }

  async del(key: string): Promise<number> {
    this.begin();
    const expected = this.strings.del(key, this.now());
    return this.foreseeString(['DEL', key], expected, key, 'the key was deleted or set by someone else');
  }

  /** A cache store's script (a lock's release, RedisStore::add, DurationLimiter's): its reply against the model's. */
  private async cacheScript(script: CacheScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    const key = keys[0]!;
    const before = this.strings.entry(key, this.now());
    const expected = runCacheScript(this.strings, script, keys, args.map(String), by(this.origin(), script.name));
    return this.foresee(
      expected,
      (onReply) => this.inner.evalIgnoringReply(script, keys, args, onReply),
      (reply) => sameReply(expected, reply),
      (reply) => {
        const d = this.check.env;
        return new ModelMismatchError(
          `${this.actor}'s ${script.name} (EVAL ‹${script.name}› 1 ${key} ${args.join(' ')})`,
          before === undefined
            ? `${key} should not exist, so it replies ${describeReply(d, expected)}`
            : `${key} should hold ${before.hash ? 'its window' : JSON.stringify(before.value)} (${describeOrigin(d, before.origin)}), so it replies ${describeReply(d, expected)}`,
          describeReply(d, reply),
          'another client on this server changed the key',
        );
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.inner.close();
  }
}
