// A step of the cache store's traffic in Laravel's words ("worker-1 read the restart signal:
// unchanged", "lock laravel-queue-overlap:App\\Jobs\\X:order-1 refused: held by worker-1"), with
// what it tells the finding rules. Reads in the capture's order what the restart key holds (each
// `queue:restart` SET, each worker's check against what it read at its start) and who holds each
// queue lock. Whether a lock was taken comes from explain/cache-locks.ts.
import type { CacheCommand } from './cache-store.ts';
import { cacheKeyName } from './cache-store.ts';
import type { LockVerdict } from './cache-locks.ts';
import type { QueueEvent } from './findings.ts';
import type { GroupLine } from './grouping.ts';
import { commandName } from '../sim/command-name.ts';

/** Readers and holders kept at most: a capture of any size holds a bounded story. */
const KEPT = 4096;

interface Written {
  line: number;
  value: string;
}

export class CacheStory {
  private lastWrite: Written | undefined;
  /** Each reader's (a worker's cache connection) first read: the value it compares the later ones with. */
  private readonly readers = new Map<string, { start: Written | undefined; told: boolean }>();
  /** Who holds each queue lock (by its full key), since which line. */
  private readonly holders = new Map<string, { actor: string; line: number }>();
  /**
   * Each connection's limiter reads since it read a count: RateLimiter::tooManyAttempts reads the
   * count, then (at the max) the timer (`has`), and availableIn reads it again before the release.
   */
  private readonly limiterReads = new Map<string, { key: string; timers: number }>();

  constructor(
    /** The job of a uuid (job-exceptions:<uuid>), as the trace names it. */
    private readonly labelOfId: (id: string) => string | undefined,
  ) {}

  /** The title of a step whose first command is the cache command `first`, sent by `actor`. */
  title(
    first: GroupLine,
    cache: CacheCommand,
    actor: string,
    /** The worker this cache connection belongs to (configuration.ts pairs them), if told. */
    worker: string | undefined,
    /** The step holds its connection's SELECT: the process had just connected. */
    started: boolean,
    verdict: LockVerdict | undefined,
    event: (e: QueueEvent) => void,
  ): string {
    const { entry } = first;
    const args = entry.line.args;
    const name = cacheKeyName(cache.key);
    const full = args[cache.action === 'lock-release' ? 3 : 1] ?? '';
    const t = Number(entry.line.time);
    switch (cache.action) {
      case 'restart-write':
        this.lastWrite = { line: entry.lineNo, value: args[2] ?? '?' };
        return `queue:restart: wrote the restart signal ${args[2] ?? '?'} (Cache::forever ${name})`;
      case 'restart-read': {
        const who = worker ?? actor;
        if (worker !== undefined) event({ kind: 'restart-check', worker, line: entry.lineNo });
        // phpredis SELECTs as it connects: a check right after is the worker's first (Worker::daemon);
        // without one, the worker started before the capture, and whether this value is new to it
        // is not told (if it goes on, it was its start's: later checks compare with it).
        const reader = started ? undefined : this.readers.get(entry.line.client);
        if (reader === undefined) {
          if (this.readers.size < KEPT || started)
            this.readers.set(entry.line.client, { start: this.lastWrite, told: false });
          const value =
            this.lastWrite === undefined
              ? 'what was set before the capture, if anything'
              : `${this.lastWrite.value} (written at line ${this.lastWrite.line})`;
          return started
            ? `${who} read the restart signal as it started: ${value}`
            : `${who} read the restart signal (its first check in the capture, the worker started before it: whether this is new to it is not told): ${value}`;
        }
        const now = this.lastWrite;
        const changed = now !== undefined && now !== reader.start && now.value !== reader.start?.value;
        if (!changed) return `${who} read the restart signal: unchanged`;
        if (!reader.told) {
          reader.told = true;
          event({
            kind: 'restart-read',
            actor,
            worker,
            line: entry.lineNo,
            t,
            written: now,
            start: reader.start,
          });
        }
        return `${who} read the restart signal: changed to ${now.value} (written at line ${now.line}): it stops now, after its job (Worker::stopIfNecessary)`;
      }
      case 'lock-acquire': {
        const unique = cache.key.kind === 'unique';
        const held = this.holders.get(full);
        const heldBy = held === undefined ? undefined : `${held.actor} (taken at line ${held.line})`;
        const expiry = args[3] === 'EX' ? `for ${args[4]} s` : 'with no expiry';
        if (verdict?.taken === true) {
          if (this.holders.size < KEPT || held !== undefined)
            this.holders.set(full, { actor: worker ?? actor, line: entry.lineNo });
          event({
            kind: 'lock',
            lock: unique ? 'unique' : 'overlap',
            actor: worker ?? actor,
            line: entry.lineNo,
            key: name,
            taken: true,
          });
          if (verdict.byRefusal === true)
            return `${unique ? 'unique lock' : 'WithoutOverlapping: lock'} ${name} taken ${expiry}, most likely: the capture shows no release of it, and the next try of it (line ${verdict.line}, another connection) was refused with none between`;
          return unique
            ? `unique lock ${name} taken ${expiry}: the dispatch pushes the job (line ${verdict.line})`
            : `WithoutOverlapping: lock ${name} taken ${expiry} (released at line ${verdict.line}): handle() runs`;
        }
        if (verdict === undefined || verdict.taken === null)
          return `${unique ? 'unique lock' : 'WithoutOverlapping: lock'} ${name}: taken or refused, the capture ended before its connection said`;
        event({
          kind: 'lock',
          lock: unique ? 'unique' : 'overlap',
          actor: worker ?? actor,
          line: entry.lineNo,
          key: name,
          taken: false,
          ...(verdict.heldSince !== undefined
            ? { heldSince: verdict.heldSince }
            : verdict.silentFor === undefined
              ? { shownBy: verdict.line }
              : { silentFor: verdict.silentFor }),
          ...(verdict.likely === true ? { likely: true } : {}),
          ...(heldBy === undefined ? {} : { heldBy }),
        });
        const by = heldBy ?? 'another process (taken before the capture, or not by a queue lock it shows)';
        return unique
          ? `unique lock ${name} refused: held by ${by}: this dispatch was dropped (nothing pushed, nothing raised${verdict.silentFor === undefined ? '' : `; its connection sent nothing more in the ${verdict.silentFor} s the capture went on`})`
          : `WithoutOverlapping: lock ${name} refused: held by ${by}: the job is released without running handle()${verdict.likely === true ? ' (no lock release followed its job before the capture ended)' : ''}`;
      }
      case 'lock-release':
        if (this.holders.get(full)?.actor === (worker ?? actor)) this.holders.delete(full);
        return `lock ${name} released by its owner (RedisLock::release)`;
      case 'lock-force-release':
        this.holders.delete(full);
        return `unique lock ${name} force-released (DEL: the job ended, succeeded or failed; 8.x releases it without its owner)`;
      case 'exceptions-read':
      case 'exceptions-start':
      case 'exceptions-count':
      case 'exceptions-forget': {
        const job = this.labelOfId(cache.key.name) ?? `the job ${cache.key.name}`;
        const what = {
          'exceptions-read': `read how many exceptions ${job} has thrown`,
          'exceptions-start': `started ${job}'s count at 0, for a day`,
          'exceptions-count': `counted an exception of ${job}`,
          'exceptions-forget': `${job} reached its maxExceptions: the count deleted, the job fails`,
        }[cache.action];
        return `maxExceptions: ${what} (${name})`;
      }
      case 'limiter-read': {
        const client = entry.line.client;
        const count = cacheKeyName({ ...cache.key, timer: false });
        if (!cache.key.timer) {
          if (this.limiterReads.size < KEPT || this.limiterReads.has(client))
            this.limiterReads.set(client, { key: count, timers: 0 });
        } else {
          const reads = this.limiterReads.get(client);
          if (reads !== undefined && reads.key === count && ++reads.timers === 2) {
            this.limiterReads.delete(client);
            event({
              kind: 'limited',
              middleware: cache.key.kind === 'throttle' ? 'ThrottlesExceptions' : 'RateLimited',
              actor: worker ?? actor,
              line: entry.lineNo,
              key: count,
            });
            return `${limiterName(cache)}: at its max, the window still open: read when it ends (availableIn), to release the job for it + 3 s without running handle()`;
          }
        }
        return `${limiterName(cache)}: ${cache.key.timer ? 'read when the window ends (has / availableIn)' : 'read the attempts (tooManyAttempts)'}`;
      }
      case 'limiter-hit':
        return `${limiterName(cache)}: hit (${
          cache.key.timer
            ? "the window's end set, if not yet"
            : commandName(args[0]!) === 'EVAL'
              ? 'the count set to 0, if not yet'
              : 'one more attempt counted'
        })`;
      case 'limiter-clear':
        return `${limiterName(cache)}: cleared`;
      case 'duration-acquire':
        return `DurationLimiter ${name}: acquire a slot (Redis::throttle, RateLimitedWithRedis, ThrottlesExceptionsWithRedis' count)`;
      case 'duration-check':
        return `DurationLimiter ${name}: too many attempts? (ThrottlesExceptionsWithRedis)`;
    }
  }
}

function limiterName(c: CacheCommand): string {
  return c.key.kind === 'throttle'
    ? `ThrottlesExceptions ${cacheKeyName({ ...c.key, timer: false })}`
    : `rate limiter ${c.key.name}`;
}
