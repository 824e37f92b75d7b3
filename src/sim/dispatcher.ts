// Illuminate\Bus\Dispatcher on the application's side of the queue: `dispatch($job)` →
// dispatchToQueue → pushCommandToQueue, which calls Queue::later() when the job has a delay
// (even 0) and Queue::push() otherwise; both build the payload (Queue::createPayload with
// RedisQueue::createPayloadArray's id and attempts) and hand the JSON to pushRaw / laterRaw.
import type { JobRegistry } from './registry.ts';
import type { PhpValue } from './php.ts';
import type { LaravelProfile } from './profiles/types.ts';
import { strRandom, uuid4 } from './random.ts';
import type { RedisQueue } from './redis-queue.ts';
import type { ActorContext } from './scheduler.ts';

/** A job class as the application declares it: what goes into its payload. */
export interface JobDefinition {
  /** The scenario's name for it: instances are labelled `<name>#<n>`. */
  name: string;
  className: string;
  tries: number | null;
  timeout: number | null;
  /** retryUntil(): seconds after the dispatch, or null. */
  retryUntil: number | null;
  backoff: number | number[] | null;
  maxExceptions: number | null;
  failOnTimeout: boolean;
  /** The job's own public properties, in declaration order. */
  properties: Record<string, PhpValue>;
  /** Verbatim data.command instead of the serialize() output. */
  command: string | null;
}

/** One `dispatch()` call site: `count` instances, with what ->onConnection/->onQueue/->delay set. */
export interface PendingDispatch {
  job: JobDefinition;
  count: number;
  delay?: number;
  queue?: string;
  connection?: string;
  /** Instance i's own property values (0-based), over the class's: in the class's order. */
  properties?: (i: number) => Record<string, PhpValue>;
}

export interface Dispatched {
  labels: string[];
  /** The queue the jobs went onto. */
  queue: string;
  /** The first payload's `attempts` (0, or 1 in 5.3). */
  attempts: number;
}

/** Str::uuid() then Str::random(32), per job, in that order: the model and conformance draw alike. */
export function nextJobIdentity(random: () => number): { uuid: string; id: string } {
  const uuid = uuid4(random);
  return { uuid, id: strRandom(random, 32) };
}

export class Dispatcher {
  /** Payload id → the JobDefinition name it was dispatched as. */
  private readonly names = new Map<string, string>();

  constructor(
    private readonly profile: LaravelProfile,
    private readonly registry: JobRegistry,
    private readonly random: () => number,
  ) {}

  /** The name a payload id was dispatched as (how a worker finds what the job does). */
  jobNameOf(id: string): string | undefined {
    return this.names.get(id);
  }

  /** Dispatcher::dispatchToQueue → pushCommandToQueue, once per instance, on `queue`'s connection. */
  async dispatchToQueue(ctx: ActorContext, queue: RedisQueue, d: PendingDispatch): Promise<Dispatched> {
    const job = d.job;
    const queueName = d.queue ?? queue.config.default;
    const labels: string[] = [];
    let attempts = 0;
    for (let i = 0; i < d.count; i++) {
      const { uuid, id } = nextJobIdentity(this.random);
      const payload = this.profile.buildPayload({
        className: job.className,
        tries: job.tries,
        timeout: job.timeout,
        // retryUntil() returns now()->addSeconds(N); the payload keeps its getTimestamp(): time() + N.
        timeoutAt: job.retryUntil === null ? null : ctx.time() + job.retryUntil,
        properties: Object.entries({ ...job.properties, ...d.properties?.(i) }),
        connection: d.connection ?? null,
        queue: d.queue ?? null,
        delay: d.delay ?? null,
        command: job.command,
        id,
        uuid,
        backoff: job.backoff === null ? null : [job.backoff].flat().join(','),
        backoffDeclared: job.backoff,
        maxExceptions: job.maxExceptions,
        failOnTimeout: job.failOnTimeout,
        createdAt: ctx.time(),
      });
      if (i === 0) attempts = Number(payload.attempts);
      this.names.set(id, job.name);
      const instance = this.registry.add({
        id,
        class: job.className,
        dispatchedAt: ctx.instant(),
        queue: queueName,
        connection: queue.config.connectionName,
        baseName: job.name,
      });
      labels.push(instance.label);
      await this.pushCommandToQueue(queue, this.profile.encodePayload(payload), queueName, d.delay);
    }
    return { labels, queue: queueName, attempts };
  }

  /** Dispatcher::pushCommandToQueue: a delay, even 0, goes through later(). */
  private async pushCommandToQueue(queue: RedisQueue, payload: string, queueName: string, delay: number | undefined) {
    if (delay !== undefined) await queue.laterRaw(delay, payload, queueName);
    else await queue.pushRaw(payload, queueName);
  }
}
