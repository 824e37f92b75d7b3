// LuaScripts.php of Laravel 5.3.x (v5.3.31): no comments; migrateExpiredJobs returns true.
// The texts are Laravel's (MIT). PHP heredocs drop the final newline, so neither do we add one.
import type { LuaScript } from '../lua.ts';

export const pop53: LuaScript = {
  name: 'pop',
  method: 'LuaScripts::pop',
  numberOfKeys: 2,
  keys: ['the queue to pop jobs from, e.g. queues:default', 'the reserved queue, e.g. queues:default:reserved'],
  argv: ['the time at which the reserved job will expire (getTime() + $this->expire: now + retry_after)'],
  source: String.raw`local job = redis.call('lpop', KEYS[1])
local reserved = false
if(job ~= false) then
    reserved = cjson.decode(job)
    reserved['attempts'] = reserved['attempts'] + 1
    reserved = cjson.encode(reserved)
    redis.call('zadd', KEYS[2], ARGV[1], reserved)
end
return {job, reserved}`,
};

export const release53: LuaScript = {
  name: 'release',
  method: 'LuaScripts::release',
  numberOfKeys: 2,
  keys: [
    'the delayed queue, e.g. queues:default:delayed',
    'the reserved queue the job is on, e.g. queues:default:reserved',
  ],
  argv: ['the raw (reserved) payload of the job', 'the UNIX timestamp at which the job should become available'],
  source: String.raw`redis.call('zrem', KEYS[2], ARGV[1])
redis.call('zadd', KEYS[1], ARGV[2], ARGV[1])
return true`,
};

export const migrateExpiredJobs53: LuaScript = {
  name: 'migrateExpiredJobs',
  method: 'LuaScripts::migrateExpiredJobs',
  numberOfKeys: 2,
  keys: [
    'the queue jobs are migrated from, e.g. queues:default:delayed',
    'the queue they move to, e.g. queues:default',
  ],
  argv: ['the current UNIX timestamp'],
  source: String.raw`local val = redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1])
if(next(val) ~= nil) then
    redis.call('zremrangebyrank', KEYS[1], 0, #val - 1)
    for i = 1, #val, 100 do
        redis.call('rpush', KEYS[2], unpack(val, i, math.min(i+99, #val)))
    end
end
return true`,
};

export const size53: LuaScript = {
  name: 'size',
  method: 'LuaScripts::size',
  numberOfKeys: 3,
  keys: ['the queue', 'the delayed queue', 'the reserved queue'],
  argv: [],
  source: String.raw`return redis.call('llen', KEYS[1]) + redis.call('zcard', KEYS[2]) + redis.call('zcard', KEYS[3])`,
};
