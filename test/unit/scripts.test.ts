// The Lua texts go on the wire with every EVAL, so they must be Laravel's byte for byte. The
// expected texts below were pasted by hand from LuaScripts.php (reference §1.3.1 v5.3.31 and
// §1.3.2 v5.4.36 = 5.5-5.7); PHP heredocs drop the final newline, so none of them ends in "\n".
import { describe, expect, it } from 'vitest';
import type { LuaScript } from '../../src/sim/lua.ts';
import { laravel53 } from '../../src/sim/profiles/laravel-5.3.ts';
import { laravel57 } from '../../src/sim/profiles/laravel-5.7.ts';
import { migrateExpiredJobs53, pop53, release53, size53 } from '../../src/sim/profiles/scripts-5.3.ts';
import { migrateExpiredJobs54, pop54, release54, size54 } from '../../src/sim/profiles/scripts-5.4.ts';

const LARAVEL_53 = {
  pop: String.raw`local job = redis.call('lpop', KEYS[1])
local reserved = false
if(job ~= false) then
    reserved = cjson.decode(job)
    reserved['attempts'] = reserved['attempts'] + 1
    reserved = cjson.encode(reserved)
    redis.call('zadd', KEYS[2], ARGV[1], reserved)
end
return {job, reserved}`,
  release: String.raw`redis.call('zrem', KEYS[2], ARGV[1])
redis.call('zadd', KEYS[1], ARGV[2], ARGV[1])
return true`,
  migrateExpiredJobs: String.raw`local val = redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1])
if(next(val) ~= nil) then
    redis.call('zremrangebyrank', KEYS[1], 0, #val - 1)
    for i = 1, #val, 100 do
        redis.call('rpush', KEYS[2], unpack(val, i, math.min(i+99, #val)))
    end
end
return true`,
  size: String.raw`return redis.call('llen', KEYS[1]) + redis.call('zcard', KEYS[2]) + redis.call('zcard', KEYS[3])`,
};

const LARAVEL_54 = {
  pop: String.raw`-- Pop the first job off of the queue...
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
  release: String.raw`-- Remove the job from the current queue...
redis.call('zrem', KEYS[2], ARGV[1])

-- Add the job onto the "delayed" queue...
redis.call('zadd', KEYS[1], ARGV[2], ARGV[1])

return true`,
  migrateExpiredJobs: String.raw`-- Get all of the jobs with an expired "score"...
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
  size: String.raw`return redis.call('llen', KEYS[1]) + redis.call('zcard', KEYS[2]) + redis.call('zcard', KEYS[3])`,
};

// Seed 003 (a real Laravel 5.3 MONITOR capture): the script argument of its EVAL lines, as
// MONITOR quoted it (sdscatrepr: newline as \n). Copied from the capture, outer quotes dropped.
const SEED_003_EVAL_MIGRATE = String.raw`local val = redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1])\nif(next(val) ~= nil) then\n    redis.call('zremrangebyrank', KEYS[1], 0, #val - 1)\n    for i = 1, #val, 100 do\n        redis.call('rpush', KEYS[2], unpack(val, i, math.min(i+99, #val)))\n    end\nend\nreturn true`;
const SEED_003_EVAL_POP = String.raw`local job = redis.call('lpop', KEYS[1])\nlocal reserved = false\nif(job ~= false) then\n    reserved = cjson.decode(job)\n    reserved['attempts'] = reserved['attempts'] + 1\n    reserved = cjson.encode(reserved)\n    redis.call('zadd', KEYS[2], ARGV[1], reserved)\nend\nreturn {job, reserved}`;
// The numkeys argument that follows the script on those lines: "2" for both.
const SEED_003_NUMKEYS = { migrateExpiredJobs: 2, pop: 2 };

/** Undo MONITOR quoting for the characters these scripts contain: \n, \", \\. */
const unrepr = (s: string): string => s.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));

describe('Laravel 5.3 Lua scripts (LuaScripts.php v5.3.31)', () => {
  it.each([
    ['pop', pop53],
    ['release', release53],
    ['migrateExpiredJobs', migrateExpiredJobs53],
    ['size', size53],
  ] as const)('%s is byte-for-byte Laravel', (name, script) => {
    expect(script.source).toBe(LARAVEL_53[name]);
    expect(script.name).toBe(name);
    expect(script.method).toBe(`LuaScripts::${name}`);
  });

  it('matches the script text of the EVAL lines in seed 003', () => {
    expect(pop53.source).toBe(unrepr(SEED_003_EVAL_POP));
    expect(migrateExpiredJobs53.source).toBe(unrepr(SEED_003_EVAL_MIGRATE));
    expect(pop53.numberOfKeys).toBe(SEED_003_NUMKEYS.pop);
    expect(migrateExpiredJobs53.numberOfKeys).toBe(SEED_003_NUMKEYS.migrateExpiredJobs);
    // The capture itself agrees with the reference text, so the two sources are consistent.
    expect(unrepr(SEED_003_EVAL_POP)).toBe(LARAVEL_53.pop);
  });
});

describe('Laravel 5.4-5.7 Lua scripts (LuaScripts.php v5.4.36)', () => {
  it.each([
    ['pop', pop54],
    ['release', release54],
    ['migrateExpiredJobs', migrateExpiredJobs54],
    ['size', size54],
  ] as const)('%s is byte-for-byte Laravel', (name, script) => {
    expect(script.source).toBe(LARAVEL_54[name]);
    expect(script.name).toBe(name);
    expect(script.method).toBe(`LuaScripts::${name}`);
  });
});

describe('script headers and profiles', () => {
  const all: LuaScript[] = [
    pop53,
    release53,
    migrateExpiredJobs53,
    size53,
    pop54,
    release54,
    migrateExpiredJobs54,
    size54,
  ];

  it('declares the key counts RedisQueue passes to eval (pop 2, release 2, migrate 2, size 3)', () => {
    const expected: Record<string, number> = { pop: 2, release: 2, migrateExpiredJobs: 2, size: 3 };
    for (const s of all) expect(s.numberOfKeys, `${s.name}`).toBe(expected[s.name]);
  });

  it('describes one KEYS[i] per key and one ARGV[i] per argument', () => {
    // size(): no ARGV; pop: ARGV[1] expiry; release: ARGV[1] payload, ARGV[2] time; migrate: ARGV[1] now.
    const argc: Record<string, number> = { pop: 1, release: 2, migrateExpiredJobs: 1, size: 0 };
    for (const s of all) {
      expect(s.keys, s.name).toHaveLength(s.numberOfKeys);
      expect(s.argv, s.name).toHaveLength(argc[s.name]!);
    }
  });

  it('no script ends with a newline (PHP heredoc)', () => {
    for (const s of all) expect(s.source.endsWith('\n'), s.name).toBe(false);
  });

  it('5.7 uses the 5.4 texts, 5.3 its own', () => {
    expect(laravel57.scripts).toEqual({
      push: null,
      later: null,
      pop: pop54,
      release: release54,
      migrateExpiredJobs: migrateExpiredJobs54,
      size: size54,
      clear: null,
    });
    expect(laravel57.scripts.pop?.source).toBe(LARAVEL_54.pop);
    expect(laravel57.scripts.release?.source).toBe(LARAVEL_54.release);
    expect(laravel57.scripts.migrateExpiredJobs?.source).toBe(LARAVEL_54.migrateExpiredJobs);
    expect(laravel57.scripts.size?.source).toBe(LARAVEL_54.size);
    expect(laravel53.scripts.pop?.source).toBe(LARAVEL_53.pop);
    expect(laravel53.scripts.release?.source).toBe(LARAVEL_53.release);
    expect(laravel53.scripts.migrateExpiredJobs?.source).toBe(LARAVEL_53.migrateExpiredJobs);
    expect(laravel53.scripts.size?.source).toBe(LARAVEL_53.size);
  });
});
