// Laravel's QueueWorkerTest (the Redis-relevant cases), ported (the cases, their sources and the
// fake-job-to-Redis translation are in queue-worker-test.cases.ts; README.md lists them).
import { afterEach, beforeEach, describe, it } from 'vitest';
import { useRedis } from '../helpers/run.ts';
import { LaravelRedis } from './harness.ts';
import { PROFILES, QUEUE_WORKER_TEST } from './queue-worker-test.cases.ts';

const redis = useRedis();

for (const profile of PROFILES) {
  describe(`Laravel ${profile}: QueueWorkerTest`, () => {
    let h: LaravelRedis;
    beforeEach(async () => {
      h = await LaravelRedis.open(redis(), profile);
    });
    afterEach(async () => {
      await h.close();
    });
    for (const c of QUEUE_WORKER_TEST.filter((c) => c.profiles.includes(profile))) it(c.name, () => c.run(h));
  });
}
