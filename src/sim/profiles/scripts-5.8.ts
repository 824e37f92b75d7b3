// LuaScripts.php of Laravel 5.8.38, byte-identical in 6.x, 7.x and 8.x, plus 8.x's clear: the
// :notify list arrives (push is a script; pop and migrate take it as their last key). Checked
// against what Debian's Laravel 8.83.26 sent (conformance/laravel/captures/scripts.txt). The texts
// are Laravel's (MIT).
import type { LuaScript } from '../lua.ts';
import { release54, size54 } from './scripts-5.4.ts';

export const push58: LuaScript = {
  name: 'push',
  method: 'LuaScripts::push',
  numberOfKeys: 2,
  keys: [
    'the queue to push the job onto, e.g. queues:default',
    'the notification list for the queue, e.g. queues:default:notify',
  ],
  argv: ['the job payload'],
  source: String.raw`-- Push the job onto the queue...
redis.call('rpush', KEYS[1], ARGV[1])
-- Push a notification onto the "notify" queue...
redis.call('rpush', KEYS[2], 1)`,
};

export const pop58: LuaScript = {
  name: 'pop',
  method: 'LuaScripts::pop',
  numberOfKeys: 3,
  keys: [
    'the queue to pop jobs from, e.g. queues:foo',
    'the queue to place reserved jobs on, e.g. queues:foo:reserved',
    'the notify queue, e.g. queues:foo:notify',
  ],
  argv: ['the time at which the reserved job will expire'],
  source: String.raw`-- Pop the first job off of the queue...
local job = redis.call('lpop', KEYS[1])
local reserved = false

if(job ~= false) then
    -- Increment the attempt count and place job on the reserved queue...
    reserved = cjson.decode(job)
    reserved['attempts'] = reserved['attempts'] + 1
    reserved = cjson.encode(reserved)
    redis.call('zadd', KEYS[2], ARGV[1], reserved)
    redis.call('lpop', KEYS[3])
end

return {job, reserved}`,
};

export const migrateExpiredJobs58: LuaScript = {
  name: 'migrateExpiredJobs',
  method: 'LuaScripts::migrateExpiredJobs',
  numberOfKeys: 3,
  keys: [
    'the queue we are removing jobs from, e.g. queues:foo:reserved',
    'the queue we are moving jobs to, e.g. queues:foo',
    'the notification list for the queue we are moving jobs to, e.g. queues:foo:notify',
  ],
  argv: ['the current UNIX timestamp'],
  source: String.raw`-- Get all of the jobs with an expired "score"...
local val = redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1])

-- If we have values in the array, we will remove them from the first queue
-- and add them onto the destination queue in chunks of 100, which moves
-- all of the appropriate jobs onto the destination queue very safely.
if(next(val) ~= nil) then
    redis.call('zremrangebyrank', KEYS[1], 0, #val - 1)

    for i = 1, #val, 100 do
        redis.call('rpush', KEYS[2], unpack(val, i, math.min(i+99, #val)))
        -- Push a notification for every job that was migrated...
        for j = i, math.min(i+99, #val) do
            redis.call('rpush', KEYS[3], 1)
        end
    end
end

return val`,
};

/**
 * LuaScripts::clear as of 8.9.0 (unchanged through 13.x): four keys, so it deletes :notify too.
 * RedisQueue::clear arrived in 8.4.0 with a 3-key clear (`redis.call('del', KEYS[1], KEYS[2],
 * KEYS[3])`, eval'd with 3 keys) that left :notify behind; no profile models 8.4-8.8.
 */
export const clear89: LuaScript = {
  name: 'clear',
  method: 'LuaScripts::clear',
  numberOfKeys: 4,
  keys: [
    'the name of the primary queue',
    'the name of the "delayed" queue',
    'the name of the "reserved" queue',
    'the name of the "notify" queue',
  ],
  argv: [],
  source: String.raw`local size = redis.call('llen', KEYS[1]) + redis.call('zcard', KEYS[2]) + redis.call('zcard', KEYS[3])
redis.call('del', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return size`,
};

export const release58: LuaScript = release54;
export const size58: LuaScript = size54;
