// Issue 25 items 7 and 10: Laravel 8's prefixed keys (`laravel_database_queues:default:reserved`)
// wrap at their `:` parts or are elided in the middle, never cut mid-word; `↻ process 2` stays
// one label; and the state pane lists its parts in one order at every density and height.
import { describe, expect, it } from 'vitest';
import type { QueueState, StateSnapshot, WorkerState } from '../../src/scenarios/timeline.ts';
import { layoutFor, paneBody } from '../../src/tui/layout.ts';
import { lineText, lineWidth, seg, wrapLine } from '../../src/tui/segments.ts';
import { fittedStateLines, stateLines } from '../../src/tui/state-lines.ts';
import { brokenNames } from '../helpers/broken-names.ts';

const PREFIX = 'laravel_database_';
const KEY = `${PREFIX}queues:default:reserved`;
const START = 1_700_000_000;

describe('wrapLine on a prefixed key', () => {
  it('breaks before a `:` part, never inside one', () => {
    expect(wrapLine([seg(KEY)], 29, 2).map(lineText)).toEqual(['laravel_database_queues', '  :default:reserved']);
    expect(wrapLine([seg(`ZADD ${KEY} t+90s`)], 26, 2).map(lineText)).toEqual([
      'ZADD',
      '  laravel_database_queues',
      '  :default:reserved t+90s',
    ]);
  });

  it('elides a part wider than a line in its middle, keeping the parts after it whole', () => {
    const lines = wrapLine([seg(KEY)], 15, 2).map(lineText);
    expect(lines).toEqual(['laravel…queues', '  :default', '  :reserved']);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(15);
  });

  it("cuts between a name's words where it can (laravel_…queues), else between letters", () => {
    expect(wrapLine([seg(`ZADD ${KEY}`)], 24, 4).map(lineText)).toEqual([
      'ZADD',
      '    laravel_…queues',
      '    :default:reserved',
    ]);
    expect(wrapLine([seg('abcdefghijklmnopqrstuvwxyz')], 12, 0).map(lineText)).toEqual(['abcdef…vwxyz']);
  });

  it('keeps `::` together (RedisQueue::pop) and keeps each part its style', () => {
    expect(wrapLine([seg('RedisQueue::migrateExpiredJobs')], 20, 0).map(lineText)).toEqual([
      'RedisQueue',
      '::migrateExpiredJobs',
    ]);
    const styled = wrapLine([seg('queues:', 'heading'), seg('default:reserved', 'time')], 10, 0);
    expect(styled.map(lineText)).toEqual(['queues', ':default', ':reserved']);
    expect(styled[1]!.map((s) => [s.text, s.tone])).toEqual([
      [':', 'heading'],
      ['default', 'time'],
    ]);
  });

  it('still breaks CJK text beside each wide character, losing nothing', () => {
    expect(wrapLine([seg('漢字漢字漢字')], 5, 0).map(lineText)).toEqual(['漢字', '漢字', '漢字']);
  });
});

function queue(name: string, o: Partial<QueueState['sizes']> = {}): QueueState {
  const ready = `${PREFIX}queues:${name}`;
  const reserved = { job: 'ImportCsv#1', attempts: 1, raw: '{}', score: START + 600 };
  return {
    name,
    keys: { ready, delayed: `${ready}:delayed`, reserved: `${ready}:reserved`, notify: `${ready}:notify` },
    sizes: { ready: 0, delayed: 0, reserved: 1, notify: 0, ...o },
    ready: [],
    delayed: [],
    reserved: [reserved],
  };
}

function worker(name: string, generation: number, status: WorkerState['status']): WorkerState {
  return {
    name,
    generation,
    status,
    connection: 'redis',
    queue: 'default',
    options: { tries: 1, timeout: 500, sleep: 60, delay: 0, once: false },
    retryAfter: 600,
    blockFor: null,
  };
}

const state: StateSnapshot = {
  t: START + 120,
  queues: [queue('default'), queue('high', { ready: 0, reserved: 0 }), queue('low', { reserved: 0 })],
  workers: [
    worker('worker-1', 2, { kind: 'idle', until: START + 180 }),
    worker('worker-2', 1, { kind: 'running', job: 'ImportCsv#2', since: START + 100, attempt: 1 }),
  ],
  failed: [],
  executions: { 'ImportCsv#1': 1 },
};
const keys = state.queues.flatMap((q) => [q.keys.ready, q.keys.delayed, q.keys.reserved]);

/** The state pane's body at a terminal size, as the App lays it out. */
function body(columns: number, rows: number): { width: number; rows: number } {
  const l = layoutFor(columns, rows);
  return paneBody(l.stateWidth, l.mainRows);
}

describe('the state pane', () => {
  for (const [columns, rows] of [
    [60, 16],
    [80, 24],
    [120, 40],
  ] as const) {
    it(`${columns}×${rows}: no key cut mid-word, no line too wide, ↻ process 2 whole`, () => {
      const b = body(columns, rows);
      const lines = fittedStateLines(state, { start: START }, b.width, b.rows);
      const text = lines.map(lineText);
      expect(brokenNames(text, keys)).toEqual([]);
      for (const l of lines) expect(lineWidth(l)).toBeLessThanOrEqual(b.width);
      expect(text.join('\n')).toContain('↻ process 2');
    });
  }

  it('↻ process 2 moves to the next line whole when it does not fit beside the status', () => {
    // "worker-1 idle (--sleep) until t+180s" fills 36 columns; the label is one piece.
    for (let width = 20; width <= 50; width++) {
      const text = stateLines(state, { start: START }, width, 'compact').map(lineText);
      expect(
        text.some((l) => l.includes('↻ process 2')),
        `width ${width}`,
      ).toBe(true);
    }
  });

  it('lists the workers above the queues at every density and every height', () => {
    // A worker's head line, not its options (which a short pane lists last, as "worker-1 tries 1 …").
    const order = (text: string[]): string[] =>
      text.flatMap((l) =>
        /^worker-\d (?!tries)/.test(l) ? ['worker'] : /^laravel_database_queues/.test(l) ? ['queue'] : [],
      );
    const seen = new Set<string>();
    for (const width of [26, 29, 42]) {
      for (const density of ['full', 'medium', 'compact'] as const)
        seen.add(order(stateLines(state, { start: START }, width, density).map(lineText)).join(' '));
      for (let rows = 3; rows <= 40; rows++)
        seen.add(order(fittedStateLines(state, { start: START }, width, rows).map(lineText)).join(' '));
    }
    expect([...seen]).toEqual(['worker worker queue queue queue']);
  });
});
