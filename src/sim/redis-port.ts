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

/** Receives the reply of a command sent ahead (RedisPort.evalIgnoringReply, rpush, zadd). */
export type OnReply = (reply: unknown) => void;

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
