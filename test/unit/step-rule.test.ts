// The step-by-step form's rule: one entry per step of the trace, in order (steps that sent no
// command included), skipSteps(n) to pass over n steps, skipSteps() last to pass over the rest;
// the failure message says the rule.
import { describe, expect, it } from 'vitest';
import type { ExpectedCommand, ExpectedStep } from '../../src/testing/index.ts';
import { lua, payload, skipSteps, traceMismatch } from '../../src/testing/index.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { timelineFixture } from '../fixtures/timeline-fixture.ts';

const fixture = (): Timeline => ({ ...timelineFixture(), profile: '5.3' });

// The fixture's steps: #0 the dispatch (SELECT, RPUSH), #1 the pop (7 commands), #2 the kill (no
// command), #3 the fail's ZREM of the attempts-2 copy.
const DISPATCH: ExpectedStep = {
  actor: 'dispatcher',
  commands: ['SELECT 0', ['RPUSH', 'queues:default', payload({ attempts: 0 })]],
};
const FAIL: ExpectedStep = {
  actor: 'worker-1',
  kind: 'fail',
  commands: [['ZREM', 'queues:default:reserved', payload({ attempts: 2 })] as ExpectedCommand],
};

describe('the step-by-step form', () => {
  it('skipSteps(n) passes over n steps, whatever they sent', () => {
    expect(traceMismatch(fixture(), { steps: [DISPATCH, skipSteps(2), FAIL] })).toBeNull();
    expect(traceMismatch(fixture(), { steps: [skipSteps(3), FAIL] })).toBeNull();
  });

  it('skipSteps() last passes over every step left, none included', () => {
    expect(traceMismatch(fixture(), { steps: [DISPATCH, skipSteps()] })).toBeNull();
    expect(traceMismatch(fixture(), { steps: [DISPATCH, skipSteps(2), FAIL, skipSteps()] })).toBeNull();
    expect(() => traceMismatch(fixture(), { steps: [skipSteps(), FAIL] })).toThrow(
      'assertTrace: skipSteps() with no count passes over every step left, so it must come last (entry 0)',
    );
    expect(() => skipSteps(0)).toThrow('skipSteps(0): a whole number of steps, 1 or more (none: every step left)');
  });

  it('without a skip every step needs its entry, and the message says the rule', () => {
    const m = traceMismatch(fixture(), { steps: [DISPATCH, FAIL] })!;
    // FAIL is compared with the pop (#1): its kind, its 7 commands not expected, the ZREM missing;
    // then the kill (#2) and the fail (#3) are not expected: 11.
    expect(m.split('\n')[0]).toBe(
      'assertTrace: the steps differ from the expected ones: 11 differences (expected 2 steps, got 4)',
    );
    expect(m).toContain('✗ step #1 worker-1 t+0s pop');
    expect(m).toContain('+ step #2 worker-1 t+60s kill');
    expect(m.split('\n').at(-1)).toBe(
      'Step by step, each entry is one step of the trace, in order, steps that sent no command included ({ commands: [] }); skipSteps(n) passes over n steps, skipSteps() last over the rest.',
    );
  });

  it('a skip past the end of the trace is a difference; skipped steps are listed', () => {
    const m = traceMismatch(fixture(), { steps: [DISPATCH, skipSteps(5)] })!;
    expect(m.split('\n')[0]).toBe(
      'assertTrace: the steps differ from the expected ones: 1 difference (expected 1 step and skips, got 4)',
    );
    expect(m).toContain('· 3 steps skipped (#1–#3)');
    expect(m).toContain('- skipSteps(5) expected 2 more steps, not in the trace');
  });

  it('a step after a skip is compared with the right step of the trace', () => {
    const pop: ExpectedStep = { actor: 'worker-1', kind: 'pop', commands: [lua('lpop', 'queues:default')] };
    const m = traceMismatch(fixture(), { steps: [skipSteps(1), pop, skipSteps()] })!;
    expect(m).toContain('✗ step #1 worker-1 t+0s pop');
  });
});
