// Laravel's RedisQueueIntegrationTest / RedisQueueTest, ported (the cases and their sources are in
// redis-queue-test.cases.ts; README.md lists them with the profiles each runs for).
import { afterEach, beforeEach, describe, it } from 'vitest';
import { useRedis } from '../helpers/run.ts';
import { LaravelRedis } from './harness.ts';
import { PROFILES, REDIS_QUEUE_TEST } from './redis-queue-test.cases.ts';

const redis = useRedis();

for (const profile of PROFILES) {
  describe(`Laravel ${profile}: RedisQueueIntegrationTest / RedisQueueTest`, () => {
    let h: LaravelRedis;
    beforeEach(async () => {
      h = await LaravelRedis.open(redis(), profile);
    });
    afterEach(async () => {
      await h.close();
    });
    for (const c of REDIS_QUEUE_TEST.filter((c) => c.profiles.includes(profile))) it(c.name, () => c.run(h));
  });
}
