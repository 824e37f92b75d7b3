// What a kept step's state costs (a day-long lab wait keeps 28,800 steps): the state shares what
// did not change since the step before (shared-state.ts), and its `executions` getter leaves it a
// small object of one shape (execution-log.ts), while it still reads as the plain record it was.
import { describe, expect, it } from 'vitest';
import { heapBytes } from '../helpers/heap.ts';
import { ExecutionLog } from '../../src/scenarios/execution-log.ts';
import { SharedState } from '../../src/scenarios/shared-state.ts';
import type { QueueState, WorkerState } from '../../src/scenarios/timeline.ts';

function queue(ready: string[]): QueueState {
  return {
    name: 'default',
    keys: { ready: 'queues:default', delayed: 'queues:default:delayed', reserved: 'queues:default:reserved' },
    sizes: { ready: ready.length, delayed: 0, reserved: 0 },
    ready: ready.map((raw) => ({ job: 'A#1', attempts: 0, raw })),
    delayed: [],
    reserved: [],
  };
}

function worker(until: number): WorkerState {
  return {
    name: 'worker-1',
    connection: 'redis',
    queue: 'default',
    retryAfter: 90,
    blockFor: null,
    generation: 0,
    options: { tries: 0, timeout: 60, sleep: 3, delay: 0, once: false },
    status: { kind: 'idle', until },
  } as WorkerState;
}

describe('a kept step state', () => {
  it('shares the queues and each worker with the step before while they are equal, and only then', () => {
    const shared = new SharedState();
    const q1 = shared.queuesLike([queue(['{"a":1}'])]);
    expect(shared.queuesLike([queue(['{"a":1}'])])).toBe(q1);
    const q2 = shared.queuesLike([queue(['{"a":2}'])]);
    expect(q2).not.toBe(q1);
    expect(q2[0]!.ready[0]!.raw).toBe('{"a":2}');
    const w1 = shared.workersLike([worker(3), worker(3)]);
    expect(shared.workersLike([worker(3), worker(3)])).toBe(w1);
    const w2 = shared.workersLike([worker(3), worker(6)]);
    expect(w2).not.toBe(w1);
    expect(w2[0]).toBe(w1[0]); // unchanged worker: the same object
    expect(w2[1]).toEqual(worker(6));
    expect(shared.workersLike([worker(3)])).toEqual([worker(3)]);
  });

  it('reads executions as a plain record as of its step, serialised and cloned with the rest', () => {
    const log = new ExecutionLog();
    const registry = log.registry();
    const before = log.attach({ t: 1, queues: [], workers: [], failed: [] }, 0);
    registry.recordExecution({ label: 'A#1', executions: 0 } as never);
    log.commit(1);
    const after = log.attach({ t: 2, queues: [], workers: [], failed: [] }, 1);
    expect(before.executions).toEqual({});
    expect(after.executions).toEqual({ 'A#1': 1 });
    expect(JSON.parse(JSON.stringify(after))).toEqual({
      t: 2,
      queues: [],
      workers: [],
      failed: [],
      executions: { 'A#1': 1 },
    });
    expect(structuredClone(after)).toEqual({ t: 2, queues: [], workers: [], failed: [], executions: { 'A#1': 1 } });
    expect(Object.keys(after)).toEqual(['t', 'queues', 'workers', 'failed', 'executions']);
  });

  it('costs a small object each (a getter of its own would make each a dictionary of ~500 bytes)', () => {
    const log = new ExecutionLog();
    const queues: QueueState[] = [];
    const base = heapBytes();
    const states = Array.from({ length: 20_000 }, (_, i) => log.attach({ t: i, queues, workers: [], failed: [] }, i));
    const each = (heapBytes() - base) / states.length;
    expect(states[7]!.t).toBe(7);
    expect(each).toBeLessThan(200);
  });
});
