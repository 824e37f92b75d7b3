// Illuminate\Queue\Worker, modelled (1/2): one job. Worker::process runs the popped job; the
// markJobAsFailedIf* rules, handleJobException, calculateBackoff and failJob decide whether it is
// released or failed. The loop, the alarm and the kill are worker.ts; what the steps say is
// worker-narration.ts.
import { later, secondsBetween } from './clock.ts';
import type { JobException } from './exceptions.ts';
import { caughtByWorker, DEFAULT_EXCEPTION, exception, manuallyFailed, maxAttemptsExceeded } from './exceptions.ts';
import type { RedisJob } from './redis-job.ts';
import type { QueueConfig } from './redis-queue.ts';
import type { ActorContext, StepDescription } from './scheduler.ts';
import type { WorkerState } from './state.ts';
import type { AttemptBehaviour, WorkerEnv, WorkerOptions } from './worker-input.ts';
import { attemptBehaviour, backoffOption } from './worker-input.ts';
import * as narration from './worker-narration.ts';
import type { Cache, ProcessRedis } from './cache.ts';
import type { JobClassRules, MiddlewareOutcome } from './job-middleware.ts';
import { MiddlewarePipeline } from './job-middleware.ts';

/** A PHP exception in flight (thrown by the job or by the worker's own checks). */
class Thrown extends Error {
  constructor(
    /** What the worker handles (and failed_jobs records). */
    readonly exception: JobException,
    /** What handle() threw, when that is not what the worker handles (5.x wraps an Error). */
    readonly original: JobException = exception,
    /** The step that threw it has told it (markJobAsFailedIfAlreadyExceedsMaxAttempts). */
    readonly described = false,
  ) {
    super(exception.message);
  }
}

/** How a worker process ended: on its own (SIGTERM, --once) or killed by the alarm. */
export type Outcome = 'done' | 'killed';
/** How Worker::process ended: normally, by the alarm, or with the job's exception handled. */
export type ProcessOutcome = Outcome | 'threw';

export abstract class JobHandling {
  readonly state: WorkerState;
  /**
   * The worker's queue connection as its process read config/queue.php when it started (QueueManager
   * resolves a connection once per process and keeps it): a new process reads it again.
   */
  protected config: QueueConfig;
  /** Every connection as that process read it: where it pushes a chain's next job. */
  private processConnections: Record<string, QueueConfig>;
  /** When the job being processed was reserved, in Laravel's seconds (its :reserved score is this + retry_after). */
  protected poppedAt: number | null = null;
  /** Laravel methods called since the last step was described: that step's methods trail. */
  private readonly methods: string[] = [];
  /** What a failure or a release since the last step did to the job's chain (the step's explanation says it). */
  private chainNote: string | null = null;
  /** The running process's cache (Worker::setCache); null: no process. */
  protected cache: Cache | null = null;
  /** The running process's Redis connections (null: no process). */
  protected redis: ProcessRedis | null = null;

  constructor(
    /** queue:work's options; a restart with other options (a stop entry's `restart`) replaces them. */
    public spec: WorkerOptions,
    protected readonly env: WorkerEnv,
  ) {
    const config = env.connections[spec.connection];
    if (!config) throw new Error(`worker ${spec.name}: unknown connection ${spec.connection}`);
    this.config = config;
    this.processConnections = { ...env.connections };
    this.state = {
      name: spec.name,
      generation: 0,
      status: { kind: 'starting' },
      connection: spec.connection,
      queue: spec.queue ?? config.default,
      options: optionsState(spec),
      retryAfter: config.retryAfter,
      blockFor: config.blockFor,
    };
  }

  /**
   * A new process boots: it reads config/queue.php as it is now (a `config` entry may have changed
   * it since the last one started). Its queue is --queue, or the connection's queue as read now.
   */
  protected readConfig(): void {
    this.processConnections = { ...this.env.connections };
    this.config = this.processConnections[this.spec.connection] ?? this.config;
    this.state.queue = this.spec.queue ?? this.config.default;
    this.state.retryAfter = this.config.retryAfter;
    this.state.blockFor = this.config.blockFor;
  }

  /** SIGALRM: the handler Worker::registerTimeoutHandler installed, which ends in Worker::kill. */
  protected abstract timeoutHandler(ctx: ActorContext, job: RedisJob | null): Promise<'killed'>;

  /** Worker::process → markJobAsFailedIfAlreadyExceedsMaxAttempts → fire → handleJobException. */
  protected async process(ctx: ActorContext, job: RedisJob, alarmAt: number | null): Promise<ProcessOutcome> {
    this.trail('Worker::process');
    const label = this.label(job);
    try {
      await this.markJobAsFailedIfAlreadyExceedsMaxAttempts(ctx, job);
      // $job->fire() → CallQueuedHandler::call: a ShouldBeUniqueUntilProcessing job's lock is
      // released before any middleware (8.x), or once the middleware let it through, just
      // before handle() (the pipeline's `then`, 11.40+); then the job goes through its middleware.
      const rules = this.rulesOf(job);
      if (rules.unique !== null || rules.middleware.length > 0) this.trail('Job::fire → CallQueuedHandler::call');
      const untilProcessing = rules.unique?.untilProcessing === true;
      const beforeHandle = this.env.profile.cache.untilProcessing === 'before-handle';
      if (untilProcessing && !beforeHandle) await this.ensureUniqueJobLockIsReleased(rules);
      const pipeline = this.pipelineFor(ctx, job, rules);
      const ended = pipeline === null ? null : await pipeline.enter();
      if (ended !== null) {
        await this.endedByMiddleware(ctx, job, rules, ended);
        return 'done';
      }
      if (untilProcessing && beforeHandle) await this.ensureUniqueJobLockIsReleased(rules);
      // The job's handle() runs for its virtual duration.
      const attempt = job.attempts();
      const behaviour = attemptBehaviour(this.env.behaviourOf(job.getJobId(), attempt));
      this.env.registry.attemptStarted(job.getJobId(), this.spec.name);
      const finishAt = later(ctx.instant(), behaviour.run);
      this.state.status = {
        kind: 'running',
        job: label,
        since: ctx.instant(),
        attempt,
        ends: finishAt,
        ...(alarmAt !== null ? { alarm: alarmAt } : {}),
      };
      if (behaviour.run > 0) {
        // The alarm interrupts handle() if it is due before handle() returns.
        const killAt = alarmAt !== null && alarmAt <= finishAt ? alarmAt : null;
        this.trail('Job::fire → CallQueuedHandler::call');
        this.describe(
          ctx,
          narration.processing(this.setup, {
            label,
            attempt,
            run: behaviour.run,
            now: ctx.instant(),
            killAt,
            alarmAt,
            poppedAt: this.poppedAt,
            once: this.spec.once,
          }),
        );
        if (killAt !== null) {
          await ctx.sleep(secondsBetween(ctx.instant(), killAt));
          return await this.timeoutHandler(ctx, job);
        }
        await ctx.sleep(behaviour.run);
      }
      this.env.registry.attemptEnded(job.getJobId());
      await this.finishAttempt(ctx, job, behaviour, { pipeline, rules });
    } catch (e) {
      if (!(e instanceof Thrown)) throw e;
      await this.handleJobException(ctx, job, e);
      return 'threw';
    }
    return 'done';
  }

  /**
   * What handle() did, then the middleware's finally blocks (each lock released by its owner), then
   * CallQueuedHandler::call: the unique lock released unless the job was released, the chain's next
   * job unless it failed or was released, and its delete unless deleted or released.
   */
  private async finishAttempt(
    ctx: ActorContext,
    job: RedisJob,
    b: AttemptBehaviour,
    mw: { pipeline: MiddlewarePipeline | null; rules: JobClassRules },
  ): Promise<void> {
    const label = this.label(job);
    this.state.status = { kind: 'done', job: label };
    const afterHandle = async () => {
      await mw.pipeline?.returned();
      if (!job.released && mw.rules.unique?.untilProcessing === false)
        await this.ensureUniqueJobLockIsReleased(mw.rules);
    };
    switch (b.outcome) {
      case 'throw': {
        // `throw new X($message)` in handle(); Worker::process catches it (5.x: an Error wrapped).
        const thrown = exception(b.message ?? '', b.exception ?? DEFAULT_EXCEPTION);
        // It passes through the middleware (a lock's finally); one may take it upon itself
        // (ThrottlesExceptions releases the job): CallQueuedHandler::call then goes on as after a
        // return, and the Worker sees none.
        const taken = (await mw.pipeline?.threw(thrown)) ?? null;
        if (taken !== null) {
          await this.tookException(ctx, job, mw.rules, taken, thrown);
          return;
        }
        throw new Thrown(caughtByWorker(thrown, this.env.profile.worker.caughtError), thrown);
      }
      case 'release': {
        this.trail('InteractsWithQueue::release → RedisJob::release');
        await job.release(b.release ?? 0);
        await afterHandle();
        this.noteChain(job, narration.chainWaits);
        this.describe(ctx, narration.releasedByJob(this.setup, label, b.release ?? 0, ctx.time()));
        return;
      }
      case 'fail': {
        // $this->fail(new X($message)), or $this->fail() with neither.
        const given =
          b.message === undefined && b.exception === undefined
            ? undefined
            : exception(b.message ?? '', b.exception ?? DEFAULT_EXCEPTION);
        this.trail('InteractsWithQueue::fail');
        if (this.env.profile.worker.manualFail === 'failed-method-only') {
          // 5.3: Job::failed($e) only calls the job's failed(); handle() returns and
          // CallQueuedHandler::call deletes the job, as after a success.
          this.trail('Job::failed → CallQueuedHandler::call → RedisJob::delete');
          const removed = await job.delete();
          this.settle(job, 'succeeded');
          this.describe(ctx, narration.failedByJob(label, given, { onlyFailedMethod: removed }));
          return;
        }
        await this.failJob(ctx, job, manuallyFailed(given));
        await afterHandle();
        this.describe(ctx, narration.failedByJob(label, given));
        return;
      }
      case 'delete': {
        this.trail('InteractsWithQueue::delete → RedisJob::delete');
        const removed = await job.delete();
        await afterHandle();
        this.settle(job, 'deleted');
        // Deleted is not failed: CallQueuedHandler::call still dispatches the next job of a chain.
        const next = await this.ensureNextJobInChainIsDispatched(ctx, job);
        this.describe(ctx, narration.deletedByJob(label, removed, next));
        return;
      }
      case 'succeed': {
        await afterHandle();
        const next = await this.ensureNextJobInChainIsDispatched(ctx, job);
        this.trail('CallQueuedHandler::call → RedisJob::delete');
        const removed = await job.delete();
        this.settle(job, 'succeeded');
        this.describe(ctx, narration.succeeded(label, removed, next));
        return;
      }
    }
  }

  /**
   * CallQueuedHandler::ensureNextJobInChainIsDispatched → Queueable::dispatchNextJobInChain (the
   * job returned and was neither failed nor released): the next job of its chain is pushed from
   * this worker's own Redis connection, before the job's own delete. Null when it has no chain left.
   */
  private async ensureNextJobInChainIsDispatched(
    ctx: ActorContext,
    job: RedisJob,
  ): Promise<narration.ChainPush | null> {
    const bus = this.env.bus;
    if (bus === undefined || job.failed || job.released || bus.dispatcher.chainOf(job.getJobId()).length === 0)
      return null;
    this.trail('CallQueuedHandler::ensureNextJobInChainIsDispatched → Queueable::dispatchNextJobInChain');
    this.trail('Bus\\Dispatcher::dispatchToQueue');
    const cache = this.cache;
    const next = await bus.dispatcher.dispatchNextJobInChain(
      ctx,
      job.getJobId(),
      (name) => {
        const config = this.processConnections[name ?? bus.defaultConnection];
        if (!config) throw new Error(`the chain names an unknown connection ${name ?? bus.defaultConnection}`);
        return job.getRedisQueue().onConnection(config);
      },
      // dispatch($next): a PendingDispatch, so a unique next job takes its lock in this process's cache.
      cache === null ? undefined : { cache, store: (n) => cache.store(n), holder: (k) => this.env.locks.holder(k) },
    );
    if (next === null) return null;
    const keys = job.getRedisQueue().keys(next.queue);
    const dropped = next.dropped[0];
    return {
      label: next.labels[0] ?? '',
      ...(dropped !== undefined && next.labels.length === 0 ? { dropped: dropped.key } : {}),
      key: next.delay === null ? keys.ready : keys.delayed,
      delay: next.delay,
      rest: next.rest,
      worker: this.spec.name,
    };
  }

  /** Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts: the check that catches a job a timeout killed. */
  private async markJobAsFailedIfAlreadyExceedsMaxAttempts(ctx: ActorContext, job: RedisJob): Promise<void> {
    const maxTries = job.maxTries() ?? this.spec.tries;
    const timeoutAt = job.timeoutAt();
    if (timeoutAt && ctx.time() <= timeoutAt) return;
    if (!timeoutAt && (maxTries === 0 || job.attempts() <= maxTries)) return;
    this.trail('Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts');
    // Its outcome (the fail's ZREM) is sent in this step: the worker no longer holds the job.
    this.state.status = { kind: 'done', job: this.label(job) };
    const e = maxAttemptsExceeded(this.env.profile.worker.maxAttemptsMessage(job.resolveName()));
    await this.failJob(ctx, job, e);
    this.describe(
      ctx,
      narration.failedBeforeRunning(this.setup, {
        label: this.label(job),
        attempts: job.attempts(),
        maxTries,
        timeoutAt,
        previous: this.env.registry.lastAttempt(job.getJobId()),
      }),
    );
    throw new Thrown(e, e, true);
  }

  /** Worker::handleJobException: fail if this was the last try, otherwise release with --delay. */
  private async handleJobException(ctx: ActorContext, job: RedisJob, thrown: Thrown): Promise<void> {
    this.trail('Worker::handleJobException');
    const rules = this.env.profile.worker;
    const label = this.label(job);
    const maxTries = job.maxTries() ?? this.spec.tries;
    let failedBy: narration.FailedBy | null = null;
    if (!job.failed) {
      // 5.3 calls it markJobAsFailedIfHasExceededMaxAttempts.
      this.trail(
        rules.jobLevelOptions
          ? 'Worker::markJobAsFailedIfWillExceedMaxAttempts'
          : 'Worker::markJobAsFailedIfHasExceededMaxAttempts',
      );
      const byAttempts = await this.markJobAsFailedIfWillExceedMaxAttempts(ctx, job, thrown.exception);
      const byExceptions = await this.markJobAsFailedIfWillExceedMaxExceptions(ctx, job, thrown.exception);
      failedBy = byAttempts ?? byExceptions;
    }
    // markJobAsFailedIfAlreadyExceedsMaxAttempts has told its own step.
    const alreadyDescribed = thrown.described;
    const caught = { thrown: thrown.original, handled: thrown.exception };
    if (!job.deleted && !job.released && !job.failed) {
      const delay = this.calculateBackoff(job);
      this.trail('RedisJob::release');
      await job.release(delay);
      this.noteChain(job, narration.chainWaits);
      this.describe(
        ctx,
        narration.releasedAfterException(this.setup, {
          label,
          ...caught,
          delay,
          backoff: rules.backoff === 'list',
          attempts: job.attempts(),
          maxTries,
          // 8.15+: while retryUntil is set, --tries / $tries do not fail the job.
          retryUntil: rules.retryUntilIgnoresTries ? job.timeoutAt() : null,
        }),
      );
    } else if (!alreadyDescribed) {
      this.describe(
        ctx,
        narration.failedAfterException(this.setup, {
          label,
          ...caught,
          failedBy: failedBy ?? { rule: 'tries', attempts: job.attempts(), maxTries },
        }),
      );
    }
  }

  /** The job is neither failed nor deleted yet: a failJob now is what fails it. */
  private static unsettled(job: RedisJob): boolean {
    return !job.failed && !job.deleted;
  }

  /** Worker::markJobAsFailedIfWillExceedMaxAttempts: fail now if this was the last try (or retryUntil passed). */
  protected async markJobAsFailedIfWillExceedMaxAttempts(
    ctx: ActorContext,
    job: RedisJob,
    e: JobException,
  ): Promise<narration.FailedBy | null> {
    const maxTries = job.maxTries() ?? this.spec.tries;
    const retryUntil = job.timeoutAt();
    let failedBy: narration.FailedBy | null = null;
    if (retryUntil && retryUntil <= ctx.time()) {
      if (JobHandling.unsettled(job)) failedBy = { rule: 'retryUntil', at: retryUntil };
      await this.failJob(ctx, job, e);
    }
    // 8.15+ (#35214): with retryUntil set, --tries no longer decides.
    const triesApply = !(this.env.profile.worker.retryUntilIgnoresTries && retryUntil);
    if (triesApply && maxTries > 0 && job.attempts() >= maxTries) {
      if (JobHandling.unsettled(job)) failedBy = { rule: 'tries', attempts: job.attempts(), maxTries };
      await this.failJob(ctx, job, e);
    }
    return failedBy;
  }

  /**
   * Worker::markJobAsFailedIfWillExceedMaxExceptions (7.x+): a per-uuid counter in the cache
   * (Queue/Worker.php@v8.83.29:539-556): GET; if falsy, put 0 for a day; increment; at the max, forget it and fail.
   */
  protected async markJobAsFailedIfWillExceedMaxExceptions(
    ctx: ActorContext,
    job: RedisJob,
    e: JobException,
  ): Promise<narration.FailedBy | null> {
    const uuid = job.uuid();
    const maxExceptions = job.maxExceptions();
    const cache = this.cache;
    if (uuid === null || maxExceptions === null || cache === null) return null;
    const name = `job-exceptions:${uuid}`;
    // PHP's `! $value`: null and "0" are falsy. put(..., Carbon::now()->addDay()) is 86400 seconds.
    const seen = await cache.get(name);
    if (seen === null || seen === '' || seen === '0') await cache.put(name, '0', 86400);
    const count = await cache.increment(name);
    if (maxExceptions > count) return null;
    await cache.forget(name);
    this.trail('Worker::markJobAsFailedIfWillExceedMaxExceptions');
    const failedBy = JobHandling.unsettled(job) ? ({ rule: 'maxExceptions', max: maxExceptions } as const) : null;
    await this.failJob(ctx, job, e);
    return failedBy;
  }

  /** Worker::markJobAsFailedIfItShouldFailOnTimeout (8.x): the job's $failOnTimeout. */
  protected async markJobAsFailedIfItShouldFailOnTimeout(
    ctx: ActorContext,
    job: RedisJob,
    e: JobException,
  ): Promise<narration.FailedBy | null> {
    if (!job.shouldFailOnTimeout()) return null;
    this.trail('Worker::markJobAsFailedIfItShouldFailOnTimeout');
    const failedBy = JobHandling.unsettled(job) ? ({ rule: 'failOnTimeout' } as const) : null;
    await this.failJob(ctx, job, e);
    return failedBy;
  }

  /**
   * Worker::calculateBackoff (8.x): the job's backoff() or WorkerOptions::$backoff ("1,5,10"),
   * exploded on commas and indexed by attempts - 1, the last repeating (Worker.php:591-601 in
   * 8.83: `(int) ($backoff[$job->attempts() - 1] ?? last($backoff))`); to 5.7, --delay.
   */
  private calculateBackoff(job: RedisJob): number {
    if (this.env.profile.worker.backoff === 'delay') return this.spec.delay;
    const list = (job.backoff() ?? backoffOption(this.spec)).split(',');
    return Math.trunc(Number(list[job.attempts() - 1] ?? list[list.length - 1])) || 0;
  }

  /** Worker::failJob → FailingJob::handle: mark failed, delete from :reserved, log to failed_jobs (JobFailed). */
  private async failJob(ctx: ActorContext, job: RedisJob, e: JobException): Promise<void> {
    job.markAsFailed();
    if (job.deleted) return;
    this.trail('FailingJob::handle → RedisJob::delete');
    await job.delete();
    // Job::failed → CallQueuedHandler::failed: the unique lock, unless it went before processing.
    const rules = this.rulesOf(job);
    if (rules.unique?.untilProcessing === false) await this.ensureUniqueJobLockIsReleased(rules);
    // The job's chain ends with it (CallQueuedHandler::failed runs the chain's catch callbacks: none here).
    this.noteChain(job, narration.chainStops);
    const instance = this.env.registry.get(job.getJobId());
    this.env.registry.recordFailure(instance, {
      id: job.getJobId(),
      connection: job.connectionName,
      queue: job.queue,
      exception: e,
      // failed_jobs.failed_at is Date::now(), stored to the second.
      failedAt: ctx.time(),
      payload: job.getRawBody(),
    });
  }

  /** The job class's middleware() and ShouldBeUnique. */
  private rulesOf(job: RedisJob): JobClassRules {
    return this.env.jobRulesOf(job.getJobId());
  }

  /**
   * CallQueuedHandler::ensureUniqueJobLockIsReleased: the lock UniqueLock took at dispatch, by its
   * key: whoever holds it (forceRelease, a plain DEL: 8.x), or (13.24+) by the owner the payload
   * carries (restoreLock()->release(), the releaseLock script).
   */
  private async ensureUniqueJobLockIsReleased(rules: JobClassRules): Promise<void> {
    if (rules.unique === null || this.cache === null) return;
    this.trail('CallQueuedHandler::ensureUniqueJobLockIsReleased');
    const id = typeof rules.unique.id === 'string' ? rules.unique.id : '';
    const name = this.env.profile.cache.uniqueKey(rules.className, id);
    const owner = rules.uniqueOwner;
    // uniqueVia(): the store the lock was taken in.
    const cache = rules.unique.via === null ? this.cache : this.cache.store(rules.unique.via);
    if (this.env.profile.cache.uniqueRelease === 'owner' && owner !== undefined)
      await cache.restoreLock(name, owner).release();
    else await cache.lock(name, 0, 'forceRelease').forceRelease();
  }

  /** The job's middleware pipeline in this process (null: none, or no cache to run it on). */
  private pipelineFor(ctx: ActorContext, job: RedisJob, rules: JobClassRules): MiddlewarePipeline | null {
    const cache = this.cache;
    const redis = this.redis;
    if (rules.middleware.length === 0 || cache === null || redis === null) return null;
    return new MiddlewarePipeline({
      cache,
      redis: () => redis.connection('default'),
      connectionPrefix: this.config.prefix,
      time: () => ctx.time(),
      instant: () => ctx.instant(),
      rules,
      uuid: job.uuid(),
      label: this.label(job),
      locks: this.env.locks,
      hashJobName: (name) => this.env.hashJobName(name),
      release: async (delay) => {
        this.trail('InteractsWithQueue::release → RedisJob::release');
        await job.release(delay);
      },
      trail: (m) => this.trail(m),
    });
  }

  /**
   * A middleware ended the job before handle(): it released it (its attempt spent without
   * handle()), or returned without $next (dontRelease), and CallQueuedHandler::call goes on as
   * after a handle() that returned: the unique lock, the chain's next job, the delete.
   */
  private async endedByMiddleware(
    ctx: ActorContext,
    job: RedisJob,
    rules: JobClassRules,
    ended: MiddlewareOutcome,
  ): Promise<void> {
    const label = this.label(job);
    this.state.status = { kind: 'done', job: label };
    if (ended.released !== null) {
      this.noteChain(job, narration.chainWaits);
      this.describe(
        ctx,
        narration.releasedByMiddleware(this.setup, {
          label,
          ended,
          now: ctx.time(),
          attempts: job.attempts(),
          maxTries: job.maxTries() ?? this.spec.tries,
          retryUntil: this.env.profile.worker.retryUntilIgnoresTries ? job.timeoutAt() : null,
        }),
      );
      return;
    }
    // Not released: CallQueuedHandler::call frees a unique lock now; an UntilProcessing one, in 8.x
    // freed before the middleware, in 13 by the pipeline's `finally` (the middleware never reached `then`).
    if (
      rules.unique !== null &&
      (!rules.unique.untilProcessing || this.env.profile.cache.untilProcessing === 'before-handle')
    )
      await this.ensureUniqueJobLockIsReleased(rules);
    const next = await this.ensureNextJobInChainIsDispatched(ctx, job);
    this.trail('CallQueuedHandler::call → RedisJob::delete');
    const removed = await job.delete();
    this.settle(job, 'deleted');
    this.describe(ctx, narration.droppedByMiddleware(this.setup, { label, ended, removed, next }));
  }

  /** handle() threw and a middleware took it: released, the Worker sees a return. */
  private async tookException(
    ctx: ActorContext,
    job: RedisJob,
    rules: JobClassRules,
    taken: MiddlewareOutcome,
    thrown: JobException,
  ): Promise<void> {
    void rules;
    this.noteChain(job, narration.chainWaits);
    this.describe(
      ctx,
      narration.exceptionTakenByMiddleware(this.setup, {
        label: this.label(job),
        thrown,
        taken,
        now: ctx.time(),
        attempts: job.attempts(),
        maxTries: job.maxTries() ?? this.spec.tries,
        retryUntil: this.env.profile.worker.retryUntilIgnoresTries ? job.timeoutAt() : null,
      }),
    );
  }

  /** The job instance's outcome, unless it already has one. */
  private settle(job: RedisJob, outcome: 'succeeded' | 'deleted'): void {
    const instance = this.env.registry.get(job.getJobId());
    if (instance && instance.outcome === 'pending') instance.outcome = outcome;
  }

  /** A Laravel method this activation called, for the methods trail of the step it ends in. */
  protected trail(method: string): void {
    this.methods.push(method);
  }

  /** The job carries a chain: what just happened to it is told with the step (`text` of the jobs still to come). */
  private noteChain(job: RedisJob, text: (names: string[]) => string): void {
    const names = this.env.bus?.dispatcher.chainOf(job.getJobId()) ?? [];
    if (names.length > 0) this.chainNote = text(names);
  }

  /**
   * Names the step: its methods are the trail so far (emptied), then the description's own; what
   * a failure or a release since the last step did to a chain is told in its explanation.
   */
  protected describe(ctx: ActorContext, d: StepDescription): void {
    const chain = this.chainNote;
    this.chainNote = null;
    const explain = chain ? [d.explain, chain].filter(Boolean).join(' ') : d.explain;
    ctx.describe({ ...d, explain, methods: [...new Set([...this.methods.splice(0), ...(d.methods ?? [])])] });
  }

  protected label(job: RedisJob): string {
    return narration.jobLabel(this.env.registry.get(job.getJobId())?.label, job.resolveName(), job.getJobId());
  }

  protected get setup(): narration.Setup {
    return {
      start: this.env.start,
      retryAfter: this.config.retryAfter,
    };
  }
}

/** The options a worker's state shows: queue:work's as its process was given them. */
export function optionsState(spec: WorkerOptions): WorkerState['options'] {
  return {
    tries: spec.tries,
    timeout: spec.timeout,
    sleep: spec.sleep,
    delay: spec.delay,
    once: spec.once,
    // The options queue:work is given beyond those, only when given (older snapshots lack them).
    ...(spec.backoff !== undefined ? { backoff: backoffOption(spec) } : {}),
    ...(spec.stopWhenEmpty ? { stopWhenEmpty: true } : {}),
    ...(spec.maxJobs ? { maxJobs: spec.maxJobs } : {}),
    ...(spec.maxTime ? { maxTime: spec.maxTime } : {}),
    ...(spec.rest ? { rest: spec.rest } : {}),
  };
}
