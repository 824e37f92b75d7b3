// What a capture says about the app that made it, before any job's story: which Laravel versions
// send exactly its scripts, the key prefix, the dbs and queues, `retry_after` (the pop script's
// ARGV[1] is `now + retry_after`, and MONITOR's timestamp is that now), `block_for` (the BLPOP
// timeout), and which connections dispatch and which work (told apart by what they send).
// Every figure keeps the capture lines it rests on. Pure: fed the entries capture.ts reads.
import type { ProfileName } from '../sim/profiles/index.ts';
import type { CapturedLine } from './capture.ts';
import type { CacheCommand } from './cache-store.ts';
import type { KnownScript, Operation } from './recognise.ts';
import { profilesSendingAll, recogniseCommand } from './recognise.ts';
import type { ClusterConfiguration } from './cluster-configuration.ts';
import { ClusterReader, isClusterSlots } from './cluster-configuration.ts';

/** A value seen in the capture, with the lines it was seen on (the first few). */
export interface Evidence<T> {
  value: T;
  lines: number[];
}

export type Role = 'dispatcher' | 'worker' | 'both' | 'other';

export interface Connection {
  /** MONITOR's client address ("127.0.0.1:63792"; in a cluster capture "node2/127.0.0.1:63792"). */
  client: string;
  /** A cluster capture's node, whose address it is (explain/cluster-capture.ts). */
  node?: string;
  /** It sent CLUSTER SLOTS: a cluster client's seed connection (phpredis' RedisCluster sends nothing else on it). */
  clusterSeed?: true;
  role: Role;
  /** How many commands of each queue operation it sent. */
  operations: Partial<Record<Operation, number>>;
  /** Commands that are not Laravel's queue (cache, sessions, another app). */
  other: number;
  firstLine: number;
  lastLine: number;
  /** How many of the cache store's own commands it sent (the restart signal, maxExceptions, RateLimiter; not locks). */
  cacheStore?: number;
  /** Its phpredis SELECT (the db it chose as it connected), when in the capture. */
  selectLine?: number;
  /**
   * A cache connection (one that sends the cache store's commands and no queue command) read as a
   * worker's: the worker connection whose commands its own follow (a worker checks the restart
   * signal, counts an exception, right after its own queue commands), with those lines.
   */
  cacheOf?: { client: string; lines: number[] };
}

/** How the cache store shows in the capture (explain/cache-store.ts). */
export interface CacheConfiguration {
  /** What stands before Laravel's names in the cache's keys: the connection's prefix and the cache's. */
  prefixes: Array<Evidence<string>>;
  /** The dbs of the cache store's own commands (the restart signal, maxExceptions, RateLimiter). */
  dbs: Array<Evidence<number>>;
  /** Which connection carries the queue's locks: `queue` (the queue's own TCP connection), `cache`, or `other`. */
  locks: Array<Evidence<{ on: 'queue' | 'cache' | 'other'; db: number }>>;
  /**
   * The md5 names the capture shows as a limiter's (with its `:timer`, in RateLimiter's add script
   * or DurationLimiter's): only their bare GET, INCRBY, SETEX and DEL are read as a limiter's,
   * since any cache key may end in an md5.
   */
  limiters: ReadonlySet<string>;
}

export interface CaptureConfiguration {
  /** The profiles whose scripts are all the capture's (empty: none fits; all: no script seen). */
  profiles: ProfileName[];
  /** Laravel's scripts seen, each with the profiles that send its text. */
  scripts: Array<Evidence<KnownScript>>;
  prefixes: Array<Evidence<string>>;
  dbs: Array<Evidence<number>>;
  queues: Array<Evidence<string>>;
  /** Seconds, one value per distinct figure seen (a config change, or two connections). */
  retryAfter: Array<Evidence<number>>;
  /**
   * How far the workers' clock (the `now` their migrate scripts carry) is from Redis' (MONITOR's
   * time), in seconds, where more than a second: a simulation such as lqsim's own runs, or a
   * skewed host. Times the app sent are then not comparable with MONITOR's.
   */
  clockApart: Array<Evidence<number>>;
  blockFor: Array<Evidence<number>>;
  connections: Connection[];
  cache: CacheConfiguration;
  /** How many MONITOR lines (commands, those scripts ran included). */
  commands: number;
  /** First and last MONITOR time ("1489802272.491060"), or null for an empty capture. */
  span: { first: string; last: string } | null;
  /** A Redis Cluster's capture (a file per node, or one showing CLUSTER SLOTS): explain/cluster-configuration.ts. */
  cluster?: ClusterConfiguration;
}

/** The largest retry_after taken as one (30 days); beyond, the clocks disagree. */
const MAX_RETRY_AFTER = 30 * 86_400;

/** Whether a pop's `until - now` reads as retry_after, i.e. the worker's clock is Redis'. */
export function isRetryAfter(seconds: number): boolean {
  return seconds > 0 && seconds <= MAX_RETRY_AFTER;
}

/** Limiter names kept (a capture of any size). */
const LIMITERS = 4096;

/** How many lines an Evidence keeps: enough to cite, bounded for a capture of any size. */
const CITED = 5;

class Tally<T> {
  private readonly seen = new Map<T, number[]>();
  /** @param maxValues the distinct values kept (the first ones seen); the rest are not. */
  constructor(private readonly maxValues = Infinity) {}
  add(value: T, line: number): void {
    const lines = this.seen.get(value);
    if (lines === undefined) {
      if (this.seen.size < this.maxValues) this.seen.set(value, [line]);
    } else if (lines.length < CITED) lines.push(line);
  }
  list(): Array<Evidence<T>> {
    return [...this.seen].map(([value, lines]) => ({ value, lines }));
  }
}

const DISPATCHING: ReadonlySet<Operation> = new Set(['push', 'later']);
const WORKING: ReadonlySet<Operation> = new Set([
  'pop',
  'migrate delayed',
  'migrate reserved',
  'reserve',
  'release',
  'delete',
  'block',
]);

/** Reads the configuration out of a capture's lines, in one pass, in bounded memory per distinct value. */
export function captureConfiguration(
  lines: Iterable<CapturedLine>,
  o: { nodes?: readonly string[] } = {},
): CaptureConfiguration {
  const reader = new ConfigurationReader(o);
  for (const entry of lines) reader.add(entry);
  return reader.result();
}

/** The configuration, read line by line (the first pass over a capture). */
export class ConfigurationReader {
  // By text (one KnownScript per text): two versions' migrate scripts are two entries.
  private readonly scripts = new Map<KnownScript, number[]>();
  private readonly prefixes = new Tally<string>();
  private readonly dbs = new Tally<number>();
  private readonly queues = new Tally<string>();
  private readonly retryAfter = new Tally<number>();
  // One value per poll on a simulated clock: the first few tell it.
  private readonly clockApart = new Tally<number>(3);
  private readonly blockFor = new Tally<number>();
  private readonly connections = new Map<string, Connection>();
  private span: CaptureConfiguration['span'] = null;
  private commands = 0;
  /** Each connection's `now` from the migrate script it sent last, until its next other command. */
  private readonly pollNow = new Map<string, number>();
  private readonly cachePrefixes = new Tally<string>(16);
  private readonly cacheDbs = new Tally<number>(16);
  private readonly limiters = new Set<string>();
  /** Lock commands: by connection, their db and lines (a connection's role is known at the end). */
  private readonly lockLines = new Map<string, { db: number; lines: number[] }>();
  /** Per cache-sending connection: the connections whose command came right before each of its own (votes, the first lines cited). */
  private readonly votes = new Map<string, Map<string, { count: number; lines: number[] }>>();
  /** The last line of another connection than the one before it (lua aside): who spoke before. */
  private last: { client: string; lineNo: number } | undefined;
  private before: { client: string; lineNo: number } | undefined;
  /** A cache connection's first command, waiting for the next connection to start (a worker connects its queue's after). */
  private firstCache: { client: string; lineNo: number } | undefined;
  private readonly cluster: ClusterReader;

  /** @param o.nodes a cluster capture's node names, one per file (explain/cluster-capture.ts). */
  constructor(o: { nodes?: readonly string[] } = {}) {
    this.cluster = new ClusterReader(o.nodes ?? []);
  }

  add(entry: CapturedLine): void {
    const { lineNo, line } = entry;
    this.commands++;
    if (this.span === null) this.span = { first: line.time, last: line.time };
    else this.span.last = line.time;
    if (line.client === 'lua') return; // part of the EVAL before it, which is counted
    const r = recogniseCommand(line.args, line.client, line.argc);
    this.cluster.add(entry, r);
    let c = this.connections.get(line.client);
    if (c === undefined) {
      c = { client: line.client, role: 'other', operations: {}, other: 0, firstLine: lineNo, lastLine: lineNo };
      if (entry.node !== undefined) c.node = entry.node;
      this.connections.set(line.client, c);
    }
    c.lastLine = lineNo;
    if (this.last?.client !== line.client) {
      this.before = this.last;
      // The connection that starts right after a cache connection's first command: its worker's queue connection.
      if (this.firstCache !== undefined && r?.op === 'select' && this.firstCache.client !== line.client)
        this.vote(this.firstCache.client, line.client, this.firstCache.lineNo);
      this.firstCache = undefined;
    }
    this.last = { client: line.client, lineNo };
    if (r === undefined) {
      c.other++;
      if (isClusterSlots(line.args)) c.clusterSeed = true;
      return;
    }
    c.operations[r.op] = (c.operations[r.op] ?? 0) + 1;
    if (r.op === 'select') {
      c.selectLine ??= lineNo;
      return;
    }
    if (r.cache !== undefined) {
      this.cacheCommand(r.cache, line.client, line.db, lineNo, c);
      return;
    }
    this.dbs.add(line.db, lineNo);
    if (r.key !== undefined) {
      this.prefixes.add(r.key.prefix, lineNo);
      this.queues.add(r.key.queue, lineNo);
    }
    if (r.script !== undefined) {
      const cited = this.scripts.get(r.script);
      if (cited === undefined) this.scripts.set(r.script, [lineNo]);
      else if (cited.length < CITED) cited.push(lineNo);
    }
    // RedisQueue::pop → migrate, then retrieveNextJob: each migrate script's ARGV[1] is the
    // worker's now (currentTime(), a whole second), and the pop script's ARGV[1] (5.6-5.7 with
    // block_for: PHP's ZADD score) availableAt($this->retryAfter), that now plus retry_after. The
    // worker's own clock, so it reads true on any clock; without a migrate before the pop (a
    // capture that begins mid-poll), MONITOR's time stands for now when it is within reach.
    const script = r.op === 'migrate delayed' || r.op === 'migrate reserved';
    if (script) {
      const now = Number(line.args[3 + Number(line.args[2])]);
      if (Number.isInteger(now)) {
        this.pollNow.set(line.client, now);
        const apart = now - Math.floor(Number(line.time));
        if (Math.abs(apart) > 1) this.clockApart.add(apart, lineNo);
      }
    }
    if (r.op === 'pop' || r.op === 'reserve') {
      const until = Number(r.op === 'pop' ? line.args[3 + Number(line.args[2])] : line.args[2]);
      const now = this.pollNow.get(line.client);
      if (Number.isInteger(until)) {
        const seconds = until - (now ?? Math.floor(Number(line.time)));
        if (now !== undefined ? seconds >= 0 : isRetryAfter(seconds)) this.retryAfter.add(seconds, lineNo);
      }
    }
    if (!script && this.pollNow.size > 0) this.pollNow.delete(line.client);
    // ...and with block_for, BLPOP's timeout is block_for itself.
    if (r.op === 'block') {
      const timeout = Number(line.args.at(-1));
      if (Number.isFinite(timeout)) this.blockFor.add(timeout, lineNo);
    }
  }

  private cacheCommand(cache: CacheCommand, client: string, db: number, lineNo: number, c: Connection): void {
    const { action, key } = cache;
    if (key.kind === 'limiter' && (key.timer || action === 'limiter-hit' || action.startsWith('duration')))
      if (this.limiters.size < LIMITERS) this.limiters.add(key.name);
    // A DurationLimiter's keys (its EVALs, and DurationLimiter::clear's DEL) carry the connection's prefix only.
    if (key.kind !== 'limiter' && !action.startsWith('duration') && action !== 'limiter-clear')
      this.cachePrefixes.add(key.prefix, lineNo);
    if (action.startsWith('lock')) {
      let locks = this.lockLines.get(client);
      if (locks === undefined && this.lockLines.size < 4096) this.lockLines.set(client, (locks = { db, lines: [] }));
      if (locks !== undefined && locks.lines.length < CITED) locks.lines.push(lineNo);
      return;
    }
    // The cache store's own connection: the restart signal, maxExceptions, the cache RateLimiter.
    // (A bare md5 key counts once the capture has shown it as a limiter's: any cache key may end in one.)
    const limiter = key.kind !== 'limiter' || key.timer || this.limiters.has(key.name);
    if (!action.startsWith('duration') && action !== 'limiter-clear' && limiter) {
      this.cacheDbs.add(db, lineNo);
      c.cacheStore = (c.cacheStore ?? 0) + 1;
    }
    if (action === 'restart-write') return; // queue:restart's own process
    if (c.cacheStore === 1) this.firstCache = { client, lineNo };
    if (this.before !== undefined && this.last?.client === client && this.before.lineNo < lineNo)
      this.vote(client, this.before.client, lineNo);
  }

  private vote(cacheClient: string, other: string, lineNo: number): void {
    let byOther = this.votes.get(cacheClient);
    if (byOther === undefined) {
      if (this.votes.size >= 4096) return;
      this.votes.set(cacheClient, (byOther = new Map()));
    }
    const votes = byOther.get(other);
    if (votes === undefined) {
      if (byOther.size < 16) byOther.set(other, { count: 1, lines: [lineNo] });
    } else {
      votes.count++;
      if (votes.lines.length < CITED) votes.lines.push(lineNo);
    }
  }

  /** Each cache connection's worker: the worker connection most of its commands follow. */
  private pairCacheConnections(): void {
    for (const [client, byOther] of this.votes) {
      const c = this.connections.get(client);
      if (c === undefined || c.role !== 'other') continue;
      let best: { client: string; count: number; lines: number[] } | undefined;
      let tie = false;
      for (const [other, { count, lines }] of byOther) {
        if (this.connections.get(other)?.role !== 'worker') continue;
        if (best === undefined || count > best.count) [best, tie] = [{ client: other, count, lines }, false];
        else if (count === best.count) tie = true;
      }
      if (best !== undefined && !tie) c.cacheOf = { client: best.client, lines: [...best.lines] };
    }
  }

  private cacheResult(): CacheConfiguration {
    const locks = new Tally<{ on: 'queue' | 'cache' | 'other'; db: number }>();
    const kinds = new Map<string, { on: 'queue' | 'cache' | 'other'; db: number }>();
    for (const [client, { db, lines }] of this.lockLines) {
      const c = this.connections.get(client);
      const on =
        c === undefined
          ? 'other'
          : c.role !== 'other'
            ? 'queue'
            : c.cacheOf !== undefined || (c.cacheStore ?? 0) > 0
              ? 'cache'
              : 'other';
      const id = `${on}:${db}`;
      let kind = kinds.get(id);
      if (kind === undefined) kinds.set(id, (kind = { on, db }));
      for (const l of lines) locks.add(kind, l);
    }
    return {
      prefixes: this.cachePrefixes.list(),
      dbs: this.cacheDbs.list(),
      locks: locks.list().map((e) => ({ value: e.value, lines: e.lines.sort((a, b) => a - b) })),
      limiters: this.limiters,
    };
  }

  result(): CaptureConfiguration {
    for (const c of this.connections.values()) c.role = roleOf(c.operations, c.client);
    this.pairCacheConnections();
    const cluster = this.cluster.result();
    return {
      profiles: profilesSendingAll(this.scripts.keys()),
      scripts: [...this.scripts].map(([script, cited]) => ({ value: script, lines: cited })),
      prefixes: this.prefixes.list(),
      dbs: this.dbs.list(),
      queues: this.queues.list(),
      retryAfter: this.retryAfter.list(),
      clockApart: this.clockApart.list(),
      blockFor: this.blockFor.list(),
      connections: [...this.connections.values()],
      cache: this.cacheResult(),
      commands: this.commands,
      span: this.span === null ? null : { ...this.span },
      ...(cluster === undefined ? {} : { cluster }),
    };
  }
}

/**
 * A dispatcher pushes; a worker migrates, pops, deletes, releases, and may push too (a chain's
 * next job, a job that dispatches others). Only a unix socket's one address, behind which web
 * requests and workers are alike, is both.
 */
function roleOf(ops: Connection['operations'], client: string): Role {
  const has = (set: ReadonlySet<Operation>) => Object.keys(ops).some((op) => set.has(op as Operation));
  const dispatches = has(DISPATCHING);
  const works = has(WORKING);
  if (works) return dispatches && client.startsWith('unix:') ? 'both' : 'worker';
  return dispatches ? 'dispatcher' : 'other';
}
