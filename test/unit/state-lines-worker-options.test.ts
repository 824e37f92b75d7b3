// The state pane shows a worker's queue:work options beyond --delay when it has them, a --rest as
// such, the exit reason, and a failed job's exception class.
import { describe, expect, it } from 'vitest';
import type { StateSnapshot } from '../../src/scenarios/timeline.ts';
import type { WorkerState } from '../../src/sim/state.ts';
import { stateLines, workerStatus } from '../../src/tui/state-lines.ts';

const text = (segs: { text: string }[]) => segs.map((s) => s.text).join('');
const worker = (over: Partial<WorkerState>): WorkerState => ({
  name: 'worker-1',
  generation: 1,
  status: { kind: 'polling' },
  connection: 'redis',
  queue: 'default',
  options: { tries: 3, timeout: 60, sleep: 3, delay: 0, once: false },
  retryAfter: 90,
  blockFor: null,
  ...over,
});
const snapshot = (w: WorkerState, failed: StateSnapshot['failed'] = []): StateSnapshot => ({
  t: 1_700_000_000,
  queues: [],
  workers: [w],
  failed,
  executions: {},
});

describe('the state pane and the worker options', () => {
  it('lists backoff instead of delay, and --stop-when-empty, max-jobs, max-time, rest when set', () => {
    const w = worker({
      options: {
        tries: 3,
        timeout: 60,
        sleep: 3,
        delay: 0,
        once: false,
        backoff: '1,5,10',
        stopWhenEmpty: true,
        maxJobs: 100,
        maxTime: 3600,
        rest: 2,
      },
    });
    const lines = stateLines(snapshot(w), { start: 1_700_000_000 }, 200, 'compact').map(text);
    expect(lines[1]).toBe(
      '  tries 3 timeout 60 sleep 3 backoff 1,5,10 --stop-when-empty max-jobs 100 max-time 3600 rest 2 retry_after 90',
    );
    // Without them, the line is what it was.
    expect(stateLines(snapshot(worker({})), { start: 1_700_000_000 }, 200, 'compact').map(text)[1]).toBe(
      '  tries 3 timeout 60 sleep 3 delay 0 retry_after 90',
    );
  });
  it('an idle worker resting says --rest; a stopped one its reason', () => {
    const start = 1_700_000_000;
    expect(text(workerStatus(worker({ status: { kind: 'idle', until: start + 5, why: '--rest' } }), start))).toBe(
      'idle (--rest) until t+5s',
    );
    expect(text(workerStatus(worker({ status: { kind: 'idle', until: start + 3 } }), start))).toBe(
      'idle (--sleep) until t+3s',
    );
    expect(text(workerStatus(worker({ status: { kind: 'stopped', reason: '--max-jobs=2' } }), start))).toBe(
      'stopped (--max-jobs=2)',
    );
  });
  it("a failed job shows its exception's class", () => {
    const failed = [
      {
        job: 'J#1',
        id: 'x',
        connection: 'redis',
        queue: 'default',
        exception: 'App\\Exceptions\\ApiDown',
        message: 'still down',
        failedAt: 1_700_000_010,
        payload: '{}',
      },
    ];
    const lines = stateLines(snapshot(worker({}), failed), { start: 1_700_000_000 }, 80, 'full').map(text);
    expect(lines).toContain('    ApiDown: still down');
  });
});

describe('the state pane and a long key', () => {
  const q = (ready: string) => ({
    t: 1_700_000_000,
    queues: [
      {
        name: 'default',
        keys: { ready, delayed: `${ready}:delayed`, reserved: `${ready}:reserved` },
        sizes: { ready: 0, delayed: 0, reserved: 0 },
        ready: [],
        delayed: [],
        reserved: [],
      },
    ],
    workers: [],
    failed: [],
    executions: {},
  });
  const ctx = { start: 1_700_000_000 };

  it('says an empty queue beside its key where it fits, and under it where it does not', () => {
    expect(stateLines(q('queues:default'), ctx, 31, 'full').map(text)).toEqual(['queues:default  empty']);
    // 31 columns: the 8.x skeleton's prefixed key alone is 31 wide.
    expect(stateLines(q('laravel_database_queues:default'), ctx, 31, 'full').map(text)).toEqual([
      'laravel_database_queues:default',
      '  empty',
    ]);
  });
});
