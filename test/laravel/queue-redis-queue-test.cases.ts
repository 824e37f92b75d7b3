// Laravel's unit tests tests/Queue/QueueRedisQueueTest.php and tests/Queue/QueueRedisJobTest.php
// mock the Redis connection and assert the exact calls RedisQueue makes on it. Ported: the same
// calls, with the same arguments, must reach a real redis-server, as MONITOR records them.
// Expected strings are copied by hand from Laravel's tests (sources read: QueueRedisQueueTest v8.x
// and v13.x; the v5.3 and v5.5 strings from reference §1.5): a string job 'foo' with data ['data'] and getRandomId()
// mocked to 'foo'. The model builds object-job payloads only, so each case hands pushRaw/laterRaw
// the JSON Laravel's test expects and checks the wire around it; a second case checks that the
// model's own payloads put their keys in the order of Laravel's json_encode.
// The mocked connection has no client prefix, so keys are plain `queues:default`; the connection
// itself SELECTs db 5 first (the connector's doing, not RedisQueue's: the mock has no connector).
import { expect } from 'vitest';
import type { LaravelCase, LaravelRedis } from './harness.ts';
import { T0 } from './harness.ts';

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
  // v13.x: [... 'timeout' => null, 'data' => ['data'], 'createdAt' => $time->getTimestamp(), 'id' => 'foo', 'attempts' => 0, 'delay' => null]
  '13': `{"uuid":"${UUID}","displayName":"foo","job":"foo","maxTries":null,"maxExceptions":null,"failOnTimeout":false,"backoff":null,"timeout":null,"data":["data"],"createdAt":${T0},"id":"foo","attempts":0,"delay":null}`,
};

/** later(1, 'foo', ['data']): the same payload, except that 12.11+ records the dispatch delay ('delay' => 1). */
const DELAYED: Record<string, string> = {
  ...PUSHED,
  '13': PUSHED['13']!.replace('"delay":null', '"delay":1'),
};

/** Keys only an object job's payload has (a string job has no retryUntil(), nor deleteWhenMissingModels). */
const OBJECT_ONLY: Record<string, string[]> = {
  '5.3': [],
  '5.7': ['timeoutAt'],
  '8': ['retryUntil'],
  '13': ['retryUntil', 'deleteWhenMissingModels'],
};

export const PROFILES = ['5.3', '5.7', '8', '13'] as const;
/** The push script and the :notify list: 5.8+. */
const pushIsScript = (profile: string) => profile === '8' || profile === '13';

type Row = string[];
const SELECT: Row = ['client', 'SELECT', '5'];

async function wire(h: LaravelRedis): Promise<Row[]> {
  return (await h.commands()).map((c) => [c.source, ...c.args]);
}

export const QUEUE_REDIS_QUEUE_TEST: LaravelCase[] = [
  {
    name: 'testPushProperlyPushesJobOntoRedis',
    profiles: PROFILES,
    async run(h) {
      const payload = PUSHED[h.profile.name]!;
      const q = await h.queue();
      await q.pushRaw(payload);
      const expected: Row[] = pushIsScript(h.profile.name)
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
    },
  },
  {
    name: 'testDelayedPushProperlyPushesJobOntoRedis',
    profiles: PROFILES,
    async run(h) {
      // availableAt(1) is mocked to return 2 (5.3: getTime() 1 + getSeconds(1) 1): a clock at 1 gives the same.
      h.clock = 1;
      const payload = DELAYED[h.profile.name]!;
      const q = await h.queue();
      await q.laterRaw(1, payload);
      const expected: Row[] =
        h.profile.name === '13'
          ? // 12.45+: eval(LuaScripts::later(), 1, 'queues:default:delayed', 2, $payload); the script ZADDs it.
            [
              SELECT,
              ['client', 'EVAL', h.profile.scripts.later!.source, '1', 'queues:default:delayed', '2', payload],
              ['lua', 'zadd', 'queues:default:delayed', '2', payload],
            ]
          : // to 12.44: zadd('queues:default:delayed', 2, $payload).
            [SELECT, ['client', 'ZADD', 'queues:default:delayed', '2', payload]];
      expect(await wire(h)).toEqual(expected);
      expect(await h.zrangeWithScores('queues:default:delayed')).toEqual([[payload, 2]]);
    },
  },
  {
    // getQueue() is 'queues:'.$queue in every version (the test itself is from 13.5).
    name: 'testGetQueueRemainsUnchangedForNonCluster',
    profiles: PROFILES,
    async run(h) {
      const q = await h.queue();
      expect(q.keys(null).queue).toBe('queues:default');
      expect(q.keys('emails').queue).toBe('queues:emails');
    },
  },
  {
    // 13.5+: getQueueRedisKey() adds {hash tags} only on a cluster; on one server the keys are plain.
    name: 'testGetRedisKeyReturnsPlainKeyForNonCluster',
    profiles: ['13'],
    async run(h) {
      const q = await h.queue();
      await q.pushRaw(PUSHED['13']!, 'emails');
      await q.pushRaw(PUSHED['13']!);
      const evals = (await wire(h)).filter((r) => r[0] === 'client' && r[1] === 'EVAL').map((r) => r.slice(3, 6));
      expect(evals).toEqual([
        ['2', 'queues:emails', 'queues:emails:notify'],
        ['2', 'queues:default', 'queues:default:notify'],
      ]);
    },
  },
  {
    // Not a Laravel method: the model's own object payloads put their keys in the order of the test's json_encode.
    name: "payload keys in the order of Laravel's json_encode",
    profiles: PROFILES,
    async run(h) {
      const laravel = Object.keys(JSON.parse(PUSHED[h.profile.name]!) as object);
      const ours = JSON.parse(h.payload({ className: 'App\\Jobs\\Foo' })) as Record<string, unknown>;
      expect(Object.keys(ours).filter((k) => !OBJECT_ONLY[h.profile.name]!.includes(k))).toEqual(laravel);
      expect(ours.attempts).toBe(h.profile.name === '5.3' ? 1 : 0);
    },
  },
];

/** Push and pop PUSHED's payload: the RedisJob QueueRedisJobTest mocks. */
async function reserved(h: LaravelRedis) {
  const q = await h.queue();
  await q.pushRaw(PUSHED[h.profile.name]!);
  const job = (await q.pop(h.ctx()))!;
  await h.commands();
  return job;
}

export const QUEUE_REDIS_JOB_TEST: LaravelCase[] = [
  {
    name: 'testDeleteRemovesTheJobFromRedis',
    profiles: PROFILES,
    async run(h) {
      const job = await reserved(h);
      await job.delete();
      // RedisJob::delete → $redis->deleteReserved('default', $job): zrem('queues:default:reserved', $job->getReservedJob()).
      expect(await wire(h)).toEqual([['client', 'ZREM', 'queues:default:reserved', job.getReservedJob()]]);
      expect(await h.zcard('queues:default:reserved')).toBe(0);
    },
  },
  {
    name: 'testReleaseProperlyReleasesJobOntoRedis',
    profiles: PROFILES,
    async run(h) {
      const job = await reserved(h);
      await job.release(1);
      // RedisJob::release(1) → deleteAndRelease('default', $job, 1): eval(LuaScripts::release(), 2,
      // 'queues:default:delayed', 'queues:default:reserved', $reserved, availableAt(1)).
      const r = job.getReservedJob();
      const due = String(h.clock + 1);
      expect(await wire(h)).toEqual([
        [
          'client',
          'EVAL',
          h.profile.scripts.release!.source,
          '2',
          'queues:default:delayed',
          'queues:default:reserved',
          r,
          due,
        ],
        ['lua', 'zrem', 'queues:default:reserved', r],
        ['lua', 'zadd', 'queues:default:delayed', due, r],
      ]);
    },
  },
];
