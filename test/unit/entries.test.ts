import { describe, expect, it } from 'vitest';
import { ENTRY_KINDS, kindOf, startOrder, totalDispatches } from '../../src/scenarios/entries/index.ts';
import { parseScenario } from '../../src/scenarios/load.ts';

const spec = parseScenario(
  `
name: kinds
title: kinds
workers: [{ name: w }]
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 0, size: default }
  - { at: 0, note: first, on: pop }
  - { at: 0, dispatch: J }
  - { at: 0, stop: w }
  - { at: 1, dispatch: J, count: 2 }
  - { at: 0, request: [{ dispatch: J, queue: high }, { size: high }, { dispatch: J, count: 2, delay: 5 }] }
`,
  'kinds.yaml',
).spec;

describe('timeline entry kinds', () => {
  it('parsing names every entry by its kind', () => {
    expect(spec.timeline.map((e) => e.kind)).toEqual(['size', 'note', 'dispatch', 'stop', 'dispatch', 'request']);
  });

  it('has a module for each kind, found by kind', () => {
    expect(Object.keys(ENTRY_KINDS).sort()).toEqual([
      'artisan',
      'chain',
      'config',
      'dispatch',
      'kill',
      'note',
      'request',
      'size',
      'stop',
    ]);
    for (const e of spec.timeline) expect(kindOf(e)).toBe(ENTRY_KINDS[e.kind]);
    // Each module's schema takes its own entries as written and names them by its kind.
    const written = {
      dispatch: { at: 0, dispatch: 'J' },
      request: { at: 0, request: [{ dispatch: 'J' }] },
      stop: { at: 0, stop: 'w' },
      kill: { at: 1, kill: 'w' },
      size: { at: 0, size: 'default' },
      note: { at: 0, note: 'n' },
      chain: { at: 0, chain: ['J', { job: 'J', queue: 'q' }] },
      config: { at: 0, config: 'redis', retry_after: 30 },
    } as const;
    for (const [kind, entry] of Object.entries(written)) {
      expect(ENTRY_KINDS[kind as keyof typeof written].schema.parse(entry)).toMatchObject({ kind, ...entry });
      for (const other of Object.keys(written).filter((k) => k !== kind)) {
        expect(ENTRY_KINDS[other as keyof typeof written].schema.safeParse(entry).success).toBe(false);
      }
    }
  });

  it('starts dispatches, stops and notes as written, then size calls', () => {
    expect(startOrder(spec.timeline).map((e) => `${e.kind}@${e.at}`)).toEqual([
      'note@0',
      'dispatch@0',
      'stop@0',
      'dispatch@1',
      'request@0',
      'size@0',
    ]);
  });

  it('counts the jobs a timeline dispatches', () => {
    expect(totalDispatches(spec.timeline)).toBe(3 + 3);
  });
});

describe('chains', () => {
  const chained = parseScenario(
    `
name: chains
title: chains
laravel: "8"
jobs:
  J: { class: App\\Jobs\\J }
  K: { class: App\\Jobs\\K }
timeline:
  - { at: 0, size: default }
  - { at: 0, chain: [J, { job: K, queue: later }], queue: first }
  - { at: 0, dispatch: J, count: 2, chain: [K, { job: J, queue: mail }] }
`,
    'chains.yaml',
  ).spec;

  it('counts every job a chain will dispatch: ->chain() count × (1 + its jobs), Bus::chain its jobs', () => {
    expect(totalDispatches(chained.timeline)).toBe(2 + 2 * 3);
  });

  it('starts a Bus::chain with the dispatches, before the size calls of its second', () => {
    expect(startOrder(chained.timeline).map((e) => e.kind)).toEqual(['chain', 'dispatch', 'size']);
  });

  it('names the queues its jobs go to: the chain queue and the links’ own', () => {
    expect(chained.timeline.flatMap((e) => kindOf(e).queues(e))).toEqual(['first', 'later', 'mail']);
  });
});

describe('dispatch every: instances at fractional times', () => {
  const every = (until: number) =>
    parseScenario(
      `
name: every
title: every
until: ${until}
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 0.128, dispatch: J, count: 2, every: 1 }
`,
      'every.yaml',
    );
  it('counts the last instance to the millisecond: 0.128 + 1 is 1.128, not 1.1280000000000001 (after until)', () => {
    expect(() => every(1.128)).not.toThrow();
    expect(() => every(1.127)).toThrow(/the last of 2 instances is dispatched at 1\.128, after until \(1\.127\)/);
  });
});
