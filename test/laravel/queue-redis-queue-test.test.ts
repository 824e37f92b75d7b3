// Laravel's QueueRedisQueueTest and QueueRedisJobTest (unit tests of the exact client calls),
// checked against MONITOR (the cases, their sources and expected strings are in
// queue-redis-queue-test.cases.ts; README.md lists them). The mocked connection has no prefix.
import { afterEach, beforeEach, describe, it } from 'vitest';
import { useRedis } from '../helpers/run.ts';
import { LaravelRedis } from './harness.ts';
import { PROFILES, QUEUE_REDIS_JOB_TEST, QUEUE_REDIS_QUEUE_TEST } from './queue-redis-queue-test.cases.ts';

const redis = useRedis();

for (const profile of PROFILES) {
  for (const [suite, cases] of [
    ['QueueRedisQueueTest', QUEUE_REDIS_QUEUE_TEST],
    ['QueueRedisJobTest', QUEUE_REDIS_JOB_TEST],
  ] as const) {
    describe(`Laravel ${profile}: ${suite}`, () => {
      let h: LaravelRedis;
      beforeEach(async () => {
        h = await LaravelRedis.open(redis(), profile, { prefix: '' });
      });
      afterEach(async () => {
        await h.close();
      });
      for (const c of cases.filter((c) => c.profiles.includes(profile))) it(c.name, () => c.run(h));
    });
  }
}
