// What a run holds on the server, taken in order before its first step and given back in one
// place on every exit path: the connections (the hub), the MONITOR capture, and on someone else's
// server the db it claims (claim.ts), its permission probe, the watch for other clients in it, and
// the cleanup of its keys (also on Ctrl-C). A server the tool started is flushed instead, one run
// at a time.
import { randomBytes } from 'node:crypto';
import { registerCleanup } from '../cleanup.ts';
import { ConnectionHub } from '../redis/connections.ts';
import { describeRunFailure, RedisRefusedError } from '../redis/errors.ts';
import type { DbClaim } from '../redis/claim.ts';
import { claimDatabase, MARK_KEY } from '../redis/claim.ts';
import { clientsAt } from '../redis/claim-clients.ts';
import { isMonitorOk, parseMonitorLine } from '../redis/monitor-line.ts';
import { MonitorCapture } from '../redis/monitor.ts';
import { probePermissions } from '../redis/permission-probe.ts';
import { preflight } from '../redis/preflight.ts';
import type { QueueKeys } from '../sim/keys.ts';
import { allKeys } from '../sim/keys.ts';
import { ModelMismatchError } from '../sim/model/mismatch.ts';
import type { LaravelProfile } from '../sim/profiles/index.ts';
import type { ForeignUse } from './foreign-watch.ts';
import { ForeignUseError, ForeignWatch } from './foreign-watch.ts';
import type { ProbePlan } from '../redis/permission-probe.ts';
import { plannedKeys } from './probe-plan.ts';
import type { ScenarioSpec } from './schema.ts';
import { usesRedisCache } from './cache-config.ts';
import type { Timeline } from './timeline.ts';

/** A Redis server to run on (runner.ts' RunOptions.redis). */
export interface RedisTarget {
  url: string;
  /** The tool started this server: it may flush it. */
  owned: boolean;
  kind: string;
  version: string;
  describe(): string;
}

/** Servers the tool started that a run of this process is using (see RunResources). */
const flushing = new Set<string>();

export class RunResources {
  readonly hub: ConnectionHub;
  /** Set once open() has started it. */
  capture: MonitorCapture | null = null;
  /** On someone else's server: the db this run holds exclusively (claim.ts). */
  claim: DbClaim | null = null;
  /** Someone else in the claimed db (foreign-watch.ts), from the claim's barrier to the run's end. */
  watch: ForeignWatch | null = null;
  /** The db the run's keys are in: the scenario's, or on someone else's server the one it claimed. */
  db: number;
  /** The db Laravel's connections SELECT when they connect (null: none). */
  selectDb: number | null = null;
  /** The same for config/database.php's `cache` connection (the cache store's, REDIS_CACHE_DB). */
  private cacheSelectDb: number | null = null;
  /** The `cache` connection's db (REDIS_CACHE_DB). */
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
    db: number,
  ) {
    if (redis.owned && flushing.has(redis.url)) {
      throw new RedisRefusedError(
        `a run is already going on ${redis.describe()}, which lqsim started and flushes for each run: await one run before the next, give each its own acquireRedis(), or run them in parallel on a shared server through REDIS_URL (each then claims a db of its own)`,
      );
    }
    this.ownedUrl = redis.owned ? redis.url : null;
    if (this.ownedUrl !== null) flushing.add(this.ownedUrl);
    this.db = db;
    this.hub = new ConnectionHub(redis.url, randomBytes(4).toString('hex'));
  }

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
  }): Promise<void> {
    const { spec, profile, timeline } = o;
    const { hub } = this;
    const client = spec.redis.client ?? profile.defaultClient;
    if (!this.redis.owned && usesRedisCache(spec))
      throw new RedisRefusedError(
        `this scenario keeps its cache on Redis (cache.store: redis), whose keys a run on a shared server (REDIS_URL) cannot claim yet: run it on a server of its own (unset REDIS_URL)`,
      );
    await hub.start();
    // Refuse a server that cannot give a faithful trace before touching any key.
    await preflight(hub.observer);
    const capture = await MonitorCapture.start(this.redis.url, hub.observer);
    this.capture = capture;
    if (!this.redis.owned) {
      // The heartbeat and the end go out whatever a command sent ahead did (afterAhead).
      const held = await claimDatabase(hub.afterAhead, this.db, hub.runId, {
        keys: plannedKeys(this.plan),
        own: new Set([String(await hub.afterAhead.sendCommand(['CLIENT', 'ID']))]),
        settle: () => capture.barrier(hub.observer),
        avoid: (d) =>
          profile.worker.selectOnConnect(client, spec.redis.database) && !profile.worker.selectOnConnect(client, d),
      });
      this.claim = held;
      // The claimed db was free: the run's keys in it are its own, to delete at the end.
      this.unregisterCleanup = registerCleanup(() => held.release(this.probed));
      timeline.notices!.push(...held.notices);
      if (held.moved)
        timeline.notices!.push(
          `db ${this.db} ${held.movedBecause} on this server (REDIS_URL), so the run used the empty db ${held.db}: Laravel's SELECT shows ${held.db}`,
        );
      this.db = held.db;
      timeline.database = {
        scenario: spec.redis.database,
        used: this.db,
        ...(profile.worker.selectOnConnect(client, this.db) &&
        !profile.worker.selectOnConnect(client, spec.redis.database)
          ? { extraSelect: true }
          : {}),
      };
      // Before the first write: a user who may not run what the run sends is refused now.
      await probePermissions(hub.observer, this.plan);
      this.probed = true;
    }
    this.selectDb = profile.worker.selectOnConnect(client, this.db) ? this.db : null;
    const cacheDb = spec.redis.cache_database;
    this.cacheDb = cacheDb;
    this.cacheSelectDb = profile.worker.selectOnConnect(client, cacheDb) ? cacheDb : null;
    if (this.db !== 0 || this.claim !== null) await hub.observer.sendCommand(['SELECT', String(this.db)]);
    await prepareKeyspace(hub, this.redis.owned, o.queues);
    // Someone else in the claimed db, from the claim's barrier (claim.ts) to the run's end.
    this.watch = this.claim === null ? null : new ForeignWatch(hub, new Set([hub.observerAddr]), this.db);
    // What MONITOR saw before the claim's barrier (another run ending in the db, say) is no
    // step's, and what came after it is only watched: the first step's lines start here.
    if (this.claim !== null) this.watchLines(await capture.barrier(hub.observer));
  }

  /** The db a connection of config/database.php is in (where the model keeps its keys). */
  dbFor(connection: 'default' | 'cache'): number {
    return connection === 'cache' ? this.cacheDb : this.db;
  }

  /** The db a connection of config/database.php SELECTs when it connects (null: none). */
  selectFor(connection: 'default' | 'cache'): number | null {
    return connection === 'cache' ? this.cacheSelectDb : this.selectDb;
  }

  /** Throws when another client used the claimed db on these MONITOR lines, or the claim was lost. */
  watchLines(lines: readonly string[]): void {
    if (this.claim === null) return;
    const lost = this.claim.lost();
    if (lost !== null) throw new RedisRefusedError(`${lost}; another run may be writing to it`);
    const uses = foreignUses(this.watch, lines);
    if (uses.length > 0) throw new ForeignUseError(uses, this.db);
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
    await this.capture?.stop().catch(() => undefined);
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
        const later = failed.startsWith('DEL ')
          ? ` (a later run finds them by the mark ${MARK_KEY} and removes them)`
          : '';
        const left = `the run's keys could not be deleted from db ${this.db} (${failed}); they are left there: ${plannedKeys(this.plan).join(', ')}${later}`;
        if (timeline.error === undefined) timeline.error = left;
        else timeline.warnings.push(left);
      }
    }
    await this.hub.close().catch(() => undefined);
    if (this.ownedUrl !== null) flushing.delete(this.ownedUrl);
  }
}

/** The uses of the run's db by other clients on these MONITOR lines. */
function foreignUses(watch: ForeignWatch | null, lines: readonly string[]): ForeignUse[] {
  if (watch === null) return [];
  return lines.filter((l) => !isMonitorOk(l)).flatMap((l) => watch.push(parseMonitorLine(l)) ?? []);
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
  capture: MonitorCapture,
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

/** A server the tool started is flushed; on anyone else's, the scenario's keys must be empty. */
async function prepareKeyspace(hub: ConnectionHub, owned: boolean, queues: QueueKeys[]): Promise<void> {
  if (owned) {
    await hub.observer.sendCommand(['FLUSHALL']);
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
