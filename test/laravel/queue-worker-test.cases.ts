// Laravel's tests/Queue/QueueWorkerTest.php, the Redis-relevant cases, ported: the same situations
// (a job that throws, a job out of tries, a retryUntil in the past...) played by the tool's
// WorkerModel with --once (Laravel's tests call runNextJob) on a real redis-server, asserting what
// Laravel's test asserts about the job: released with delay N, deleted, failed with which
// exception, fired or not. Laravel's fake jobs hold these facts in properties; here they are read
// back from Redis (a release is the release script moving the reserved copy to :delayed at
// now + N; a delete is the ZREM of the reserved copy) and from failed_jobs.
// Sources read: QueueWorkerTest v5.3 (snake_case names) and 10.x in full, excerpts of 5.4-5.8
// (camelCase from 5.5); the names below are the current ones, which map 1:1.
//
// One translation applies throughout: a fake job starts with whatever `attempts` the test sets
// and its callback increments it "as being popped off the queue would". On Redis the pop does
// that increment: a job whose attempts() must read N is pushed with the payload attempts that the
// pop turns into N (5.4+: N - 1, as the pop script adds 1; 5.3: N, as 5.3 pushes attempts 1 and
// RedisJob::attempts() reads the pushed value).
import { expect } from 'vitest';
import type { AttemptSpec } from '../../src/scenarios/schema.ts';
import type { LaravelCase, LaravelRedis } from './harness.ts';
import type { RunResult } from './worker-bench.ts';
import { WorkerBench } from './worker-bench.ts';

const MAX_ATTEMPTS = 'Illuminate\\Queue\\MaxAttemptsExceededException';

/** An attempt whose handle() throws at once: new RuntimeException (the model records its message). */
const throws = (message: string): AttemptSpec => ({ run: 0, throw: message });

/** The payload attempts that the pop turns into attempts() == n. */
const pushedAttemptsFor = (h: LaravelRedis, n: number): number => (h.profile.name === '5.3' ? n : n - 1);

/** The release script's EVAL as the worker sent it: [reserved payload, due time]. */
function releases(r: RunResult): Array<[string, number]> {
  return r.commands.filter((c) => c.script === 'release').map((c) => [c.args[5]!, Number(c.args[6])]);
}
/** ZREMs of :reserved (RedisJob::delete). */
function deletes(r: RunResult): string[] {
  return r.commands.filter((c) => c.source === 'client' && c.args[0] === 'ZREM').map((c) => c.args[2]!);
}
/** The one reserved copy the pop script ZADDed (attempts + 1, re-encoded): what ZREM and release must name. */
function reservedCopy(r: RunResult): string {
  const zadds = r.commands.filter(
    (c) => c.source === 'lua' && c.args[0] === 'zadd' && c.args[1] === 'test_queues:default:reserved',
  );
  expect(zadds).toHaveLength(1);
  return zadds[0]!.args[3]!;
}

export const PROFILES = ['5.3', '5.7', '8', '13'] as const;
/** Job-level maxTries and timeoutAt/retryUntil: 5.5+ (the 5.3 model has neither). */
const JOB_LEVEL = ['5.7', '8', '13'] as const;
/** Job-level backoff in the payload: 5.8+ (`delay`, renamed `backoff` in 8.x). */
const JOB_BACKOFF = ['8', '13'] as const;

export const QUEUE_WORKER_TEST: LaravelCase[] = [
  {
    name: 'testJobCanBeFired',
    profiles: PROFILES,
    async run(h) {
      const bench = new WorkerBench(h);
      const id = await bench.push('Fake');
      const r = await bench.runNextJob();
      expect(bench.fired(id)).toBe(1);
      // CallQueuedHandler deletes the job once handle() returns: the ZREM of its reserved copy.
      expect(deletes(r)).toEqual([reservedCopy(r)]);
      expect(await h.zcard('queues:default:reserved')).toBe(0);
    },
  },
  {
    name: 'testJobCanBeFiredBasedOnPriority',
    profiles: PROFILES,
    async run(h) {
      const bench = new WorkerBench(h);
      const high = await bench.push('High', ['succeed'], {}, {}, 'high');
      const secondHigh = await bench.push('High', ['succeed'], {}, {}, 'high');
      const low = await bench.push('Low', ['succeed'], {}, {}, 'low');
      await bench.runNextJob({ queue: 'high,low' });
      expect([bench.fired(high), bench.fired(secondHigh), bench.fired(low)]).toEqual([1, 0, 0]);
      await bench.runNextJob({ queue: 'high,low' });
      expect([bench.fired(secondHigh), bench.fired(low)]).toEqual([1, 0]);
      await bench.runNextJob({ queue: 'high,low' });
      expect(bench.fired(low)).toBe(1);
    },
  },
  {
    name: 'testWorkerSleepsWhenQueueIsEmpty',
    profiles: PROFILES,
    async run(h) {
      const bench = new WorkerBench(h);
      const t0 = h.clock;
      const r = await bench.runNextJob({ sleep: 5 });
      // The empty pop at t0, then the worker sleeps 5 s (sleptFor = 5) and runNextJob returns.
      expect(r.steps.map((s) => [s.t - t0, s.description?.kind])).toEqual([
        [0, 'pop'],
        [5, 'stop'],
      ]);
      expect(r.commands.filter((c) => c.script === 'pop')).toHaveLength(1);
    },
  },
  {
    // The fake job never counts its attempt (attempts 0 < maxTries), so it has tries left; on
    // Redis the pop has counted it already, so --tries=0 (unlimited) keeps that premise.
    name: 'testJobIsReleasedOnException',
    profiles: PROFILES,
    async run(h) {
      const bench = new WorkerBench(h);
      const id = await bench.push('Fake', [throws('RuntimeException')]);
      const t0 = h.clock;
      // --delay=10 to 5.7, --backoff=10 in 8.x: releaseAfter == 10.
      const r = await bench.runNextJob({ tries: 0, backoff: 10 });
      expect(releases(r)).toEqual([[reservedCopy(r), t0 + 10]]);
      expect(await h.zrangeWithScores('queues:default:delayed')).toEqual([[reservedCopy(r), t0 + 10]]);
      // Not deleted, not failed.
      expect(deletes(r)).toEqual([]);
      expect(bench.failedWith(id)).toBeUndefined();
      expect(bench.fired(id)).toBe(1);
    },
  },
  {
    // v5.3: attempts 5 with maxTries 1; v5.4+: attempts 1, incremented to 2 by the fire. A fresh
    // Redis job popped with --tries=1 is at attempts() 1 >= 1 when it throws: the same verdict.
    name: 'testJobIsNotReleasedIfItHasExceededMaxAttempts',
    profiles: PROFILES,
    async run(h) {
      const bench = new WorkerBench(h);
      const id = await bench.push('Fake', [throws('RuntimeException')]);
      const r = await bench.runNextJob({ tries: 1 });
      expect(releases(r)).toEqual([]);
      expect(deletes(r)).toEqual([reservedCopy(r)]);
      // failedWith is the job's own exception, not MaxAttemptsExceededException.
      expect(bench.failedWith(id)).toMatchObject({ exception: 'Exception', message: 'RuntimeException' });
      expect(await h.zcard('queues:default:delayed')).toBe(0);
      expect(await h.zcard('queues:default:reserved')).toBe(0);
    },
  },
  {
    // retryUntil = now + 1, then the clock moves on 1 s before the job runs and throws.
    name: 'testJobIsNotReleasedIfItHasExpired',
    profiles: JOB_LEVEL,
    async run(h) {
      const bench = new WorkerBench(h);
      const id = await bench.push('Fake', [throws('RuntimeException')], { timeoutAt: h.clock + 1 });
      h.clock += 1;
      const r = await bench.runNextJob();
      expect(bench.fired(id)).toBe(1);
      expect(releases(r)).toEqual([]);
      expect(deletes(r)).toEqual([reservedCopy(r)]);
      expect(bench.failedWith(id)).toMatchObject({ exception: 'Exception', message: 'RuntimeException' });
    },
  },
  {
    name: 'testJobIsFailedIfItHasAlreadyExceededMaxAttempts',
    profiles: PROFILES,
    async run(h) {
      const bench = new WorkerBench(h);
      const id = await bench.push('Fake', ['succeed'], {}, { attempts: pushedAttemptsFor(h, 2) });
      const r = await bench.runNextJob({ tries: 1 });
      // attempts() 2 > maxTries 1: failed before it is fired.
      expect(bench.fired(id)).toBe(0);
      expect(releases(r)).toEqual([]);
      expect(deletes(r)).toEqual([reservedCopy(r)]);
      expect(bench.failedWith(id)).toMatchObject({ exception: MAX_ATTEMPTS });
    },
  },
  {
    // retryUntil = now + 2, attempts 1, then the clock moves on 3 s.
    name: 'testJobIsFailedIfItHasAlreadyExpired',
    profiles: JOB_LEVEL,
    async run(h) {
      const bench = new WorkerBench(h);
      const id = await bench.push(
        'Fake',
        ['succeed'],
        { timeoutAt: h.clock + 2 },
        { attempts: pushedAttemptsFor(h, 1) },
      );
      h.clock += 3;
      const r = await bench.runNextJob();
      expect(bench.fired(id)).toBe(0);
      expect(releases(r)).toEqual([]);
      expect(deletes(r)).toEqual([reservedCopy(r)]);
      expect(bench.failedWith(id)).toMatchObject({ exception: MAX_ATTEMPTS });
    },
  },
  {
    // attempts 2, the job's maxTries 10, --tries=1: it runs. Laravel's fake fire() never deletes,
    // hence its assertFalse($job->deleted); a real job that returns is deleted by CallQueuedHandler,
    // so the port asserts it was fired, not failed, not released, and only that success ZREM.
    name: 'testJobBasedMaxRetries',
    profiles: JOB_LEVEL,
    async run(h) {
      const bench = new WorkerBench(h);
      const id = await bench.push('Fake', ['succeed'], { tries: 10 }, { attempts: pushedAttemptsFor(h, 2) });
      const r = await bench.runNextJob({ tries: 1 });
      expect(bench.fired(id)).toBe(1);
      expect(bench.failedWith(id)).toBeUndefined();
      expect(releases(r)).toEqual([]);
      expect(deletes(r)).toEqual([reservedCopy(r)]);
    },
  },
  {
    // The job's $backoff = 10 beats --backoff=3; maxTries 0.
    name: 'testJobBasedFailedDelay',
    profiles: JOB_BACKOFF,
    async run(h) {
      const bench = new WorkerBench(h);
      const id = await bench.push('Fake', [throws('Something went wrong.')], { backoff: '10', backoffDeclared: 10 });
      const t0 = h.clock;
      const r = await bench.runNextJob({ tries: 0, backoff: 3 });
      expect(releases(r)).toEqual([[reservedCopy(r), t0 + 10]]);
      expect(bench.failedWith(id)).toBeUndefined();
    },
  },
];
