// LuaScripts.php of Laravel 12.45+ (laravel/framework src/Illuminate/Queue/LuaScripts.php, the
// same file at v12.45.0, v12.67.0 and v13.26.1). Two changes since 8.x reach the wire:
// - migrateExpiredJobs (9.23.0+, PR #43310) reads at most ARGV[2] members:
//   `zrangebyscore ... 'limit', 0, ARGV[2]`. RedisQueue passes $this->migrationBatchSize, from
//   config/queue.php's `migration_batch_size` (RedisConnector: `?? -1`); the skeleton does not set
//   it, so "-1" goes on the wire, which ZRANGEBYSCORE reads as "no limit". The doc comment above
//   the script was never updated to mention ARGV[2].
// - later (12.45.0+, PR #58235, fixing #58214): RedisQueue::laterRaw no longer sends a plain ZADD
//   but EVALs this one-key script, so a phpredis serializer cannot touch the payload (ARGV are
//   never serialized). MONITOR shows the EVAL, then the script's own "zadd".
// push, pop, release, size and clear are the 5.8/8.9 texts, unchanged. The texts are Laravel's (MIT).
import type { LuaScript } from '../lua.ts';
import { clear89, pop58, push58, release58, size58 } from './scripts-5.8.ts';

export const later1245: LuaScript = {
  name: 'later',
  method: 'LuaScripts::later',
  numberOfKeys: 1,
  keys: ['the delayed queue to push the job onto, e.g. queues:foo:delayed'],
  argv: ['the UNIX timestamp at which the job should become available', 'the job payload'],
  source: String.raw`-- Push the job onto the delayed queue...
redis.call('zadd', KEYS[1], ARGV[1], ARGV[2])`,
};

export const migrateExpiredJobs923: LuaScript = {
  name: 'migrateExpiredJobs',
  method: 'LuaScripts::migrateExpiredJobs',
  numberOfKeys: 3,
  keys: [
    'the queue we are removing jobs from, e.g. queues:foo:reserved',
    'the queue we are moving jobs to, e.g. queues:foo',
    'the notification list for the queue we are moving jobs to, e.g. queues:foo:notify',
  ],
  argv: ['the current UNIX timestamp', 'the migration batch size (migration_batch_size; -1, the default, is no limit)'],
  source: String.raw`-- Get all of the jobs with an expired "score"...
local val = redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1], 'limit', 0, ARGV[2])

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

export const push12: LuaScript = push58;
export const pop12: LuaScript = pop58;
export const release12: LuaScript = release58;
export const size12: LuaScript = size58;
export const clear12: LuaScript = clear89;
