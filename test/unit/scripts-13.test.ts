// The Laravel 13 scripts go on the wire with every EVAL, so they must be Laravel's byte for byte.
// The expected texts below were pasted by hand from the reference (laravel-versions.md §1.3.6,
// LuaScripts.php v12.67.0, identical in v13.26.1); PHP heredocs drop the final newline. The SHA1s
// were computed from those reference texts (sha1 of the bytes between the ```lua fences), not from
// the tool's; five of them equal the hashes FINDINGS.md lists for what real Laravel 8.83 sent, so
// only later and migrateExpiredJobs are new. The MONITOR excerpts are from the reference's §6.5
// capture (Redis 7.0.15 running the v12.67.0 bodies as RedisQueue calls them).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LuaScript } from '../../src/sim/lua.ts';
import { getProfile } from '../../src/sim/profiles/index.ts';
import { laravel13 } from '../../src/sim/profiles/laravel-13.ts';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import {
  clear12,
  later1245,
  migrateExpiredJobs923,
  pop12,
  push12,
  release12,
  size12,
} from '../../src/sim/profiles/scripts-12.ts';

const LARAVEL_13 = {
  size: String.raw`return redis.call('llen', KEYS[1]) + redis.call('zcard', KEYS[2]) + redis.call('zcard', KEYS[3])`,
  push: String.raw`-- Push the job onto the queue...
redis.call('rpush', KEYS[1], ARGV[1])
-- Push a notification onto the "notify" queue...
redis.call('rpush', KEYS[2], 1)`,
  later: String.raw`-- Push the job onto the delayed queue...
redis.call('zadd', KEYS[1], ARGV[1], ARGV[2])`,
  pop: String.raw`-- Pop the first job off of the queue...
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
  release: String.raw`-- Remove the job from the current queue...
redis.call('zrem', KEYS[2], ARGV[1])

-- Add the job onto the "delayed" queue...
redis.call('zadd', KEYS[1], ARGV[2], ARGV[1])

return true`,
  migrateExpiredJobs: String.raw`-- Get all of the jobs with an expired "score"...
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
  clear: String.raw`local size = redis.call('llen', KEYS[1]) + redis.call('zcard', KEYS[2]) + redis.call('zcard', KEYS[3])
redis.call('del', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return size`,
};

// sha1 and byte length of each reference text (what SCRIPT LOAD would answer for it).
const SHA1: Record<keyof typeof LARAVEL_13, [string, number]> = {
  size: ['1e9bc71bb4e219f149f84b07a80e1d52bec74ff0', 96],
  push: ['4e92c9c2943985bb6b3ac9a3ecfdd7e9255d4b92', 153],
  later: ['c506d1d18588be7d128d961378675f2ef46fd856', 87],
  pop: ['230148430cb441a76f6486ae084405a674e00385', 434],
  release: ['9459425458c937631eb364f1903eea127fb42402', 183],
  migrateExpiredJobs: ['b43839a5eeb2b59b4245b4ab84848b14e782d82d', 732],
  clear: ['c6c3b5e015599b1d21ebdfdfd21297861f6b481f', 168],
};

// How RedisQueue (12.45+ / 13.x) calls each one: numkeys and the ARGV count (reference §1.4).
const CALLS: Record<keyof typeof LARAVEL_13, { keys: number; argv: number }> = {
  size: { keys: 3, argv: 0 },
  push: { keys: 2, argv: 1 },
  // laterRaw: eval(later(), 1, q:delayed, availableAt($delay), $payload)
  later: { keys: 1, argv: 2 },
  pop: { keys: 3, argv: 1 },
  release: { keys: 2, argv: 2 },
  // migrateExpiredJobs: eval(..., 3, $from, $to, $to.':notify', currentTime(), migrationBatchSize)
  migrateExpiredJobs: { keys: 3, argv: 2 },
  clear: { keys: 4, argv: 0 },
};

// Script arguments of EVAL lines in the reference's §6.5 capture, as MONITOR quoted them.
const CAPTURE_LATER = String.raw`-- Push the job onto the delayed queue...\nredis.call('zadd', KEYS[1], ARGV[1], ARGV[2])`;
const CAPTURE_MIGRATE = String.raw`-- Get all of the jobs with an expired \"score\"...\nlocal val = redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1], 'limit', 0, ARGV[2])\n\n-- If we have values in the array, we will remove them from the first queue\n-- and add them onto the destination queue in chunks of 100, which moves\n-- all of the appropriate jobs onto the destination queue very safely.\nif(next(val) ~= nil) then\n    redis.call('zremrangebyrank', KEYS[1], 0, #val - 1)\n\n    for i = 1, #val, 100 do\n        redis.call('rpush', KEYS[2], unpack(val, i, math.min(i+99, #val)))\n        -- Push a notification for every job that was migrated...\n        for j = i, math.min(i+99, #val) do\n            redis.call('rpush', KEYS[3], 1)\n        end\n    end\nend\n\nreturn val`;

/** Undo MONITOR quoting for the characters these scripts contain: \n, \", \\. */
const unrepr = (s: string): string => s.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
const sha1 = (s: string): string => createHash('sha1').update(s, 'utf8').digest('hex');

const OURS: Record<keyof typeof LARAVEL_13, LuaScript> = {
  size: size12,
  push: push12,
  later: later1245,
  pop: pop12,
  release: release12,
  migrateExpiredJobs: migrateExpiredJobs923,
  clear: clear12,
};
const NAMES = Object.keys(LARAVEL_13) as Array<keyof typeof LARAVEL_13>;

describe('Laravel 13 Lua scripts (LuaScripts.php v12.67.0 = v13.26.1)', () => {
  it.each(NAMES)('%s is byte-for-byte Laravel, with its SHA1 and length', (name) => {
    const script = OURS[name];
    expect(script.source).toBe(LARAVEL_13[name]);
    expect(sha1(script.source)).toBe(SHA1[name][0]);
    expect(Buffer.byteLength(script.source)).toBe(SHA1[name][1]);
    expect(script.name).toBe(name);
    expect(script.method).toBe(`LuaScripts::${name}`);
    expect(script.source.endsWith('\n')).toBe(false);
  });

  it.each(NAMES)('%s declares the KEYS and ARGV RedisQueue passes', (name) => {
    expect(OURS[name].numberOfKeys).toBe(CALLS[name].keys);
    expect(OURS[name].keys).toHaveLength(CALLS[name].keys);
    expect(OURS[name].argv).toHaveLength(CALLS[name].argv);
  });

  it('later and migrateExpiredJobs match the EVAL lines of the reference capture', () => {
    expect(later1245.source).toBe(unrepr(CAPTURE_LATER));
    expect(migrateExpiredJobs923.source).toBe(unrepr(CAPTURE_MIGRATE));
  });

  it('migrate differs from 8.x only by the batch limit; the other scripts are 8.x texts', () => {
    expect(
      laravel8.scripts.migrateExpiredJobs?.source.replace("'-inf', ARGV[1])", "'-inf', ARGV[1], 'limit', 0, ARGV[2])"),
    ).toBe(migrateExpiredJobs923.source);
    expect(laravel8.scripts.later).toBeNull();
    for (const name of ['size', 'push', 'pop', 'release', 'clear'] as const)
      expect(OURS[name]).toBe(laravel8.scripts[name]);
  });
});

// Its client, prefix, rule switches and messages are rows of profiles.test.ts.
describe('the Laravel 13 profile', () => {
  it('is registered as "13" and uses exactly these scripts', () => {
    expect(getProfile('13')).toBe(laravel13);
    expect(laravel13.scripts).toEqual(OURS);
  });
});
