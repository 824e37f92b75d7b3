// Illuminate\Cache\LuaScripts: the cache store's scripts, the same text in every version that has
// them (5.8+; Cache/LuaScripts.php@v8.83.29:15-24 = 13.26.1). Laravel's text (MIT, THIRD_PARTY.md).
import type { CacheScript } from './lua.ts';

/** LuaScripts::releaseLock: delete the lock only while its owner holds it (RedisLock::release). */
export const releaseLock: CacheScript = {
  name: 'releaseLock',
  method: 'LuaScripts::releaseLock',
  numberOfKeys: 1,
  keys: ['the name of the lock'],
  argv: ['the owner key of the lock instance trying to release it'],
  source: `if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end`,
};

/**
 * RedisStore::add's script (Cache/RedisStore.php@v8.83.29:137-144; 13.x's LuaScripts::add, the same
 * text): SETEX only when the key does not exist; replies OK or nil.
 */
export const add: CacheScript = {
  name: 'add',
  method: 'RedisStore::add',
  numberOfKeys: 1,
  keys: ['the key'],
  argv: ['the value', 'the seconds'],
  source: "return redis.call('exists',KEYS[1])<1 and redis.call('setex',KEYS[1],ARGV[2],ARGV[1])",
};

/**
 * DurationLimiter::luaScript (Redis/Limiters/DurationLimiter.php@v8.83.29:149-171, the same text in
 * 5.7.29 and 13.26.1): take a slot of the window, or open a new window. Replies {acquired, decaysAt,
 * remaining}.
 */
export const durationLimiter: CacheScript = {
  name: 'durationLimiter',
  method: 'DurationLimiter::acquire',
  numberOfKeys: 1,
  keys: ['the limiter'],
  argv: ['microtime(true)', 'time()', 'the decay, in seconds', 'the slots'],
  source: `local function reset()
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

return {reset(), ARGV[2] + ARGV[3], ARGV[4] - 1}`,
};

/**
 * DurationLimiter::tooManyAttemptsLuaScript (8.32.0+; @v8.83.29:184-201, its heredoc opens with an
 * empty line): the window's end and the slots left, without taking one.
 */
export const tooManyAttempts: CacheScript = {
  name: 'tooManyAttempts',
  method: 'DurationLimiter::tooManyAttempts',
  numberOfKeys: 1,
  keys: ['the limiter'],
  argv: ['microtime(true)', 'time()', 'the decay, in seconds', 'the slots'],
  source: `
if redis.call('EXISTS', KEYS[1]) == 0 then
    return {0, ARGV[2] + ARGV[3]}
end

if ARGV[1] >= redis.call('HGET', KEYS[1], 'start') and ARGV[1] <= redis.call('HGET', KEYS[1], 'end') then
    return {
        redis.call('HGET', KEYS[1], 'end'),
        ARGV[4] - redis.call('HGET', KEYS[1], 'count')
    }
end

return {0, ARGV[2] + ARGV[3]}`,
};

/** Every script of the cache store's the model sends (named in traces like the queue's). */
export const CACHE_SCRIPTS: readonly CacheScript[] = [releaseLock, add, durationLimiter, tooManyAttempts];
