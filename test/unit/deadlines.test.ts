// The one timer behind every command's COMMAND_TIMEOUT_MS (connections.ts), and the copy of a
// worker's state each step keeps (state.ts).
import { TimeoutError } from 'redis';
import { describe, expect, it } from 'vitest';
import { Deadlines } from '../../src/redis/connections.ts';
import type { WorkerState } from '../../src/sim/state.ts';
import { copyWorkerState } from '../../src/sim/state.ts';

describe('Deadlines', () => {
  it('passes a reply through, and an error', async () => {
    const d = new Deadlines(1000);
    await expect(d.track(Promise.resolve('PONG'))).resolves.toBe('PONG');
    await expect(d.track(Promise.reject(new Error('WRONGTYPE')))).rejects.toThrow('WRONGTYPE');
  });

  it('rejects a command with no answer once it is older than the limit, and only that one', async () => {
    const d = new Deadlines(40);
    const never = d.track(new Promise<never>(() => undefined));
    let answer: (v: string) => void = () => undefined;
    const answered = d.track(new Promise<string>((r) => (answer = r)));
    answer('OK');
    await expect(answered).resolves.toBe('OK');
    await expect(never).rejects.toBeInstanceOf(TimeoutError);
  });
});

describe('copyWorkerState', () => {
  it('is a deep copy: changing the worker later does not reach it', () => {
    const live: WorkerState = {
      name: 'worker-1',
      generation: 1,
      status: { kind: 'running', job: 'A#1', since: 1, attempt: 1, ends: 3 },
      connection: 'redis',
      queue: 'default',
      options: { tries: 1, timeout: 60, sleep: 3, delay: 0, once: false, backoff: '1,5' },
      retryAfter: 90,
      blockFor: null,
    };
    const copy = copyWorkerState(live);
    expect(copy).toEqual(structuredClone(live));
    live.status = { kind: 'idle' };
    (live.options as { tries: number }).tries = 5;
    live.generation = 2;
    expect(copy.status).toEqual({ kind: 'running', job: 'A#1', since: 1, attempt: 1, ends: 3 });
    expect(copy.options.tries).toBe(1);
    expect(copy.generation).toBe(1);
  });
});
