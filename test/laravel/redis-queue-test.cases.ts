// Laravel's own integration test of RedisQueue, ported: tests/Queue/RedisQueueIntegrationTest.php
// (5.3 → 10.36; tests/Integration/Queue/RedisQueueTest.php from 10.37), run against the tool's
// RedisQueue/RedisJob model on a real redis-server, once per Laravel profile the case applies to
// (each case's `profiles`; test/laravel/README.md explains every exclusion). Each case asserts what
// Laravel's test asserts: the keys' contents read back from Redis, the values returned, and
// scores relative to the clock. Laravel freezes the clock with Carbon::setTestNow and checks a
// score lies in [before + n, after + n]; our clock is virtual, so before == after and the
// score must be exactly now + n.
// Sources read: v5.3 (tests/Queue/RedisQueueIntegrationTest.php, the 5.3 file: payloads start
// at attempts 1, so reserved copies show 2), v6/7 and v8.x (same file, with testClear,
// testMigrateMoreThan100Jobs and the blocking cases), v13.x (tests/Integration/Queue/RedisQueueTest.php:
// the same cases, keys through getQueueRedisKey(), which is the plain key off a cluster).
import { expect } from 'vitest';
import type { RedisJob } from '../../src/sim/redis-job.ts';
import type { LaravelCase, LaravelRedis } from './harness.ts';
import { decode, jobNumber } from './harness.ts';

export const PROFILES = ['5.3', '5.7', '8', '13'] as const;
/** block_for exists since 5.6 (BLPOP on the list; 5.8+ BLPOP on :notify). */
const BLOCK_FOR = ['5.7', '8', '13'] as const;
/** The :notify list and LuaScripts::clear: 8.4+. */
const CLEAR = ['8', '13'] as const;
/**
 * testMigrateMoreThan100Jobs: 5.8 → 9.0. Laravel commented it out in 9.1.0 (PR #41006, "Disable test
 * for now"); the v13 file still carries it, commented out, unchanged. Its assertions hold for the 13
 * wire too (migrate's batch limit is -1, all), so it runs for 13 as well.
 */
const MIGRATE_201 = ['8', '13'] as const;

/** The reserved copy's attempts after the first pop: 5.3 pushes attempts 1 (its test asserts 2), 5.4+ pushes 0. */
const firstReservedAttempts = (h: LaravelRedis): number => (h.profile.name === '5.3' ? 2 : 1);

async function pop(h: LaravelRedis, q: Awaited<ReturnType<LaravelRedis['queue']>>): Promise<RedisJob> {
  const job = await q.pop(h.ctx());
  expect(job).not.toBeNull();
  return job!;
}

const sleepMs = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const REDIS_QUEUE_TEST: LaravelCase[] = [
  {
    name: 'testExpiredJobsArePopped',
    profiles: PROFILES,
    async run(h) {
      const q = await h.queue();
      await q.laterRaw(1000, h.testJobPayload(0));
      await q.laterRaw(-200, h.testJobPayload(1));
      await q.laterRaw(-300, h.testJobPayload(2));
      await q.laterRaw(-100, h.testJobPayload(3));
      // Due jobs come out in score order (-300, -200, -100); the one due in 1000 s stays.
      expect(jobNumber((await pop(h, q)).getRawBody())).toBe(2);
      expect(jobNumber((await pop(h, q)).getRawBody())).toBe(1);
      expect(jobNumber((await pop(h, q)).getRawBody())).toBe(3);
      expect(await q.pop(h.ctx())).toBeNull();
      expect(await h.zcard('queues:default:delayed')).toBe(1);
      expect(await h.zcard('queues:default:reserved')).toBe(3);
    },
  },
  {
    // Laravel forks a child that pushes job 12 after 1 s while the parent pops with block_for 10.
    name: 'testBlockingPop',
    profiles: BLOCK_FOR,
    async run(h) {
      const parent = await h.queue({ blockFor: 10 });
      const child = await h.queue({}, 'child');
      const started = Date.now();
      const pushing = (async () => {
        await sleepMs(1000);
        await child.pushRaw(h.testJobPayload(12));
      })();
      const job = await parent.pop(h.ctx());
      await pushing;
      expect(jobNumber(job!.getRawBody())).toBe(12);
      // It waited for the push inside Redis: 5.6-5.7 BLPOP the list, 5.8+ the :notify list.
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      const blpop = (await h.commands()).filter((c) => c.args[0] === 'BLPOP').map((c) => c.args);
      const listKey = h.profile.name === '5.7' ? 'test_queues:default' : 'test_queues:default:notify';
      expect(blpop).toEqual([['BLPOP', listKey, '10']]);
    },
  },
  {
    name: 'testMigrateMoreThan100Jobs',
    profiles: MIGRATE_201,
    async run(h) {
      const q = await h.queue();
      for (let i = -1; i >= -201; i--) await q.laterRaw(i, h.testJobPayload(i));
      // One migrate moves all 201 (rpush chunks of 100, 100, 1) and RPUSHes 201 notifications;
      // each pop script LPOPs one of them.
      for (let i = -201; i <= -1; i++) {
        expect(jobNumber((await pop(h, q)).getRawBody())).toBe(i);
        expect(await h.llen('queues:default:notify')).toBe(-i - 1);
      }
    },
  },
  {
    name: 'testPopProperlyPopsJobOffOfRedis',
    profiles: PROFILES,
    async run(h) {
      const q = await h.queue();
      await q.pushRaw(h.testJobPayload(10));
      const before = h.clock;
      const job = await pop(h, q);
      const after = h.clock;
      expect(jobNumber(job.getRawBody())).toBe(10);
      expect(job.attempts()).toBe(1);
      expect(jobNumber(job.getReservedJob())).toBe(10);
      expect(decode(job.getReservedJob()).attempts).toBe(firstReservedAttempts(h));
      expect(decode(job.getReservedJob()).id).toBe(job.getJobId());
      expect(await h.zcard('queues:default:reserved')).toBe(1);
      const [[reserved, score]] = (await h.zrangeWithScores('queues:default:reserved')) as [[string, number]];
      expect(score).toBeGreaterThanOrEqual(before + 60);
      expect(score).toBeLessThanOrEqual(after + 60);
      expect(jobNumber(reserved)).toBe(10);
    },
  },
  {
    name: 'testPopProperlyPopsDelayedJobOffOfRedis',
    profiles: PROFILES,
    async run(h) {
      const q = await h.queue();
      await q.laterRaw(-10, h.testJobPayload(10));
      const before = h.clock;
      expect(jobNumber((await pop(h, q)).getRawBody())).toBe(10);
      const after = h.clock;
      expect(await h.zcard('queues:default:reserved')).toBe(1);
      const [[reserved, score]] = (await h.zrangeWithScores('queues:default:reserved')) as [[string, number]];
      expect(score).toBeGreaterThanOrEqual(before + 60);
      expect(score).toBeLessThanOrEqual(after + 60);
      expect(jobNumber(reserved)).toBe(10);
    },
  },
  {
    // new RedisQueue($redis, 'default', null, null): retry_after null reserves with score now.
    name: 'testPopPopsDelayedJobOffOfRedisWhenExpireNull',
    profiles: PROFILES,
    async run(h) {
      const q = await h.queue({ retryAfter: null });
      await q.laterRaw(-10, h.testJobPayload(10));
      const before = h.clock;
      expect(jobNumber((await pop(h, q)).getRawBody())).toBe(10);
      const after = h.clock;
      expect(await h.zcard('queues:default:reserved')).toBe(1);
      const [[reserved, score]] = (await h.zrangeWithScores('queues:default:reserved')) as [[string, number]];
      expect(score).toBeGreaterThanOrEqual(before);
      expect(score).toBeLessThanOrEqual(after);
      expect(jobNumber(reserved)).toBe(10);
    },
  },
  {
    name: 'testBlockingPopProperlyPopsJobOffOfRedis',
    profiles: BLOCK_FOR,
    async run(h) {
      const q = await h.queue({ blockFor: 5 });
      await q.pushRaw(h.testJobPayload(10));
      const job = await q.pop(h.ctx());
      expect(job).not.toBeNull();
      expect(jobNumber(job!.getReservedJob())).toBe(10);
    },
  },
  {
    name: 'testBlockingPopProperlyPopsExpiredJobs',
    profiles: BLOCK_FOR,
    async run(h) {
      const q = await h.queue({ blockFor: 5 });
      await q.laterRaw(-200, h.testJobPayload(0));
      await q.laterRaw(-200, h.testJobPayload(1));
      expect(jobNumber((await pop(h, q)).getRawBody())).toBe(0);
      expect(jobNumber((await pop(h, q)).getRawBody())).toBe(1);
      // 5.7 has no :notify list at all (LLEN of a missing key is 0); 8 migrated two and popped two.
      expect(await h.llen('queues:default:notify')).toBe(0);
      expect(await h.zcard('queues:default:delayed')).toBe(0);
      expect(await h.zcard('queues:default:reserved')).toBe(2);
    },
  },
  {
    name: 'testNotExpireJobsWhenExpireNull',
    profiles: PROFILES,
    async run(h) {
      const q = await h.queue({ retryAfter: null });
      await q.pushRaw(h.testJobPayload(-20));
      const beforeFailPop = h.clock;
      await pop(h, q);
      const afterFailPop = h.clock;
      // Laravel's clock moves on by itself; ours is moved on so that the stuck reservation (score
      // beforeFailPop) is due, and would be migrated back if retry_after null still migrated :reserved.
      h.clock += 5;
      await q.pushRaw(h.testJobPayload(10));
      const before = h.clock;
      expect(jobNumber((await pop(h, q)).getRawBody())).toBe(10);
      const after = h.clock;
      expect(await h.zcard('queues:default:reserved')).toBe(2);
      const entries = await h.zrangeWithScores('queues:default:reserved');
      expect(entries.map(([p]) => jobNumber(p)).sort()).toEqual([-20, 10].sort());
      for (const [payload, score] of entries) {
        const [lo, hi] = jobNumber(payload) === 10 ? [before, after] : [beforeFailPop, afterFailPop];
        expect(score).toBeGreaterThanOrEqual(lo);
        expect(score).toBeLessThanOrEqual(hi);
      }
    },
  },
  {
    name: 'testExpireJobsWhenExpireSet',
    profiles: PROFILES,
    async run(h) {
      const q = await h.queue({ retryAfter: 30 });
      await q.pushRaw(h.testJobPayload(10));
      const before = h.clock;
      expect(jobNumber((await pop(h, q)).getRawBody())).toBe(10);
      const after = h.clock;
      expect(await h.zcard('queues:default:reserved')).toBe(1);
      const [[reserved, score]] = (await h.zrangeWithScores('queues:default:reserved')) as [[string, number]];
      expect(score).toBeGreaterThanOrEqual(before + 30);
      expect(score).toBeLessThanOrEqual(after + 30);
      expect(jobNumber(reserved)).toBe(10);
    },
  },
  {
    name: 'testRelease',
    profiles: PROFILES,
    async run(h) {
      const q = await h.queue();
      await q.pushRaw(h.testJobPayload(30));
      const job = await pop(h, q);
      const before = h.clock;
      await job.release(1000);
      const after = h.clock;
      expect(await h.zcard('queues:default:delayed')).toBe(1);
      const [[payload, score]] = (await h.zrangeWithScores('queues:default:delayed')) as [[string, number]];
      expect(score).toBeGreaterThanOrEqual(before + 1000);
      expect(score).toBeLessThanOrEqual(after + 1000);
      // The released payload is the reserved copy: attempts already counts this try.
      expect(decode(payload).attempts).toBe(firstReservedAttempts(h));
      expect(jobNumber(payload)).toBe(30);
      expect(await q.pop(h.ctx())).toBeNull();
    },
  },
  {
    name: 'testReleaseInThePast',
    profiles: PROFILES,
    async run(h) {
      const q = await h.queue();
      await q.pushRaw(h.testJobPayload(30));
      const job = await pop(h, q);
      await job.release(-3);
      const again = await q.pop(h.ctx());
      expect(again).not.toBeNull();
      expect(jobNumber(again!.getRawBody())).toBe(30);
    },
  },
  {
    name: 'testDelete',
    profiles: PROFILES,
    async run(h) {
      const q = await h.queue();
      await q.pushRaw(h.testJobPayload(30));
      const job = await pop(h, q);
      await job.delete();
      expect(await h.zcard('queues:default:delayed')).toBe(0);
      expect(await h.zcard('queues:default:reserved')).toBe(0);
      expect(await h.llen('queues:default')).toBe(0);
      expect(await q.pop(h.ctx())).toBeNull();
    },
  },
  {
    name: 'testClear',
    profiles: CLEAR,
    async run(h) {
      const q = await h.queue();
      await q.pushRaw(h.testJobPayload(30));
      await q.pushRaw(h.testJobPayload(40));
      expect(await q.clear(null)).toBe(2);
      expect(await q.size()).toBe(0);
      expect(await h.llen('queues:default:notify')).toBe(0);
    },
  },
  {
    name: 'testSize',
    profiles: PROFILES,
    async run(h) {
      const q = await h.queue();
      expect(await q.size()).toBe(0);
      await q.pushRaw(h.testJobPayload(1));
      expect(await q.size()).toBe(1);
      await q.laterRaw(60, h.testJobPayload(2));
      expect(await q.size()).toBe(2);
      await q.pushRaw(h.testJobPayload(3));
      expect(await q.size()).toBe(3);
      const job = await pop(h, q);
      expect(await q.size()).toBe(3);
      await job.delete();
      expect(await q.size()).toBe(2);
    },
  },
];
