// Illuminate\Queue\Jobs\RedisJob: the popped job, its two payload strings and its flags.
import type { RedisQueue } from './redis-queue.ts';

interface Payload {
  uuid?: string;
  displayName?: string;
  maxExceptions?: number | null;
  failOnTimeout?: boolean;
  backoff?: string | null;
  /** 5.8.14-7.x: the job's retryAfter; 12.11+: the dispatch delay in seconds (null for push). */
  delay?: number | null;
  retryUntil?: number | null;
  job?: string;
  maxTries?: number | null;
  timeout?: number | null;
  timeoutAt?: number | null;
  data?: { commandName?: string };
  id?: string;
  attempts?: number;
}

export class RedisJob {
  private readonly decoded: Payload;
  deleted = false;
  released = false;
  failed = false;

  constructor(
    private readonly redis: RedisQueue,
    /** The payload as it was on the ready list (getRawBody). */
    readonly job: string,
    /** The copy the pop put on :reserved (cjson re-encoded, attempts + 1): what ZREM must name. */
    readonly reserved: string,
    readonly connectionName: string,
    readonly queue: string,
  ) {
    this.decoded = JSON.parse(job) as Payload;
  }

  getRawBody(): string {
    return this.job;
  }

  getReservedJob(): string {
    return this.reserved;
  }

  getJobId(): string {
    return this.decoded.id ?? '';
  }

  /** RedisJob::attempts(): 5.4+ is the ready-list value + 1 (= the reserved copy's attempts). */
  attempts(): number {
    return this.redis.profile.worker.attemptsOf(this.decoded.attempts ?? 0);
  }

  maxTries(): number | null {
    return this.redis.profile.worker.jobLevelOptions ? (this.decoded.maxTries ?? null) : null;
  }

  timeout(): number | null {
    return this.redis.profile.worker.jobLevelOptions ? (this.decoded.timeout ?? null) : null;
  }

  /** Job::retryUntil() (8.x; timeoutAt() before): payload retryUntil ?? timeoutAt. */
  timeoutAt(): number | null {
    return this.redis.profile.worker.timeoutAt ? (this.decoded.retryUntil ?? this.decoded.timeoutAt ?? null) : null;
  }

  uuid(): string | null {
    return this.decoded.uuid ?? null;
  }

  maxExceptions(): number | null {
    return this.decoded.maxExceptions ?? null;
  }

  shouldFailOnTimeout(): boolean {
    return this.decoded.failOnTimeout ?? false;
  }

  /**
   * Job::backoff() (8.x-13.x): `payload['backoff'] ?? payload['delay'] ?? null`, e.g. "5,10". 8.x
   * payloads have no delay; since 12.11 it is the dispatch delay, so a job dispatched with
   * ->delay(60) and no $backoff is released for 60 s after an exception, not --backoff.
   */
  backoff(): string | null {
    const b = this.decoded.backoff ?? this.decoded.delay ?? null;
    return b === null ? null : String(b);
  }

  /** Job::resolveName(): the displayName, else the command or handler name. */
  resolveName(): string {
    return this.decoded.displayName ?? this.decoded.data?.commandName ?? this.decoded.job ?? 'job';
  }

  /** RedisJob::delete → RedisQueue::deleteReserved. Returns how many members ZREM removed. */
  async delete(): Promise<number> {
    this.deleted = true;
    return this.redis.deleteReserved(this.queue, this);
  }

  /** RedisJob::release → RedisQueue::deleteAndRelease. */
  async release(delay: number): Promise<void> {
    this.released = true;
    await this.redis.deleteAndRelease(this.queue, this, delay);
  }

  markAsFailed(): void {
    this.failed = true;
  }
}
