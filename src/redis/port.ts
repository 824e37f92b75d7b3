// The model's RedisPort on a node-redis connection. Commands go out with sendCommand so the wire
// carries exactly what Laravel's client sends: upper-case names, EVAL with the whole script text,
// numbers as decimal strings. Predis (and phpredis for a non-zero db) sends SELECT first.
import { TimeoutError } from 'redis';
import type { AnyScript } from '../sim/lua.ts';
import type { ForeseenArgs, OnReply, PendingBlpop, RedisPort } from '../sim/redis-port.ts';
import { setArgs } from '../sim/redis-port.ts';
import type { ActorConnection, Client, ConnectionHub } from './connections.ts';
import { COMMAND_TIMEOUT_MS, parseClientList } from './connections.ts';

export class NodeRedisPort implements RedisPort {
  private selected = false;

  constructor(
    private readonly conn: ActorConnection,
    private readonly hub: ConnectionHub,
    /** The db Laravel's client SELECTs when it connects, or null when it sends no SELECT. */
    private readonly selectOnConnect: number | null,
    /**
     * The SELECT goes out with the command after it, without waiting for its OK: on a server the
     * tool started, where a SELECT that failed (and the commands after it then in db 0) would
     * touch nobody's keys; its failure is thrown by the next command sent, as any sent ahead. On
     * anyone else's server the SELECT is waited for.
     */
    private readonly selectAhead = false,
  ) {}

  private async send(args: string[], blocking = false): Promise<unknown> {
    this.hub.onTraced?.(args);
    await this.prepare();
    return this.call(args, blocking);
  }

  /**
   * A command whose reply Laravel does not read, or whose reply the model foresees: sent without
   * waiting for it (ConnectionHub.sendAhead). The most frequent command of all, so the common case
   * (nothing to wait for before it) takes no async frame of its own.
   */
  private sendAhead(args: string[], onReply?: OnReply): Promise<void> {
    this.hub.onTraced?.(args);
    const describe = (e: unknown) => this.describe(e, args);
    if (this.selected)
      return this.hub.sendAheadInOrder(this.conn.client, args, describe, onReply, () => this.takeBeforeCommand());
    return this.prepare().then(() => this.hub.sendAhead(this.conn.client, args, describe, onReply));
  }

  /** What goes before a command: other connections' commands done, the step marks and reads, SELECT once. */
  private async prepare(): Promise<void> {
    const others = this.hub.othersSettled(this.conn.client);
    if (others !== undefined) await others;
    this.beforeCommand();
    if (!this.selected) {
      this.selected = true;
      if (this.selectOnConnect === null) return;
      const select = ['SELECT', String(this.selectOnConnect)];
      if (this.selectAhead) await this.hub.sendAhead(this.conn.client, select, (e) => this.describe(e, select));
      else await this.call(select, false);
    }
  }

  /** What goes out just before a command, on its connection: the step marks, then the step's end reads. */
  private beforeCommand(): void {
    this.takeBeforeCommand()?.();
  }

  /** Takes what goes out just before a command (beforeCommand) now, to send it when the command goes out. */
  private takeBeforeCommand(): (() => void) | null {
    const marks = this.hub.takeMarks();
    const reads = this.hub.takeBeforeNext();
    if (marks.length === 0 && reads === null) return null;
    const client = this.conn.client;
    return () => {
      // Step marks of a streaming run go first, on this connection: see MonitorCapture.mark. Their
      // failure is the command's own (the same connection), so it is not reported twice.
      for (const mark of marks) void client.sendCommand(['ECHO', mark]).catch(() => undefined);
      // Then the reads of the step's end (ConnectionHub.beforeNext), which the mark's line comes before.
      reads?.((args) => client.sendCommand(args));
    };
  }

  /** A blocking command waits as long as the server makes it; any other gets COMMAND_TIMEOUT_MS. */
  private async call(args: string[], blocking: boolean): Promise<unknown> {
    if (blocking) this.hub.noteBlocking(this.conn.client, 1);
    try {
      return await this.conn.client.sendCommand(args, blocking ? { timeout: 0 } : undefined);
    } catch (e) {
      throw this.describe(e, args);
    } finally {
      if (blocking) this.hub.noteBlocking(this.conn.client, -1);
    }
  }

  /** A timeout says which command of which actor got no answer; any other error is Redis' own. */
  private describe(e: unknown, args: readonly string[]): unknown {
    if (!(e instanceof TimeoutError)) return e;
    return new Error(
      `Redis did not answer ${args[0]} from ${this.conn.actor} within ${COMMAND_TIMEOUT_MS / 1000} s (server hung or network down)`,
      { cause: e },
    );
  }

  /** A command of the client itself, not of Laravel's queue (RedisCluster's CLUSTER SLOTS). */
  command(args: string[]): Promise<unknown> {
    return this.send(args);
  }

  eval(script: AnyScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.send(evalArgs(script, keys, args));
  }

  evalIgnoringReply(script: AnyScript, keys: string[], args: Array<string | number>, onReply?: OnReply): Promise<void> {
    return this.sendAhead(evalArgs(script, keys, args), onReply);
  }

  rpush(key: string, value: string, onReply?: OnReply): Promise<void> {
    return this.sendAhead(['RPUSH', key, value], onReply);
  }

  zadd(key: string, score: number, member: string, onReply?: OnReply): Promise<void> {
    return this.sendAhead(['ZADD', key, String(score), member], onReply);
  }

  sendForeseen(args: ForeseenArgs, onReply: OnReply): Promise<void> {
    return this.sendAhead([...args], onReply);
  }

  async zrem(key: string, member: string): Promise<number> {
    return Number(await this.send(['ZREM', key, member]));
  }

  async blpop(key: string, timeout: number): Promise<PendingBlpop> {
    let settled = false;
    // A run can end with this BLPOP still pending; destroying the connection then rejects it,
    // and nobody is left to await it, so a rejection counts as "no element".
    const result = this.send(['BLPOP', key, String(timeout)], true).then(
      (r) => {
        settled = true;
        return Array.isArray(r) && r.length === 2 ? ([String(r[0]), String(r[1])] as [string, string]) : null;
      },
      () => {
        settled = true;
        return null;
      },
    );
    const stillBlocked = () => isBlocked(this.conn.observer, this.conn.id);
    // Return only once the server has run the BLPOP (blocked, or already answered), so its
    // MONITOR line belongs to this step and stillBlocked() is meaningful.
    for (let i = 0; !settled && !(await stillBlocked()); i++) {
      if (i > 5000) throw new Error('BLPOP did not reach the server');
      await new Promise((r) => setImmediate(r));
    }
    return {
      label: `BLPOP ${key} ${timeout}`,
      expiresInRealTime: timeout > 0,
      result,
      stillBlocked: async () => !settled && (await stillBlocked()),
      cancel: async () => {
        if (!settled) await this.conn.observer.sendCommand(['CLIENT', 'UNBLOCK', this.conn.id, 'TIMEOUT']);
      },
    };
  }

  async get(key: string): Promise<string | null> {
    return stringOrNull(await this.send(['GET', key]));
  }

  async mget(keys: string[]): Promise<Array<string | null>> {
    const reply = await this.send(['MGET', ...keys]);
    return Array.isArray(reply) ? reply.map(stringOrNull) : [];
  }

  async set(key: string, value: string, o: { ex?: number; nx?: boolean } = {}): Promise<'OK' | null> {
    return (await this.send([...setArgs(key, value, o)])) === null ? null : 'OK';
  }

  async setnx(key: string, value: string): Promise<number> {
    return Number(await this.send(['SETNX', key, value]));
  }

  async setex(key: string, seconds: number, value: string): Promise<void> {
    await this.send(['SETEX', key, String(seconds), value]);
  }

  async incrby(key: string, by: number): Promise<number> {
    return Number(await this.send(['INCRBY', key, String(by)]));
  }

  async del(key: string): Promise<number> {
    return Number(await this.send(['DEL', key]));
  }

  async close(): Promise<void> {
    await this.hub.release(this.conn.client);
  }
}

function evalArgs(script: AnyScript, keys: string[], args: Array<string | number>): string[] {
  return ['EVAL', script.source, String(script.numberOfKeys), ...keys, ...args.map(String)];
}

function stringOrNull(reply: unknown): string | null {
  return reply === null || reply === undefined ? null : String(reply);
}

/** Whether the connection with this CLIENT ID is blocked (a BLPOP the server holds). */
export async function isBlocked(observer: Client, id: string): Promise<boolean> {
  const text = String(await observer.sendCommand(['CLIENT', 'LIST', 'ID', id]));
  const entry = parseClientList(text)[0];
  return entry !== undefined && (entry.flags ?? '').includes('b');
}
