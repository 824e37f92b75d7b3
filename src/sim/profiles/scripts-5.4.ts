// LuaScripts.php of Laravel 5.4.36, byte-identical in 5.5.x, 5.6.x and 5.7.x: comments added,
// migrateExpiredJobs returns the moved jobs. The texts are Laravel's (MIT).
import type { LuaScript } from '../lua.ts';
import { size53 } from './scripts-5.3.ts';

export const pop54: LuaScript = {
  name: 'pop',
  method: 'LuaScripts::pop',
  numberOfKeys: 2,
  keys: ['the queue to pop jobs from, e.g. queues:default', 'the reserved queue, e.g. queues:default:reserved'],
  argv: ['the time at which the reserved job will expire (availableAt(retry_after))'],
  source: String.raw`-- Pop the first job off of the queue...
local job = redis.call('lpop', KEYS[1])
local reserved = false

if(job ~= false) then
    -- Increment the attempt count and place job on the reserved queue...
    reserved = cjson.decode(job)
    reserved['attempts'] = reserved['attempts'] + 1
    reserved = cjson.encode(reserved)
    redis.call('zadd', KEYS[2], ARGV[1], reserved)
end

return {job, reserved}`,
};

export const release54: LuaScript = {
  name: 'release',
  method: 'LuaScripts::release',
  numberOfKeys: 2,
  keys: [
    'the "delayed" queue we release jobs onto, e.g. queues:default:delayed',
    'the queue the jobs are currently on, e.g. queues:default:reserved',
  ],
  argv: [
    'the raw payload of the job to add to the "delayed" queue',
    'the UNIX timestamp at which the job should become available',
  ],
  source: String.raw`-- Remove the job from the current queue...
redis.call('zrem', KEYS[2], ARGV[1])

-- Add the job onto the "delayed" queue...
redis.call('zadd', KEYS[1], ARGV[2], ARGV[1])

return true`,
};

export const migrateExpiredJobs54: LuaScript = {
  name: 'migrateExpiredJobs',
  method: 'LuaScripts::migrateExpiredJobs',
  numberOfKeys: 2,
  keys: [
    'the queue we are removing jobs from, e.g. queues:default:reserved',
    'the queue we are moving jobs to, e.g. queues:default',
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
    end
end

return val`,
};

export const size54: LuaScript = size53;
