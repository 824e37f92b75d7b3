// What a Laravel team copies into its own test suite (`npm i -D laravel-queue-sim`, Vitest, a
// redis-server on PATH, in Docker or at REDIS_URL): pin the exact Redis commands our queue
// configuration makes Laravel send, so a change of config, Laravel or Redis shows up as a diff.
//
// Our config (Laravel 8, phpredis, the skeleton's `laravel_database_` prefix):
//   config/queue.php    'redis' => ['queue' => 'default', 'retry_after' => 90, 'block_for' => null]
//   supervisor          php artisan queue:work redis --tries=3 --timeout=60   (--sleep=3 default)
//   App\Jobs\ImportOrders   public $backoff = [10, 30];  its upstream API is down: handle() throws
//
// Every expectation below is written from Laravel 8's source, not copied from a run:
// Queue/RedisQueue.php, Queue/LuaScripts.php, Queue/Worker.php (handleJobException,
// calculateBackoff, markJobAsFailedIfWillExceedMaxAttempts), Queue/Jobs/RedisJob.php.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisServer, Timeline } from 'laravel-queue-sim';
import { acquireRedis, runScenario, scenario } from 'laravel-queue-sim';
import type { ExpectedCommand } from 'laravel-queue-sim/testing';
import { anyPayload, assertTrace, lua, payload, same, scoreAt, script } from 'laravel-queue-sim/testing';
import 'laravel-queue-sim/vitest';

const QUEUE = 'laravel_database_queues:default';
const DELAYED = `${QUEUE}:delayed`;
const RESERVED = `${QUEUE}:reserved`;
const NOTIFY = `${QUEUE}:notify`;

const ourQueue = scenario('our-queue-config', 'ImportOrders with tries 3, backoff [10, 30], retry_after 90, timeout 60')
  .laravel('8')
  .connection('redis', { queue: 'default', retry_after: 90, block_for: null })
  .worker('worker-1', { tries: 3, timeout: 60, sleep: 3 })
  .job('ImportOrders', {
    class: 'App\\Jobs\\ImportOrders',
    backoff: [10, 30],
    attempts: [{ throw: 'Upstream API is down' }],
  })
  .dispatch('ImportOrders', { at: 0 })
  .build();

/**
 * RedisQueue::pop at t+`t`: migrateExpiredJobs(:delayed), migrateExpiredJobs(:reserved), then the
 * pop script, which reserves until now + retry_after (90). `migrates` is a released copy that
 * has come due on :delayed (moved back to the queue with a :notify token); `reserves` the copy
 * the pop script then writes to :reserved (attempts + 1, re-encoded by cjson), bound by name.
 */
function poll(
  t: number,
  o: { migrates?: string; reserves?: { attempts: number; as: string } } = {},
): ExpectedCommand[] {
  return [
    ['EVAL', script('migrateExpiredJobs'), 3, DELAYED, QUEUE, NOTIFY, scoreAt(t)],
    lua('zrangebyscore', DELAYED, '-inf', scoreAt(t)),
    ...(o.migrates === undefined
      ? []
      : [lua('zremrangebyrank', DELAYED, '0', '0'), lua('rpush', QUEUE, same(o.migrates)), lua('rpush', NOTIFY, '1')]),
    ['EVAL', script('migrateExpiredJobs'), 3, RESERVED, QUEUE, NOTIFY, scoreAt(t)],
    lua('zrangebyscore', RESERVED, '-inf', scoreAt(t)),
    ['EVAL', script('pop'), 3, QUEUE, RESERVED, NOTIFY, scoreAt(t + 90)],
    lua('lpop', QUEUE),
    ...(o.reserves === undefined
      ? []
      : [
          lua('zadd', RESERVED, scoreAt(t + 90), payload({ attempts: o.reserves.attempts }, o.reserves.as)),
          lua('lpop', NOTIFY),
        ]),
  ];
}

/** RedisJob::release($delay) → RedisQueue::deleteAndRelease: the release script, due at t+`due`. */
function release(copy: string, due: number): ExpectedCommand[] {
  return [
    ['EVAL', script('release'), 2, DELAYED, RESERVED, same(copy), scoreAt(due)],
    lua('zrem', RESERVED, same(copy)),
    lua('zadd', DELAYED, scoreAt(due), same(copy)),
  ];
}

/** Empty polls every --sleep=3 seconds from t+`from` up to, not including, t+`to`. */
function emptyPolls(from: number, to: number): ExpectedCommand[] {
  const out: ExpectedCommand[] = [];
  for (let t = from; t < to; t += 3) out.push(...poll(t));
  return out;
}

const expected: ExpectedCommand[] = [
  // The web request: phpredis opens a connection (SELECT 0), push() runs the push script:
  // the payload (attempts 0; $backoff serialized as the string "10,30"; --tries is not in it) and
  // a token on :notify.
  'SELECT 0',
  [
    'EVAL',
    script('push'),
    2,
    QUEUE,
    NOTIFY,
    payload({ attempts: 0, displayName: 'App\\Jobs\\ImportOrders', maxTries: null, backoff: '10,30' }, 'pushed'),
  ],
  lua('rpush', QUEUE, same('pushed')),
  lua('rpush', NOTIFY, '1'),

  // queue:work starts: its own connection (SELECT 0); the first pop reserves the job until
  // t+90 (retry_after) with attempts 1 in cjson's re-encoding.
  'SELECT 0',
  ...poll(0, { reserves: { attempts: 1, as: 'try-1' } }),
  // handle() throws: attempts 1 < --tries 3, so handleJobException releases it with
  // calculateBackoff() = backoff[attempts - 1] = 10 seconds.
  ...release('try-1', 10),
  // The daemon loop polls again at once, finds nothing and sleeps 3 s: t+0, 3, 6, 9.
  ...emptyPolls(0, 12),
  // t+12: the released copy (due t+10) is migrated back and reserved with attempts 2.
  ...poll(12, { migrates: 'try-1', reserves: { attempts: 2, as: 'try-2' } }),
  // Throws again: released for backoff[1] = 30 seconds, due at t+42.
  ...release('try-2', 42),
  ...emptyPolls(12, 42),
  // t+42: migrated back, reserved with attempts 3.
  ...poll(42, { migrates: 'try-2', reserves: { attempts: 3, as: 'try-3' } }),
  // Throws a third time: attempts 3 >= --tries 3, so markJobAsFailedIfWillExceedMaxAttempts
  // fails it: RedisJob::delete() ZREMs the reserved copy, and the job goes to failed_jobs. No
  // release. (The run ends here: every job has settled.)
  ['ZREM', RESERVED, same('try-3')],
];

let redis: RedisServer;
let trace: Timeline;

beforeAll(async () => {
  redis = await acquireRedis();
  trace = await runScenario(ourQueue, { redis });
});
afterAll(async () => {
  await redis?.stop();
});

describe('our queue config: tries 3, backoff [10, 30], retry_after 90, timeout 60', () => {
  it('sends exactly the Redis commands Laravel 8 sends for a job that keeps failing', () => {
    expect(trace).toMatchRedisCommands(expected);
  });

  it('runs the job three times, then fails it', () => {
    expect(trace).toHaveExecuted('ImportOrders#1', 3);
    expect(trace).toHaveFailedJob('ImportOrders#1', 'Exception');
  });

  it('the same check without the matchers, in any test framework', () => {
    // assertTrace throws an AssertionError with the diff; here only the web request's commands.
    assertTrace(trace, ['SELECT 0', ['EVAL', script('push'), 2, QUEUE, NOTIFY, anyPayload()]], {
      lua: false,
      actor: 'dispatcher',
    });
  });
});
