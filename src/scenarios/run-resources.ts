// What a run holds on the server, taken in order before its first step and given back in one
// place on every exit path: the connections (the hub), the MONITOR capture, and on someone else's
// server the dbs it claims (claim.ts: the queue's, and the cache store's when it is on Redis in
// another db), its permission probe, the watch for other clients in them, and the cleanup of its
// keys (also on Ctrl-C). A server the tool started is flushed instead, one run at a time.
import { randomBytes } from 'node:crypto';
import { registerCleanup } from '../cleanup.ts';
import type { Client, Sender } from '../redis/connections.ts';
import { ConnectionHub } from '../redis/connections.ts';
import { describeRunFailure, RedisRefusedError } from '../redis/errors.ts';
import type { DbClaims } from '../redis/claim.ts';
import { claimDatabases, MARK_KEY } from '../redis/claim.ts';
import { clientsAt } from '../redis/claim-clients.ts';
import type { MonitorLine } from '../redis/monitor-line.ts';
import { parsedLines } from '../redis/monitor-line.ts';
import type { TraceCapture } from '../redis/monitor.ts';
import { droppedCount, MonitorCapture } from '../redis/monitor.ts';
import type { PooledConnection } from '../redis/connection-pool.ts';
import { readyConnections, takeWaiting } from '../redis/connection-pool.ts';
import { ClusterCapture } from '../redis/cluster-capture.ts';
import type { ClusterClaim } from '../redis/cluster-claim.ts';
import { claimClusterKeys, SlotHeldError } from '../redis/cluster-claim.ts';
import { ClusterForeignUseError, ClusterWatch } from './cluster-watch.ts';
import type { ClusterNode } from '../redis/cluster-nodes.ts';
import { probeCacheKeys, probePermissions } from '../redis/permission-probe.ts';
import { preflight } from '../redis/preflight.ts';
import type { Expiry } from '../redis/virtual-expiry.ts';
import { VirtualExpiry } from '../redis/virtual-expiry.ts';
import type { ToolScript } from '../redis/tool-script.ts';
import type { QueueKeys } from '../sim/keys.ts';
import { allKeys } from '../sim/keys.ts';
import { ModelMismatchError } from '../sim/model/mismatch.ts';
import type { LaravelProfile } from '../sim/profiles/index.ts';
import type { ForeignUse } from './foreign-watch.ts';
import { ForeignUseError, ForeignWatch, mayWrite, UnreadStepWriteError } from './foreign-watch.ts';
import type { ProbePlan } from '../redis/permission-probe.ts';
import { plannedKeys } from './probe-plan.ts';
import type { ScenarioSpec } from './schema.ts';
import type { Timeline } from './timeline.ts';

/** A Redis server to run on (runner.ts' RunOptions.redis). */
export interface RedisTarget {
  url: string;
  /** The tool started this server: it may flush it. */
  owned: boolean;
  kind: string;
  version: string;
  describe(): string;
  /** A Redis Cluster (its masters, node1 first, and Laravel's seed): `url` is then the seed's. */
  cluster?: { nodes: readonly ClusterNode[]; seed: ClusterNode };
}

/** One of the scenario's dbs a run uses (RunResources' constructor): the queue's comes first. */
export interface RunDb {
  /** The scenario's db (`redis.database`, `redis.cache_database`). */
  db: number;
  /**
   * The keys the run may create there, which on someone else's server it marks as its own and
   * deletes at the end. The queue's db has its queues' keys (the permission probe's plan) as well.
   */
  keys?: readonly string[];
  /** The beginnings of keys it names only as it goes (`...:job-exceptions:`): claim.ts' prefixes. */
  prefixes?: readonly string[];
  /** The scenario's field that names it (`redis.cache_database`), for notes; absent for the queue's. */
  field?: string;
}

/** Servers the tool started that a run of this process is using (see RunResources). */
const flushing = new Set<string>();

export class RunResources {
  readonly hub: ConnectionHub;
  /** Set once open() has started it. */
  capture: TraceCapture | null = null;
  /** On someone else's server: the dbs this run holds exclusively (claim.ts). */
  claim: DbClaims | null = null;
  /** Someone else in the claimed dbs (foreign-watch.ts), from the claim's barrier to the run's end. */
  watch: ForeignWatch | null = null;
  /** On the run's own server (no claim): the watch of the steps whose state was not read again (vouchUnread). */
  private unreadWatch: ForeignWatch | null = null;
  /** On someone else's cluster: the slots this run holds (cluster-claim.ts). */
  clusterClaim: ClusterClaim | null = null;
  /** Someone else on those slots (cluster-watch.ts), from the claim to the run's end. */
  private clusterWatch: ClusterWatch | null = null;
  /**
   * The db the run's queue keys are in: the scenario's, or on someone else's server the one it
   * claimed (usedDb for any of the run's dbs).
   */
  db: number;
  /** The scenario's dbs, the queue's first (one, unless the cache store is on Redis in another). */
  readonly dbs: readonly RunDb[];
  /** The db Laravel's connections SELECT when they connect (null: none). */
  selectDb: number | null = null;
  /** Whether Laravel's client SELECTs a db when it connects (the profile's rule), once open() knows the client. */
  private selectsOnConnect: (db: number) => boolean = () => true;
  /**
   * Redis TTLs kept in virtual time (virtual-expiry.ts), for a run whose scenario has its cache
   * store on Redis (`virtualTtl`); null for any other run, which pays nothing for it.
   */
  expiry: VirtualExpiry | null = null;
  private readonly virtualTtl: boolean;
  /** config/database.php's `cache` connection's db in the scenario (REDIS_CACHE_DB). */
  private cacheDb = 1;
  /** The permission probe passed: from here on the run may write its keys. */
  private probed = false;
  /** On someone else's server our keys are deleted at the end, and on Ctrl-C too, once we know they are ours. */
  private unregisterCleanup: (() => void) | null = null;
  private readonly ownedUrl: string | null;

  /** Refuses a second run at once on a server the tool started (each flushes it). */
  constructor(
    private readonly redis: RedisTarget,
    private readonly plan: ProbePlan,
    /** The scenario's `redis.database`, or all its dbs (RunDb), the queue's first. */
    db: number | readonly RunDb[],
    o: {
      /** The scenario sets TTLs (its cache store is on Redis): keep them in virtual time. */
      virtualTtl?: boolean;
      /** How many connections it may take from those earlier runs handed on (connection-pool.ts): its likely use. */
      handedOn?: number;
    } = {},
  ) {
    this.virtualTtl = o.virtualTtl === true;
    const dbs = typeof db === 'number' ? [{ db }] : db;
    if (dbs.length === 0) throw new Error('a run uses at least one db');
    this.dbs = dbs;
    db = dbs[0]!.db;
    if (redis.owned && flushing.has(redis.url)) {
      throw new RedisRefusedError(
        `a run is already going on ${redis.describe()}, which lqsim started and flushes for each run: await one run before the next, give each its own acquireRedis(), or run them in parallel on a shared server through REDIS_URL (each then claims a db of its own)`,
      );
    }
    this.ownedUrl = redis.owned ? redis.url : null;
    if (this.ownedUrl !== null) flushing.add(this.ownedUrl);
    this.db = db;
    // On a server the tool started, the connections an earlier run handed on (connection-pool.ts):
    // one is the observer, one takes MONITOR, the rest wait for the actors.
    const handedOn = redis.owned && redis.cluster === undefined ? takeWaiting(redis.url, o.handedOn) : [];
    const observer = handedOn.pop();
    this.monitorHandedOn = handedOn.pop()?.client ?? null;
    this.actorsHandedOn = handedOn;
    this.hub = new ConnectionHub(redis.url, randomBytes(4).toString('hex'), redis.cluster?.nodes ?? [], observer);
  }

  /** open()'s SCRIPT LOADs (its `scripts`), answered: what a kept step's end awaits before its reads go ahead. */
  scriptsLoaded: Promise<unknown> = Promise.resolve();

  /** A connection an earlier run handed on, for MONITOR (null: none, or MonitorCapture has it). */
  private monitorHandedOn: Client | null;
  /** Connections an earlier run handed on, for the actors, until open() readies them (the hub then has them). */
  private actorsHandedOn: PooledConnection[];

  /**
   * Everything before the first step: the connections, a server that can give a faithful trace,
   * MONITOR, on someone else's server a db of its own and the permission probe (notices and
   * `database` go on the timeline), then the keyspace: flushed, or its keys found empty.
   */
  async open(o: {
    spec: ScenarioSpec;
    profile: LaravelProfile;
    queues: QueueKeys[];
    timeline: Timeline;
    /** The tool's scripts a step's end sends ahead (ToolScript), loaded with the first commands. */
    scripts?: readonly ToolScript[];
  }): Promise<void> {
    const { spec, profile, timeline } = o;
    const { hub } = this;
    const client = spec.redis.client ?? profile.defaultClient;
    if (this.redis.cluster !== undefined) {
      await hub.start();
      return this.openCluster(o.queues);
    }
    // The server is refused before any key is touched when it cannot give a faithful trace: the
    // observer's checks go out in one round trip, with its own address asked for and, on a server
    // the tool started, FLUSHALL (nothing in it is anyone's, refused or not). MONITOR, which
    // touches nothing, starts meanwhile on a connection of its own (the checks are no step's
    // lines) and is stopped again when the server is refused. On a server the tool started, the
    // connections an earlier run handed on are put back in db 0 before MONITOR starts
    // (connection-pool.ts).
    if (this.redis.owned) hub.handConnectionsOn();
    const actors = this.actorsHandedOn.splice(0);
    const readied = actors.length === 0 ? Promise.resolve() : readyConnections(actors).then((c) => hub.reserve(c));
    const observing = hub.startObserver().then(() => hub.observer);
    const handedOn = this.monitorHandedOn ?? undefined;
    this.monitorHandedOn = null; // MonitorCapture.start closes it if it fails
    // The count MONITOR's loss is told apart by goes out with the observer's checks (below, in
    // the same turn); MONITOR waits for it and for the actors' connections in db 0.
    const dropped = observing.then(droppedCount);
    const monitoring = MonitorCapture.start(this.redis.url, observing, handedOn, { dropped, after: readied });
    let flushed: Promise<unknown> | null = null;
    const checking = observing.then(async (observer) => {
      const checks = preflight(observer);
      if (this.redis.owned) {
        flushed = observer.sendCommand(['FLUSHALL']);
        flushed.catch(() => undefined); // awaited by prepareKeyspace, after the checks
      }
      // Before MONITOR: their texts are on no monitor's line (ToolScript.load; NOPERM: EVAL later).
      this.scriptsLoaded = Promise.all((o.scripts ?? []).map((s) => s.load(observer)));
      this.scriptsLoaded.catch(() => undefined); // a kept step's end that needs them throws it
      await Promise.all([hub.observerAddressed(), checks]);
    });
    const [checked, started] = await Promise.allSettled([checking, monitoring]);
    if (checked.status === 'rejected') {
      if (started.status === 'fulfilled') await started.value.stop();
      throw checked.reason;
    }
    if (started.status === 'rejected') throw started.reason;
    const capture = started.value;
    this.capture = capture;
    if (!this.redis.owned) {
      // The heartbeat and the end go out whatever a command sent ahead did (afterAhead).
      const selects = (d: number): boolean => profile.worker.selectOnConnect(client, d);
      const held = await claimDatabases(
        hub.afterAhead,
        this.dbs.map((d, i) => ({
          db: d.db,
          keys: this.keysOf(i),
          prefixes: d.prefixes,
          avoid: (to: number) => selects(d.db) && !selects(to),
        })),
        hub.runId,
        {
          own: new Set([String(await hub.afterAhead.sendCommand(['CLIENT', 'ID']))]),
          settle: () => capture.barrier(hub.observer),
        },
      );
      this.claim = held;
      // The claimed dbs were free: the run's keys in them are its own, to delete at the end.
      this.unregisterCleanup = registerCleanup(() => held.release(this.probed));
      for (const c of held.claims) {
        timeline.notices!.push(...c.notices);
        if (c.moved) timeline.notices!.push(movedNotice(c, this.fieldOf(c.wanted)));
      }
      this.db = held.usedDb(this.db);
      const moves = this.dbs
        .filter((d, i) => this.dbs.findIndex((e) => e.db === d.db) === i)
        .map((d, i) => {
          const used = held.usedDb(d.db);
          return {
            scenario: d.db,
            used,
            ...(selects(used) && !selects(d.db) ? { extraSelect: true } : {}),
            ...(i > 0 && d.field !== undefined ? { field: d.field } : {}),
          };
        });
      const [queue, ...others] = moves;
      timeline.database = others.length === 0 ? queue! : { ...queue!, others };
      // Before the first write: a user who may not run what the run sends is refused now.
      await probePermissions(hub.observer, this.plan);
      await this.probeCacheKeys();
      await this.keepTtls(spec.start, timeline)?.probe();
      this.probed = true;
    }
    this.keepTtls(spec.start, timeline);
    this.selectsOnConnect = (d) => profile.worker.selectOnConnect(client, d);
    this.selectDb = this.selectDbFor(this.dbs[0]!.db);
    this.cacheDb = spec.redis.cache_database;
    if (this.db !== 0 || this.claim !== null) await hub.observer.sendCommand(['SELECT', String(this.db)]);
    await prepareKeyspace(hub, flushed, o.queues);
    // Someone else in the claimed db, from the claim's barrier (claim.ts) to the run's end.
    this.watch = this.claim === null ? null : new ForeignWatch(hub, new Set([hub.observerAddr]), this.usedDbs());

    // What MONITOR saw before the claim's barrier (another run ending in the db, say) is no
    // step's, and what came after it is only watched: the first step's lines start here.
    if (this.claim !== null) this.watchLines(await capture.barrier(hub.observer));
  }

  /**
   * open() on a cluster: every node checked and watched (MONITOR on each), and its keyspace
   * flushed: a cluster the tool started. Laravel's cluster client sends no SELECT (a cluster has
   * db 0 alone).
   */
  private async openCluster(queues: QueueKeys[]): Promise<void> {
    const { hub } = this;
    const nodes = this.redis.cluster!.nodes;
    for (const observer of hub.observers()) await preflight(observer);
    this.selectsOnConnect = () => false;
    this.selectDb = null;
    const startCapture = async (): Promise<ClusterCapture> =>
      (this.capture = await ClusterCapture.start(
        nodes.map((n) => ({ label: n.label, url: n.url, observer: hub.observerOf(n.label) })),
      ));
    if (this.redis.owned) {
      await startCapture();
      await Promise.all(hub.observers().map((o) => o.sendCommand(['FLUSHALL'])));
      return;
    }
    // Someone else's cluster: the slots of the run's keys are claimed first (each key found absent,
    // no client blocked on any node; waiting its turn behind another lqsim run), so MONITOR holds
    // nothing of the wait. Then another client's use of those slots ends the run: watched from the
    // barrier after the claim (a use in the moment between the claim and that barrier is not seen).
    const keys = [...new Set([...plannedKeys(this.plan), ...queues.flatMap(allKeys)])];
    const claim = await claimInTurn(() =>
      claimClusterKeys(nodes, (n) => hub.afterAheadOf(n.label), hub.runId, { keys }),
    );
    this.clusterClaim = claim;
    this.unregisterCleanup = registerCleanup(() => claim.release(this.probed ? undefined : []));
    this.probed = true;
    const capture = await startCapture();
    await capture.barrier();
    this.clusterWatch = new ClusterWatch(hub, hub.observerKeys, new Set(claim.slots.map((s) => s.slot)));
  }

  /**
   * The cache store's keys (beyond the queue's) in each db the run holds, tried before its first
   * write; a key it names as it goes by one that begins as it will.
   */
  private async probeCacheKeys(): Promise<void> {
    const queueKeys = new Set(plannedKeys(this.plan));
    for (const [i, d] of this.dbs.entries()) {
      const keys = [
        ...(d.keys ?? []).filter((k) => !(i === 0 && queueKeys.has(k))),
        ...(d.prefixes ?? []).map((p) => `${p}lqsim-permission-probe`),
      ];
      await probeCacheKeys(this.hub.observer, this.usedDb(d.db), keys);
    }
  }

  /** The TTL service on the run's dbs, made once (with `virtualTtl`; null without). */
  private keepTtls(start: number, timeline: Timeline): VirtualExpiry | null {
    if (!this.virtualTtl || this.expiry !== null) return this.expiry;
    this.expiry = new VirtualExpiry({
      observer: this.hub.observer,
      dbs: this.usedDbs(),
      start,
      observerAddr: this.hub.observerAddr,
      onWarning: (m) => timeline.warnings.push(m),
      flushAhead: () => this.hub.flushBeforeNext(),
      isActor: (client) => this.hub.ownerOf(client) !== undefined,
    });
    return this.expiry;
  }

  /** The db the run uses for the scenario's db `scenarioDb` (the one it claimed on someone else's server). */
  usedDb(scenarioDb: number): number {
    return this.claim?.usedDb(scenarioDb) ?? scenarioDb;
  }

  /**
   * The db a Laravel connection on the scenario's db `scenarioDb` SELECTs when it connects (the
   * one the run uses for it), or null when its client sends none (phpredis under 5.x on db 0):
   * `selectDb` is the queue's; the cache's connection asks with `redis.cache_database`.
   */
  selectDbFor(scenarioDb: number): number | null {
    const used = this.usedDb(scenarioDb);
    return this.selectsOnConnect(used) ? used : null;
  }

  /** The dbs the run uses, each once, the queue's first. */
  usedDbs(): number[] {
    return [...new Set(this.dbs.map((d) => this.usedDb(d.db)))];
  }

  /** The keys the run marks as its own in its `i`-th db (the queue's: its queues' keys too). */
  private keysOf(i: number): string[] {
    const own = this.dbs[i]!.keys ?? [];
    return i === 0 ? [...new Set([...plannedKeys(this.plan), ...own])] : [...own];
  }

  /** The scenario's field that names `db` (`redis.database` for the queue's). */
  private fieldOf(db: number): string {
    return db === this.dbs[0]!.db ? 'redis.database' : (this.dbs.find((d) => d.db === db)?.field ?? 'redis.database');
  }

  /** The db a connection of config/database.php is in (where the model keeps its keys): the one the run uses. */
  dbFor(connection: 'default' | 'cache'): number {
    return connection === 'cache' ? this.usedDb(this.cacheDb) : this.db;
  }

  /** Whether the run is on a server the tool started (no one else's keys are in it). */
  get owned(): boolean {
    return this.redis.owned;
  }

  /** The db a connection of config/database.php SELECTs when it connects (null: none). */
  selectFor(connection: 'default' | 'cache'): number | null {
    return connection === 'cache' ? this.selectDbFor(this.cacheDb) : this.selectDb;
  }

  /**
   * Throws when another client used a claimed db on these MONITOR lines (a step's, in order), or
   * the claim was lost; the TTL service reads them too.
   */
  watchLines(lines: readonly string[]): void {
    if (this.expiry !== null) for (const l of parsedLines(lines)) this.expiry.see(l);
    if (this.clusterWatch !== null) {
      const lost = this.clusterClaim?.lost() ?? null;
      if (lost !== null) throw new RedisRefusedError(`${lost}; another run may be writing to it`);
      const uses = parsedLines(lines).flatMap((l) => this.clusterWatch!.push(l) ?? []);
      if (uses.length > 0) throw new ClusterForeignUseError(uses);
    }
    if (this.claim === null) return;
    const lost = this.claim.lost();
    if (lost !== null) throw new RedisRefusedError(`${lost}; another run may be writing to it`);
    const uses = foreignUses(this.watch, lines);
    if (uses.length > 0) throw new ForeignUseError(uses, this.db);
  }

  /**
   * A step whose state the run did not read again (step-collector.ts' sameAsLastRead): another
   * client's write in the run's dbs on its lines ends the run. With a claim, its watch has ended
   * the run at any use already (watchLines); on the run's own server, reads are let be (someone
   * looking with redis-cli changes nothing).
   */
  vouchUnread(lines: readonly string[], step: number): void {
    if (this.claim !== null || this.clusterWatch !== null) return;
    this.unreadWatch ??= new ForeignWatch(this.hub, new Set([this.hub.observerAddr]), this.usedDbs());
    const writes = foreignUses(this.unreadWatch, lines).filter(mayWrite);
    if (writes.length > 0) throw new UnreadStepWriteError(writes, this.db, step);
  }

  /** One MONITOR line as it comes (a streaming run's): the watch's use of it, and the TTL service's. */
  seeLine(line: MonitorLine): ForeignUse | null {
    this.expiry?.see(line);
    return this.watch?.push(line) ?? null;
  }

  /** After a step at `t`: its TTLs taken into virtual time (none without `virtualTtl`). */
  async afterStep(t: number, sender?: Sender): Promise<void> {
    await this.expiry?.afterStep(t, sender);
  }

  /** Whether the lines seen since the last sweep may have given a TTL (virtual-expiry.ts' sweepNeeded). */
  sweepNeeded(): boolean {
    return this.expiry?.sweepNeeded() ?? false;
  }

  /**
   * Reads the MONITOR lines so far into the watch and the TTL service (VirtualExpiry.beforeInstant):
   * the run's collector's catchUp, set by the runner.
   */
  catchUp: () => Promise<void> = async () => undefined;

  /** Scheduler's beforeInstant: what expired in virtual time before `at` deleted (set only with `virtualTtl`). */
  get beforeInstant(): ((at: number) => Promise<void>) | undefined {
    const expiry = this.expiry;
    return expiry === null ? undefined : (at) => expiry.beforeInstant(at, () => this.catchUp());
  }

  /** The keys the run keeps a virtual expiry for, each in its scenario db (the state pane's). */
  expiries(): Array<Expiry & { used: number }> {
    const scenarioOf = new Map(this.dbs.map((d) => [this.usedDb(d.db), d.db]));
    return (this.expiry?.expiries() ?? []).map((e) => ({ ...e, db: scenarioOf.get(e.db) ?? e.db, used: e.db }));
  }

  /** Whether a run that goes on to `plan` needs commands the permission probe did not try. */
  needsAnotherProbe(plan: ProbePlan): boolean {
    return this.claim !== null && JSON.stringify(plan) !== JSON.stringify(this.plan);
  }

  /**
   * The run's failure as it is reported: a reply the model did not expect, on a claimed db, is
   * told as the other client that caused it, named as CLIENT LIST names it.
   */
  async failure(e: unknown): Promise<string> {
    const cause = this.capture === null ? e : await clientBehind(e, this.watch, this.capture, this.hub, this.db);
    return describeRunFailure(await withClientNames(cause, this.hub));
  }

  /**
   * Gives everything back, whatever happened: MONITOR, the claimed db's keys (a cleanup that fails
   * is never silent: it becomes the run's error, or a warning after another), the connections, and
   * the server for the next run.
   */
  async release(timeline: Timeline): Promise<void> {
    // A run that ended well on a server the tool started hands its connections on, MONITOR's too
    // once out of MONITOR mode (RESET: Redis 6.2+); MONITOR stops first either way.
    const handOn = this.redis.owned && timeline.error === undefined;
    let monitor: Client | null = null;
    if (handOn && this.capture instanceof MonitorCapture && resets(this.redis.version))
      monitor = this.capture.handOff();
    else await this.capture?.stop().catch(() => undefined);
    for (const c of this.actorsHandedOn.splice(0)) c.client.destroy(); // open() never took them
    this.monitorHandedOn?.destroy();
    this.monitorHandedOn = null;
    const clusterClaim = this.clusterClaim;
    if (this.unregisterCleanup && clusterClaim !== null) {
      this.unregisterCleanup();
      const failed = await clusterClaim.release().then(
        () => null,
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      );
      if (failed !== null) {
        if (timeline.error === undefined) timeline.error = failed;
        else timeline.warnings.push(failed);
      }
    }
    const claim = this.claim;
    if (this.unregisterCleanup && claim !== null) {
      this.unregisterCleanup();
      // Sent whatever failed before (claim.ts, afterAhead).
      const failed = await claim.release(this.probed).then(
        () => null,
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      );
      if (failed !== null) {
        // A refused DEL keeps the mark, which lists them for a later run (claim.ts).
        const later = /^(DEL|KEYS) /.test(failed)
          ? ` (a later run finds them by the mark ${MARK_KEY} and removes them)`
          : '';
        const used = this.usedDbs();
        const keys = [...new Set(this.dbs.flatMap((_d, i) => this.keysOf(i)))];
        const left = `the run's keys could not be deleted from db ${used.join(' and db ')} (${failed}); they are left there: ${keys.join(', ')}${later}`;
        if (timeline.error === undefined) timeline.error = left;
        else timeline.warnings.push(left);
      }
    }
    // MONITOR has stopped: a run that ended well hands its connections on (a server the tool started).
    await this.hub.close({ handOn, also: monitor === null ? [] : [monitor] }).catch(() => undefined);
    if (this.ownedUrl !== null) flushing.delete(this.ownedUrl);
  }
}

/**
 * The notice of a scenario db the run could not use as it is: the queue's as it always read, the
 * cache's naming its field.
 */
function movedNotice(c: { wanted: number; db: number; movedBecause: string }, field: string): string {
  const which = field === 'redis.database' ? `db ${c.wanted}` : `db ${c.wanted} (${field})`;
  return `${which} ${c.movedBecause} on this server (REDIS_URL), so the run used the empty db ${c.db}: Laravel's SELECT shows ${c.db}`;
}

/** The uses of the run's db by other clients on these MONITOR lines. */
function foreignUses(watch: ForeignWatch | null, lines: readonly string[]): ForeignUse[] {
  if (watch === null) return [];
  return parsedLines(lines).flatMap((l) => watch.push(l) ?? []);
}

/**
 * A reply the model did not expect on a claimed db: the client that caused it (an app's worker
 * that took the job) ran its command before that reply, so its MONITOR line is on the way or
 * already in; one more barrier lets the watch read it. The run then fails naming that client,
 * with the mismatch as what it did, not with a guess at the cause.
 */
async function clientBehind(
  e: unknown,
  watch: ForeignWatch | null,
  capture: TraceCapture,
  hub: ConnectionHub,
  db: number,
): Promise<unknown> {
  if (!(e instanceof ModelMismatchError) || watch === null) return e;
  // A streaming run's sink reads the lines as they come (the watch keeps what it saw); a run that
  // keeps its lines for the step's barrier gets them here.
  await capture.barrier(hub.observer, 2000).then(
    (lines) => foreignUses(watch, lines),
    () => [],
  );
  return watch.seen.length === 0 ? e : new ForeignUseError(watch.seen, db, [], e);
}

/** Another client in the run's db, named as CLIENT LIST names it when it is still connected. */
async function withClientNames(e: unknown, hub: ConnectionHub): Promise<unknown> {
  if (!(e instanceof ForeignUseError)) return e;
  const text = await hub.afterAhead.sendCommand(['CLIENT', 'LIST']).catch(() => '');
  return e.named(
    clientsAt(
      String(text),
      e.uses.map((u) => u.addr),
    ),
  );
}

/**
 * How long a run on someone else's cluster waits for a slot another lqsim run holds (test files in
 * parallel on one cluster, with the same queue names): they take turns, and past this the run is
 * refused naming the holder.
 */
export const SLOT_WAIT_MS = 60_000;

/** The cluster claim, tried again while another run holds a slot it needs, up to SLOT_WAIT_MS. */
async function claimInTurn<T>(claim: () => Promise<T>, waitMs = SLOT_WAIT_MS): Promise<T> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      return await claim();
    } catch (e) {
      if (!(e instanceof SlotHeldError) || Date.now() >= until) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * A server the tool started is flushed (`flushed`: its FLUSHALL, sent with the checks); on anyone
 * else's, the scenario's keys must be empty.
 */
async function prepareKeyspace(
  hub: ConnectionHub,
  flushed: Promise<unknown> | null,
  queues: QueueKeys[],
): Promise<void> {
  if (flushed !== null) {
    await flushed;
    return;
  }
  const keys = queues.flatMap(allKeys);
  const exists = await Promise.all(keys.map((k) => hub.observer.sendCommand(['EXISTS', k])));
  const taken = keys.filter((_k, i) => Number(exists[i]) > 0);
  if (taken.length > 0) {
    throw new RedisRefusedError(
      `${taken.join(', ')} already ${taken.length === 1 ? 'holds' : 'hold'} data on this server (REDIS_URL); use an empty db or a redis.prefix`,
    );
  }
}

/** Whether a server of `version` has RESET (6.2+), which takes a connection out of MONITOR mode. */
function resets(version: string | undefined): boolean {
  const [major = 0, minor = 0] = (version ?? '').split('.').map(Number);
  return major > 6 || (major === 6 && minor >= 2);
}
