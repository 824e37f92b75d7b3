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

/** A popped job's payload is not what Laravel writes: not JSON, not an object, or a field of another type. */
export class JobPayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobPayloadError';
  }
}

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const orNull =
  <T>(is: (v: unknown) => v is T) =>
  (v: unknown): v is T | null =>
    v === null || is(v);

/** A parsed JSON value as the error shows it: its JSON text, cut short. */
function shown(v: unknown): string {
  const text = JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** The field `key` of `o` when it is there (a JSON value of type T), undefined when it is absent. */
function field<T>(o: JsonObject, key: string, is: (v: unknown) => v is T, expected: string, path = key): T | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (!is(v)) throw new JobPayloadError(`job payload: ${path} should be ${expected}, got ${shown(v)}`);
  return v;
}

/** The payload string as Laravel's RedisJob reads it (json_decode), each field checked for its type. */
export function decodePayload(raw: string): Payload {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new JobPayloadError(`job payload is not JSON (${(e as Error).message}): ${raw.slice(0, 60)}`);
  }
  if (!isObject(value)) throw new JobPayloadError(`job payload should be a JSON object, got ${shown(value)}`);
  const number = orNull(isNumber);
  // A PHP array: a JSON object, or a list (Laravel's own tests push `"data":["data"]`).
  const data = field(
    value,
    'data',
    (v): v is JsonObject | unknown[] => typeof v === 'object' && v !== null,
    'an object or an array',
  );
  return {
    uuid: field(value, 'uuid', isString, 'a string'),
    displayName: field(value, 'displayName', isString, 'a string'),
    maxExceptions: field(value, 'maxExceptions', number, 'a number or null'),
    failOnTimeout: field(value, 'failOnTimeout', isBoolean, 'a boolean'),
    backoff: field(value, 'backoff', orNull(isString), 'a string or null'),
    delay: field(value, 'delay', number, 'a number or null'),
    retryUntil: field(value, 'retryUntil', number, 'a number or null'),
    job: field(value, 'job', isString, 'a string'),
    maxTries: field(value, 'maxTries', number, 'a number or null'),
    timeout: field(value, 'timeout', number, 'a number or null'),
    timeoutAt: field(value, 'timeoutAt', number, 'a number or null'),
    data:
      data === undefined
        ? undefined
        : {
            commandName: isObject(data)
              ? field(data, 'commandName', isString, 'a string', 'data.commandName')
              : undefined,
          },
    id: field(value, 'id', isString, 'a string'),
    attempts: field(value, 'attempts', isNumber, 'a number'),
  };
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
    this.decoded = decodePayload(job);
  }

  /** RedisJob::getRedisQueue(): the queue it was popped from. */
  getRedisQueue(): RedisQueue {
    return this.redis;
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
