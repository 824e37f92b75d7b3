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

/** Every script of the cache store's the model sends (named in traces like the queue's). */
export const CACHE_SCRIPTS: readonly CacheScript[] = [releaseLock];
