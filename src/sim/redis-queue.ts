// Illuminate\Queue\RedisQueue, modelled: the same methods sending the same commands with the
// same arguments. Times come from the virtual clock (Laravel passes every time as an argument,
// never from Redis' clock), so a scenario spanning minutes replays in milliseconds. What it sends
// is Laravel's time(), whole seconds; a BLPOP's wait is measured on the exact instant.
import { secondsBetween } from './clock.ts';
import type { QueueKeys } from './keys.ts';
import { queueKeys } from './keys.ts';
import type { LuaScript, ScriptName } from './lua.ts';
import type { LaravelProfile } from './profiles/types.ts';
import { phpJsonEncode } from './php.ts';
import type { RedisPort } from './redis-port.ts';
import { RedisJob } from './redis-job.ts';
import type { ActorContext, StepDescription } from './scheduler.ts';

export interface QueueConfig {
  connectionName: string;
  /** The connection's default queue name. */
  default: string;
  retryAfter: number | null;
  blockFor: number | null;
  /** Client key prefix (KEYS and plain-command keys only, never ARGV). */
  prefix: string;
  /** config/queue.php migration_batch_size (9.23+; RedisConnector: `?? -1`, no limit). */
  migrationBatchSize?: number;
}

/** Collects the Laravel methods a step went through, for the narration. */
export type Trail = (method: string) => void;

/** How a BLPOP ended: the step where the worker wakes says so. */
export interface Wake {
  /** 'push': a push ended it (its :notify entry, 5.8+; the job itself, 5.6-5.7); 'timeout': nil after the wait. */
  by: 'push' | 'timeout';
  /** Virtual seconds it waited (to the millisecond). */
  waited: number;
  /** The connection's block_for. */
  blockFor: number;
  /** 'notify' (5.8+): the list of notifications, and a pop follows; 'ready' (5.6-5.7): the jobs themselves. */
  list: 'notify' | 'ready';
}

export class RedisQueue {
  /** RedisQueue::$secondaryQueueHadJob (11.27+): a later queue of --queue=a,b had a job since queue a was polled. */
  private secondaryQueueHadJob = false;
  /** How the last pop's BLPOP ended, until the worker takes it (takeWake); null if it did not block. */
  private wake: Wake | null = null;

  /** PHP's time() (InteractsWithTime::currentTime): whole unix seconds, checked. */
  private readonly time: () => number;

  constructor(
    private readonly port: RedisPort,
    readonly config: QueueConfig,
    readonly profile: LaravelProfile,
    /** Laravel's clock: ActorContext.time, never the exact instant. */
    time: () => number,
    private readonly trail: Trail = () => undefined,
    /** How a step this queue ends (a BLPOP) is described: the owner's describe keeps its method trail. */
    private readonly describeStep: (ctx: ActorContext, d: StepDescription) => void = (ctx, d) => ctx.describe(d),
  ) {
    this.time = () => {
      const t = time();
      if (!Number.isInteger(t)) throw new Error(`RedisQueue: Laravel's clock is whole seconds (time()), got ${t}`);
      return t;
    };
  }

  /**
   * QueueManager::connection($name) in the same process: that queue connection's RedisQueue on
   * this process's Redis connection (every queue connection of the skeleton uses the Redis
   * connection 'default', and RedisManager keeps one per name). How a worker pushes the next job
   * of a chain.
   */
  onConnection(config: QueueConfig): RedisQueue {
    return new RedisQueue(this.port, config, this.profile, this.time, this.trail, this.describeStep);
  }

  /** RedisQueue::getQueue plus the client prefix. */
  keys(queue?: string | null): QueueKeys {
    return queueKeys(queue || this.config.default, this.config.prefix);
  }

  /** The profile's text of LuaScripts::<name>; only a profile whose rules contradict its scripts lacks it. */
  private script(name: ScriptName): LuaScript {
    const script = this.profile.scripts[name];
    if (!script) throw new Error(`the Laravel ${this.profile.name} profile has no LuaScripts::${name}`);
    return script;
  }

  /** RedisQueue::availableAt($delay): an integer unix time. */
  availableAt(delay: number | null): number {
    return this.time() + (delay ?? 0);
  }

  /** RedisQueue::pushRaw: RPUSH queues:<q> <payload> (to 5.7), or the push script, which also notifies (5.8+). */
  async pushRaw(payload: string, queue?: string | null): Promise<void> {
    const keys = this.keys(queue);
    if (this.profile.queue.push === 'script') {
      this.trail('RedisQueue::pushRaw → LuaScripts::push');
      await this.port.evalIgnoringReply(this.script('push'), [keys.ready, keys.notify], [payload]);
      return;
    }
    this.trail('RedisQueue::pushRaw');
    await this.port.rpush(keys.ready, payload);
  }

  /** RedisQueue::laterRaw: ZADD queues:<q>:delayed <now+delay> <payload>, or (12.45+) the later script doing it. */
  async laterRaw(delay: number, payload: string, queue?: string | null): Promise<void> {
    const delayed = this.keys(queue).delayed;
    if (this.profile.queue.later === 'script') {
      this.trail('RedisQueue::laterRaw → LuaScripts::later');
      await this.port.evalIgnoringReply(this.script('later'), [delayed], [this.availableAt(delay), payload]);
      return;
    }
    this.trail('RedisQueue::laterRaw');
    await this.port.zadd(delayed, this.availableAt(delay), payload);
  }

  /**
   * RedisQueue::pop: migrate, then retrieve the next job (pop script, or BLPOP when block_for is set).
   * `index` is the queue's position in --queue=a,b (11.27+ pop($queue, $index)).
   */
  async pop(ctx: ActorContext, queue?: string | null, blockUntil?: number | null, index = 0): Promise<RedisJob | null> {
    this.trail('RedisQueue::pop');
    this.wake = null;
    const keys = this.keys(queue);
    await this.migrate(keys);
    // 11.27+: `$block = ! $this->secondaryQueueHadJob && $index == 0`; before, every pop may block.
    const block = !this.profile.worker.blockOnlyFirstQueue || (!this.secondaryQueueHadJob && index === 0);
    const [job, reserved] = await this.retrieveNextJob(ctx, keys, blockUntil ?? null, block);
    if (index === 0) this.secondaryQueueHadJob = false;
    if (reserved === null || job === null) return null;
    if (index > 0) this.secondaryQueueHadJob = true;
    return new RedisJob(this, job, reserved, this.config.connectionName, keys.name);
  }

  /** How the last pop's BLPOP ended (null: it did not block), once. */
  takeWake(): Wake | null {
    const w = this.wake;
    this.wake = null;
    return w;
  }

  /** RedisQueue::migrate: delayed jobs that are due, then (unless retry_after is null) expired reservations. */
  async migrate(keys: QueueKeys): Promise<void> {
    await this.migrateExpiredJobs(keys.delayed, keys);
    if (this.config.retryAfter !== null) await this.migrateExpiredJobs(keys.reserved, keys);
  }

  /**
   * RedisQueue::migrateExpiredJobs → LuaScripts::migrateExpiredJobs (5.8+: also :notify, one per job;
   * 9.23+: ARGV[2] = $this->migrationBatchSize, -1 unless configured).
   */
  async migrateExpiredJobs(from: string, to: QueueKeys): Promise<void> {
    this.trail('RedisQueue::migrateExpiredJobs → LuaScripts::migrateExpiredJobs');
    const keys = this.profile.queue.notify ? [from, to.ready, to.notify] : [from, to.ready];
    const argv = this.profile.queue.migrationBatchSize
      ? [this.time(), this.config.migrationBatchSize ?? -1]
      : [this.time()];
    await this.port.evalIgnoringReply(this.script('migrateExpiredJobs'), keys, argv);
  }

  /**
   * RedisQueue::retrieveNextJob. `blockUntil` bounds a blocking pop by the worker's alarm; `block`
   * false (11.27+, a queue other than the first) never waits on :notify.
   */
  async retrieveNextJob(
    ctx: ActorContext,
    keys: QueueKeys,
    blockUntil: number | null,
    block = true,
  ): Promise<[string | null, string | null]> {
    if (this.config.blockFor !== null && this.profile.worker.blockingPop === 'list') {
      return this.blockingPop(ctx, keys, blockUntil);
    }
    const popped = await this.popScript(keys);
    // 5.8+: only when the pop script found nothing, wait on :notify, then pop once more (no migrate).
    if (popped[0] === null && this.config.blockFor !== null && block && this.profile.worker.blockingPop === 'notify') {
      if (await this.blockOnNotify(ctx, keys, blockUntil)) return this.popScript(keys);
    }
    return popped;
  }

  private async popScript(keys: QueueKeys): Promise<[string | null, string | null]> {
    this.trail('RedisQueue::retrieveNextJob → LuaScripts::pop');
    const scriptKeys = this.profile.queue.notify
      ? [keys.ready, keys.reserved, keys.notify]
      : [keys.ready, keys.reserved];
    return popReply(await this.port.eval(this.script('pop'), scriptKeys, [this.availableAt(this.config.retryAfter)]));
  }

  /**
   * BLPOP queues:<q>:notify <block_for>: true when a notification arrived. Laravel 8's
   * retrieveNextJob then calls itself once with $block = false (one more pop script, no BLPOP); a
   * BLPOP that returns nil after block_for returns [null, null] without popping again.
   */
  private async blockOnNotify(ctx: ActorContext, keys: QueueKeys, blockUntil: number | null): Promise<boolean> {
    const blockFor = this.config.blockFor ?? 0;
    const pending = await this.port.blpop(keys.notify, blockFor);
    this.describeStep(ctx, {
      kind: 'block',
      title: `BLPOP ${keys.notify} ${blockFor}: the pop found nothing, so wait for a push's notification${blockFor === 0 ? ' (0: forever)' : ` for up to ${blockFor}s`}`,
      explain:
        'Since 5.8 every push and migrate RPUSHes a 1 onto :notify; the worker blocks on that list, not on the jobs. A notification makes it pop once more; if block_for runs out first, BLPOP returns nil and pop() returns nothing, with no second pop.',
    });
    const blockedAt = ctx.instant();
    const notified = (await ctx.block(pending, this.blockLimit(ctx, blockFor, blockUntil))) !== null;
    const waited = secondsBetween(blockedAt, ctx.instant());
    this.wake = { by: notified ? 'push' : 'timeout', waited, blockFor, list: 'notify' };
    return notified;
  }

  /** How long the BLPOP waits, from the exact instant: block_for, or less when the alarm (an instant) is due first. */
  private blockLimit(ctx: ActorContext, blockFor: number, blockUntil: number | null): number | null {
    // BLPOP's 0 means "forever"; the alarm, if armed, still ends the wait.
    let limit: number | null = blockFor === 0 ? null : blockFor;
    if (blockUntil !== null)
      limit = Math.min(limit ?? Infinity, Math.max(0, secondsBetween(ctx.instant(), blockUntil)));
    return limit;
  }

  /**
   * RedisQueue::blockingPop (5.6-5.7): BLPOP the ready list, then attempts++ and ZADD to :reserved
   * from PHP. json_encode keeps PHP's key order, unlike the pop script's cjson.
   */
  async blockingPop(
    ctx: ActorContext,
    keys: QueueKeys,
    blockUntil: number | null,
  ): Promise<[string | null, string | null]> {
    this.trail('RedisQueue::retrieveNextJob → RedisQueue::blockingPop');
    const blockFor = this.config.blockFor ?? 0;
    const pending = await this.port.blpop(keys.ready, blockFor);
    const limit = this.blockLimit(ctx, blockFor, blockUntil);
    this.describeStep(ctx, {
      kind: 'block',
      title: `BLPOP ${keys.ready} ${blockFor}: blocked until a job is pushed${blockFor === 0 ? ' (0: forever)' : ` or ${blockFor}s pass (block_for)`}`,
      explain:
        'The worker sleeps inside Redis instead of polling; MONITOR logs the BLPOP once, when it is issued, not when it is served.',
    });
    const blockedAt = ctx.instant();
    const popped = await ctx.block(pending, limit);
    const waited = secondsBetween(blockedAt, ctx.instant());
    this.wake = { by: popped ? 'push' : 'timeout', waited, blockFor, list: 'ready' };
    if (!popped) return [null, null];
    const raw = popped[1];
    const payload = JSON.parse(raw) as Record<string, unknown>;
    payload.attempts = (typeof payload.attempts === 'number' ? payload.attempts : 0) + 1;
    const reserved = phpJsonEncode(payload);
    await this.port.zadd(keys.reserved, this.availableAt(this.config.retryAfter), reserved);
    return [raw, reserved];
  }

  /** RedisQueue::size → LuaScripts::size: LLEN + ZCARD :delayed + ZCARD :reserved. */
  async size(queue?: string | null): Promise<number> {
    this.trail('RedisQueue::size → LuaScripts::size');
    const keys = this.keys(queue);
    return Number(await this.port.eval(this.script('size'), [keys.ready, keys.delayed, keys.reserved], []));
  }

  /**
   * RedisQueue::clear → LuaScripts::clear (8.4+; 4 keys, :notify too, since 8.9): deletes the
   * queue's keys, returns how many jobs they held.
   */
  async clear(queue?: string | null): Promise<number> {
    const clear = this.profile.scripts.clear;
    if (!clear) throw new Error(`RedisQueue::clear does not exist in Laravel ${this.profile.name} (it arrived in 8.4)`);
    this.trail('RedisQueue::clear → LuaScripts::clear');
    const keys = this.keys(queue);
    return Number(await this.port.eval(clear, [keys.ready, keys.delayed, keys.reserved, keys.notify], []));
  }

  /** RedisQueue::deleteReserved: ZREM queues:<q>:reserved <the reserved payload>. */
  async deleteReserved(queue: string, job: RedisJob): Promise<number> {
    this.trail('RedisQueue::deleteReserved');
    return this.port.zrem(this.keys(queue).reserved, job.getReservedJob());
  }

  /** RedisQueue::deleteAndRelease → LuaScripts::release: from :reserved to :delayed at now+delay. */
  async deleteAndRelease(queue: string, job: RedisJob, delay: number): Promise<void> {
    this.trail('RedisQueue::deleteAndRelease → LuaScripts::release');
    const keys = this.keys(queue);
    await this.port.evalIgnoringReply(
      this.script('release'),
      [keys.delayed, keys.reserved],
      [job.getReservedJob(), this.availableAt(delay)],
    );
  }
}

/** The pop script returns {job, reserved}; Lua false arrives as nil. */
function popReply(reply: unknown): [string | null, string | null] {
  if (!Array.isArray(reply)) return [null, null];
  const [job, reserved] = reply as unknown[];
  return [typeof job === 'string' ? job : null, typeof reserved === 'string' ? reserved : null];
}
