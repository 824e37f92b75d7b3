// The step-aligned diff and its renderer on hand-built normalised traces.
import { describe, expect, it } from 'vitest';
import { makeChalk } from '../../src/output/colour.ts';
import { diffSummary, diffTraces, isIdentical } from '../../src/trace/diff.ts';
import type { NormalisedCommand, NormalisedStep, NormalisedTrace } from '../../src/trace/normalise.ts';
import { excerptPair, payloadChanges } from '../../src/trace/payload-changes.ts';
import { renderDiff } from '../../src/trace/render-diff.ts';
import { PROFILES } from '../../src/sim/profiles/index.ts';

const c = (...args: string[]): NormalisedCommand => ({ source: 'client', db: 0, args });
const l = (...args: string[]): NormalisedCommand => ({ source: 'lua', db: 0, args });
const step = (index: number, actor: string, commands: NormalisedCommand[], title?: string): NormalisedStep => ({
  index,
  t: `T+${index * 10}`,
  actor,
  commands,
  ...(title !== undefined ? { title } : {}),
});
const trace = (...steps: NormalisedStep[]): NormalisedTrace => ({ meta: {}, steps });
const plain = makeChalk(0);
const render = (a: NormalisedTrace, b: NormalisedTrace) =>
  renderDiff(diffTraces(a, b), { chalk: plain, labels: ['a.golden', 'b.golden'] });

const job = (attempts: number, extra = '') =>
  `{"job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call","displayName":"App\\\\Jobs\\\\SendEmail","id":"ID1","attempts":${attempts}${extra}}`;
const dispatch = (i: number) => step(i, 'dispatcher', [c('SELECT', '0'), c('RPUSH', 'queues:default', job(0))]);
const poll = (i: number, t: string) =>
  step(i, 'worker-1', [c('EVAL', 'x', '1', 'queues:default', t), l('lpop', 'queues:default')]);

describe('diffTraces', () => {
  it('identical traces: every step the same', () => {
    const a = trace(dispatch(0), poll(1, 'T+0'));
    const d = diffTraces(a, trace(dispatch(0), poll(1, 'T+0')));
    expect(isIdentical(d)).toBe(true);
    expect(diffSummary(d)).toBe('0 steps differ, 2 same');
  });

  it('aligns an inserted step and keeps the steps after it as the same', () => {
    const a = trace(dispatch(0), poll(1, 'T+0'), poll(2, 'T+10'));
    const b = trace(
      dispatch(0),
      step(1, 'worker-2', [c('ZREM', 'queues:default:reserved', 'x')]),
      poll(2, 'T+0'),
      poll(3, 'T+10'),
    );
    const d = diffTraces(a, b);
    expect(d.steps.map((s) => s.kind)).toEqual(['same', 'added', 'same', 'same']);
    expect(diffSummary(d)).toBe('1 step differs (0 changed, 0 only in a, 1 only in b), 3 same');
    const text = render(a, b);
    expect(text).toContain('+ (none) | #1 T+10 worker-2\n    + ZREM queues:default:reserved x\n');
    // Same steps are one line each, with both sides' step numbers.
    expect(text).toContain('= #1 T+10 worker-1 | #2 T+20 worker-1  (2 same)\n');
  });

  it('aligns a deleted step', () => {
    const a = trace(dispatch(0), poll(1, 'T+0'), poll(2, 'T+10'), poll(3, 'T+20'));
    const b = trace(dispatch(0), poll(1, 'T+0'), poll(2, 'T+20'));
    const d = diffTraces(a, b);
    expect(d.steps.map((s) => s.kind)).toEqual(['same', 'same', 'removed', 'same']);
    expect(render(a, b)).toContain(
      '- #2 T+20 worker-1 | (none)\n    - EVAL ‹lua script› 1 queues:default T+10\n    -   [lua] lpop queues:default\n',
    );
  });

  it('pairs a changed step (same actor, same first command) and diffs it command by command', () => {
    const a = trace(
      dispatch(0),
      step(1, 'worker-1', [c('SELECT', '0'), c('EVAL', 'x', '1', 'q', 'T+0'), l('lpop', 'q')], 'pop'),
    );
    const b = trace(
      dispatch(0),
      step(
        1,
        'worker-1',
        [c('SELECT', '0'), c('EVAL', 'x', '2', 'q', 'q:notify', 'T+0'), l('lpop', 'q'), l('lpop', 'q:notify')],
        'pop',
      ),
    );
    const d = diffTraces(a, b);
    expect(d.steps.map((s) => s.kind)).toEqual(['same', 'changed']);
    expect(render(a, b)).toContain(
      [
        '~ #1 T+10 worker-1 | #1 T+10 worker-1',
        '   pop',
        '    = SELECT 0',
        '    - EVAL ‹lua script› 1 q T+0',
        '    + EVAL ‹lua script› 2 q q:notify T+0',
        '    =   [lua] lpop q',
        '    +   [lua] lpop q:notify',
      ].join('\n'),
    );
  });

  it('shows a changed payload field even though payloads are abbreviated', () => {
    const a = trace(step(0, 'worker-1', [c('ZREM', 'queues:default:reserved', job(1))]));
    const b = trace(step(0, 'worker-1', [c('ZREM', 'queues:default:reserved', job(2, ',"createdAt":"T+0"'))]));
    const text = render(a, b);
    expect(text).toContain('    - ZREM queues:default:reserved ‹SendEmail#ID1 attempts:1›\n');
    expect(text).toContain(
      '    + ZREM queues:default:reserved ‹SendEmail#ID1 attempts:2›\n        ID1: attempts 1→2, +createdAt T+0\n',
    );
    expect(text.trimEnd().split('\n').at(-1)).toBe('1 step differs (1 changed, 0 only in a, 0 only in b), 0 same');
  });

  it('names scripts by their profile name, and says when only a script text changed', () => {
    const pop = PROFILES['5.7'].scripts.pop!.source;
    const a = trace(step(0, 'worker-1', [c('EVAL', pop, '2', 'q', 'q:reserved', 'T+90')]));
    const b = trace(step(0, 'worker-1', [c('EVAL', `${pop}\n`, '2', 'q', 'q:reserved', 'T+90')]));
    const text = render(a, b);
    expect(text).toContain('    - EVAL ‹pop› 2 q q:reserved T+90\n');
    expect(text).toContain('    + EVAL ‹lua script› 2 q q:reserved T+90\n        script text differs\n');
  });

  it('is coloured only through the chalk instance given, and terminal-safe', () => {
    const a = trace(step(0, 'evil\x1b]0;x\x07', [c('SET', 'k', 'v\x1b[2J')], 'title\u202e'));
    const b = trace();
    const coloured = renderDiff(diffTraces(a, b), { chalk: makeChalk(1), labels: ['a', 'b'] });
    expect(coloured).toContain('\x1b[31m');
    const text = render(a, b);
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\u202e]/);
    expect(text).toContain('evil\\x1b]0;x\\x07');
    expect(text).toContain('"v\\x1b[2J"');
    expect(text).toContain('title\\u202e');
  });
});

describe('payload field changes', () => {
  it('lists changed, removed and added fields, long strings as a window around the change', () => {
    const a = { job: 'X', attempts: 0, timeoutAt: null, data: { command: `${'a'.repeat(60)}s:7:"chained";a:0:{}}` } };
    const b = { job: 'X', attempts: 0, uuid: 'UUID1', data: { command: `${'a'.repeat(60)}s:10:"middleware";a:0:{}}` } };
    expect(payloadChanges(a, b)).toEqual([
      '-timeoutAt',
      'data.command …aaaaaaaaaaaaaaaas:7:"chained";a:0:{}} → …aaaaaaaaaaaaaaaas:10:"middleware";a:0:{}}',
      '+uuid UUID1',
    ]);
    expect(excerptPair('abcdef', 'abXdef', 1)).toEqual(['…bcd…', '…bXd…']);
  });
});

describe('key prefix', () => {
  it('is stripped from the commands but still compared: a changed prefix is a difference', () => {
    const a: NormalisedTrace = { meta: { prefix: 'laravel_database_' }, steps: [dispatch(0)] };
    const b: NormalisedTrace = { meta: { prefix: 'laravel-database-' }, steps: [dispatch(0)] };
    const d = diffTraces(a, b);
    expect(isIdentical(d)).toBe(false);
    expect(diffSummary(d)).toBe('0 steps differ, 1 same; the key prefix differs');
    expect(render(a, b)).toContain(
      '~ key prefix: laravel_database_ → laravel-database- (stripped from the keys below)\n',
    );
    expect(isIdentical(diffTraces(trace(dispatch(0)), { meta: { prefix: '' }, steps: [dispatch(0)] }))).toBe(true);
  });
});

describe('payload change lines', () => {
  it('are told once per step when many jobs change the same way, matched to the removed command of the same job', () => {
    const p = (id: number, extra: string) =>
      `{"job":"X","displayName":"App\\\\Jobs\\\\SendInvoice","id":"ID${id}","attempts":0${extra}}`;
    const a = trace(
      step(
        0,
        'dispatcher',
        [1, 2, 3].map((i) => c('ZADD', 'queues:default:delayed', 'T+10', p(i, ''))),
      ),
    );
    // b dispatches the same jobs in another order, each with a new uuid field.
    const b = trace(
      step(
        0,
        'dispatcher',
        [3, 1, 2].map((i) => c('ZADD', 'queues:default:delayed', 'T+10', p(i, `,"uuid":"UUID${i}"`))),
      ),
    );
    const details = render(a, b)
      .split('\n')
      .filter((line) => line.startsWith('        '));
    expect(details).toEqual(['        ID3: +uuid UUID3']);
  });
});

describe('a run that only moved to another db', () => {
  it('says the db changed, not that the script text differs', () => {
    const on = (db: number): NormalisedStep =>
      step(0, 'worker-1', [
        { source: 'client', db, args: ['SELECT', String(db)] },
        { source: 'client', db, args: ['EVAL', 'return 1', '1', 'queues:default', 'T+0'] },
        { source: 'lua', db, args: ['lpop', 'queues:default'] },
      ]);
    const out = render(trace(on(0)), trace(on(1)));
    expect(out).not.toContain('script text differs');
    expect(out).toContain('db 0 → 1');
  });
});
