// The tool's WorkerModel where Laravel's QueueWorkerTest has `new InsomniacWorker(...)` and
// `$worker->runNextJob('default', $queue, $options)`: one worker process with --once (runNextJob:
// one pop, one job or one sleep, no alarm) on the scheduler's virtual clock, against the real
// Redis of a LaravelRedis. Jobs are pushed as real payloads; what a fake job's callback did
// becomes the attempt's behaviour (throw, succeed...).
import type { FileValues } from '../../src/sim/cache.ts';
import { FileCache, LockBook } from '../../src/sim/cache.ts';
import { NO_RULES } from '../../src/sim/job-middleware.ts';
import type { AttemptSpec } from '../../src/scenarios/schema.ts';
import type { FailedJob, TraceCommand } from '../../src/scenarios/timeline.ts';
import type { PayloadInput } from '../../src/sim/profiles/types.ts';
import { JobRegistry } from '../../src/sim/registry.ts';
import type { CompletedStep } from '../../src/sim/scheduler.ts';
import { Scheduler } from '../../src/sim/scheduler.ts';
import { WorkerModel } from '../../src/sim/worker.ts';
import type { LaravelRedis, QueueOptions } from './harness.ts';
import { decode } from './harness.ts';

/** The WorkerOptions a test overrides: --tries (maxTries), --delay/--backoff, --sleep, --queue. */
export interface RunOptions {
  queue?: string;
  tries?: number;
  /** --delay (to 5.7) / --backoff (8.x). */
  backoff?: number;
  sleep?: number;
}

export interface RunResult {
  steps: CompletedStep[];
  /** Every command the worker's connection sent, from MONITOR. */
  commands: TraceCommand[];
}

export class WorkerBench {
  readonly registry = new JobRegistry();
  private readonly behaviours = new Map<string, AttemptSpec[]>();

  constructor(
    readonly h: LaravelRedis,
    private readonly queueOptions: QueueOptions = {},
  ) {}

  /** Push a job whose attempts behave as given; `overrides` replace payload fields (e.g. attempts). Returns its id. */
  async push(
    name: string,
    attempts: AttemptSpec[] = ['succeed'],
    input: Partial<PayloadInput> = {},
    overrides: Record<string, unknown> = {},
    queue = 'default',
  ): Promise<string> {
    const className = `App\\Jobs\\${name}`;
    const raw = this.h.payload({ className, ...input }, overrides);
    const id = decode(raw).id;
    this.registry.add({ id, class: className, dispatchedAt: this.h.clock, queue, connection: 'redis', baseName: name });
    this.behaviours.set(id, attempts);
    await (await this.h.queue(this.queueOptions, 'dispatcher')).pushRaw(raw, queue);
    return id;
  }

  /** $worker->runNextJob('redis', $queue, $options): one --once worker process to its end. */
  async runNextJob(o: RunOptions = {}): Promise<RunResult> {
    const h = this.h;
    await h.commands();
    const scheduler = new Scheduler({ start: h.clock, until: null, maxSteps: 100 });
    // The skeleton's file cache: nothing of it reaches Redis.
    const book = new LockBook(() => scheduler.currentInstant() ?? h.clock);
    const files: FileValues = new Map();
    const worker = new WorkerModel(
      {
        name: 'worker',
        connection: 'redis',
        queue: o.queue,
        tries: o.tries ?? h.profile.worker.defaultTries,
        timeout: 60,
        sleep: o.sleep ?? 3,
        delay: o.backoff ?? 0,
        once: true,
        start: 0,
        restart: false,
      },
      {
        profile: h.profile,
        connect: (actor) => h.port(actor),
        connections: { redis: h.config(this.queueOptions) },
        registry: this.registry,
        cacheFor: (redis) => {
          const file: FileCache = new FileCache(
            files,
            { book, actor: redis.actor, now: () => scheduler.currentInstant() ?? h.clock, owner: () => 'owner' },
            () => file,
          );
          return file;
        },
        jobRulesOf: () => NO_RULES,
        locks: book,
        restartSignal: { value: null },
        hashJobName: () => Promise.reject(new Error('no job middleware here')),
        start: h.clock,
        behaviourOf: (id, attempt) => {
          const list = this.behaviours.get(id) ?? ['succeed'];
          return list[Math.min(attempt, list.length) - 1] ?? list[list.length - 1]!;
        },
      },
    );
    scheduler.spawn('worker', h.clock, (ctx) => worker.supervise(ctx));
    const steps: CompletedStep[] = [];
    await scheduler.run(async (s) => {
      steps.push({ ...s, description: s.description ? { ...s.description } : null });
    });
    h.clock = scheduler.time();
    const commands = (await h.commands()).filter((c) => c.actor === 'worker');
    return { steps, commands };
  }

  /** How many times the job's handle() started ($job->fired). */
  fired(id: string): number {
    return this.registry.get(id)?.executions ?? 0;
  }

  /** $job->failedWith, as recorded in failed_jobs. */
  failedWith(id: string): FailedJob | undefined {
    return this.registry.failed.find((f) => f.id === id);
  }
}
