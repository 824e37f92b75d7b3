// Illuminate\Queue\Worker, modelled: the daemon loop (getNextJob → registerTimeoutHandler →
// process or sleep), the max-attempts rules, handleJobException, failJob and the timeout kill.
// A worker *process* is one Redis connection; when the alarm kills it, the supervisor starts a new
// process with a new connection (seed 002: "ワーカーはそのまま強制終了される").
import type { JobException } from './exceptions.ts';
import { exception, manuallyFailed, maxAttemptsExceeded, shortClass, timeoutExceeded } from './exceptions.ts';
import type { RedisJob } from './redis-job.ts';
import type { QueueConfig } from './redis-queue.ts';
import { RedisQueue } from './redis-queue.ts';
import type { ActorContext, StepDescription } from './scheduler.ts';
import { interruptibleSleep } from './scheduler.ts';
import type { WorkerState } from './state.ts';
import type { AttemptBehaviour, WorkerEnv, WorkerOptions } from './worker-input.ts';
import { attemptBehaviour } from './worker-input.ts';

export type { Attempt, WorkerEnv, WorkerOptions } from './worker-input.ts';

/** A PHP exception in flight (thrown by the job or by the worker's own checks). */
class Thrown extends Error {
  constructor(readonly exception: JobException) {
    super(exception.message);
  }
}

type Outcome = 'done' | 'killed';
/** How Worker::process ended: normally, by the alarm, or with the job's exception handled. */
type ProcessOutcome = Outcome | 'threw';

export class WorkerModel {
  readonly state: WorkerState;
  /** Set by SIGTERM: quit after the current job (Worker::$shouldQuit). */
  shouldQuit = false;
  /** Wakes the worker from Worker::sleep (PHP's sleep() returns early when a signal arrives). */
  private wake: (() => void) | null = null;
  private readonly config: QueueConfig;
  private methods: string[] = [];
  /** When the job being processed was reserved (its :reserved score is this + retry_after). */
  private poppedAt: number | null = null;
  /** The seconds the current alarm was armed with (what the kill reports). */
  private alarmSeconds = 0;

  constructor(
    readonly spec: WorkerOptions,
    private readonly env: WorkerEnv,
  ) {
    const config = env.connections[spec.connection];
    if (!config) throw new Error(`worker ${spec.name}: unknown connection ${spec.connection}`);
    this.config = config;
    this.state = {
      name: spec.name,
      generation: 0,
      status: { kind: 'starting' },
      connection: spec.connection,
      queue: spec.queue ?? config.default,
      options: { tries: spec.tries, timeout: spec.timeout, sleep: spec.sleep, delay: spec.delay, once: spec.once },
      retryAfter: config.retryAfter,
      blockFor: config.blockFor,
    };
  }

  get name(): string {
    return this.spec.name;
  }

  /** True while a job's handle() is running: the scenario is not over yet. */
  busy(): boolean {
    return this.state.status.kind === 'running';
  }

  /** The supervisor: runs worker processes, restarting one the alarm killed. */
  async supervise(ctx: ActorContext): Promise<void> {
    for (;;) {
      this.state.generation += 1;
      const outcome = await this.daemon(ctx);
      if (outcome !== 'killed' || !this.spec.restart || this.shouldQuit) return;
      await ctx.sleep(0);
      this.describe(ctx, {
        kind: 'restart',
        title: `supervisor restarts ${this.name}: a new PHP process with a new Redis connection`,
        methods: ['supervisord → php artisan queue:work'],
        explain:
          'The killed process never reached its catch/finally blocks, so nothing was sent to Redis; the job is still in :reserved.',
      });
      this.state.status = { kind: 'starting' };
      await ctx.sleep(0);
    }
  }

  /** Worker::daemon for one process. */
  private async daemon(ctx: ActorContext): Promise<Outcome> {
    const rules = this.env.profile.worker;
    const port = await this.env.connect(this.name);
    const queue = new RedisQueue(
      port,
      this.config,
      this.env.profile,
      () => ctx.now(),
      (m) => this.methods.push(m),
      (c, d) => this.describe(c, d),
    );
    const o = this.spec;
    let alarmAt: number | null = null;
    try {
      for (;;) {
        if (this.shouldQuit) {
          this.describe(ctx, {
            kind: 'stop',
            title: `${this.name} exits: SIGTERM was received (Worker::stop)`,
            methods: ['Worker::stop'],
          });
          this.state.status = { kind: 'stopped', reason: 'SIGTERM' };
          return 'done';
        }
        // Only Worker::daemon registers the timeout handler; runNextJob (--once) never arms it.
        const armed = !o.once;
        // 5.3 arms the alarm at the top of the loop, for timeout + sleep.
        if (armed && rules.alarm === 'timeout-plus-sleep') {
          this.alarmSeconds = o.timeout + o.sleep;
          alarmAt = o.timeout > 0 ? ctx.now() + this.alarmSeconds : null;
        }

        this.state.status = { kind: 'polling' };
        this.methods.push('Worker::getNextJob');
        const job = await this.getNextJob(ctx, queue, alarmAt);
        if (alarmAt !== null && ctx.now() >= alarmAt) return await this.kill(ctx, null);

        // 5.4+: registerTimeoutHandler after the pop, with the job's timeout (Worker::timeoutForJob).
        if (armed && rules.alarm === 'job-timeout') {
          const seconds = job && job.timeout() !== null ? job.timeout()! : o.timeout;
          this.alarmSeconds = seconds;
          alarmAt = seconds > 0 ? ctx.now() + seconds : null;
        }

        if (job) {
          this.poppedAt = ctx.now();
          const label = this.label(job);
          this.describe(ctx, {
            kind: 'pop',
            title: `pop: reserved ${label} (attempts ${job.attempts()}) until ${this.untilText(ctx)}`,
            explain:
              this.config.blockFor !== null && rules.blockingPop === 'list'
                ? 'BLPOP took the payload; PHP incremented attempts, re-encoded it and ZADDed it to :reserved (not atomic: a crash in between loses the job).'
                : 'The pop script moved the payload to :reserved with attempts + 1, re-encoded by cjson (key order changes).',
          });
          await ctx.sleep(0);
          const outcome = await this.process(ctx, job, alarmAt);
          if (outcome === 'killed') return 'killed';
          if (rules.resetAlarm) alarmAt = null;
          // The job's outcome (delete, release, fail) closes its own step; 5.3 sleeps after an exception.
          if (outcome === 'threw' && rules.sleepAfterException) {
            this.state.status = { kind: 'idle', until: ctx.now() + o.sleep };
            await this.sleep(ctx, o.sleep);
          } else await ctx.sleep(0);
        } else {
          const sleepUntil = ctx.now() + o.sleep;
          this.describe(ctx, {
            kind: 'pop',
            title: `pop: no job on ${this.state.queue}; sleeping ${o.sleep}s (--sleep)`,
          });
          this.state.status = { kind: 'idle', until: sleepUntil };
          if (alarmAt !== null && alarmAt <= sleepUntil) {
            if (!(await this.sleep(ctx, alarmAt - ctx.now()))) return await this.kill(ctx, null);
          } else await this.sleep(ctx, o.sleep);
          if (rules.resetAlarm) alarmAt = null;
        }
        if (o.once) {
          this.describe(ctx, {
            kind: 'stop',
            title: `${this.name} exits after one job (--once)`,
            methods: ['Worker::runNextJob'],
          });
          this.state.status = { kind: 'stopped', reason: '--once' };
          return 'done';
        }
      }
    } finally {
      await port.close();
    }
  }

  /** SIGTERM: Worker::listenForSignals sets shouldQuit; a sleeping worker wakes at once. */
  signalTerm(): void {
    this.shouldQuit = true;
    this.wake?.();
  }

  /** Worker::sleep($seconds): true if a signal cut it short. */
  private sleep(ctx: ActorContext, seconds: number): Promise<boolean> {
    return interruptibleSleep(ctx, seconds, (wake) => (this.wake = wake));
  }

  /** Worker::getNextJob: each queue of --queue=a,b in order until one yields a job (11.27+ passes its index). */
  private async getNextJob(ctx: ActorContext, queue: RedisQueue, alarmAt: number | null): Promise<RedisJob | null> {
    for (const [index, name] of this.state.queue.split(',').entries()) {
      if (this.config.blockFor !== null && this.env.profile.worker.blockingPop) {
        this.state.status = {
          kind: 'blocked',
          queue: name,
          until: this.config.blockFor === 0 ? null : ctx.now() + this.config.blockFor,
        };
      }
      const job = await queue.pop(ctx, name, alarmAt, index);
      if (alarmAt !== null && ctx.now() >= alarmAt) return null;
      if (job) return job;
    }
    return null;
  }

  /** Worker::process → markJobAsFailedIfAlreadyExceedsMaxAttempts → fire → handleJobException. */
  private async process(ctx: ActorContext, job: RedisJob, alarmAt: number | null): Promise<ProcessOutcome> {
    this.methods.push('Worker::process');
    const label = this.label(job);
    try {
      await this.markJobAsFailedIfAlreadyExceedsMaxAttempts(ctx, job);
      // $job->fire(): the job's handle() runs for its virtual duration.
      const attempt = job.attempts();
      const behaviour = attemptBehaviour(this.env.behaviourOf(job.getJobId(), attempt));
      const instance = this.env.registry.get(job.getJobId());
      if (instance) this.env.registry.recordExecution(instance);
      this.state.status = { kind: 'running', job: label, since: ctx.now(), attempt };
      if (behaviour.run > 0) {
        const finishAt = ctx.now() + behaviour.run;
        const killAt = alarmAt !== null && alarmAt <= finishAt ? alarmAt : null;
        this.describe(ctx, {
          kind: 'process',
          title:
            `process: ${label} attempt ${attempt} starts; handle() runs ${behaviour.run}s` +
            (killAt !== null ? ` (the ${killAt - ctx.now()}s alarm fires first)` : ''),
          methods: ['Job::fire → CallQueuedHandler::call'],
          explain: this.deadlines(finishAt, alarmAt),
        });
        if (killAt !== null) {
          await ctx.sleep(killAt - ctx.now());
          return await this.kill(ctx, job);
        }
        await ctx.sleep(behaviour.run);
      }
      await this.finishAttempt(ctx, job, behaviour);
    } catch (e) {
      if (!(e instanceof Thrown)) throw e;
      await this.handleJobException(ctx, job, e);
      return 'threw';
    }
    return 'done';
  }

  /** What handle() did, then CallQueuedHandler::call's delete unless deleted or released. */
  private async finishAttempt(ctx: ActorContext, job: RedisJob, b: AttemptBehaviour): Promise<void> {
    const label = this.label(job);
    this.state.status = { kind: 'polling' };
    switch (b.outcome) {
      case 'throw':
        throw new Thrown(exception(b.message ?? 'Exception'));
      case 'release': {
        this.methods.push('InteractsWithQueue::release → RedisJob::release');
        await job.release(b.release ?? 0);
        this.describe(ctx, {
          kind: 'release',
          title: `${label} calls $this->release(${b.release ?? 0}): back to :delayed, due at ${this.rel(ctx.now() + (b.release ?? 0))}`,
        });
        return;
      }
      case 'fail': {
        this.methods.push('InteractsWithQueue::fail');
        await this.failJob(ctx, job, manuallyFailed(b.message));
        this.describe(ctx, { kind: 'fail', title: `${label} calls $this->fail(): deleted and recorded as failed` });
        return;
      }
      case 'delete': {
        this.methods.push('InteractsWithQueue::delete → RedisJob::delete');
        const removed = await job.delete();
        this.settle(job, 'deleted');
        this.describe(ctx, { kind: 'delete', title: `${label} calls $this->delete(): ZREM removed ${removed}` });
        return;
      }
      case 'succeed': {
        this.methods.push('CallQueuedHandler::call → RedisJob::delete');
        const removed = await job.delete();
        this.settle(job, 'succeeded');
        this.describe(ctx, {
          kind: 'delete',
          title: `${label} succeeded: delete from :reserved (ZREM removed ${removed})`,
          explain:
            removed === 0
              ? 'ZREM removed nothing: the reserved copy this worker holds is no longer there (it was migrated back and re-reserved by another pop).'
              : 'ZREM names the reserved copy (attempts + 1, re-encoded when it was reserved), not the payload that was pushed.',
        });
        return;
      }
    }
  }

  /** Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts: the check that catches a job a timeout killed. */
  private async markJobAsFailedIfAlreadyExceedsMaxAttempts(ctx: ActorContext, job: RedisJob): Promise<void> {
    const maxTries = job.maxTries() ?? this.spec.tries;
    const timeoutAt = job.timeoutAt();
    if (timeoutAt && ctx.now() <= timeoutAt) return;
    if (!timeoutAt && (maxTries === 0 || job.attempts() <= maxTries)) return;
    this.methods.push('Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts');
    const e = maxAttemptsExceeded(this.env.profile.worker.maxAttemptsMessage(job.resolveName()));
    await this.failJob(ctx, job, e);
    this.describe(ctx, {
      kind: 'fail',
      title: `${this.label(job)} attempt ${job.attempts()} > tries ${maxTries}: MaxAttemptsExceededException before it runs`,
      explain: timeoutAt
        ? `retryUntil (timeoutAt ${this.rel(timeoutAt)}) has passed.`
        : 'This is how a job killed by the timeout finally fails: its reservation expired, it was migrated back and popped again.',
    });
    throw new Thrown(e);
  }

  /** Worker::handleJobException: fail if this was the last try, otherwise release with --delay. */
  private async handleJobException(ctx: ActorContext, job: RedisJob, thrown: Thrown): Promise<void> {
    this.methods.push('Worker::handleJobException');
    const rules = this.env.profile.worker;
    const label = this.label(job);
    const maxTries = job.maxTries() ?? this.spec.tries;
    if (!job.failed) {
      this.methods.push(
        rules.jobLevelOptions
          ? 'Worker::markJobAsFailedIfWillExceedMaxAttempts'
          : 'Worker::markJobAsFailedIfHasExceededMaxAttempts',
      );
      await this.markJobAsFailedIfWillExceedMaxAttempts(ctx, job, thrown.exception);
      await this.markJobAsFailedIfWillExceedMaxExceptions(ctx, job, thrown.exception);
    }
    const alreadyDescribed = job.failed && thrown.exception.className.endsWith('MaxAttemptsExceededException');
    if (!job.deleted && !job.released && !job.failed) {
      const delay = this.calculateBackoff(job);
      this.methods.push('RedisJob::release');
      await job.release(delay);
      this.describe(ctx, {
        kind: 'release',
        title: `${label} threw "${thrown.exception.message}": released to :delayed for ${delay}s (${rules.backoff === 'list' ? 'backoff' : '--delay'}), attempt ${job.attempts()} of ${maxTries || 'unlimited'}`,
      });
    } else if (!alreadyDescribed) {
      this.describe(ctx, {
        kind: 'fail',
        title: `${label} threw "${thrown.exception.message}" on attempt ${job.attempts()} of ${maxTries}: failed`,
      });
    }
  }

  /** Worker::markJobAsFailedIfWillExceedMaxAttempts: fail now if this was the last try (or retryUntil passed). */
  private async markJobAsFailedIfWillExceedMaxAttempts(
    ctx: ActorContext,
    job: RedisJob,
    e: JobException,
  ): Promise<void> {
    const maxTries = job.maxTries() ?? this.spec.tries;
    const retryUntil = job.timeoutAt();
    if (retryUntil && retryUntil <= ctx.now()) await this.failJob(ctx, job, e);
    // 8.15+ (#35214): with retryUntil set, --tries no longer decides.
    const triesApply = !(this.env.profile.worker.retryUntilIgnoresTries && retryUntil);
    if (triesApply && maxTries > 0 && job.attempts() >= maxTries) await this.failJob(ctx, job, e);
  }

  /** Worker::markJobAsFailedIfWillExceedMaxExceptions (7.x+): a per-uuid counter in the cache. */
  private async markJobAsFailedIfWillExceedMaxExceptions(
    ctx: ActorContext,
    job: RedisJob,
    e: JobException,
  ): Promise<void> {
    const uuid = job.uuid();
    const maxExceptions = job.maxExceptions();
    if (uuid === null || maxExceptions === null) return;
    const key = `job-exceptions:${uuid}`;
    const count = (this.env.cache.get(key) ?? 0) + 1;
    this.env.cache.set(key, count);
    if (maxExceptions <= count) {
      this.env.cache.delete(key);
      this.methods.push('Worker::markJobAsFailedIfWillExceedMaxExceptions');
      await this.failJob(ctx, job, e);
    }
  }

  /** Worker::calculateBackoff (8.x): the job's or --backoff's "1,5,10", indexed by attempts - 1; else --delay. */
  private calculateBackoff(job: RedisJob): number {
    if (this.env.profile.worker.backoff === 'delay') return this.spec.delay;
    const list = (job.backoff() ?? String(this.spec.delay)).split(',');
    return Math.trunc(Number(list[job.attempts() - 1] ?? list[list.length - 1])) || 0;
  }

  /** FailingJob::handle: mark failed, delete from :reserved, log to failed_jobs (JobFailed). */
  private async failJob(ctx: ActorContext, job: RedisJob, e: JobException): Promise<void> {
    job.markAsFailed();
    if (job.deleted) return;
    this.methods.push('FailingJob::handle → RedisJob::delete');
    await job.delete();
    const instance = this.env.registry.get(job.getJobId());
    this.env.registry.recordFailure(instance, {
      id: job.getJobId(),
      connection: job.connectionName,
      queue: job.queue,
      exception: e,
      failedAt: ctx.now(),
      payload: job.getRawBody(),
    });
  }

  /**
   * SIGALRM → the timeout handler. To 5.8.27 it only kills: nothing reaches Redis. From 5.8.28 it
   * first fails the job if this was its last attempt (and, 8.x, on maxExceptions or
   * failOnTimeout), so a ZREM precedes the kill.
   */
  private async kill(ctx: ActorContext, job: RedisJob | null): Promise<Outcome> {
    const label = job ? this.label(job) : null;
    const timeout = this.alarmSeconds;
    this.methods.push('Worker::registerTimeoutHandler');
    if (job && this.env.profile.worker.onTimeout === 'fail-last-attempt-then-kill') {
      // $this->maxAttemptsExceededException($job), or (10.10+) $this->timeoutExceededException($job).
      const timedOut = this.env.profile.worker.timedOutMessage;
      const e = timedOut
        ? timeoutExceeded(timedOut(job.resolveName()))
        : maxAttemptsExceeded(this.env.profile.worker.maxAttemptsMessage(job.resolveName()));
      await this.markJobAsFailedIfWillExceedMaxAttempts(ctx, job, e);
      await this.markJobAsFailedIfWillExceedMaxExceptions(ctx, job, e);
      if (job.shouldFailOnTimeout()) {
        this.methods.push('Worker::markJobAsFailedIfItShouldFailOnTimeout');
        await this.failJob(ctx, job, e);
      }
    }
    const failed = job?.failed === true;
    this.describe(ctx, {
      kind: 'kill',
      title: !label
        ? `SIGALRM after ${timeout}s (${this.alarmReason()}): ${this.name} is killed while idle`
        : failed
          ? `SIGALRM after ${timeout}s (${this.alarmReason()}): ${label} is failed first (its last attempt, or failOnTimeout/maxExceptions); then ${this.name} is killed`
          : `SIGALRM after ${timeout}s (${this.alarmReason()}): ${this.name} is killed while running ${label}; it stays in :reserved`,
      methods: ['Worker::kill → posix_kill(SIGKILL)'],
      explain: !label
        ? undefined
        : failed
          ? 'Since 5.8.28 the timeout handler fails a job that cannot be tried again before it kills the process, so it does not sit in :reserved until retry_after.'
          : `The reservation expires at ${this.reservedUntil()}; only then will a pop migrate it back. Its attempts already count this run.`,
    });
    this.state.status = label ? { kind: 'killed', job: label } : { kind: 'killed' };
    return 'killed';
  }

  private settle(job: RedisJob, outcome: 'succeeded' | 'deleted'): void {
    const instance = this.env.registry.get(job.getJobId());
    if (instance && instance.outcome === 'pending') instance.outcome = outcome;
  }

  /** The two clocks that decide a long job's fate: its reservation and the worker's alarm. */
  private deadlines(finishAt: number, alarmAt: number | null): string {
    const r = this.config.retryAfter;
    const reservedUntil = r === null || this.poppedAt === null ? null : this.poppedAt + r;
    const alarm =
      alarmAt !== null
        ? `the alarm fires at ${this.rel(alarmAt)}`
        : this.spec.once
          ? 'no alarm (--once never arms one)'
          : 'no alarm (--timeout=0)';
    const reservation =
      reservedUntil === null
        ? `the reservation never expires (${this.retryAfterName} is null)`
        : `the reservation expires at ${this.rel(reservedUntil)}`;
    let verdict = '';
    if (reservedUntil !== null && reservedUntil < finishAt && (alarmAt === null || reservedUntil < alarmAt)) {
      verdict = ': the reservation expires while it still runs, so another worker can migrate it and run it again';
    } else if (alarmAt !== null && alarmAt <= finishAt) {
      verdict =
        reservedUntil !== null && alarmAt < reservedUntil
          ? ': the alarm kills the worker before the reservation expires, so the job is never run twice at once'
          : '';
    } else if (alarmAt !== null && reservedUntil !== null && alarmAt < reservedUntil) {
      verdict = ': it finishes first, and were it stuck, the alarm would kill it before the reservation expires';
    }
    return `Finishes at ${this.rel(finishAt)}; ${reservation}; ${alarm}${verdict}.`;
  }

  private describe(ctx: ActorContext, d: StepDescription): void {
    ctx.describe({ ...d, methods: [...new Set([...this.methods.splice(0), ...(d.methods ?? [])])] });
  }

  private label(job: RedisJob): string {
    return (
      this.env.registry.get(job.getJobId())?.label ?? `${shortClass(job.resolveName())}#${job.getJobId().slice(0, 6)}`
    );
  }

  private untilText(ctx: ActorContext): string {
    const r = this.config.retryAfter;
    return r === null
      ? `forever (${this.retryAfterName} is null)`
      : `${this.rel(ctx.now() + r)} (${this.retryAfterName} ${r}s)`;
  }

  private reservedUntil(): string {
    const r = this.config.retryAfter;
    return r === null || this.poppedAt === null
      ? `never (${this.retryAfterName} is null)`
      : this.rel(this.poppedAt + r);
  }

  private get retryAfterName(): string {
    return this.env.profile.retryAfterName;
  }

  /** What armed the alarm, in the user's terms. */
  private alarmReason(): string {
    return this.env.profile.worker.alarm === 'timeout-plus-sleep' ? '--timeout + --sleep, as 5.3 arms it' : '--timeout';
  }

  private rel(t: number): string {
    return `t+${t - this.env.start}s`;
  }
}
