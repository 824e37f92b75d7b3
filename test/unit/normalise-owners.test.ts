// The normaliser's lock owners: Str::random() (16 characters, a new one for every lock object,
// Cache/Lock.php@v8.83.29:50-59) is random on both sides, so it is named OWNER1, OWNER2... in order
// of first appearance wherever a lock command carries it: RedisLock::acquire's `SET <lock> <owner>
// EX n NX` and `SETNX <lock> <owner>` (Cache/RedisLock.php@v8.83.29:35-44), and RedisLock::release's
// `EVAL <releaseLock> 1 <lock> <owner>` (:51-54). Every expected trace below is written by hand.
import { describe, expect, it } from 'vitest';
import { normaliseTrace } from '../../src/trace/normalise.ts';
import type { TraceLikeCommand } from '../../src/trace/trace-like.ts';

const START = 1_700_000_000;
const PREFIX = 'laravel_database_';
const LOCK = `${PREFIX}laravel_cache:laravel-queue-overlap:App\\Jobs\\Foo:order-1`;
const UNIQUE = `${PREFIX}laravel_cache:laravel_unique_job:App\\Jobs\\Foo42`;
// Illuminate\Cache\LuaScripts::releaseLock, verbatim (research/cache-store.md §3.2).
const RELEASE_LOCK = `if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end`;

const client = (...args: string[]): TraceLikeCommand => ({ source: 'client', actor: 'worker-1', db: 0, args });
const lua = (...args: string[]): TraceLikeCommand => ({ source: 'lua', actor: 'worker-1', db: 0, args });
const normalised = (commands: TraceLikeCommand[]) =>
  normaliseTrace({ start: START, prefix: PREFIX, steps: [{ actor: 'worker-1', commands }] }).steps[0]!.commands.map(
    (c) => c.args,
  );

describe('lock owners', () => {
  it('names owners in order of first appearance in SET NX, SETNX and the releaseLock EVAL; the same owner keeps its name', () => {
    expect(
      normalised([
        client('SETNX', UNIQUE, 'qpM49MOIztIqik7Y'),
        client('SET', LOCK, 'dsGYAvp60EKVCkBE', 'EX', '30', 'NX'),
        client('SET', LOCK, 'vZ6rgqQxQ9W7XsUS', 'EX', '30', 'NX'),
        client('EVAL', RELEASE_LOCK, '1', LOCK, 'dsGYAvp60EKVCkBE'),
        lua('get', LOCK),
        lua('del', LOCK),
        client('DEL', UNIQUE),
      ]),
    ).toEqual([
      ['SETNX', 'laravel_cache:laravel_unique_job:App\\Jobs\\Foo42', 'OWNER1'],
      ['SET', 'laravel_cache:laravel-queue-overlap:App\\Jobs\\Foo:order-1', 'OWNER2', 'EX', '30', 'NX'],
      ['SET', 'laravel_cache:laravel-queue-overlap:App\\Jobs\\Foo:order-1', 'OWNER3', 'EX', '30', 'NX'],
      ['EVAL', RELEASE_LOCK, '1', 'laravel_cache:laravel-queue-overlap:App\\Jobs\\Foo:order-1', 'OWNER2'],
      ['get', 'laravel_cache:laravel-queue-overlap:App\\Jobs\\Foo:order-1'],
      ['del', 'laravel_cache:laravel-queue-overlap:App\\Jobs\\Foo:order-1'],
      ['DEL', 'laravel_cache:laravel_unique_job:App\\Jobs\\Foo42'],
    ]);
  });

  it('makes two runs with other random owners, drawn in the same order, the same trace', () => {
    const run = (a: string, b: string) =>
      normalised([
        client('SET', LOCK, a, 'EX', '30', 'NX'),
        client('SET', LOCK, b, 'EX', '30', 'NX'),
        client('EVAL', RELEASE_LOCK, '1', LOCK, a),
      ]);
    expect(run('pIM4oEX7utiSnKUQ', 'AErJPvoQYoZP1HNb')).toEqual(run('jm3gz7QCGctGOzYA', 'QMA0JleiX69CBN9H'));
    // Released by the other owner is another trace.
    expect(
      normalised([
        client('SET', LOCK, 'pIM4oEX7utiSnKUQ', 'EX', '30', 'NX'),
        client('SET', LOCK, 'AErJPvoQYoZP1HNb', 'EX', '30', 'NX'),
        client('EVAL', RELEASE_LOCK, '1', LOCK, 'AErJPvoQYoZP1HNb'),
      ]),
    ).not.toEqual(run('pIM4oEX7utiSnKUQ', 'AErJPvoQYoZP1HNb'));
  });

  it('leaves values that are no lock owner: a plain SET (the restart signal), SETEX, another script, a non-Str::random value', () => {
    const restart = `${PREFIX}laravel_cache:illuminate:queue:restart`;
    expect(
      normalised([
        client('SET', restart, '1700000010'),
        client('SET', 'k', 'abcdefghijklmnop'),
        client('SETEX', `${PREFIX}laravel_cache:job-exceptions:x`, '86400', '0'),
        client('EVAL', 'return 1', '1', LOCK, 'dsGYAvp60EKVCkBE'),
        client('SETNX', UNIQUE, 'not-an-owner'),
        lua('set', LOCK, 'dsGYAvp60EKVCkBE', 'NX'),
      ]),
    ).toEqual([
      ['SET', 'laravel_cache:illuminate:queue:restart', 'T+10'],
      ['SET', 'k', 'abcdefghijklmnop'],
      ['SETEX', 'laravel_cache:job-exceptions:x', '86400', '0'],
      ['EVAL', 'return 1', '1', 'laravel_cache:laravel-queue-overlap:App\\Jobs\\Foo:order-1', 'dsGYAvp60EKVCkBE'],
      ['SETNX', 'laravel_cache:laravel_unique_job:App\\Jobs\\Foo42', 'not-an-owner'],
      ['set', 'laravel_cache:laravel-queue-overlap:App\\Jobs\\Foo:order-1', 'dsGYAvp60EKVCkBE', 'NX'],
    ]);
  });
});

describe("DurationLimiter's microtime(true)", () => {
  // DurationLimiter::acquire (Redis/Limiters/DurationLimiter.php@v8.83.29:101-106): EVAL <script> 1
  // <name> microtime(true) time() <decay> <maxLocks>. A real app's microtime has its clock's
  // fraction (PHP prints floats with precision 14: "1700000000.1435"); the tool's is the virtual
  // instant. Both are compared to the second, as time() is.
  const acquireHead =
    "local function reset()\n    redis.call('HMSET', KEYS[1], 'start', ARGV[2], 'end', ARGV[2] + ARGV[3], 'count', 1)";
  it('compares ARGV[1] of both DurationLimiter scripts to the second, and nothing else of theirs', async () => {
    const { durationLimiter, tooManyAttempts } = await import('../../src/sim/cache-scripts.ts');
    expect(durationLimiter.source.startsWith(acquireHead)).toBe(true);
    const key = `${PREFIX}12c500ed0b7879105fb46af0f246be87`;
    const real = normalised([
      client('EVAL', durationLimiter.source, '1', key, '1700000000.1435', '1700000000', '60', '1'),
      client('EVAL', tooManyAttempts.source, '1', key, '1700000003.99', '1700000003', '60', '1'),
    ]);
    const tool = normalised([
      client('EVAL', durationLimiter.source, '1', key, '1700000000', '1700000000', '60', '1'),
      client('EVAL', tooManyAttempts.source, '1', key, '1700000003.5', '1700000003', '60', '1'),
    ]);
    expect(real.map((a) => a.slice(3))).toEqual([
      ['12c500ed0b7879105fb46af0f246be87', 'T+0', 'T+0', '60', '1'],
      ['12c500ed0b7879105fb46af0f246be87', 'T+3', 'T+3', '60', '1'],
    ]);
    expect(tool).toEqual(real);
    // Conformance (both sides on the virtual clock) keeps the fraction: exactMicrotime.
    const exact = normaliseTrace(
      {
        start: START,
        prefix: PREFIX,
        steps: [
          {
            actor: 'worker-1',
            commands: [client('EVAL', durationLimiter.source, '1', key, '1700000000.25', '1700000000', '60', '1')],
          },
        ],
      },
      { exactMicrotime: true },
    ).steps[0]!.commands[0]!.args;
    expect(exact.slice(4, 6)).toEqual(['T+0.25', 'T+0']);
    // Another script's fractional argument keeps its fraction.
    expect(normalised([client('EVAL', 'return 1', '1', key, '1700000000.5')])[0]!.slice(3)).toEqual([
      '12c500ed0b7879105fb46af0f246be87',
      'T+0.5',
    ]);
  });
});
