// The matchers on a run that ended with an error (each fails, negated too, with that error), and
// patterns inside payload() fields (no Redis: a hand-built timeline and hand-written payloads).
import { describe, expect, it } from 'vitest';
import type { MatchContext } from '../../src/testing/index.ts';
import {
  afterNow,
  anyString,
  argPattern,
  matchers,
  matching,
  payload,
  same,
  scoreAt,
} from '../../src/testing/index.ts';
import type { Timeline, TraceCommand } from '../../src/scenarios/timeline.ts';
import { START, timelineFixture } from '../fixtures/timeline-fixture.ts';

const ERROR = "another client touched this run's keys in db 1 (LPOP queues:default): the run stops";

function failedRun(): Timeline {
  return { ...timelineFixture(), profile: '5.3', error: ERROR };
}

describe('every matcher fails on a run that ended with an error', () => {
  it('toHaveExecuted and toHaveFailedJob, whose checks alone would pass, fail with the error', () => {
    const t = failedRun();
    for (const r of [
      matchers.toHaveExecuted(t, 'SlowJob#1', 1),
      matchers.toHaveFailedJob(t, 'SlowJob#1'),
      matchers.toMatchGolden(t, '/nonexistent/never-written.golden'),
    ]) {
      expect(r.pass).toBe(false);
      expect(r.message()).toBe(`the run ended with an error: ${ERROR}`);
    }
    const commands = matchers.toMatchRedisCommands(t, ['SELECT 0']);
    expect(commands.pass).toBe(false);
    // The error is the message's first line; what was sent before it is compared under it.
    expect(commands.message().split('\n')[0]).toBe(`assertTrace: the run ended early: ${ERROR}`);
  });

  it('negated too: `.not` does not turn a broken run into a pass', () => {
    const t = failedRun();
    const not = { isNot: true };
    expect(matchers.toHaveExecuted.call(not, t, 'SlowJob#1', 5).pass).toBe(true); // pass under isNot = the assertion fails
    expect(matchers.toHaveFailedJob.call(not, t, 'Nope#1').pass).toBe(true);
    expect(matchers.toMatchRedisCommands.call(not, t, ['PING']).pass).toBe(true);
    // Through expect.extend, both forms throw with the error.
    expect.extend(matchers);
    const e = expect as unknown as (v: unknown) => {
      toHaveExecuted(j: string, n: number): void;
      not: { toHaveExecuted(j: string, n: number): void };
    };
    expect(() => e(t).toHaveExecuted('SlowJob#1', 1)).toThrow(`the run ended with an error: ${ERROR}`);
    expect(() => e(t).not.toHaveExecuted('SlowJob#1', 5)).toThrow(`the run ended with an error: ${ERROR}`);
    // Without the error the same checks pass.
    e({ ...t, error: undefined }).toHaveExecuted('SlowJob#1', 1);
  });
});

describe('patterns inside payload() fields', () => {
  const command: TraceCommand = {
    step: 0,
    t: START + 5.5,
    actor: 'dispatcher',
    process: 1,
    source: 'client',
    db: 0,
    args: [],
    time: '',
  };
  const ctx = (): MatchContext => ({ start: START, command, profile: undefined, bound: new Map() });
  const job = {
    uuid: '0f8c4f2e-3a8e-4a3c-9b5a-2d9c1e6b7a10',
    displayName: 'App\\Jobs\\SendInvoice',
    job: 'Illuminate\\Queue\\CallQueuedHandler@call',
    retryUntil: START + 90,
    attempts: 1,
    data: { commandName: 'App\\Jobs\\SendInvoice', command: 'O:19:"App\\Jobs\\SendInvoice":0:{}' },
    tags: ['a', 'b'],
  };
  const text = JSON.stringify(job);

  it('matching() as a field, the case the issue reported', () => {
    const p = payload({ uuid: matching(/^[0-9a-f-]{36}$/) });
    expect(p.test(text, ctx())).toBeNull();
    expect(p.description).toBe('‹payload uuid:‹/^[0-9a-f-]{36}$/››');
    expect(p.test(JSON.stringify({ ...job, uuid: 'nope' }), ctx())).toBe(
      'payload.uuid does not match /^[0-9a-f-]{36}$/',
    );
    expect(p.test(JSON.stringify({ ...job, uuid: undefined }), ctx())).toBe(
      'payload.uuid is missing, expected ‹/^[0-9a-f-]{36}$/›',
    );
  });

  it('any pattern: anyString, scoreAt and afterNow on a number field, same() across commands, argPattern', () => {
    expect(payload({ uuid: anyString(), retryUntil: scoreAt(90) }).test(text, ctx())).toBeNull();
    expect(payload({ retryUntil: scoreAt(60) }).test(text, ctx())).toBe(
      `payload.retryUntil is ${START + 90} (t+90), expected ${START + 60}`,
    );
    // The step is at t+5.5: Laravel's now is t+5, so retryUntil t+90 is now+85.
    expect(payload({ retryUntil: afterNow(85) }).test(text, ctx())).toBeNull();
    expect(payload({ retryUntil: afterNow(80) }).test(text, ctx())).toBe(
      `payload.retryUntil is ${START + 90} (now+85), expected ${START + 85}`,
    );
    const c = ctx();
    expect(payload({ uuid: same('u') }).test(text, c)).toBeNull();
    expect(payload({ uuid: same('u') }).test(text, c)).toBeNull();
    expect(payload({ uuid: same('u') }).test(JSON.stringify({ ...job, uuid: 'other' }), c)).toBe(
      'payload.uuid differs from u bound earlier',
    );
    const even = argPattern('‹even›', (a) => (Number(a) % 2 === 0 ? null : 'is odd'));
    expect(payload({ attempts: even }).test(text, ctx())).toBe('payload.attempts is odd');
  });

  it('patterns deep in an object or array field; plain JSON values compare as values', () => {
    expect(
      payload({ data: { commandName: matching(/SendInvoice$/), command: anyString() }, tags: ['a', anyString()] }).test(
        text,
        ctx(),
      ),
    ).toBeNull();
    expect(payload({ data: { commandName: matching(/Other$/), command: anyString() } }).test(text, ctx())).toBe(
      'payload.data.commandName does not match /Other$/',
    );
    expect(payload({ data: { commandName: anyString() } }).test(text, ctx())).toBe(
      'payload.data has "command", not expected',
    );
    expect(payload({ tags: [anyString()] }).test(text, ctx())).toBe(
      'payload.tags is ["a","b"], expected an array of 1',
    );
    expect(
      payload({ 'data.commandName': 'App\\Jobs\\SendInvoice', attempts: 1, tags: ['a', 'b'] }).test(text, ctx()),
    ).toBeNull();
    expect(payload({ attempts: 2 }).test(text, ctx())).toBe('payload.attempts is 1, expected 2');
  });

  it('the fields are typed: a JSON value or a pattern', () => {
    // @ts-expect-error a Date is no JSON value
    payload({ createdAt: new Date() });
    // @ts-expect-error undefined is no JSON value
    payload({ attempts: undefined });
    // @ts-expect-error a function is no pattern
    payload({ attempts: () => null });
    payload({ a: null, b: [1, 'x', { c: matching(/x/) }], d: { e: true } });
  });
});
