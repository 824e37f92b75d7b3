// What a capture says about its app (src/explain/configuration.ts). Expectations are read off the
// capture lines by hand with Laravel's RedisQueue in mind (pop's ARGV[1] = now + retry_after;
// BLPOP's timeout = block_for), never copied from the tool's output.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { formatMonitorLine } from '../../src/redis/redis-escape.ts';
import { PROFILES } from '../../src/sim/profiles/index.ts';

function captured(text: string): CapturedLine[] {
  return text
    .split('\n')
    .map((raw, i) => captureEntry(raw, i + 1))
    .filter((e): e is CapturedLine => e !== null && !isProblem(e));
}

describe('the configuration of seed 003 (Laravel 5.3, a delayed job)', () => {
  const config = captureConfiguration(
    captured(readFileSync(new URL('../fixtures/seed-003-capture.txt', import.meta.url), 'utf8')),
  );

  it('is Laravel 5.3 with no prefix, db 0, queue default', () => {
    expect(config.profiles).toEqual(['5.3']);
    expect(config.scripts.map((s) => [s.value.name, s.lines])).toEqual([
      ['migrateExpiredJobs', [3, 7]],
      ['pop', [9]],
    ]);
    expect(config.prefixes).toEqual([{ value: '', lines: [2, 3, 7, 9, 12] }]);
    expect(config.dbs.map((d) => d.value)).toEqual([0]);
    expect(config.queues.map((q) => q.value)).toEqual(['default']);
    expect(config.span).toEqual({ first: '1489802272.491060', last: '1489802333.963223' });
  });

  it('reads retry_after from the pop at 1489802333 reserving until 1489802343: 10 s', () => {
    expect(config.retryAfter).toEqual([{ value: 10, lines: [9] }]);
    expect(config.blockFor).toEqual([]);
  });

  it('tells the dispatching connection from the working one by what they send', () => {
    expect(config.connections.map((c) => [c.client, c.role, c.firstLine, c.lastLine])).toEqual([
      ['127.0.0.1:63798', 'dispatcher', 1, 2],
      ['127.0.0.1:63792', 'worker', 3, 12],
    ]);
    expect(config.connections[1]!.operations).toEqual({
      'migrate delayed': 1,
      'migrate reserved': 1,
      pop: 1,
      delete: 1,
    });
  });
});

describe('a Laravel 8 capture among other traffic', () => {
  const l8 = PROFILES['8'].scripts;
  const q = 'laravel_database_queues:default';
  const line = (time: string, client: string, args: string[], db = 1) => formatMonitorLine({ time, db, client, args });
  const text = [
    line('1700000000.100000', '10.0.0.5:4001', ['SELECT', '1']),
    line('1700000000.100200', '10.0.0.5:4001', ['EVAL', l8.push!.source, '2', q, `${q}:notify`, '{"uuid":"u1"}']),
    line('1700000000.100300', '10.0.0.9:5002', ['GET', 'laravel_cache_:settings'], 0),
    line('1700000003.250000', '10.0.0.7:6003', [
      'EVAL',
      l8.pop!.source,
      '3',
      q,
      `${q}:reserved`,
      `${q}:notify`,
      '1700000093',
    ]),
    line('1700000003.300000', '10.0.0.7:6003', ['BLPOP', `${q}:notify`, '5']),
    line('1700000004.000000', '10.0.0.7:6003', ['ZREM', `${q}:reserved`, '{"uuid":"u1","attempts":1}']),
  ].join('\n');
  const config = captureConfiguration(captured(text));

  it('is one of the profiles that send both scripts, with its prefix and db', () => {
    // push and pop are the same text from 5.8 to 13: the capture alone cannot tell 8 from 13.
    expect(config.profiles).toEqual(['8', '13']);
    expect(config.prefixes.map((p) => p.value)).toEqual(['laravel_database_']);
    expect(config.dbs.map((d) => d.value)).toEqual([1]);
  });

  it('reads retry_after 90 from the pop and block_for 5 from the BLPOP', () => {
    expect(config.retryAfter).toEqual([{ value: 90, lines: [4] }]);
    expect(config.blockFor).toEqual([{ value: 5, lines: [5] }]);
  });

  it("reads retry_after off the worker's own clock, and says how far it is from Redis'", () => {
    // A worker whose clock is 100,000,093 s behind Redis': its migrate carries its now
    // (1599999910), its pop now + 90; MONITOR dates both 1700000003.
    const migrate = line('1700000003.200000', '10.0.0.7:6003', [
      'EVAL',
      l8.migrateExpiredJobs!.source,
      '3',
      `${q}:delayed`,
      q,
      `${q}:notify`,
      '1599999910',
    ]);
    const pop = line('1700000003.250000', '10.0.0.7:6003', [
      'EVAL',
      l8.pop!.source,
      '3',
      q,
      `${q}:reserved`,
      `${q}:notify`,
      '1600000000',
    ]);
    const c = captureConfiguration(captured(`${migrate}\n${pop}`));
    expect(c.retryAfter).toEqual([{ value: 90, lines: [2] }]);
    expect(c.clockApart).toEqual([{ value: -100000093, lines: [1] }]);
    // The same pop without the migrate before it: MONITOR's time cannot stand for the worker's now.
    const alone = captureConfiguration(captured(pop));
    expect(alone.retryAfter).toEqual([]);
    expect(alone.clockApart).toEqual([]);
  });

  it('keeps the cache client as other traffic, apart from the dispatcher and the worker', () => {
    expect(config.connections.map((c) => [c.client, c.role, c.other])).toEqual([
      ['10.0.0.5:4001', 'dispatcher', 0],
      ['10.0.0.9:5002', 'other', 1],
      ['10.0.0.7:6003', 'worker', 0],
    ]);
  });
});

describe('connection roles', () => {
  const l8 = PROFILES['8'].scripts;
  const q = 'queues:default';
  const line = (client: string, args: string[]) =>
    formatMonitorLine({ time: '1700000000.000000', db: 0, client, args });
  const roles = (client: string) =>
    captureConfiguration(
      captured(
        [
          line(client, ['EVAL', l8.pop!.source, '3', q, `${q}:reserved`, `${q}:notify`, '1700000090']),
          // handle() dispatches another job (or a chain pushes its next link) from the worker's connection.
          line(client, ['EVAL', l8.push!.source, '2', q, `${q}:notify`, '{"uuid":"u2","job":"x","attempts":0}']),
        ].join('\n'),
      ),
    ).connections.map((c) => c.role);

  it('a worker that also pushes is a worker; only a unix socket, where all connections are one, is both', () => {
    expect(roles('10.0.0.7:6003')).toEqual(['worker']);
    expect(roles('unix:/run/redis.sock')).toEqual(['both']);
  });
});
