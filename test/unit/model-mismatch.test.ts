// A foreseen reply that differs (check.ts' foresee) says how many commands the actor had issued on
// the model's word before it came; none, and the message is the one an awaited reply gives.
import { describe, expect, it } from 'vitest';
import { ModelMismatchError } from '../../src/sim/model/mismatch.ts';

const base = () =>
  new ModelMismatchError(
    "worker-1's GET k",
    'k should not exist',
    '"1"',
    'GET read another value (another client on this server changed the key?)',
  );

describe('ModelMismatchError.foreseenBy', () => {
  it('adds nothing when the reply came before the actor issued anything else', () => {
    const e = base();
    expect(e.foreseenBy('worker-1', 0)).toBe(e);
    expect(e.message).toBe(
      `worker-1's GET k returned "1", but k should not exist: GET read another value (another client on this server changed the key?); the trace is no longer Laravel's alone, so the run stops`,
    );
  });

  it('names the commands issued since, in the message and in what the run saw', () => {
    const one = base().foreseenBy('worker-1', 1);
    expect(one.message).toMatch(
      /so the run stops \(worker-1 had gone on with the reply the model foresaw: its next command had been issued before this reply came\)$/,
    );
    const three = base().foreseenBy('worker-1', 3);
    expect(three.observed).toBe(
      `worker-1's GET k returned "1", but k should not exist (worker-1 had gone on with the reply the model foresaw: its next 3 commands had been issued before this reply came)`,
    );
    expect(three.likelyCause).toBe(base().likelyCause);
  });
});
