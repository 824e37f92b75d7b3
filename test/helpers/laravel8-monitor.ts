// Hand-made MONITOR captures of a Laravel 8 app, command for command as Laravel 8.x sends them
// (RedisQueue::pushRaw, ::pop → migrate (delayed, then reserved) → retrieveNextJob, ::deleteReserved,
// ::deleteAndRelease; phpredis' SELECT as a process connects), with the scripts' text taken from a
// real 8.83 capture (conformance/laravel/captures/case-d.monitor.txt) so the tool recognises them
// as it would a real app's. Times are MONITOR's (Redis') seconds; `skew` puts the app's clock off.
import { readFileSync } from 'node:fs';
import { formatMonitorLine } from '../../src/redis/redis-escape.ts';
import { parseMonitorLine } from '../../src/redis/monitor-line.ts';

const real = readFileSync(new URL('../../conformance/laravel/captures/case-d.monitor.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.includes('"EVAL"'))
  .map((l) => parseMonitorLine(l).args[1]!);
const script = (start: string): string => real.find((s) => s.startsWith(start))!;
const PUSH = script('-- Push the job onto the queue');
const MIGRATE = script('-- Get all of the jobs with an expired');
const POP = script('-- Pop the first job off of the queue');
const RELEASE = script('-- Remove the job from the current queue');

const Q = 'laravel_database_queues:default';

export interface Job {
  uuid: string;
  maxTries: number | null;
  /** The attempts of the copy in Redis now (0 on the queue, n once reserved n times). */
  attempts: number;
}

export function job(n: number, maxTries: number | null = null): Job {
  return { uuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, maxTries, attempts: 0 };
}

/** The payload as Laravel 8's createPayloadArray writes it, at the given attempts. */
function payload(j: Job, attempts: number): string {
  return JSON.stringify({
    uuid: j.uuid,
    displayName: 'App\\Jobs\\Report',
    job: 'Illuminate\\Queue\\CallQueuedHandler@call',
    maxTries: j.maxTries,
    maxExceptions: null,
    failOnTimeout: false,
    backoff: null,
    timeout: null,
    retryUntil: null,
    data: { commandName: 'App\\Jobs\\Report', command: 'O:15:"App\\Jobs\\Report":0:{}' },
    id: j.uuid.replace(/-/g, '').slice(0, 32),
    attempts,
  });
}

export class Monitor {
  readonly lines: string[] = [];
  /** The app's clock minus Redis' (a skewed host or a simulated clock). */
  skew = 0;
  /** Each job's reserved copy as the pop wrote it, by client. */
  private readonly held = new Map<string, string>();

  constructor(
    public t = 1_795_570_000,
    private readonly retryAfter = 90,
  ) {}

  private cmd(client: string, ...args: string[]): void {
    this.t += 0.0001;
    this.lines.push(formatMonitorLine({ time: this.t.toFixed(6), db: 0, client, args }));
  }

  at(t: number): this {
    this.t = t;
    return this;
  }

  /** phpredis connecting: SELECT db. */
  connect(client: string): this {
    this.cmd(client, 'SELECT', '0');
    return this;
  }

  /** Anything else on a connection (a job using the Redis facade, the cache). */
  other(client: string, ...args: string[]): this {
    this.cmd(client, ...args);
    return this;
  }

  push(client: string, j: Job): this {
    const p = payload(j, 0);
    this.cmd(client, 'EVAL', PUSH, '2', Q, `${Q}:notify`, p);
    this.cmd('lua', 'rpush', Q, p);
    this.cmd('lua', 'rpush', `${Q}:notify`, '1');
    return this;
  }

  private now(): string {
    return String(Math.floor(this.t + this.skew));
  }

  /**
   * A worker's poll: the two migrates (`expired`: the jobs whose reservation ended, moved back
   * by the second), then the pop, reserving `j` if given.
   */
  poll(client: string, j?: Job, expired: Job[] = []): this {
    this.cmd(client, 'EVAL', MIGRATE, '3', `${Q}:delayed`, Q, `${Q}:notify`, this.now());
    this.cmd('lua', 'zrangebyscore', `${Q}:delayed`, '-inf', this.now());
    this.cmd(client, 'EVAL', MIGRATE, '3', `${Q}:reserved`, Q, `${Q}:notify`, this.now());
    this.cmd('lua', 'zrangebyscore', `${Q}:reserved`, '-inf', this.now());
    if (expired.length > 0) {
      this.cmd('lua', 'zremrangebyrank', `${Q}:reserved`, '0', String(expired.length - 1));
      this.cmd('lua', 'rpush', Q, ...expired.map((e) => payload(e, e.attempts)));
      for (const _ of expired) this.cmd('lua', 'rpush', `${Q}:notify`, '1');
    }
    const until = String(Math.floor(this.t + this.skew) + this.retryAfter);
    this.cmd(client, 'EVAL', POP, '3', Q, `${Q}:reserved`, `${Q}:notify`, until);
    this.cmd('lua', 'lpop', Q);
    if (j !== undefined) {
      j.attempts++;
      const copy = payload(j, j.attempts);
      this.held.set(`${j.uuid}@${client}`, copy);
      this.cmd('lua', 'zadd', `${Q}:reserved`, until, copy);
      this.cmd('lua', 'lpop', `${Q}:notify`);
    }
    return this;
  }

  /** deleteReserved: ZREM of the copy this client reserved (or, for a pop before the capture, `attempts`' copy). */
  delete(client: string, j: Job, attempts?: number): this {
    const copy = attempts === undefined ? this.held.get(`${j.uuid}@${client}`)! : payload(j, attempts);
    this.cmd(client, 'ZREM', `${Q}:reserved`, copy);
    return this;
  }

  /** deleteAndRelease: the release script, the copy back to :delayed until `delay` s on. */
  release(client: string, j: Job, delay: number): this {
    const copy = this.held.get(`${j.uuid}@${client}`)!;
    const until = String(Math.floor(this.t + this.skew) + delay);
    this.cmd(client, 'EVAL', RELEASE, '2', `${Q}:delayed`, `${Q}:reserved`, copy, until);
    this.cmd('lua', 'zrem', `${Q}:reserved`, copy);
    this.cmd('lua', 'zadd', `${Q}:delayed`, until, copy);
    return this;
  }

  text(): string {
    return `${this.lines.join('\n')}\n`;
  }
}
