// The cache store on Redis (CACHE_DRIVER=redis), Laravel 8.83, derived by hand from the
// framework's source (research/cache-store.md has the lines):
// - Worker::daemon reads the restart signal once before its loop and again in stopIfNecessary after
//   every job or sleep (Queue/Worker.php:133, 294-310); the cache connection is `cache` (db 1), so
//   its first use opens a second connection that SELECTs 1 (PhpRedisConnector::createClient).
// - WithoutOverlapping::handle (Queue/Middleware/WithoutOverlapping.php:63-78): lock()->get() is
//   SETNX <prefix><cache prefix>:laravel-queue-overlap:<class>:<key> <owner> with no expireAfter,
//   on lock_connection 'default' (the queue's own connection, db 0); refused, $job->release(0);
//   let through, the lock is released after handle() by LuaScripts::releaseLock.
// - UniqueLock::acquire at PendingDispatch::__destruct (Bus/UniqueLock.php:33-47), before the push;
//   CallQueuedHandler::call releases it after a handle() that was not released (a plain DEL:
//   forceRelease), CallQueuedHandler::failed when the job fails.
// - Worker::markJobAsFailedIfWillExceedMaxExceptions (Queue/Worker.php:539-556): GET, SETEX 86400 0
//   when unset, INCRBY 1, DEL at the max, on the cache connection.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import { useRedis } from '../helpers/run.ts';
import type { CmdPattern } from '../helpers/trace.ts';
import { any, at, c, evalScript, expectSteps, lua, payload, queue, same } from '../helpers/trace.ts';

const redis = useRedis();
const P = 'laravel_database_';
const Q = queue('default', P);
const NOTIFY = `${P}queues:default:notify`;
/** CP + cache.prefix + ':' (RedisStore::setPrefix to 10.x). */
const CACHE = `${P}laravel_cache:`;
const RESTART = `${CACHE}illuminate:queue:restart`;
/** LuaScripts::releaseLock (Cache/LuaScripts.php@v8.83.29:15-24), verbatim. */
const RELEASE_LOCK = `if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end`;

const run = async (yaml: string) => runScenario(parseScenario(yaml, 'inline.yaml').spec, { redis: redis() });

// 8.x's scripts take :notify as their last key.
const migrate8 = (from: string, t: number, moved?: string): CmdPattern[] => {
  const inner = [lua('zrangebyscore', from, '-inf', at(t))];
  if (moved)
    inner.push(lua('zremrangebyrank', from, '0', '0'), lua('rpush', Q.ready, same(moved)), lua('rpush', NOTIFY, '1'));
  return evalScript('migrateExpiredJobs', [from, Q.ready, NOTIFY], [at(t)], inner);
};
const pop8 = (t: number, reserved?: ReturnType<typeof payload>): CmdPattern[] => {
  const inner = [lua('lpop', Q.ready)];
  if (reserved) inner.push(lua('zadd', Q.reserved, at(t + 90), reserved), lua('lpop', NOTIFY));
  return evalScript('pop', [Q.ready, Q.reserved, NOTIFY], [at(t + 90)], inner);
};
const release8 = (r: string, due: number): CmdPattern[] =>
  evalScript(
    'release',
    [Q.delayed, Q.reserved],
    [same(r), at(due)],
    [lua('zrem', Q.reserved, same(r)), lua('zadd', Q.delayed, at(due), same(r))],
  );
const push8 = (bind: string): CmdPattern[] =>
  evalScript(
    'push',
    [Q.ready, NOTIFY],
    [payload({ attempts: 0 }, bind)],
    [lua('rpush', Q.ready, same(bind)), lua('rpush', NOTIFY, '1')],
  );
const GET_RESTART = c('GET', RESTART);

describe('the cache store on Redis (Laravel 8.83)', () => {
  it('WithoutOverlapping releases the second copy until its attempts are spent, then MaxAttemptsExceeded fails it unrun', async () => {
    const t = await run(`
name: inline
title: inline
laravel: 8
cache: { store: redis }
until: 30
workers:
  - { name: worker-1, sleep: 5 }
  - { name: worker-2, sleep: 5, start: 1 }
jobs:
  Sync: { class: App\\Jobs\\Sync, tries: 2, middleware: [{ without_overlapping: order-1 }], attempts: [{ run: 30 }] }
timeline:
  - { at: 0, dispatch: Sync, count: 2 }
`);
    const LOCK = `${CACHE}laravel-queue-overlap:App\\Jobs\\Sync:order-1`;
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, commands: [c('SELECT', '0'), ...push8('p1'), ...push8('p2')] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          // The restart signal first, on the cache connection (db 1), then the queue's (db 0).
          commands: [
            c('SELECT', '1'),
            GET_RESTART,
            c('SELECT', '0'),
            ...migrate8(Q.delayed, 0),
            ...migrate8(Q.reserved, 0),
            ...pop8(0, payload({ attempts: 1 }, 'r1')),
          ],
        },
        // WithoutOverlapping takes the lock (no expireAfter: SETNX) on the queue's connection.
        { actor: 'worker-1', t: 0, kind: 'process', commands: [c('SETNX', LOCK, same('owner1'))] },
        {
          actor: 'worker-2',
          t: 1,
          kind: 'pop',
          commands: [
            c('SELECT', '1'),
            GET_RESTART,
            c('SELECT', '0'),
            ...migrate8(Q.delayed, 1),
            ...migrate8(Q.reserved, 1),
            ...pop8(1, payload({ attempts: 1 }, 'r2')),
          ],
        },
        // Refused: released with releaseAfter 0, due now; no lock release.
        { actor: 'worker-2', t: 1, kind: 'release', commands: [c('SETNX', LOCK, any), ...release8('r2', 1)] },
        {
          actor: 'worker-2',
          t: 1,
          kind: 'pop',
          commands: [
            GET_RESTART,
            ...migrate8(Q.delayed, 1, 'r2'),
            ...migrate8(Q.reserved, 1),
            ...pop8(1, payload({ attempts: 2 }, 'r3')),
          ],
        },
        { actor: 'worker-2', t: 1, kind: 'release', commands: [c('SETNX', LOCK, any), ...release8('r3', 1)] },
        {
          actor: 'worker-2',
          t: 1,
          kind: 'pop',
          commands: [
            GET_RESTART,
            ...migrate8(Q.delayed, 1, 'r3'),
            ...migrate8(Q.reserved, 1),
            ...pop8(1, payload({ attempts: 3 }, 'r4')),
          ],
        },
        // attempts 3 > $tries 2: failed before any middleware (no SETNX), by its ZREM.
        { actor: 'worker-2', t: 1, kind: 'fail', commands: [c('ZREM', Q.reserved, same('r4'))] },
        {
          actor: 'worker-2',
          t: 1,
          kind: 'pop',
          commands: [GET_RESTART, ...migrate8(Q.delayed, 1), ...migrate8(Q.reserved, 1), ...pop8(1)],
        },
        ...[6, 11, 16, 21, 26].map((s) => ({
          actor: 'worker-2',
          t: s,
          kind: 'pop' as const,
          commands: [GET_RESTART, ...migrate8(Q.delayed, s), ...migrate8(Q.reserved, s), ...pop8(s)],
        })),
        // handle() returns: the middleware's finally releases the lock by its owner, then the delete.
        {
          actor: 'worker-1',
          t: 30,
          kind: 'delete',
          commands: [
            c('EVAL', RELEASE_LOCK, '1', LOCK, same('owner1')),
            lua('get', LOCK),
            lua('del', LOCK),
            c('ZREM', Q.reserved, same('r1')),
          ],
        },
        {
          actor: 'worker-1',
          t: 30,
          kind: 'pop',
          commands: [GET_RESTART, ...migrate8(Q.delayed, 30), ...migrate8(Q.reserved, 30), ...pop8(30)],
        },
      ],
      laravel8,
    );
    expect(t.failed.map((f) => [f.job, f.exception])).toEqual([
      ['Sync#2', 'Illuminate\\Queue\\MaxAttemptsExceededException'],
    ]);
    // The lock worker-1 holds, as the state shows it while worker-2 is refused, then gone.
    const held = t.steps[4]!.state.cache!;
    expect(held.map((k) => [k.db, k.key, k.lock?.actor, k.expires])).toEqual([[0, LOCK, 'worker-1', null]]);
    expect(t.steps.at(-1)!.state.cache).toEqual([]);
  });

  it('ShouldBeUnique: the lock before the push, a duplicate pushes nothing, a release keeps it, the failure frees it', async () => {
    const t = await run(`
name: inline
title: inline
laravel: 8
cache: { store: redis }
until: 24
workers:
  - { name: worker-1, sleep: 5, start: 1, tries: 2 }
jobs:
  Index: { class: App\\Jobs\\Index, unique: { id: 42 }, attempts: [{ run: 2, release: 3 }, { run: 1, throw: boom }] }
timeline:
  - { at: 0, dispatch: Index, count: 2 }
  - { at: 2, dispatch: Index }
  - { at: 20, dispatch: Index }
`);
    // 'laravel_unique_job:'.get_class($job).$uniqueId: no separator in 8.x; SETNX (no $uniqueFor).
    const UNIQUE = `${CACHE}laravel_unique_job:App\\Jobs\\Index42`;
    const poll = (s: number, moved?: string, reserved?: ReturnType<typeof payload>) => [
      GET_RESTART,
      ...migrate8(Q.delayed, s, moved),
      ...migrate8(Q.reserved, s),
      ...pop8(s, reserved),
    ];
    expectSteps(
      t,
      [
        // The second instance: its SETNX is refused, and that is all it sends.
        {
          actor: 'dispatcher',
          t: 0,
          commands: [c('SELECT', '0'), c('SETNX', UNIQUE, any), ...push8('p1'), c('SETNX', UNIQUE, any)],
        },
        {
          actor: 'worker-1',
          t: 1,
          kind: 'pop',
          commands: [
            c('SELECT', '1'),
            GET_RESTART,
            c('SELECT', '0'),
            ...migrate8(Q.delayed, 1),
            ...migrate8(Q.reserved, 1),
            ...pop8(1, payload({ attempts: 1 }, 'r1')),
          ],
        },
        { actor: 'worker-1', t: 1, kind: 'process', commands: [] },
        { actor: 'dispatcher', t: 2, commands: [c('SELECT', '0'), c('SETNX', UNIQUE, any)] },
        // $this->release(3): CallQueuedHandler::call keeps the lock of a released job.
        { actor: 'worker-1', t: 3, kind: 'release', commands: release8('r1', 6) },
        { actor: 'worker-1', t: 3, kind: 'pop', commands: poll(3) },
        { actor: 'worker-1', t: 8, kind: 'pop', commands: poll(8, 'r1', payload({ attempts: 2 }, 'r2')) },
        { actor: 'worker-1', t: 8, kind: 'process', commands: [] },
        // Attempt 2 of --tries=2 throws: failJob deletes it, then CallQueuedHandler::failed frees the lock.
        { actor: 'worker-1', t: 9, kind: 'fail', commands: [c('ZREM', Q.reserved, same('r2')), c('DEL', UNIQUE)] },
        { actor: 'worker-1', t: 9, kind: 'pop', commands: poll(9) },
        { actor: 'worker-1', t: 14, kind: 'pop', commands: poll(14) },
        { actor: 'worker-1', t: 19, kind: 'pop', commands: poll(19) },
        // The lock is free again: this one is pushed.
        { actor: 'dispatcher', t: 20, commands: [c('SELECT', '0'), c('SETNX', UNIQUE, any), ...push8('p2')] },
        { actor: 'worker-1', t: 24, kind: 'pop', commands: poll(24, undefined, payload({ attempts: 1 }, 'r3')) },
        { actor: 'worker-1', t: 24, kind: 'process', commands: [] },
      ],
      laravel8,
    );
    expect(t.steps[0]!.title).toContain('not queued');
    expect(t.steps[3]!.state.cache!.map((k) => [k.key, k.lock?.actor])).toEqual([[UNIQUE, 'dispatcher']]);
  });

  it('maxExceptions counts in the Redis cache: GET, SETEX a day, INCRBY, DEL at the max', async () => {
    const t = await run(`
name: inline
title: inline
laravel: 8
cache: { store: redis }
workers: [{ name: worker-1, sleep: 1, tries: 5, once: true }, { name: worker-2, sleep: 1, tries: 5, once: true, start: 1 }]
jobs:
  Api: { class: App\\Jobs\\Api, max_exceptions: 2, attempts: [{ throw: down }] }
timeline:
  - { at: 0, dispatch: Api }
`);
    // --once: no restart signal is read; the counter is the first use of the cache connection.
    const uuid = (JSON.parse(t.steps[0]!.commands[1]!.args[5]!) as { uuid: string }).uuid;
    const COUNTER = `${CACHE}job-exceptions:${uuid}`;
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, commands: [c('SELECT', '0'), ...push8('p1')] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [
            c('SELECT', '0'),
            ...migrate8(Q.delayed, 0),
            ...migrate8(Q.reserved, 0),
            ...pop8(0, payload({ attempts: 1 }, 'r1')),
          ],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'release',
          commands: [
            c('SELECT', '1'),
            c('GET', COUNTER),
            c('SETEX', COUNTER, '86400', '0'),
            c('INCRBY', COUNTER, '1'),
            ...release8('r1', 0),
          ],
        },
        { actor: 'worker-1', t: 0, kind: 'stop', commands: [] },
        {
          actor: 'worker-2',
          t: 1,
          kind: 'pop',
          commands: [
            c('SELECT', '0'),
            ...migrate8(Q.delayed, 1, 'r1'),
            ...migrate8(Q.reserved, 1),
            ...pop8(1, payload({ attempts: 2 }, 'r2')),
          ],
        },
        // "1" is truthy: no SETEX; INCRBY reaches 2 = maxExceptions: forget it, fail the job.
        {
          actor: 'worker-2',
          t: 1,
          kind: 'fail',
          commands: [
            c('SELECT', '1'),
            c('GET', COUNTER),
            c('INCRBY', COUNTER, '1'),
            c('DEL', COUNTER),
            c('ZREM', Q.reserved, same('r2')),
          ],
        },
        { actor: 'worker-2', t: 1, kind: 'stop', commands: [] },
      ],
      laravel8,
    );
    expect(t.steps[2]!.state.cache!.map((k) => [k.db, k.key, k.value, k.expires])).toEqual([
      [1, COUNTER, '1', 1_700_000_000 + 86400],
    ]);
  });

  it('queue:restart: daemons exit at their next check (a busy one after its job), --once never reads it', async () => {
    const t = await run(`
name: inline
title: inline
laravel: 8
cache: { store: redis }
until: 12
workers:
  - { name: worker-1, sleep: 3 }
  - { name: worker-2, sleep: 3 }
  - { name: worker-3, sleep: 3, once: true, start: 6 }
jobs:
  Long: { class: App\\Jobs\\Long, attempts: [{ run: 10 }] }
timeline:
  - { at: 0, dispatch: Long }
  - { at: 4, artisan: queue:restart }
`);
    const poll = (s: number, reserved?: ReturnType<typeof payload>) => [
      ...migrate8(Q.delayed, s),
      ...migrate8(Q.reserved, s),
      ...pop8(s, reserved),
    ];
    const start = [c('SELECT', '1'), GET_RESTART, c('SELECT', '0')];
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, commands: [c('SELECT', '0'), ...push8('p1')] },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: [...start, ...poll(0, payload({ attempts: 1 }, 'r1'))] },
        { actor: 'worker-2', t: 0, kind: 'pop', commands: [...start, ...poll(0)] },
        { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
        { actor: 'worker-2', t: 3, kind: 'pop', commands: [GET_RESTART, ...poll(3)] },
        // php artisan queue:restart: its own process, the cache connection only: a plain SET, no TTL.
        {
          actor: 'artisan',
          t: 4,
          kind: 'artisan',
          commands: [c('SELECT', '1'), c('SET', RESTART, String(1_700_000_004))],
        },
        // --once: Worker::runNextJob never reads the signal, nor opens the cache connection.
        { actor: 'worker-3', t: 6, kind: 'pop', commands: [c('SELECT', '0'), ...poll(6)] },
        // worker-2 wakes from its sleep, reads a new signal: Worker::stop, then supervisord.
        { actor: 'worker-2', t: 6, kind: 'stop', commands: [GET_RESTART] },
        { actor: 'worker-2', t: 6, kind: 'restart', commands: [] },
        // The new process reads the new signal at its start, on a new cache connection.
        { actor: 'worker-2', t: 6, kind: 'pop', commands: [...start, ...poll(6)] },
        { actor: 'worker-3', t: 9, kind: 'stop', commands: [] },
        { actor: 'worker-2', t: 9, kind: 'pop', commands: [GET_RESTART, ...poll(9)] },
        // worker-1 finishes its job, then reads the signal it missed and exits.
        { actor: 'worker-1', t: 10, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r1'))] },
        { actor: 'worker-1', t: 10, kind: 'stop', commands: [GET_RESTART] },
        { actor: 'worker-1', t: 10, kind: 'restart', commands: [] },
        { actor: 'worker-1', t: 10, kind: 'pop', commands: [...start, ...poll(10)] },
        { actor: 'worker-2', t: 12, kind: 'pop', commands: [GET_RESTART, ...poll(12)] },
      ],
      laravel8,
    );
  });
});
