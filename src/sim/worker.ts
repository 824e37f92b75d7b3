// Illuminate\Queue\Worker, modelled (2/2): the process. WorkCommand runs Worker::daemon (getNextJob
// → registerTimeoutHandler → runJob or sleep, until SIGTERM) or, with --once, Worker::runNextJob;
// the alarm's handler fails what it must, then Worker::kill. One job is worker-job.ts; what the
// steps say is worker-narration.ts.
// A worker *process* is one Redis connection; when the alarm kills it, the supervisor starts a new
// process with a new connection (seed 002: "ワーカーはそのまま強制終了される").
import { ClientException } from './exceptions.ts';
import { later, secondsBetween } from './clock.ts';
import { maxAttemptsExceeded, timeoutExceeded } from './exceptions.ts';
import type { RedisJob } from './redis-job.ts';
import type { QueueConfig, Wake } from './redis-queue.ts';
import { RedisQueue } from './redis-queue.ts';
import type { ActorContext, BlockingOp } from './scheduler.ts';
import { interruptibleSleep } from './scheduler.ts';
import type { Outcome, ProcessOutcome } from './worker-job.ts';
import { JobHandling } from './worker-job.ts';
import * as narration from './worker-narration.ts';
import type { ProcessEnd } from './supervisor.ts';
import { Supervisor } from './supervisor.ts';
import { ProcessRedis } from './cache.ts';
import type { ExitReason, RestartOptions } from './worker-input.ts';
import { restartedOptions, restartsAfterExit } from './worker-input.ts';
import { optionsState } from './worker-job.ts';

export type { Attempt, ExitReason, WorkerEnv, WorkerOptions } from './worker-input.ts';

export class WorkerModel extends JobHandling {
  /** Set by SIGTERM: quit after the current job (Worker::$shouldQuit). */
  shouldQuit = false;
  /** Wakes the worker from Worker::sleep (PHP's sleep() returns early when a signal arrives). */
  private wake: (() => void) | null = null;
  /** The seconds the current alarm was armed with (what the kill reports). */
  private alarmSeconds = 0;
  /** supervisord, running this worker's processes (supervisor.ts: the loop conformance's proxy shares). */
  private readonly supervisor = new Supervisor({
    autorestart: () => this.spec.restart,
    shouldQuit: () => this.shouldQuit,
    runProcess: (ctx) => this.runProcess(ctx),
    startAgain: (ctx, ended, changed) =>
      changed !== null
        ? this.restartWithOptions(ctx, changed, ended === null || ended.killed)
        : this.restart(ctx, ended === null || ended.killed ? null : ended.reason),
  });
  /** The last getNextJob's pop threw (and it slept its second): the loop's sleep says so. */
  private popThrew = false;
  /** How the BLPOP of the last getNextJob ended (null: none blocked): the step after it says so. */
  private woke: Wake | null = null;
  /** The BLPOP the worker waits in (null: none), so a snapshot can tell once a push answered it. */
  private waitingIn: { op: BlockingOp<unknown>; queue: string } | null = null;

  get name(): string {
    return this.spec.name;
  }

  /** The supervisor has returned: the process exited and will not be restarted. */
  get exited(): boolean {
    return this.supervisor.exited;
  }

  /** Worker::daemon's $jobsProcessed in the running process (--max-jobs counts it). */
  private jobsProcessed = 0;
  /** Why the last process returned on its own (Worker::stop), for its supervisor. */
  private exitReason: ExitReason | null = null;

  /** True while a job's handle() is running (the end-of-run rule, src/scenarios/run-end.ts, asks). */
  busy(): boolean {
    return this.state.status.kind === 'running';
  }

  /**
   * The daemon will leave its loop by itself, whatever else happens (the end-of-run rule waits for
   * it): --stop-when-empty at its next poll that finds nothing, or --max-jobs reached (it exits
   * after this job). --max-time is not counted: a worker polling an empty queue would hold the run
   * open for all of it.
   */
  stopsByItself(): boolean {
    const maxJobs = this.spec.maxJobs ?? 0;
    return (
      !this.spec.once &&
      (this.spec.stopWhenEmpty === true ||
        (maxJobs > 0 && this.jobsProcessed >= maxJobs) ||
        (this.lastRestart !== undefined && this.lastRestart !== this.env.restartSignal.value))
    );
  }

  /** What the running daemon read of the restart signal when it started (undefined: not read). */
  private lastRestart: string | null | undefined = undefined;

  /**
   * The supervisor: runs worker processes, starting a new one after the alarm or a kill ended one,
   * and after a clean exit by --max-jobs or --max-time (restartsAfterExit).
   */
  supervise(ctx: ActorContext): Promise<void> {
    return this.supervisor.supervise(ctx);
  }

  /** One process, WorkCommand to exit, for the supervisor. */
  private async runProcess(ctx: ActorContext): Promise<ProcessEnd> {
    this.state.generation += 1;
    this.exitReason = null;
    const outcome = await this.runWorker(ctx);
    return outcome === 'killed' ? { killed: true } : { killed: false, reason: this.exitReason };
  }

  /**
   * SIGKILL from outside (the OOM killer, supervisord's stopwaitsecs, a container stop, a deploy):
   * the process dies wherever it is, sending nothing more; its connection closes and whatever
   * it had reserved stays in :reserved. False when no process was running.
   */
  async killFromOutside(ctx: ActorContext, note?: string): Promise<boolean> {
    const redis = this.redis;
    if (redis === null || !this.supervisor.running()) {
      this.describe(ctx, { ...narration.nothingToKill(this.name, this.state.status), note });
      return false;
    }
    const running = this.state.status.kind === 'running' ? this.state.status.job : null;
    // Its supervisor never returns (exited): the process is gone (restartAfterKill starts another).
    await this.supervisor.abandon();
    this.processEnded();
    await redis.close();
    this.env.registry.killedOn(this.name, 'outside');
    this.describe(ctx, {
      ...narration.killedFromOutside(this.setup, { name: this.name, label: running, poppedAt: this.poppedAt }),
      note,
    });
    this.state.status = running ? { kind: 'killed', job: running } : { kind: 'killed' };
    return true;
  }

  /** The connection config the running process booted with; null when no process runs. */
  bootedConfig(): QueueConfig | null {
    return this.redis === null ? null : this.config;
  }

  /** supervisord's autorestart, unless the process was asked to stop (SIGTERM) before it died; or a restart under way. */
  restartsAfterKill(): boolean {
    return this.supervisor.restartsAfterKill();
  }

  /** After a kill from outside: supervisord starts a new process (autorestart, or a restart under way), on `ctx`. */
  restartAfterKill(ctx: ActorContext): Promise<void> {
    return this.supervisor.restartAfterKill(ctx);
  }

  /**
   * supervisord starts a new process for one that was killed (`exited` null) or exited cleanly: a
   * step of its own, then the new process.
   */
  private async restart(ctx: ActorContext, exited: ExitReason | null = null): Promise<void> {
    await ctx.sleep(0);
    this.trail('supervisord → php artisan queue:work');
    this.describe(ctx, narration.restart(this.name, exited));
    this.state.status = { kind: 'starting' };
    await ctx.sleep(0);
  }

  /**
   * Before a step's snapshot: a BLPOP that the step's push answered. The worker only resumes at its
   * own next step (its ZADD, 5.6-5.7, or its pop script, 5.8+), but the reply is already in PHP's
   * memory: the status says so instead of "BLPOP until ...". Asks the server (as the scheduler
   * does before it wakes the worker), so the answer does not depend on when the reply arrives.
   */
  async noteAnsweredBlpop(): Promise<void> {
    const waiting = this.waitingIn;
    if (waiting === null || this.state.status.kind !== 'blocked') return;
    if (waiting.op.mayHaveEnded?.() === false || (await waiting.op.stillBlocked())) return;
    const reply = (await waiting.op.result) as [string, string] | null;
    if (reply === null || this.waitingIn !== waiting || this.state.status.kind !== 'blocked') return;
    const list = this.env.profile.worker.blockingPop === 'list' ? 'ready' : 'notify';
    this.state.status = {
      kind: 'woken',
      queue: waiting.queue,
      list,
      job: list === 'ready' ? (this.env.registry.labelOfPayload(reply[1]).job ?? '(a payload)') : null,
    };
  }

  /** `ctx` for a pop: its blocking BLPOP (if any) is remembered while the worker waits in it. */
  private watchingBlpop(ctx: ActorContext, queue: string): ActorContext {
    return {
      ...ctx,
      block: async <T>(op: BlockingOp<T>, seconds: number | null): Promise<T | null> => {
        const waiting = { op: op as BlockingOp<unknown>, queue };
        this.waitingIn = waiting;
        try {
          return await ctx.block(op, seconds);
        } finally {
          if (this.waitingIn === waiting) this.waitingIn = null;
        }
      },
    };
  }

  /**
   * SIGTERM that supervisord follows with a new process of the same program, `changed` given
   * (supervisorctl restart): the name stays, as after a kill, and the new process reads its
   * options and config/queue.php when it starts.
   */
  restartWith(changed: RestartOptions): void {
    this.supervisor.restartWith(changed);
    this.signalTerm();
  }

  /** A restart under way starts the new process with `changed` (the supervisor took them). */
  private async restartWithOptions(ctx: ActorContext, changed: RestartOptions, killed: boolean): Promise<void> {
    this.shouldQuit = false;
    this.spec = restartedOptions(this.spec, changed);
    this.state.options = optionsState(this.spec);
    await ctx.sleep(0);
    this.trail('supervisord → php artisan queue:work');
    this.describe(ctx, narration.restartWithOptions(this.name, restartFlags(changed), killed));
    this.state.status = { kind: 'starting' };
    await ctx.sleep(0);
  }

  /** SIGTERM: Worker::listenForSignals sets shouldQuit; a sleeping worker wakes at once. */
  signalTerm(): void {
    this.shouldQuit = true;
    this.wake?.();
  }

  /** WorkCommand::runWorker: one PHP process with its own connection; --once picks runNextJob over daemon. */
  private async runWorker(ctx: ActorContext): Promise<Outcome> {
    this.readConfig();
    // RedisManager opens each connection the first time the process uses it; phpredis SELECTs then.
    const redis = new ProcessRedis(this.name, this.env.connect);
    const port = await redis.connection('default');
    this.redis = redis;
    // WorkCommand::runWorker: ->setCache($this->cache), the app's default store.
    this.cache = this.env.cacheFor(redis);
    const queue = new RedisQueue(
      port,
      this.config,
      this.env.profile,
      () => ctx.time(),
      (m) => this.trail(m),
      (c, d) => this.describe(c, d),
    );
    try {
      return this.spec.once ? await this.runNextJob(ctx, queue) : await this.daemon(ctx, queue);
    } finally {
      // A kill from outside has ended it and closed its connections already.
      if (this.redis === redis) {
        this.processEnded();
        await redis.close();
      }
    }
  }

  /** The process is gone: no connections, no cache, no restart signal read. */
  private processEnded(): void {
    this.redis = null;
    this.cache = null;
    this.lastRestart = undefined;
  }

  /**
   * Worker::daemon: job after job until stopIfNecessary ends the loop (SIGTERM, --stop-when-empty,
   * --max-time, --max-jobs), or until the alarm kills the process.
   */
  private async daemon(ctx: ActorContext, queue: RedisQueue): Promise<Outcome> {
    const rules = this.env.profile.worker;
    // `[$startTime, $jobsProcessed] = [hrtime(true) / 1e9, 0]` (8.x): hrtime is exact, so the
    // virtual instant here, not Laravel's whole second.
    const startTime = ctx.instant();
    this.jobsProcessed = 0;
    let alarmAt: number | null = null;
    // A SIGTERM before the first loop (stopIfNecessary sees every later one).
    if (this.shouldQuit) return this.stop(ctx, 'SIGTERM');
    // $lastRestart = $this->getTimestampOfLastQueueRestart(), once before the loop (Worker.php@v8.83.29:133).
    const lastRestart = await this.getTimestampOfLastQueueRestart();
    this.lastRestart = lastRestart;
    for (;;) {
      // 5.3 registers the timeout handler at the top of the loop, before it knows the job.
      if (rules.alarm === 'timeout-plus-sleep') alarmAt = this.registerTimeoutHandler(ctx, null);

      const job = await this.getNextJob(ctx, queue, alarmAt);
      if (alarmAt !== null && ctx.instant() >= alarmAt) return await this.timeoutHandler(ctx, null);

      // 5.4+ registers it after the pop, with the job's own timeout.
      if (rules.alarm === 'job-timeout') alarmAt = this.registerTimeoutHandler(ctx, job);

      if (job) {
        this.jobsProcessed += 1;
        if ((await this.runJob(ctx, job, alarmAt)) === 'killed') return 'killed';
        // 8.32+: `if ($options->rest > 0) $this->sleep($options->rest)`, before the alarm is reset.
        const rest = this.spec.rest ?? 0;
        if (rest > 0 && (await this.rest(ctx, job, rest, alarmAt)) === 'killed') return 'killed';
      } else {
        const sleepUntil = this.nothingToRun(ctx);
        if (alarmAt !== null && alarmAt <= sleepUntil) {
          if (!(await this.sleep(ctx, secondsBetween(ctx.instant(), alarmAt))))
            return await this.timeoutHandler(ctx, null);
        } else await this.sleep(ctx, this.spec.sleep);
      }
      // 6.13+ resetTimeoutHandler: pcntl_alarm(0) after every job or sleep.
      if (rules.resetAlarm) alarmAt = null;

      const reason = await this.stopIfNecessary(ctx, startTime, job, lastRestart);
      if (reason !== null) return this.stop(ctx, reason, { startTime });
    }
  }

  /**
   * Worker::stopIfNecessary, at the end of every loop, in Laravel's order (Worker.php:294-310 in
   * 8.83; 5.7.29:199-210 and 13.26.1:395-408 keep it): $shouldQuit (SIGTERM), memory (not
   * modelled), queue:restart (the restart signal read from the cache again and compared with the
   * one read at start), --stop-when-empty when this loop popped nothing, --max-time since the
   * daemon started, --max-jobs. Null: go on.
   */
  private async stopIfNecessary(
    ctx: ActorContext,
    startTime: number,
    job: RedisJob | null,
    lastRestart: string | null,
  ): Promise<Exclude<ExitReason, '--once'> | null> {
    const { stopWhenEmpty, maxTime, maxJobs } = this.spec;
    if (this.shouldQuit) return 'SIGTERM';
    // queueShouldRestart: `getTimestampOfLastQueueRestart() != $lastRestart` (loose: both strings here).
    if ((await this.getTimestampOfLastQueueRestart()) !== lastRestart) return 'queue:restart';
    if (stopWhenEmpty && job === null) return '--stop-when-empty';
    if (maxTime && secondsBetween(startTime, ctx.instant()) >= maxTime) return '--max-time';
    if (maxJobs && this.jobsProcessed >= maxJobs) return '--max-jobs';
    return null;
  }

  /**
   * --rest: Worker::sleep($options->rest) after a job. The job's alarm is still armed (it is reset
   * after the rest), so a rest that outlasts it ends in the timeout handler, with the job it was
   * armed for.
   */
  private async rest(
    ctx: ActorContext,
    job: RedisJob,
    seconds: number,
    alarmAt: number | null,
  ): Promise<ProcessOutcome> {
    const until = later(ctx.instant(), seconds);
    const killAt = alarmAt !== null && alarmAt <= until ? alarmAt : null;
    this.trail('Worker::sleep');
    this.describe(
      ctx,
      narration.resting(this.setup, { name: this.name, label: this.label(job), seconds, now: ctx.instant(), killAt }),
    );
    this.state.status = { kind: 'idle', until, why: '--rest' };
    if (killAt === null) {
      await this.sleep(ctx, seconds);
      return 'done';
    }
    // A SIGTERM cuts the rest short before the alarm: the loop then stops.
    if (await this.sleep(ctx, secondsBetween(ctx.instant(), killAt))) return 'done';
    return await this.timeoutHandler(ctx, job, { resting: true });
  }

  /** Worker::runNextJob (--once): one pop, then its job or one sleep. It never registers the timeout handler. */
  private async runNextJob(ctx: ActorContext, queue: RedisQueue): Promise<Outcome> {
    if (this.shouldQuit) return this.stop(ctx, 'SIGTERM');
    const job = await this.getNextJob(ctx, queue, null);
    if (job) await this.runJob(ctx, job, null);
    else {
      this.nothingToRun(ctx);
      await this.sleep(ctx, this.spec.sleep);
    }
    this.trail('Worker::runNextJob');
    this.describe(ctx, narration.stoppedAfterOnce(this.name, job !== null));
    this.state.status = { kind: 'stopped', reason: '--once' };
    this.exitReason = '--once';
    return 'done';
  }

  /** Worker::getTimestampOfLastQueueRestart: the restart signal in the cache (null: never sent). */
  private async getTimestampOfLastQueueRestart(): Promise<string | null> {
    if (this.cache === null) return null;
    // The trail names what reaches Redis: a file cache's read does not.
    if (this.cache.onRedis) this.trail('Worker::getTimestampOfLastQueueRestart');
    return this.cache.get('illuminate:queue:restart');
  }

  /**
   * Worker::getPausedQueues → QueueManager::getPausedQueues (12.40+; 13.26.1's form, QueueManager.php:343-358):
   * the global pause switch, then one MGET of each queue's. A paused queue is skipped.
   */
  private async getPausedQueues(queues: string[]): Promise<Set<string>> {
    if (!this.env.profile.cache.pauseChecks || this.cache === null) return new Set();
    if (this.cache.onRedis) this.trail('Worker::getPausedQueues');
    if (isTruthy(await this.cache.get('illuminate:queues:paused'))) return new Set(queues);
    const states = await this.cache.many(
      queues.map((q) => `illuminate:queue:paused:${this.config.connectionName}:${q}`),
    );
    return new Set(queues.filter((_q, i) => isTruthy(states[i] ?? null)));
  }

  /** Worker::getNextJob: each queue of --queue=a,b in order until one yields a job (11.27+ passes its index). */
  private async getNextJob(ctx: ActorContext, queue: RedisQueue, alarmAt: number | null): Promise<RedisJob | null> {
    this.state.status = { kind: 'polling' };
    this.trail('Worker::getNextJob');
    this.woke = null;
    const queues = this.state.queue.split(',');
    this.popThrew = false;
    try {
      return await this.popQueues(ctx, queue, queues, alarmAt);
    } catch (e) {
      if (!(e instanceof ClientException)) throw e;
      // report($e), stopWorkerIfLostConnection($e) (not a lost connection), sleep(1); no job.
      this.trail('ExceptionHandler::report');
      this.describe(ctx, narration.popThrew(this.state.queue, e.exception, e.why));
      this.state.status = { kind: 'idle', until: later(ctx.instant(), 1), why: 'pop threw' };
      this.popThrew = true;
      await this.sleep(ctx, 1);
      return null;
    }
  }

  /** getNextJob's loop over the queues of --queue=a,b (its try block). */
  private async popQueues(
    ctx: ActorContext,
    queue: RedisQueue,
    queues: string[],
    alarmAt: number | null,
  ): Promise<RedisJob | null> {
    const paused = await this.getPausedQueues(queues);
    for (const [index, name] of queues.entries()) {
      if (paused.has(name)) continue;
      if (this.config.blockFor !== null && this.env.profile.worker.blockingPop) {
        this.state.status = {
          kind: 'blocked',
          queue: name,
          until: this.config.blockFor === 0 ? null : later(ctx.instant(), this.config.blockFor),
        };
      }
      const job = await queue.pop(this.watchingBlpop(ctx, name), name, alarmAt, index);
      // A BLPOP on an earlier queue is told unless this pop blocked again (its own step came between).
      this.woke = queue.takeWake() ?? this.woke;
      // SIGALRM interrupts a blocking pop.
      if (alarmAt !== null && ctx.instant() >= alarmAt) return null;
      if (job) return job;
    }
    return null;
  }

  /** Worker::runJob: process the popped job. 5.3's runNextJob then sleeps --sleep if the job threw. */
  private async runJob(ctx: ActorContext, job: RedisJob, alarmAt: number | null): Promise<ProcessOutcome> {
    // The pop script's score was time() + retry_after: the reservation counts in Laravel's seconds.
    this.poppedAt = ctx.time();
    this.state.status = { kind: 'reserved', job: this.label(job), attempt: job.attempts() };
    this.describe(
      ctx,
      narration.popped(this.setup, {
        label: this.label(job),
        attempts: job.attempts(),
        now: ctx.time(),
        blpop: this.config.blockFor !== null && this.env.profile.worker.blockingPop === 'list',
        woke: this.woke,
      }),
    );
    await ctx.sleep(0);
    const outcome = await this.process(ctx, job, alarmAt);
    if (outcome === 'killed') return outcome;
    // The job's outcome (delete, release, fail) closes its own step.
    if (outcome === 'threw' && this.env.profile.worker.sleepAfterException) {
      this.state.status = { kind: 'idle', until: later(ctx.instant(), this.spec.sleep) };
      await this.sleep(ctx, this.spec.sleep);
    } else await ctx.sleep(0);
    return outcome;
  }

  /** No queue had a job: Worker::sleep(--sleep) comes next. Returns when that sleep ends. */
  private nothingToRun(ctx: ActorContext): number {
    const until = later(ctx.instant(), this.spec.sleep);
    this.describe(
      ctx,
      this.popThrew
        ? narration.afterPopThrew(this.spec.sleep)
        : narration.nothingPopped(this.state.queue, this.spec.sleep, this.woke),
    );
    this.state.status = { kind: 'idle', until };
    return until;
  }

  /**
   * Worker::registerTimeoutHandler: pcntl_alarm arms SIGALRM, whose handler is timeoutHandler.
   * Returns when it fires, or null if nothing is armed. 5.3 arms --timeout + --sleep (and nothing
   * with --timeout=0); 5.4+ arms timeoutForJob, where 0 means no alarm. The methods trail names it
   * when the alarm fires, not here.
   */
  private registerTimeoutHandler(ctx: ActorContext, job: RedisJob | null): number | null {
    if (this.env.profile.worker.alarm === 'timeout-plus-sleep') {
      this.alarmSeconds = this.spec.timeout + this.spec.sleep;
      return this.spec.timeout > 0 ? later(ctx.instant(), this.alarmSeconds) : null;
    }
    this.alarmSeconds = this.timeoutForJob(job);
    // pcntl_alarm counts real seconds from the instant it is armed, not from Laravel's whole second.
    return this.alarmSeconds > 0 ? later(ctx.instant(), this.alarmSeconds) : null;
  }

  /** Worker::timeoutForJob: the job's $timeout if it has one, else --timeout. */
  private timeoutForJob(job: RedisJob | null): number {
    return job && job.timeout() !== null ? job.timeout()! : this.spec.timeout;
  }

  /**
   * SIGALRM → the timeout handler. To 5.8.27 it only kills: nothing reaches Redis. From 5.8.28 it
   * first fails the job if this was its last attempt (and, 8.x, on maxExceptions or
   * failOnTimeout), so a ZREM precedes the kill.
   */
  protected override async timeoutHandler(
    ctx: ActorContext,
    job: RedisJob | null,
    o: { resting?: boolean } = {},
  ): Promise<'killed'> {
    this.trail('Worker::registerTimeoutHandler');
    const rules = this.env.profile.worker;
    // Which check failed the job now (a job that settled before, e.g. during --rest, is not failed again).
    let failedBy: narration.FailedBy | null = null;
    if (job && rules.onTimeout === 'fail-last-attempt-then-kill') {
      // $this->maxAttemptsExceededException($job), or (10.10+) $this->timeoutExceededException($job).
      const e = rules.timedOutMessage
        ? timeoutExceeded(rules.timedOutMessage(job.resolveName()))
        : maxAttemptsExceeded(rules.maxAttemptsMessage(job.resolveName()));
      const byAttempts = await this.markJobAsFailedIfWillExceedMaxAttempts(ctx, job, e);
      const byExceptions = await this.markJobAsFailedIfWillExceedMaxExceptions(ctx, job, e);
      const byTimeout = await this.markJobAsFailedIfItShouldFailOnTimeout(ctx, job, e);
      failedBy = byAttempts ?? byExceptions ?? byTimeout;
    }
    return this.kill(ctx, job, { resting: o.resting === true, failedBy });
  }

  /** Worker::kill: posix_kill(SIGKILL) on itself. No catch or finally runs, so the job stays where it is. */
  private kill(
    ctx: ActorContext,
    job: RedisJob | null,
    o: { resting: boolean; failedBy: narration.FailedBy | null },
  ): 'killed' {
    const { resting } = o;
    const label = job ? this.label(job) : null;
    this.env.registry.killedOn(this.name, 'alarm');
    this.trail('Worker::kill → posix_kill(SIGKILL)');
    this.describe(
      ctx,
      narration.killed(this.setup, {
        name: this.name,
        label,
        failedBy: o.failedBy,
        seconds: this.alarmSeconds,
        alarm: this.env.profile.worker.alarm,
        poppedAt: this.poppedAt,
        resting,
      }),
    );
    this.state.status = label && !resting ? { kind: 'killed', job: label } : { kind: 'killed' };
    return 'killed';
  }

  /** Worker::sleep($seconds): true if a signal cut it short. */
  private sleep(ctx: ActorContext, seconds: number): Promise<boolean> {
    return interruptibleSleep(ctx, seconds, (wake) => (this.wake = wake));
  }

  /** Worker::stop: stopIfNecessary (or, before the first loop, $shouldQuit) ended the daemon; queue:work returns 0. */
  private stop(ctx: ActorContext, reason: Exclude<ExitReason, '--once'>, o: { startTime?: number } = {}): Outcome {
    this.trail(reason === 'SIGTERM' ? 'Worker::stop' : 'Worker::stopIfNecessary → Worker::stop');
    this.describe(
      ctx,
      reason === 'SIGTERM'
        ? narration.stoppedBySignal(this.name)
        : narration.stoppedByOption(this.setup, {
            name: this.name,
            reason,
            now: ctx.instant(),
            startTime: o.startTime ?? ctx.instant(),
            maxTime: this.spec.maxTime ?? 0,
            jobs: this.jobsProcessed,
            sleep: this.spec.sleep,
            restarts: restartsAfterExit(reason, this.spec.restart),
          }),
    );
    this.state.status = {
      kind: 'stopped',
      reason: reason === '--max-jobs' ? `--max-jobs=${this.jobsProcessed}` : reason,
    };
    this.exitReason = reason;
    return 'done';
  }
}

/** PHP's truthiness of a cached value: null, '' and '0' are false (a serialized false is 'b:0;'). */
function isTruthy(value: string | null): boolean {
  return value !== null && value !== '' && value !== '0' && value !== 'b:0;';
}

/** The queue:work flags a restart changed, e.g. "--timeout=30 --delay=5" ('' for none). */
function restartFlags(o: RestartOptions): string {
  const flags: string[] = [];
  if (o.queue !== undefined) flags.push(`--queue=${o.queue}`);
  if (o.tries !== undefined) flags.push(`--tries=${o.tries}`);
  if (o.timeout !== undefined) flags.push(`--timeout=${o.timeout}`);
  if (o.sleep !== undefined) flags.push(`--sleep=${o.sleep}`);
  if (o.delay !== undefined) flags.push(`--delay=${o.delay}`);
  if (o.backoff !== undefined) flags.push(`--backoff=${[o.backoff].flat().join(',')}`);
  return flags.join(' ');
}
