// Laravel's unit tests tests/Queue/QueueRedisQueueTest.php and tests/Queue/QueueRedisJobTest.php
// mock the Redis connection and assert the exact calls RedisQueue makes on it. Ported: the same
// calls, with the same arguments, must reach a real redis-server, as MONITOR records them.
// Expected strings are copied by hand from Laravel's tests (reference §1.5 and §3.2; sources read:
// QueueRedisQueueTest v5.3, v5.5, v8.x): a string job 'foo' with data ['data'] and getRandomId()
// mocked to 'foo'. The model builds object-job payloads only, so each case hands pushRaw/laterRaw
// the JSON Laravel's test expects and checks the wire around it; a second case checks that the
// model's own payloads put their keys in the order of Laravel's json_encode.
// The mocked connection has no client prefix, so keys are plain `queues:default`; the connection
// itself SELECTs db 5 first (the connector's doing, not RedisQueue's: the mock has no connector).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useRedis } from '../helpers/run.ts';
import { LaravelRedis } from './harness.ts';

const redis = useRedis();

const UUID = 'b7e8a52c-5d4c-4d6a-9a2e-3f1c0e6d8a41';

/** json_encode of Laravel's expected push payload, per version of QueueRedisQueueTest. */
const PUSHED: Record<string, string> = {
  // v5.3: json_encode(['job' => 'foo', 'data' => ['data'], 'id' => 'foo', 'attempts' => 1])
  '5.3': '{"job":"foo","data":["data"],"id":"foo","attempts":1}',
  // v5.5-5.7: ['displayName' => 'foo', 'job' => 'foo', 'maxTries' => null, 'timeout' => null, 'data' => ['data'], 'id' => 'foo', 'attempts' => 0]
  '5.7': '{"displayName":"foo","job":"foo","maxTries":null,"timeout":null,"data":["data"],"id":"foo","attempts":0}',
  // v8.83: ['uuid' => $uuid, 'displayName' => 'foo', 'job' => 'foo', 'maxTries' => null, 'maxExceptions' => null,
  //         'failOnTimeout' => false, 'backoff' => null, 'timeout' => null, 'data' => ['data'], 'id' => 'foo', 'attempts' => 0]
  '8': `{"uuid":"${UUID}","displayName":"foo","job":"foo","maxTries":null,"maxExceptions":null,"failOnTimeout":false,"backoff":null,"timeout":null,"data":["data"],"id":"foo","attempts":0}`,
};

/** Keys only an object job's payload has (a string job has no retryUntil()). */
const OBJECT_ONLY: Record<string, string[]> = { '5.3': [], '5.7': ['timeoutAt'], '8': ['retryUntil'] };

const PROFILES = ['5.3', '5.7', '8'] as const;

type Row = string[];
const SELECT: Row = ['client', 'SELECT', '5'];

async function wire(h: LaravelRedis): Promise<Row[]> {
  return (await h.commands()).map((c) => [c.source, ...c.args]);
}

for (const profile of PROFILES) {
  describe(`Laravel ${profile}: QueueRedisQueueTest`, () => {
    let h: LaravelRedis;
    beforeEach(async () => {
      h = await LaravelRedis.open(redis(), profile, { prefix: '' });
    });
    afterEach(async () => {
      await h.close();
    });

    it('testPushProperlyPushesJobOntoRedis', async () => {
      const payload = PUSHED[profile]!;
      const q = await h.queue();
      await q.pushRaw(payload);
      const expected: Row[] =
        profile === '8'
          ? // 5.8+: eval(LuaScripts::push(), 2, 'queues:default', 'queues:default:notify', $payload); the script
            // RPUSHes the payload, then a 1 onto :notify (LuaScripts.php v5.8.38).
            [
              SELECT,
              ['client', 'EVAL', h.profile.scripts.push!.source, '2', 'queues:default', 'queues:default:notify', payload],
              ['lua', 'rpush', 'queues:default', payload],
              ['lua', 'rpush', 'queues:default:notify', '1'],
            ]
          : // to 5.7: rpush('queues:default', $payload).
            [SELECT, ['client', 'RPUSH', 'queues:default', payload]];
      expect(await wire(h)).toEqual(expected);
      expect(await h.llen('queues:default')).toBe(1);
    });

    it('testDelayedPushProperlyPushesJobOntoRedis', async () => {
      // availableAt(1) is mocked to return 2 (5.3: getTime() 1 + getSeconds(1) 1): a clock at 1 gives the same.
      h.clock = 1;
      const payload = PUSHED[profile]!;
      const q = await h.queue();
      await q.laterRaw(1, payload);
      // zadd('queues:default:delayed', 2, $payload), in every version up to 12.44.
      expect(await wire(h)).toEqual([SELECT, ['client', 'ZADD', 'queues:default:delayed', '2', payload]]);
      expect(await h.zrangeWithScores('queues:default:delayed')).toEqual([[payload, 2]]);
    });

    it("the model's payload keys follow the order Laravel's test json_encodes", async () => {
      const laravel = Object.keys(JSON.parse(PUSHED[profile]!) as object);
      const ours = JSON.parse(h.payload({ className: 'App\\Jobs\\Foo' })) as Record<string, unknown>;
      expect(Object.keys(ours).filter((k) => !OBJECT_ONLY[profile]!.includes(k))).toEqual(laravel);
      expect(ours.attempts).toBe(profile === '5.3' ? 1 : 0);
    });
  });

  describe(`Laravel ${profile}: QueueRedisJobTest`, () => {
    let h: LaravelRedis;
    beforeEach(async () => {
      h = await LaravelRedis.open(redis(), profile, { prefix: '' });
    });
    afterEach(async () => {
      await h.close();
    });

    async function reserved() {
      const q = await h.queue();
      await q.pushRaw(PUSHED[profile]!);
      const job = (await q.pop(h.ctx()))!;
      await h.commands();
      return job;
    }

    it('testDeleteRemovesTheJobFromRedis', async () => {
      const job = await reserved();
      await job.delete();
      // RedisJob::delete → $redis->deleteReserved('default', $job): zrem('queues:default:reserved', $job->getReservedJob()).
      expect(await wire(h)).toEqual([['client', 'ZREM', 'queues:default:reserved', job.getReservedJob()]]);
      expect(await h.zcard('queues:default:reserved')).toBe(0);
    });

    it('testReleaseProperlyReleasesJobOntoRedis', async () => {
      const job = await reserved();
      await job.release(1);
      // RedisJob::release(1) → deleteAndRelease('default', $job, 1): eval(LuaScripts::release(), 2,
      // 'queues:default:delayed', 'queues:default:reserved', $reserved, availableAt(1)).
      const r = job.getReservedJob();
      const due = String(h.clock + 1);
      expect(await wire(h)).toEqual([
        ['client', 'EVAL', h.profile.scripts.release.source, '2', 'queues:default:delayed', 'queues:default:reserved', r, due],
        ['lua', 'zrem', 'queues:default:reserved', r],
        ['lua', 'zadd', 'queues:default:delayed', due, r],
      ]);
    });
  });
}
