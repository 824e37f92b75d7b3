// Laravel 5.3 numbers a job's attempts one lower than the :reserved copy its pop script writes:
// v5.3.31 RedisQueue::createPayload sets `attempts` 1 at dispatch, the pop script raises the copy
// it ZADDs to :reserved by one, and RedisJob::attempts() returns the *popped* payload's count as
// it is. From 5.4 dispatch sets 0 and attempts() adds one, so the copy's number is the attempt.
// The captures below are written by hand in MONITOR's format (redis-escape's formatMonitorLine),
// the same flow under 5.3's and 5.4's scripts, and the numbers expected are read off that source.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { explainCapture } from '../../src/explain/index.ts';
import { formatMonitorLine } from '../../src/redis/redis-escape.ts';
import type { LuaScript } from '../../src/sim/lua.ts';
import { migrateExpiredJobs53, pop53 } from '../../src/sim/profiles/scripts-5.3.ts';
import { migrateExpiredJobs54, pop54 } from '../../src/sim/profiles/scripts-5.4.ts';

const SEED_003 = readFileSync(new URL('../fixtures/seed-003-capture.txt', import.meta.url), 'utf8');

describe("lqsim explain on Laravel 5.3's captures: attempts as RedisJob::attempts() counts them", () => {
  it('seed 003: the job popped with attempts 1 (its :reserved copy says 2) is on its first attempt', () => {
    const { timeline, lives } = explainCapture(SEED_003, { file: 'seed-003-capture.txt' });
    // Line 6 moves back the payload dispatched with attempts 1; the pop's copy (line 11) says 2.
    expect(timeline.steps[1]!.title).toBe('pop: reserved DelayTestJob#1 (attempts 1) until t+71s');
    expect(lives[0]!.events.map((e) => e.what)).toContain('reserved by worker-1 for attempt 1 until t+71s');
    expect(timeline.scenario.description).toContain('attempts: as Laravel 5.3 counts them');
  });

  /**
   * One job; worker-1 (port 1001) pops it and falls silent; after retry_after worker-2 (1002)
   * migrates the expired reservation back and pops it again; worker-1, still running it, deletes
   * its own (first) copy, then worker-2 deletes its copy. `dispatched` is the payload's attempts at dispatch.
   */
  const killedAndTakenOver = (s: { pop: LuaScript; migrate: LuaScript; dispatched: number }): string => {
    const payload = (attempts: number) =>
      `{"job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call","data":{"commandName":"App\\\\Jobs\\\\Probe"},"id":"abc","attempts":${attempts}}`;
    const [first, second] = [payload(s.dispatched + 1), payload(s.dispatched + 2)];
    const line = (time: number, client: string, ...args: string[]) =>
      formatMonitorLine({ time: time.toFixed(6), db: 0, client, args });
    const w1 = '127.0.0.1:1001';
    const w2 = '127.0.0.1:1002';
    const poll = (t: number, w: string, got: string | null, due: string | null) => [
      line(t, w, 'EVAL', s.migrate.source, '2', 'queues:default:delayed', 'queues:default', String(t)),
      line(t, 'lua', 'zrangebyscore', 'queues:default:delayed', '-inf', String(t)),
      line(t, w, 'EVAL', s.migrate.source, '2', 'queues:default:reserved', 'queues:default', String(t)),
      line(t, 'lua', 'zrangebyscore', 'queues:default:reserved', '-inf', String(t)),
      ...(due === null
        ? []
        : [
            line(t, 'lua', 'zremrangebyrank', 'queues:default:reserved', '0', '0'),
            line(t, 'lua', 'rpush', 'queues:default', due),
          ]),
      line(t, w, 'EVAL', s.pop.source, '2', 'queues:default', 'queues:default:reserved', String(t + 10)),
      line(t, 'lua', 'lpop', 'queues:default'),
      ...(got === null ? [] : [line(t, 'lua', 'zadd', 'queues:default:reserved', String(t + 10), got)]),
    ];
    return [
      line(1000, '127.0.0.1:999', 'RPUSH', 'queues:default', payload(s.dispatched)),
      ...poll(1001, w1, first, null),
      ...poll(1015, w2, second, first),
      line(1016, w1, 'ZREM', 'queues:default:reserved', first),
      line(1030, w2, 'ZREM', 'queues:default:reserved', second),
    ].join('\n');
  };

  for (const [version, scripts] of [
    ['5.3', { pop: pop53, migrate: migrateExpiredJobs53, dispatched: 1 }],
    ['5.4', { pop: pop54, migrate: migrateExpiredJobs54, dispatched: 0 }],
  ] as const) {
    it(`${version}: the takeover is attempt 2 of a job whose first attempt was 1, in titles, lives and findings`, () => {
      const { timeline, lives, findings } = explainCapture(killedAndTakenOver(scripts));
      expect(timeline.steps.map((s) => s.title)).toEqual([
        'push: Probe#1 onto default',
        'pop: reserved Probe#1 (attempts 1) until t+11s',
        'pop: reserved Probe#1 (attempts 2) until t+25s',
        'delete: Probe#1 (ZREM of its reserved copy)',
        'delete: Probe#1 (ZREM of its reserved copy)',
      ]);
      const events = lives[0]!.events.map((e) => e.what);
      expect(events).toContain('reserved by worker-1 for attempt 1 until t+11s');
      expect(events).toContain('reserved by worker-2 for attempt 2 until t+25s');
      // (what the delete may mean follows after a colon: explain/job-life.ts)
      expect(
        events.some((e) =>
          e.startsWith(
            "deleted by worker-1 (attempt 1's copy; :reserved holds attempt 2's, so the ZREM removes nothing)",
          ),
        ),
      ).toBe(true);
      // Before 5.8.28 a worker's timeout deletes nothing (it only kills): no delete is read as its doing.
      expect(events.join('\n')).not.toMatch(/timeout/);
      expect(findings.map((f) => f.kind)).not.toContain('timed-out');
      const said = findings.map((f) => f.title).join('\n');
      expect(said).toContain('(attempt 1)');
      expect(said).toContain('(attempt 2)');
      expect(said).not.toContain('(attempt 3)');
      expect(timeline.scenario.description?.includes('attempts: as Laravel 5.3 counts them')).toBe(version === '5.3');
    });
  }
});
