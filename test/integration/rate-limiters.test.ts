// The rate limiters of Laravel 8.83, derived by hand from the framework's source:
// - RateLimited::handle (Queue/Middleware/RateLimited.php:53-106) over Cache\RateLimiter
//   (Cache/RateLimiter.php:90-211): the key is md5($limiterName.$limit->key); tooManyAttempts is
//   GET k, and at the max GET k:timer (has); hit is RedisStore::add of k:timer (now + decay) and of
//   k (0), then INCRBY k; a limited job is released for availableIn (GET k:timer - now) + 3.
// - RateLimitedWithRedis::handle (:49-90): DurationLimiter::acquire on the default connection
//   (Redis/Limiters/DurationLimiter.php:101-112), ARGV microtime(true), time(), decay, slots;
//   limited, released for decaysAt - now + 3.
// - ThrottlesExceptions::handle (:88-108): tooManyAttempts on prefix.md5(class), then handle();
//   an exception is hit() and the job released for backoff (0), and the Worker sees none; at the
//   max, released for availableIn + 3 without handle().
// - ThrottlesExceptionsWithRedis::handle (:36-61): DurationLimiter::tooManyAttempts first; an
//   exception acquire()s; at the max, released for decaysAt - now (no + 3).
// Every run stays inside one window (until: 0): the keys' TTLs never run out.
import { createHash } from 'node:crypto';
import { describe, it } from 'vitest';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import { useRedis } from '../helpers/run.ts';
import type { CmdPattern, StepPattern } from '../helpers/trace.ts';
import { at, c, evalScript, expectSteps, lua, payload, queue, same } from '../helpers/trace.ts';

const redis = useRedis();
const P = 'laravel_database_';
const Q = queue('default', P);
const NOTIFY = `${P}queues:default:notify`;
const CACHE = `${P}laravel_cache:`;
const T = 1_700_000_000;
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/** RedisStore::add (Cache/RedisStore.php@v8.83.29:139). */
const ADD = "return redis.call('exists',KEYS[1])<1 and redis.call('setex',KEYS[1],ARGV[2],ARGV[1])";
/** DurationLimiter::luaScript and tooManyAttemptsLuaScript (Redis/Limiters/DurationLimiter.php@v8.83.29:149-201). */
const ACQUIRE = `local function reset()
    redis.call('HMSET', KEYS[1], 'start', ARGV[2], 'end', ARGV[2] + ARGV[3], 'count', 1)
    return redis.call('EXPIRE', KEYS[1], ARGV[3] * 2)
end

if redis.call('EXISTS', KEYS[1]) == 0 then
    return {reset(), ARGV[2] + ARGV[3], ARGV[4] - 1}
end

if ARGV[1] >= redis.call('HGET', KEYS[1], 'start') and ARGV[1] <= redis.call('HGET', KEYS[1], 'end') then
    return {
        tonumber(redis.call('HINCRBY', KEYS[1], 'count', 1)) <= tonumber(ARGV[4]),
        redis.call('HGET', KEYS[1], 'end'),
        ARGV[4] - redis.call('HGET', KEYS[1], 'count')
    }
end

return {reset(), ARGV[2] + ARGV[3], ARGV[4] - 1}`;
const TOO_MANY = `
if redis.call('EXISTS', KEYS[1]) == 0 then
    return {0, ARGV[2] + ARGV[3]}
end

if ARGV[1] >= redis.call('HGET', KEYS[1], 'start') and ARGV[1] <= redis.call('HGET', KEYS[1], 'end') then
    return {
        redis.call('HGET', KEYS[1], 'end'),
        ARGV[4] - redis.call('HGET', KEYS[1], 'count')
    }
end

return {0, ARGV[2] + ARGV[3]}`;

const run = (yaml: string) => runScenario(parseScenario(yaml, 'inline.yaml').spec, { redis: redis() });

const migrate8 = (from: string, moved?: string): CmdPattern[] => {
  const inner = [lua('zrangebyscore', from, '-inf', at(0))];
  if (moved)
    inner.push(lua('zremrangebyrank', from, '0', '0'), lua('rpush', Q.ready, same(moved)), lua('rpush', NOTIFY, '1'));
  return evalScript('migrateExpiredJobs', [from, Q.ready, NOTIFY], [at(0)], inner);
};
const pop8 = (reserved?: ReturnType<typeof payload>): CmdPattern[] => {
  const inner = [lua('lpop', Q.ready)];
  if (reserved) inner.push(lua('zadd', Q.reserved, at(90), reserved), lua('lpop', NOTIFY));
  return evalScript('pop', [Q.ready, Q.reserved, NOTIFY], [at(90)], inner);
};
const push8 = (bind: string): CmdPattern[] =>
  evalScript(
    'push',
    [Q.ready, NOTIFY],
    [payload({ attempts: 0 }, bind)],
    [lua('rpush', Q.ready, same(bind)), lua('rpush', NOTIFY, '1')],
  );
const release8 = (r: string, delay: number): CmdPattern[] =>
  evalScript(
    'release',
    [Q.delayed, Q.reserved],
    [same(r), at(delay)],
    [lua('zrem', Q.reserved, same(r)), lua('zadd', Q.delayed, at(delay), same(r))],
  );
const GET_RESTART = c('GET', `${CACHE}illuminate:queue:restart`);
/** A daemon's poll at t+0 that reserves `to` (attempts n); `moved`: a copy released for 0s before it. */
const poll = (to: string, attempts: number, first: boolean, moved?: string): StepPattern => ({
  actor: 'worker-1',
  t: 0,
  kind: 'pop',
  commands: [
    ...(first ? [c('SELECT', '1'), GET_RESTART, c('SELECT', '0')] : [GET_RESTART]),
    ...migrate8(Q.delayed, moved),
    ...migrate8(Q.reserved),
    ...pop8(payload({ attempts }, to)),
  ],
});
/** RedisStore::add's EVAL and its script's commands: SETEX only when the key is new. */
const add = (key: string, value: string, seconds: number, isNew: boolean): CmdPattern[] => [
  c('EVAL', ADD, '1', key, value, String(seconds)),
  lua('exists', key),
  ...(isNew ? [lua('setex', key, String(seconds), value)] : []),
];
/** DurationLimiter::acquire: a new window, or a slot taken in the open one. */
const acquire = (key: string, slots: number, isNew: boolean): CmdPattern[] => [
  c('EVAL', ACQUIRE, '1', key, String(T), String(T), '60', String(slots)),
  lua('EXISTS', key),
  ...(isNew
    ? [lua('HMSET', key, 'start', String(T), 'end', String(T + 60), 'count', '1'), lua('EXPIRE', key, '120')]
    : [
        lua('HGET', key, 'start'),
        lua('HGET', key, 'end'),
        lua('HINCRBY', key, 'count', '1'),
        lua('HGET', key, 'end'),
        lua('HGET', key, 'count'),
      ]),
];
const tooMany = (key: string, slots: number, open: boolean): CmdPattern[] => [
  c('EVAL', TOO_MANY, '1', key, String(T), String(T), '60', String(slots)),
  lua('EXISTS', key),
  ...(open
    ? [lua('HGET', key, 'start'), lua('HGET', key, 'end'), lua('HGET', key, 'end'), lua('HGET', key, 'count')]
    : []),
];

const scenario = (middleware: string, attempts = '[succeed]', count = 2) => `
name: inline
title: inline
laravel: 8
cache: { store: redis }
until: 0
limiters: { orders: { per_minute: 1 } }
workers: [{ name: worker-1, sleep: 1, tries: 5 }]
jobs:
  Qux: { class: App\\Jobs\\Qux, tries: 5, middleware: [${middleware}], attempts: ${attempts} }
timeline:
  - { at: 0, dispatch: Qux, count: ${count} }
`;

describe('rate limiters (Laravel 8.83)', () => {
  it('RateLimited: the first job hits the cache limiter, the second is released for the window + 3s', async () => {
    const t = await run(scenario('{ rate_limited: orders }'));
    const K = `${CACHE}${md5('orders')}`;
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, commands: [c('SELECT', '0'), ...push8('p1'), ...push8('p2')] },
        poll('r1', 1, true),
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [
            c('GET', K),
            ...add(`${K}:timer`, String(T + 60), 60, true),
            ...add(K, '0', 60, true),
            c('INCRBY', K, '1'),
            c('ZREM', Q.reserved, same('r1')),
          ],
        },
        poll('r2', 1, false),
        {
          actor: 'worker-1',
          t: 0,
          kind: 'release',
          commands: [c('GET', K), c('GET', `${K}:timer`), c('GET', `${K}:timer`), ...release8('r2', 63)],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [GET_RESTART, ...migrate8(Q.delayed), ...migrate8(Q.reserved), ...pop8()],
        },
      ],
      laravel8,
    );
  });

  it('RateLimitedWithRedis: DurationLimiter on the default connection, keyed with its prefix only; released for decaysAt - now + 3', async () => {
    const t = await run(scenario('{ rate_limited_with_redis: orders }'));
    const K = `${P}${md5('orders')}`;
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, commands: [c('SELECT', '0'), ...push8('p1'), ...push8('p2')] },
        poll('r1', 1, true),
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [...acquire(K, 1, true), c('ZREM', Q.reserved, same('r1'))],
        },
        poll('r2', 1, false),
        { actor: 'worker-1', t: 0, kind: 'release', commands: [...acquire(K, 1, false), ...release8('r2', 63)] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [GET_RESTART, ...migrate8(Q.delayed), ...migrate8(Q.reserved), ...pop8()],
        },
      ],
      laravel8,
    );
  });

  it('ThrottlesExceptions: two exceptions counted and released for 0s, the third pop finds the circuit open', async () => {
    const t = await run(
      scenario('{ throttles_exceptions: { max_attempts: 2, decay_minutes: 1 } }', '[{ throw: down }]', 1),
    );
    const K = `${CACHE}laravel_throttles_exceptions:${md5('App\\Jobs\\Qux')}`;
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, commands: [c('SELECT', '0'), ...push8('p1')] },
        poll('r1', 1, true),
        {
          actor: 'worker-1',
          t: 0,
          kind: 'release',
          commands: [
            c('GET', K),
            ...add(`${K}:timer`, String(T + 60), 60, true),
            ...add(K, '0', 60, true),
            c('INCRBY', K, '1'),
            ...release8('r1', 0),
          ],
        },
        poll('r2', 2, false, 'r1'),
        {
          actor: 'worker-1',
          t: 0,
          kind: 'release',
          commands: [
            c('GET', K),
            ...add(`${K}:timer`, String(T + 60), 60, false),
            ...add(K, '0', 60, false),
            c('INCRBY', K, '1'),
            ...release8('r2', 0),
          ],
        },
        poll('r3', 3, false, 'r2'),
        {
          actor: 'worker-1',
          t: 0,
          kind: 'release',
          commands: [c('GET', K), c('GET', `${K}:timer`), c('GET', `${K}:timer`), ...release8('r3', 63)],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [GET_RESTART, ...migrate8(Q.delayed), ...migrate8(Q.reserved), ...pop8()],
        },
      ],
      laravel8,
    );
  });

  it('ThrottlesExceptionsWithRedis: tooManyAttempts first, acquire after an exception, at the max released for decaysAt - now', async () => {
    const t = await run(
      scenario('{ throttles_exceptions_with_redis: { max_attempts: 2, decay_minutes: 1 } }', '[{ throw: down }]', 1),
    );
    const K = `${P}laravel_throttles_exceptions:${md5('App\\Jobs\\Qux')}`;
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, commands: [c('SELECT', '0'), ...push8('p1')] },
        poll('r1', 1, true),
        {
          actor: 'worker-1',
          t: 0,
          kind: 'release',
          commands: [...tooMany(K, 2, false), ...acquire(K, 2, true), ...release8('r1', 0)],
        },
        poll('r2', 2, false, 'r1'),
        {
          actor: 'worker-1',
          t: 0,
          kind: 'release',
          commands: [...tooMany(K, 2, true), ...acquire(K, 2, false), ...release8('r2', 0)],
        },
        poll('r3', 3, false, 'r2'),
        { actor: 'worker-1', t: 0, kind: 'release', commands: [...tooMany(K, 2, true), ...release8('r3', 60)] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [GET_RESTART, ...migrate8(Q.delayed), ...migrate8(Q.reserved), ...pop8()],
        },
      ],
      laravel8,
    );
  });
});
