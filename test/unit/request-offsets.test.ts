// A request that goes on (src/scenarios/entries/request-times.ts, request.ts): a call's `offset`
// and a dispatch call's `every` inside `request`, when each call is made, the loader's errors at
// line:column, and what a fork (the lab) keeps of such a request.
import { describe, expect, it } from 'vitest';
import type { Activation, ModelEnv, RealEnv } from '../../src/scenarios/entries/index.ts';
import { kindOf } from '../../src/scenarios/entries/index.ts';
import type { RequestEntry } from '../../src/scenarios/entries/request.ts';
import { requestParts } from '../../src/scenarios/entries/request-times.ts';
import { ScenarioError } from '../../src/scenarios/errors.ts';
import { parseScenario } from '../../src/scenarios/load.ts';

/** A scenario whose request entry (at `at`, line 7) makes `calls`, one per line from line 9. */
function source(calls: string[], o: { at?: number; until?: number } = {}): string {
  return [
    'name: req', // 1
    'title: req', // 2
    ...(o.until === undefined ? ['# no until'] : [`until: ${o.until}`]), // 3
    'jobs: { J: { class: App\\Jobs\\J, properties: { n: 0 } } }', // 4
    'timeline:', // 5
    '  # the request', // 6
    `  - at: ${o.at ?? 0}`, // 7
    '    request:', // 8
    ...calls.map((c) => `      - ${c}`), // 9...
    '',
  ].join('\n');
}

const entryOf = (yaml: string) => parseScenario(yaml, 'req.yaml').spec.timeline[0] as RequestEntry;

function errorOf(yaml: string): ScenarioError {
  try {
    parseScenario(yaml, 'req.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('when each call of a request is made', () => {
  it('without offsets: every call at once, one part (one step, as before)', () => {
    const e = entryOf(source(['{ dispatch: J }', '{ size: default }', '{ dispatch: J, count: 3 }']));
    expect(requestParts(e.request).map((p) => [p.offset, p.wait, p.calls.length])).toEqual([[0, 0, 3]]);
  });
  it('offsets group the calls into parts, each waiting from the one before; no offset: right after the call before', () => {
    const e = entryOf(
      source(['{ dispatch: J }', '{ dispatch: J, offset: 2.5 }', '{ size: default }', '{ size: default, offset: 10 }']),
    );
    expect(requestParts(e.request).map((p) => [p.offset, p.wait, p.calls.map((c) => c.index)])).toEqual([
      [0, 0, [0]],
      [2.5, 2.5, [1, 2]],
      [10, 7.5, [3]],
    ]);
  });
  it('every: one instance every N seconds from its offset, numbered on; the next call comes after the last', () => {
    const e = entryOf(
      source(['{ dispatch: J, count: 3, every: 2, offset: 1, properties: { n: { from: 0 } } }', '{ size: default }']),
    );
    const parts = requestParts(e.request);
    expect(parts.map((p) => [p.offset, p.wait])).toEqual([
      [1, 0],
      [3, 2],
      [5, 2],
    ]);
    expect(
      parts.map((p) => p.calls.map((c) => [c.index, 'count' in c.call ? c.call.count : undefined, c.call.first])),
    ).toEqual([
      [[0, 1, 0]],
      [[0, 1, 1]],
      [
        [0, 1, 2],
        [1, undefined, undefined],
      ],
    ]);
    // Each instance is dispatched when it is made: the entry dispatches 3 jobs in all.
    expect(kindOf(e).dispatches(e)).toBe(3);
  });
});

describe('a first call with an offset: the request starts then (it touches Redis first then)', () => {
  it('its activation is at at + offset, in the model and in real Laravel; without one, at the entry’s at', () => {
    const e = entryOf(source(['{ dispatch: J, offset: 2.5 }', '{ size: default, offset: 4 }'], { at: 1 }));
    const kind = kindOf(e);
    expect((kind.model(e, {} as ModelEnv) as Activation).at).toBe(3.5);
    expect((kind.real(e, { request: () => async () => undefined } as unknown as RealEnv) as Activation).at).toBe(3.5);
    expect(requestParts(e.request).map((p) => p.wait)).toEqual([0, 1.5]);
    const now = entryOf(source(['{ dispatch: J }'], { at: 1 }));
    expect((kindOf(now).model(now, {} as ModelEnv) as Activation).at).toBeUndefined();
  });
});

describe('a request that goes on: the loader’s errors', () => {
  it('an offset before the call before it, at the offset', () => {
    // line 10 `      - { size: default, offset: 3 }`: `3` at column 34.
    const e = errorOf(source(['{ dispatch: J, offset: 5 }', '{ size: default, offset: 3 }']));
    expect([e.line, e.column, e.field]).toEqual([10, 34, 'timeline.0.request.1.offset']);
    expect(e.detail).toBe("offset 3 is before request.0's (5): a request makes its calls in the order written");
  });
  it('an offset before the last instance of an every before it', () => {
    const e = errorOf(source(['{ dispatch: J, count: 4, every: 1 }', '{ size: default, offset: 2 }']));
    expect(e.field).toBe('timeline.0.request.1.offset');
    expect(e.detail).toBe("offset 2 is before request.0's (3): a request makes its calls in the order written");
  });
  it('a call after until, at its offset or its every; the entry itself after until is reported as before', () => {
    let e = errorOf(source(['{ dispatch: J }', '{ size: default, offset: 8 }'], { at: 5, until: 10 }));
    expect([e.line, e.field]).toEqual([10, 'timeline.0.request.1.offset']);
    expect(e.detail).toBe('this call is made at 13 (at 5 + 8), after until (10); the run stops before it');
    e = errorOf(source(['{ dispatch: J, count: 10, every: 1 }'], { at: 5, until: 10 }));
    expect(e.field).toBe('timeline.0.request.0.every');
    expect(e.detail).toBe('this call is made at 14 (at 5 + 9), after until (10); the run stops before it');
    e = errorOf(source(['{ dispatch: J, offset: 1 }'], { at: 11, until: 10 }));
    expect(e.field).toBe('timeline.0.at');
  });
  it('an offset to more than the millisecond, a negative one, an every that is not whole seconds', () => {
    expect(errorOf(source(['{ dispatch: J, offset: 0.0005 }'])).field).toBe('timeline.0.request.0.offset');
    expect(errorOf(source(['{ dispatch: J, offset: -1 }'])).field).toBe('timeline.0.request.0.offset');
    expect(errorOf(source(['{ dispatch: J, count: 2, every: 0.5 }'])).field).toBe('timeline.0.request.0.every');
  });
  it('every is a dispatch call’s: a size call has none', () => {
    const e = errorOf(source(['{ size: default, every: 1 }']));
    expect(e.field.startsWith('timeline.0.request.0')).toBe(true);
  });
});

describe('a fork of a request that goes on (the lab): the calls made by then stay', () => {
  const e = entryOf(source(['{ dispatch: J, count: 5, every: 1 }', '{ size: default, offset: 6 }'], { at: 10 }));
  it('cut in its every: the instances made by then', () => {
    expect(kindOf(e).cutAt!(e, 12)).toEqual({ request: [{ dispatch: 'J', count: 3, every: 1 }] });
  });
  it('cut after its last call, or a request made at once: whole', () => {
    expect(kindOf(e).cutAt!(e, 16)).toBeNull();
    const once = entryOf(source(['{ dispatch: J }', '{ size: default }'], { at: 10 }));
    expect(kindOf(once).cutAt!(once, 10)).toBeNull();
  });
});
