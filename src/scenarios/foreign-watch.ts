// The watch on a run's claimed dbs for its whole life (REDIS_URL): the queue's, and the cache's
// when the scenario keeps its cache store on Redis in another db. MONITOR shows every client's
// commands with the db they ran in, and a client that selects a db later sends `SELECT <db>`. Any
// other client's command in the run's db, or its SELECT of that db, means someone else is using
// the run's keys or could be handed its jobs (an app's worker blocked in BLPOP on the queue): the
// trace is no longer Laravel's alone, and the run stops with an error naming the client.
//
// Not counted: what runs in no db's keyspace (a connection's AUTH, CLIENT, INFO, PING, a SELECT
// of another db...: every new connection sends those from db 0, where it starts), and another
// lqsim run looking into the db from its claim script (`exists lqsim:claim`, which finds the claim
// and leaves). A script's commands ([db lua] lines) are its caller's.
import type { MonitorLine } from '../redis/monitor-line.ts';
import { CLAIM_KEY } from '../redis/claim.ts';
import type { OtherClient } from '../redis/claim-clients.ts';
import { describeClient } from '../redis/claim-clients.ts';
import type { ActorDirectory } from './attribute.ts';
import type { ModelMismatchError } from '../sim/model/mismatch.ts';

/** Commands that read or write no db's data: a client sending them from the run's db is not using it. */
const NO_KEYSPACE = new Set([
  'AUTH',
  'HELLO',
  'CLIENT',
  'PING',
  'ECHO',
  'INFO',
  'QUIT',
  'COMMAND',
  'CONFIG',
  'ACL',
  'MONITOR',
  'TIME',
  'LASTSAVE',
  'ROLE',
  'LATENCY',
  'SLOWLOG',
  'SCRIPT',
  'MULTI',
  'EXEC',
  'DISCARD',
  'UNWATCH',
  'READONLY',
  'READWRITE',
  // Pub/Sub channels belong to no db.
  'SUBSCRIBE',
  'UNSUBSCRIBE',
  'PSUBSCRIBE',
  'PUNSUBSCRIBE',
  'SSUBSCRIBE',
  'SUNSUBSCRIBE',
  'PUBLISH',
  'SPUBLISH',
  'PUBSUB',
]);
/** A script's own commands show as [db lua] lines after it: those judge it. */
const SCRIPTS = new Set(['EVAL', 'EVALSHA', 'EVAL_RO', 'EVALSHA_RO', 'FCALL', 'FCALL_RO']);

export interface ForeignUse {
  addr: string;
  /** `BLPOP queues:default`, `SELECT 3`, `RPUSH x (in a script)`. */
  what: string;
  /** Which of the run's dbs it used (set where the run holds more than one). */
  db?: number;
}

export class ForeignWatch {
  /** The client whose script the next [lua] lines belong to, when it is another client. */
  private scriptOf: string | null = null;
  /** The first uses seen (the run stops at the first; a few say who else was there). */
  readonly seen: ForeignUse[] = [];
  /** The run's dbs, as MONITOR and SELECT write them. */
  private readonly dbs: readonly number[];

  constructor(
    private readonly book: Pick<ActorDirectory, 'ownerOf' | 'isHandshake'>,
    /** The tool's own connections (the observer). */
    private readonly tool: ReadonlySet<string>,
    /** The run's db, or its dbs (the queue's first). */
    db: number | readonly number[],
  ) {
    this.dbs = typeof db === 'number' ? [db] : [...new Set(db)];
  }

  /** Another client's use of the run's db on this line, or null. */
  push(line: MonitorLine): ForeignUse | null {
    const use = this.useOn(line);
    if (use !== null && this.seen.length < 4) this.seen.push(use);
    return use;
  }

  private useOn(line: MonitorLine): ForeignUse | null {
    const args = line.args;
    if (line.client === 'lua') {
      if (this.scriptOf === null || !this.dbs.includes(line.db)) return null;
      const command = (args[0] ?? '').toLowerCase();
      if (command === 'select' || (command === 'exists' && args[1] === CLAIM_KEY && args.length === 2)) return null;
      return this.use(this.scriptOf, `${shown(args)} (in a script)`, line.db);
    }
    this.scriptOf = null;
    if (this.tool.has(line.client) || this.book.ownerOf(line.client) !== undefined) return null;
    // The handshake of a connection of this run not yet known by address (its CLIENT SETNAME).
    if (this.book.isHandshake(args)) return null;
    const command = (args[0] ?? '').toUpperCase();
    const reached = this.dbs.find((db) => reachesDb(command, args, String(db)));
    if (reached !== undefined) return this.use(line.client, shown(args), reached);
    if (command === 'SELECT') return null;
    if (SCRIPTS.has(command)) {
      this.scriptOf = line.client;
      return null;
    }
    if (!this.dbs.includes(line.db) || NO_KEYSPACE.has(command)) return null;
    return this.use(line.client, shown(args), line.db);
  }

  /** A use, naming its db only where the run holds more than one (a one-db run's uses read as before). */
  private use(addr: string, what: string, db: number): ForeignUse {
    return this.dbs.length > 1 ? { addr, what, db } : { addr, what };
  }
}

/** Commands that reach a db other than their client's: into the run's, or all of them. */
function reachesDb(command: string, args: readonly string[], db: string): boolean {
  switch (command) {
    case 'SELECT':
      return args[1] === db;
    case 'FLUSHALL':
      return true;
    case 'RESET': // back to db 0, as a new connection
      return db === '0';
    case 'SWAPDB':
      return args[1] === db || args[2] === db;
    case 'MOVE':
      return args[2] === db;
    case 'COPY': {
      const i = args.findIndex((a, n) => n > 2 && a.toUpperCase() === 'DB');
      return i > 0 && args[i + 1] === db;
    }
    default:
      return false;
  }
}

/** A command as a message shows it: its name and first argument, cut short. */
function shown(args: readonly string[]): string {
  const first = args[1] === undefined ? '' : ` ${args[1].length > 60 ? `${args[1].slice(0, 60)}...` : args[1]}`;
  return `${(args[0] ?? '').toUpperCase()}${first}`;
}

/**
 * Commands that change no key: another client reading the run's keys (redis-cli looking at a
 * queue) changes nothing a step shows. Any command not named here may have.
 */
const READS_ONLY = new Set([
  'SELECT',
  'GET',
  'MGET',
  'STRLEN',
  'GETRANGE',
  'EXISTS',
  'TYPE',
  'TTL',
  'PTTL',
  'EXPIRETIME',
  'PEXPIRETIME',
  'LLEN',
  'LRANGE',
  'LINDEX',
  'LPOS',
  'ZCARD',
  'ZCOUNT',
  'ZLEXCOUNT',
  'ZRANGE',
  'ZRANGEBYSCORE',
  'ZRANGEBYLEX',
  'ZREVRANGE',
  'ZREVRANGEBYSCORE',
  'ZREVRANGEBYLEX',
  'ZSCORE',
  'ZMSCORE',
  'ZRANK',
  'ZREVRANK',
  'ZSCAN',
  'HGET',
  'HMGET',
  'HGETALL',
  'HKEYS',
  'HVALS',
  'HLEN',
  'HEXISTS',
  'HSTRLEN',
  'HSCAN',
  'SCARD',
  'SMEMBERS',
  'SISMEMBER',
  'SMISMEMBER',
  'SSCAN',
  'KEYS',
  'SCAN',
  'DBSIZE',
  'RANDOMKEY',
  'OBJECT',
  'MEMORY',
  'DUMP',
  'TOUCH',
  'WATCH',
  'SRANDMEMBER',
  'ZRANDMEMBER',
  'HRANDFIELD',
  'SINTER',
  'SUNION',
  'SDIFF',
  'SINTERCARD',
  'ZINTER',
  'ZUNION',
  'ZDIFF',
  'ZINTERCARD',
  'SORT_RO',
  'LCS',
  'GETBIT',
  'BITCOUNT',
  'BITPOS',
  'XLEN',
  'XRANGE',
  'XREVRANGE',
  'XREAD',
  'XINFO',
]);

/** Whether a use (ForeignUse.what: `LPOP queues:default`, `RPUSH x (in a script)`) may have changed a key. */
export function mayWrite(use: ForeignUse): boolean {
  return !READS_ONLY.has(use.what.split(' ', 1)[0]!);
}

/** Another client used the run's db (ForeignWatch): the run stops, mid-way, so no "refusing to run". */
export class ForeignUseError extends Error {
  constructor(
    readonly uses: readonly ForeignUse[],
    readonly db: number,
    /** CLIENT LIST's view of those clients, when it could be had: their names. */
    readonly clients: readonly OtherClient[] = [],
    /** What the run saw of it: a reply the model did not expect (the job it took, say). */
    readonly seenAs?: ModelMismatchError,
  ) {
    super(
      `another client used this run's db ${uses[0]?.db ?? db} (${listUses(uses, clients)}): ${
        seenAs === undefined
          ? "the trace would no longer be Laravel's alone, and that client could take the run's jobs"
          : `the run saw it when ${seenAs.observed}; the trace is no longer Laravel's alone`
      }, so the run stops; give it a server or db no one else uses`,
    );
    this.name = 'ForeignUseError';
  }

  /** The same error with the clients' names (CLIENT LIST asked once the run has stopped). */
  named(clients: readonly OtherClient[]): ForeignUseError {
    return new ForeignUseError(this.uses, this.db, clients, this.seenAs);
  }
}

/**
 * Another client wrote in the run's db on a server no claim watches (the run's own) during a step
 * whose state the run did not read again (step-collector.ts' sameAsLastRead): what the step shows
 * is no longer vouched for.
 */
export class UnreadStepWriteError extends ForeignUseError {
  constructor(
    uses: readonly ForeignUse[],
    db: number,
    readonly step: number,
    clients: readonly OtherClient[] = [],
  ) {
    super(uses, db, clients);
    this.message = `another client wrote in this run's db ${uses[0]?.db ?? db} during step ${step} (${listUses(uses, clients)}), a step whose queues and cache the run did not read again (nothing of the run's changed them, the model says) but showed as it read them after the step before: that state is no longer vouched for, so the run stops; give it a server no one else writes to`;
    this.name = 'UnreadStepWriteError';
  }

  override named(clients: readonly OtherClient[]): UnreadStepWriteError {
    return new UnreadStepWriteError(this.uses, this.db, this.step, clients);
  }
}

/** Up to three uses, each with its client as CLIENT LIST names it where it could be had. */
function listUses(uses: readonly ForeignUse[], clients: readonly OtherClient[]): string {
  const who = (u: ForeignUse): string => {
    const known = clients.find((c) => c.addr === u.addr);
    return `${known ? describeClient({ ...known, cmd: '' }) : u.addr}: ${u.what}`;
  };
  return `${uses.slice(0, 3).map(who).join('; ')}${uses.length > 3 ? '; ...' : ''}`;
}
