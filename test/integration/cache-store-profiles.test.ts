// The cache store on Redis in the other profiles, derived by hand from each version's source
// (research/cache-store.md §1, §2): which connection, which db, which key and when.
// - 5.3 (config/cache.php@v5.3.30): the redis store on connection `default`, prefix 'laravel' +
//   ':' (RedisStore::setPrefix), no connection prefix; Predis SELECTs 0 on every connection. The
//   worker's restart reads go on its queue connection. Worker::daemon@v5.3.31:67-84.
// - 5.7 (@v5.7.28): connection `cache` (REDIS_CACHE_DB 1), prefix 'laravel_cache:'; Predis SELECTs
//   1 on the cache connection, which the worker opens for its first restart read, before its
//   queue connection's SELECT 0. RestartCommand writes the time with a plain SET.
// - 13 (@v13.26.1): prefix 'laravel-database-' + 'laravel-cache-' (no ':' from 11.0); before every
//   pop (also with --queue=a,b, once) Worker::getPausedQueues → QueueManager::getPausedQueues:
//   GET illuminate:queues:paused, then one MGET of illuminate:queue:paused:<connection>:<queue>
//   per queue (QueueManager.php:343-358); WithoutOverlapping's key keeps the class for a job
//   without displayName() (Queue/Middleware/WithoutOverlapping.php@v13.26.1:157-168).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { useRedis } from '../helpers/run.ts';

const redis = useRedis();
const run = (yaml: string) => runScenario(parseScenario(yaml, 'inline.yaml').spec, { redis: redis() });

/** `t+0 worker-1 db1 GET key`: each client command, an EVAL by its script's name and keys. */
function clientLines(t: Timeline): string[] {
  return t.steps.flatMap((s) =>
    s.commands
      .filter((c) => c.source === 'client')
      .map((c) => {
        const args =
          c.args[0] === 'EVAL'
            ? ['EVAL', c.script ?? '?', ...c.args.slice(3, 3 + Number(c.args[2]))]
            : c.args.filter((a) => !a.startsWith('{'));
        return `t+${s.t - t.start} ${s.actor} db${c.db} ${args.join(' ')}`;
      }),
  );
}

const scenario = (laravel: string, extra = '') => `
name: inline
title: inline
laravel: "${laravel}"
cache: { store: redis }
until: 3
workers: [{ name: worker-1, sleep: 3${extra} }]
timeline:
  - { at: 1, artisan: queue:restart }
`;

describe('the cache store on Redis, by profile', () => {
  it('5.3: the restart signal on the queue connection, laravel:illuminate:queue:restart', async () => {
    const t = await run(scenario('5.3'));
    const poll = (s: number) => [
      `t+${s} worker-1 db0 EVAL migrateExpiredJobs queues:default:delayed queues:default`,
      `t+${s} worker-1 db0 EVAL migrateExpiredJobs queues:default:reserved queues:default`,
      `t+${s} worker-1 db0 EVAL pop queues:default queues:default:reserved`,
    ];
    expect(clientLines(t)).toEqual([
      't+0 worker-1 db0 SELECT 0',
      't+0 worker-1 db0 GET laravel:illuminate:queue:restart',
      ...poll(0),
      't+1 artisan db0 SELECT 0',
      't+1 artisan db0 SET laravel:illuminate:queue:restart 1700000001',
      // After the sleep: memoryExceeded || queueShouldRestart → Worker::stop; supervisord restarts it.
      't+3 worker-1 db0 GET laravel:illuminate:queue:restart',
      't+3 worker-1 db0 SELECT 0',
      't+3 worker-1 db0 GET laravel:illuminate:queue:restart',
      ...poll(3),
    ]);
  });

  it('5.7: the cache connection (db 1) opened by the first restart read, before the queue connection', async () => {
    const t = await run(scenario('5.7'));
    const poll = (s: number) => [
      `t+${s} worker-1 db0 EVAL migrateExpiredJobs queues:default:delayed queues:default`,
      `t+${s} worker-1 db0 EVAL migrateExpiredJobs queues:default:reserved queues:default`,
      `t+${s} worker-1 db0 EVAL pop queues:default queues:default:reserved`,
    ];
    expect(clientLines(t)).toEqual([
      't+0 worker-1 db1 SELECT 1',
      't+0 worker-1 db1 GET laravel_cache:illuminate:queue:restart',
      't+0 worker-1 db0 SELECT 0',
      ...poll(0),
      't+1 artisan db1 SELECT 1',
      't+1 artisan db1 SET laravel_cache:illuminate:queue:restart 1700000001',
      't+3 worker-1 db1 GET laravel_cache:illuminate:queue:restart',
      't+3 worker-1 db1 SELECT 1',
      't+3 worker-1 db1 GET laravel_cache:illuminate:queue:restart',
      't+3 worker-1 db0 SELECT 0',
      ...poll(3),
    ]);
  });

  it('13: the pause keys before every pop, one MGET for --queue=high,default; no ":" after the cache prefix', async () => {
    const t = await run(
      scenario('13', ', queue: "high,default"').replace(
        'timeline:',
        'jobs: { Sync: { class: App\\Jobs\\Sync, middleware: [{ without_overlapping: k }] } }\ntimeline:\n  - { at: 0, dispatch: Sync }',
      ),
    );
    const C = 'laravel-database-laravel-cache-';
    const pauses = (s: number) => [
      `t+${s} worker-1 db1 GET ${C}illuminate:queue:restart`,
      `t+${s} worker-1 db1 GET ${C}illuminate:queues:paused`,
      `t+${s} worker-1 db1 MGET ${C}illuminate:queue:paused:redis:high ${C}illuminate:queue:paused:redis:default`,
    ];
    const polls = (s: number) =>
      ['high', 'default'].flatMap((q) => [
        `t+${s} worker-1 db0 EVAL migrateExpiredJobs laravel-database-queues:${q}:delayed laravel-database-queues:${q} laravel-database-queues:${q}:notify`,
        `t+${s} worker-1 db0 EVAL migrateExpiredJobs laravel-database-queues:${q}:reserved laravel-database-queues:${q} laravel-database-queues:${q}:notify`,
        `t+${s} worker-1 db0 EVAL pop laravel-database-queues:${q} laravel-database-queues:${q}:reserved laravel-database-queues:${q}:notify`,
      ]);
    const lock = `${C}laravel-queue-overlap:App\\Jobs\\Sync:k`;
    const lines = clientLines(t);
    expect(lines.slice(0, 13)).toEqual([
      't+0 dispatcher db0 SELECT 0',
      't+0 dispatcher db0 EVAL push laravel-database-queues:default laravel-database-queues:default:notify',
      't+0 worker-1 db1 SELECT 1',
      ...pauses(0),
      't+0 worker-1 db0 SELECT 0',
      ...polls(0),
    ]);
    // The job (on default, after high's empty pop): the lock taken and released by its owner, then the delete.
    expect(lines.slice(13, 16).map((l) => l.replace(/ [A-Za-z0-9]{16}$/, ' OWNER'))).toEqual([
      `t+0 worker-1 db0 SETNX ${lock} OWNER`,
      `t+0 worker-1 db0 EVAL releaseLock ${lock}`,
      expect.stringMatching(/^t\+0 worker-1 db0 ZREM laravel-database-queues:default:reserved/),
    ]);
    expect(lines.slice(16)).toEqual([
      ...pauses(0),
      ...polls(0),
      't+1 artisan db1 SELECT 1',
      `t+1 artisan db1 SET ${C}illuminate:queue:restart 1700000001`,
      `t+3 worker-1 db1 GET ${C}illuminate:queue:restart`,
      't+3 worker-1 db1 SELECT 1',
      ...pauses(3),
      't+3 worker-1 db0 SELECT 0',
      ...polls(3),
    ]);
  });

  it("13: RateLimited sends 8.x's wire (RateLimiter::increment, the add script, md5 keys), under 13's prefixes", async () => {
    // Queue/Middleware/RateLimited.php@v13.26.1: md5($limiterName.$limit->key), hit($key,
    // $decaySeconds) = increment(): add(:timer, availableAt), add(key, 0), INCRBY; limited, released
    // for availableIn + 3. Limit::perMinute(1): decaySeconds 60.
    const t = await run(`
name: inline
title: inline
laravel: "13"
cache: { store: redis }
until: 0
limiters: { orders: { per_minute: 1 } }
workers: [{ name: worker-1, sleep: 3 }]
jobs:
  Bar: { class: App\\Jobs\\Bar, tries: 3, middleware: [{ rate_limited: orders }] }
timeline:
  - { at: 0, dispatch: Bar, count: 2 }
`);
    const K = `laravel-database-laravel-cache-${createHash('md5').update('orders').digest('hex')}`;
    expect(clientLines(t).filter((l) => l.includes(K))).toEqual([
      `t+0 worker-1 db1 GET ${K}`,
      `t+0 worker-1 db1 EVAL add ${K}:timer`,
      `t+0 worker-1 db1 EVAL add ${K}`,
      `t+0 worker-1 db1 INCRBY ${K} 1`,
      `t+0 worker-1 db1 GET ${K}`,
      `t+0 worker-1 db1 GET ${K}:timer`,
      `t+0 worker-1 db1 GET ${K}:timer`,
    ]);
    const release = t.steps.flatMap((s) => s.commands).find((c) => c.script === 'release')!;
    // EVAL release 2 :delayed :reserved <payload> <now + 60 + 3>
    expect(Number(release.args.at(-1)) - t.start).toBe(63);
  });

  it("13: the unique lock's owner rides in the payload ($uniqueLockOwner) and frees the lock by the releaseLock script", async () => {
    // Bus/UniqueLock.php@v13.26.1:34-86: acquire takes 'laravel_unique_job:'.class.':'.uniqueId()
    // (SETNX, no $uniqueFor), then `$job->uniqueLockOwner = $lock->owner()` before the job is
    // serialized (Queueable's $uniqueLockOwner, after $queue; SerializesModels writes only what
    // differs from the defaults); release() restores the lock of that owner and releases it.
    // CallQueuedHandler.php@v13.26.1: a ShouldBeUniqueUntilProcessing job's lock goes in the
    // pipeline's `then`, just before handle(); any other after a handle() that was not released.
    const t = await run(`
name: inline
title: inline
laravel: "13"
cache: { store: redis }
until: 0
workers: [{ name: worker-1, sleep: 3 }]
jobs:
  Index: { class: App\\Jobs\\Index, unique: { id: 42 } }
  Early: { class: App\\Jobs\\Early, unique: { until_processing: true }, attempts: [{ run: 0, throw: boom }] }
timeline:
  - { at: 0, dispatch: Index, count: 2 }
  - { at: 0, dispatch: Early }
`);
    const C = 'laravel-database-laravel-cache-';
    const INDEX = `${C}laravel_unique_job:App\\Jobs\\Index:42`;
    const EARLY = `${C}laravel_unique_job:App\\Jobs\\Early:`;
    const commands = t.steps.flatMap((s) => s.commands).filter((c) => c.source === 'client');
    const owners = commands.filter((c) => c.args[0] === 'SETNX').map((c) => [c.args[1], c.args[2]!]);
    expect(owners.map(([k]) => k)).toEqual([INDEX, INDEX, EARLY]);
    const [first, , early] = owners.map(([, o]) => o!);
    // The pushed payloads: data.command carries the owner of the lock their dispatch took.
    const pushed = commands.filter((c) => c.script === 'push').map((c) => JSON.parse(c.args[5]!).data.command);
    expect(pushed).toEqual([
      `O:14:"App\\Jobs\\Index":1:{s:15:"uniqueLockOwner";s:16:"${first}";}`,
      `O:14:"App\\Jobs\\Early":1:{s:15:"uniqueLockOwner";s:16:"${early}";}`,
    ]);
    const releases = commands
      .filter((c) => c.args[0] === 'EVAL' && c.script === 'releaseLock')
      .map((c) => c.args.slice(3));
    expect(releases).toEqual([
      [INDEX, first],
      [EARLY, early],
    ]);
    // No forceRelease DEL of a unique lock in 13.24+.
    expect(commands.filter((c) => c.args[0] === 'DEL')).toEqual([]);
    // Early's lock is freed before handle() throws; --tries=1 (13's default) then fails it (ZREM),
    // and CallQueuedHandler::failed leaves an UntilProcessing lock alone.
    const earlyStep = t.steps.find((s) => s.commands.some((c) => c.args[0] === 'EVAL' && c.args[3] === EARLY))!;
    expect(earlyStep.commands.filter((c) => c.source === 'client').map((c) => c.script ?? c.args[0])).toEqual([
      'releaseLock',
      'ZREM',
    ]);
  });

  it("13: ThrottlesExceptions keys its counter by the xxh128 of the job's class (12.0+)", async () => {
    // Queue/Middleware/ThrottlesExceptions.php@v13.26.1:257-270: prefix . hash('xxh128', get_class($job))
    // for a job without displayName(); the counting is 8.x's (RateLimiter::hit → increment).
    // PHP 8.2: php -r 'echo hash("xxh128", "App\\Jobs\\Api");' prints the hash below.
    const t = await run(`
name: inline
title: inline
laravel: "13"
cache: { store: redis }
until: 0
workers: [{ name: worker-1, sleep: 3, tries: 3 }]
jobs:
  Api: { class: App\\Jobs\\Api, middleware: [{ throttles_exceptions: { max_attempts: 5 } }], attempts: [{ throw: down }, succeed] }
timeline:
  - { at: 0, dispatch: Api }
`);
    const K = 'laravel-database-laravel-cache-laravel_throttles_exceptions:338637c81525badc142292dfcaf5df11';
    const lines = clientLines(t).filter((l) => l.includes('laravel_throttles_exceptions:'));
    expect(lines).toEqual([
      `t+0 worker-1 db1 GET ${K}`,
      `t+0 worker-1 db1 EVAL add ${K}:timer`,
      `t+0 worker-1 db1 EVAL add ${K}`,
      `t+0 worker-1 db1 INCRBY ${K} 1`,
      `t+0 worker-1 db1 GET ${K}`,
      // The retry succeeds: RateLimiter::clear, the counter then its timer.
      `t+0 worker-1 db1 DEL ${K}`,
      `t+0 worker-1 db1 DEL ${K}:timer`,
    ]);
  });

  it('13: WithoutOverlapping::shared(): one lock for every class that names the key', async () => {
    // Queue/Middleware/WithoutOverlapping.php@v13.26.1:157-168: shared → $prefix . $key, no class.
    const t = await run(`
name: inline
title: inline
laravel: "13"
cache: { store: redis }
until: 1
workers: [{ name: worker-1, sleep: 3 }, { name: worker-2, sleep: 3 }]
jobs:
  Charge: { class: App\\Jobs\\Charge, middleware: [{ without_overlapping: { key: order-1, shared: true } }], attempts: [{ run: 5 }] }
  Refund: { class: App\\Jobs\\Refund, tries: 3, middleware: [{ without_overlapping: { key: order-1, shared: true, release_after: 10 } }] }
timeline:
  - { at: 0, dispatch: Charge }
  - { at: 0, dispatch: Refund }
`);
    const lock = 'laravel-database-laravel-cache-laravel-queue-overlap:order-1';
    const sent = clientLines(t).filter((l) => l.includes('laravel-queue-overlap'));
    expect(sent.map((l) => l.replace(/ [A-Za-z0-9]{16}$/, ' OWNER'))).toEqual([
      `t+0 worker-1 db0 SETNX ${lock} OWNER`,
      `t+0 worker-2 db0 SETNX ${lock} OWNER`,
    ]);
    expect(t.steps.find((s) => s.actor === 'worker-2' && s.kind === 'release')!.title).toMatch(
      /^Refund#1 released by WithoutOverlapping for 10s/,
    );
  });

  it('13: the *WithRedis middleware on the queue connection: md5 for RateLimitedWithRedis, xxh128 for ThrottlesExceptionsWithRedis', async () => {
    // RateLimitedWithRedis.php@v13.26.1: DurationLimiter(md5($limiterName.$limit->key), ..., decaySeconds)
    // on Redis::connection() (the queue's); ThrottlesExceptionsWithRedis.php@v13.26.1: getKey() is
    // ThrottlesExceptions' (prefix . hash('xxh128', class)). Keys carry the connection prefix only.
    const t = await run(`
name: inline
title: inline
laravel: "13"
cache: { store: redis }
until: 0
limiters: { orders: { per_minute: 1 } }
workers: [{ name: worker-1, sleep: 3, tries: 3 }]
jobs:
  Bar: { class: App\\Jobs\\Bar, middleware: [{ rate_limited_with_redis: orders }] }
  Api: { class: App\\Jobs\\Api, middleware: [{ throttles_exceptions_with_redis: { max_attempts: 5 } }], attempts: [{ throw: down }, succeed] }
timeline:
  - { at: 0, dispatch: Bar }
  - { at: 0, dispatch: Api }
`);
    const rl = `laravel-database-${createHash('md5').update('orders').digest('hex')}`;
    const te = 'laravel-database-laravel_throttles_exceptions:338637c81525badc142292dfcaf5df11';
    const evals = clientLines(t).filter(
      (l) => l.includes(' EVAL durationLimiter') || l.includes(' EVAL tooManyAttempts') || l.includes(' DEL '),
    );
    expect(evals).toEqual([
      `t+0 worker-1 db0 EVAL durationLimiter ${rl}`,
      `t+0 worker-1 db0 EVAL tooManyAttempts ${te}`,
      `t+0 worker-1 db0 EVAL durationLimiter ${te}`,
      `t+0 worker-1 db0 EVAL tooManyAttempts ${te}`,
      // The retry succeeds: DurationLimiter::clear.
      `t+0 worker-1 db0 DEL ${te}`,
    ]);
  });
});
