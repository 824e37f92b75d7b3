// The only way the model reaches Redis: the few commands Laravel's queue sends, nothing else.
// One port is one connection (one actor process); src/redis implements it with node-redis.
import type { AnyScript } from './lua.ts';

/** A BLPOP that may block: the scheduler, not the port, decides how long to wait in virtual time. */
export interface PendingBlpop {
  /** "BLPOP <key> <timeout>", for warnings. */
  readonly label: string;
  /** The server times it out by itself (timeout > 0), in real seconds. */
  readonly expiresInRealTime: boolean;
  /** Resolves with [key, value], or null when unblocked without an element. */
  readonly result: Promise<[string, string] | null>;
  /** Whether the server still has this connection blocked. */
  stillBlocked(): Promise<boolean>;
  /** False where the model knows it is still blocked (scheduler.ts' BlockingOp.mayHaveEnded). */
  mayHaveEnded?(): boolean;
  /** Unblock it as a timeout (CLIENT UNBLOCK ... TIMEOUT from another connection). */
  cancel(): Promise<void>;
}

/** Receives the reply of a command sent ahead (RedisPort.evalIgnoringReply, rpush, zadd, sendForeseen). */
export type OnReply = (reply: unknown) => void;

/**
 * The wire arguments of a command whose reply the model foresees (RedisPort.sendForeseen): the
 * cache store's commands and ZREM, as their methods send them.
 */
export type ForeseenArgs =
  | readonly ['GET', string]
  | readonly ['MGET', ...string[]]
  | readonly ['SET', string, string, ...string[]]
  | readonly ['SETNX', string, string]
  | readonly ['SETEX', string, string, string]
  | readonly ['INCRBY', string, string]
  | readonly ['DEL', string]
  | readonly ['ZREM', string, string];

/** SET key value [EX seconds] [NX], in the order RedisLock sends them. */
export function setArgs(key: string, value: string, o: { ex?: number; nx?: boolean } = {}): ForeseenArgs {
  const args: [string, string, ...string[]] = [key, value];
  if (o.ex !== undefined) args.push('EX', String(o.ex));
  if (o.nx === true) args.push('NX');
  return ['SET', ...args];
}

/** The keys of a foreseen command (a cluster routes it by them). */
export function foreseenKeys(args: ForeseenArgs): readonly string[] {
  return args[0] === 'MGET' ? args.slice(1) : [args[1]];
}

export interface RedisPort {
  /**
   * The client's own checks before a multi-key command goes out (phpredis' RedisCluster refuses
   * keys in several slots): throws what the app then sees, having sent nothing of the command.
   * The model checks it before it applies the command to its keys.
   */
  beforeSend?(command: string, keys: readonly string[]): Promise<void>;
  /** EVAL <script> <numkeys> <keys...> <args...>: Laravel sends the whole text, never EVALSHA. */
  eval(script: AnyScript, keys: string[], args: Array<string | number>): Promise<unknown>;
  /**
   * The commands whose reply Laravel never reads (the push, later, migrate and release scripts,
   * RPUSH, ZADD): the port may resolve once the command is on its way, not answered, as long as
   * Redis runs it before any command sent after it by any connection (the trace is the same).
   * `onReply` gets the reply when it arrives (the model checks it: src/sim/model/check.ts); it must
   * not throw.
   */
  evalIgnoringReply(script: AnyScript, keys: string[], args: Array<string | number>, onReply?: OnReply): Promise<void>;
  rpush(key: string, value: string, onReply?: OnReply): Promise<void>;
  zadd(key: string, score: number, member: string, onReply?: OnReply): Promise<void>;
  zrem(key: string, member: string): Promise<number>;
  blpop(key: string, timeout: number): Promise<PendingBlpop>;
  /**
   * A command whose reply Laravel reads but the caller already knows (CheckedPort: the model
   * foresees it, src/sim/model/check.ts), sent as evalIgnoringReply sends: the caller goes on
   * with the reply it foresaw, and `onReply` gets Redis' when it comes (it must not throw). The
   * scripts' equivalent is evalIgnoringReply itself.
   */
  sendForeseen(args: ForeseenArgs, onReply: OnReply): Promise<void>;
  // The cache store's commands (RedisStore, RedisLock): Laravel reads every reply.
  get(key: string): Promise<string | null>;
  mget(keys: string[]): Promise<Array<string | null>>;
  /** SET key value, with `EX seconds NX` as RedisLock sends them (in that order); 'OK' or null (NX refused). */
  set(key: string, value: string, o?: { ex?: number; nx?: boolean }): Promise<'OK' | null>;
  setnx(key: string, value: string): Promise<number>;
  setex(key: string, seconds: number, value: string): Promise<void>;
  incrby(key: string, by: number): Promise<number>;
  del(key: string): Promise<number>;
  /** The process ends: the connection closes without a QUIT. */
  close(): Promise<void>;
}

/**
 * Opens a new connection for an actor (a worker process, a web request that dispatches) to one of
 * config/database.php's Redis connections (default: the queue's): its db, and its SELECT.
 */
export type ConnectionFactory = (actor: string, connection?: 'default' | 'cache') => Promise<RedisPort>;
