// Issue 25 items 9, 11, 12 (what the screen says): the `?` help lists each key once per screen
// with the one thing it does there, PgUp/PgDn scroll it, it explains the time strip; P over a
// step says → goes back to it; N says how many idle polls it skipped; Ctrl-C in the `:` line
// says the next one quits; the running-twice alert is inverse and bold.
import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { commandKey, CTRL_C_CLOSED, openCommandLine } from '../../src/tui/command-line.ts';
import { helpBindings, helpLines } from '../../src/tui/help-lines.ts';
import { actionFor, bindingsFor } from '../../src/tui/keymap.ts';
import { LAB_BINDINGS } from '../../src/tui/lab-keys.ts';
import { premiseLines, premiseTitle } from '../../src/tui/premise-lines.ts';
import { runningTwiceLines } from '../../src/tui/running-twice.ts';
import { lineText } from '../../src/tui/segments.ts';
import { styleOf } from '../../src/tui/theme.ts';
import type { View } from '../../src/tui/ui-state.ts';
import { initialUiState, reduce } from '../../src/tui/ui-state.ts';
import type { WorkerState } from '../../src/scenarios/timeline.ts';
import { makeChalk } from '../../src/output/colour.ts';

const key = (k: Partial<Key> = {}): Key => k as Key;

/** The key column of the help's key list, one entry per listed key. */
function listedKeys(rows: readonly { keys: string }[]): string[] {
  return rows.flatMap((r) => r.keys.split(' '));
}

const main = (o: { picker: boolean; branch: boolean }) =>
  bindingsFor('main').filter(
    (b) => (b.action !== 'picker' || o.picker) && (b.action !== 'lab' || o.branch) && b.help !== '',
  );

describe('the help lists each key once, with what it does on that screen', () => {
  it('the lab: L switches the Laravel version (listed once), b is not offered', () => {
    const rows = helpBindings(main({ picker: false, branch: false }), LAB_BINDINGS);
    const keys = listedKeys(rows);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    expect(rows.filter((r) => r.keys.split(' ').includes('L')).map((r) => r.help)).toEqual([
      'switch the Laravel version (the session is replayed under it)',
    ]);
    expect(keys).not.toContain('b');
  });

  it("a lab key takes the key from the screen's table: the lab reads keys first", () => {
    // As if the lab could branch too: its L still switches the version, and is listed once.
    const rows = helpBindings(main({ picker: true, branch: true }), LAB_BINDINGS);
    const keys = listedKeys(rows);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    expect(rows.find((r) => r.keys.split(' ').includes('L'))?.help).toMatch(/^switch the Laravel version/);
  });

  it('a replay opened from the picker: L branches into the lab, b goes back', () => {
    const rows = helpBindings(main({ picker: true, branch: true }));
    const keys = listedKeys(rows);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    expect(rows.find((r) => r.keys === 'L')?.help).toMatch(/^branch into the lab/);
    expect(keys).toContain('b');
  });

  it('the help screen explains the time strip and the alert', () => {
    const text = helpLines(76, helpBindings(main({ picker: false, branch: false })))
      .map(lineText)
      .join('\n');
    expect(text).toContain('Reading the state pane');
    for (const glyph of ['█', '▓', '░', '┃', '✕']) expect(text).toMatch(new RegExp(`^ *${glyph}`, 'm'));
    expect(text).toMatch(/┃ t\+30s +the reservation expires \(retry_after\)/);
    expect(text).toMatch(/✕ t\+60s +the alarm \(--timeout\)/);
    expect(text).toContain('!! Job#1 running twice');
  });
});

const view: View = {
  steps: 20,
  finished: false,
  rows: 20,
  page: 10,
  stateLines: 8,
  statePage: 10,
  overlayLines: 60,
  overlayPage: 12,
  selectedRow: null,
};

describe('PgUp/PgDn on the help and the premise', () => {
  it('page the help', () => {
    expect(actionFor('help', '', key({ pageDown: true }))).toBe('pageDown');
    expect(actionFor('help', '', key({ pageUp: true }))).toBe('pageUp');
    expect(actionFor('help', ' ', key())).toBe('pageDown');
    const open = reduce(initialUiState, 'help', view);
    const down = reduce(open, actionFor('help', '', key({ pageDown: true }))!, view);
    expect(down.overlay).toEqual({ kind: 'help', top: 11 });
    expect(reduce(down, actionFor('help', '', key({ pageUp: true }))!, view).overlay).toEqual({ kind: 'help', top: 0 });
  });

  it('page the premise (space still closes it: it is → there)', () => {
    expect(actionFor('premise', '', key({ pageDown: true }))).toBe('pageDown');
    expect(actionFor('premise', ' ', key())).toBe('next');
  });
});

describe('P over a step', () => {
  it('is titled → back to that step, not → starts', () => {
    expect(premiseTitle('chain', 0)).toBe('chain · the premise · → starts');
    expect(premiseTitle('chain', 12)).toBe('chain · the premise · → back to step #12');
    const scenario = { name: 'chain', title: 'A chain', file: 'chain.yaml' };
    expect(lineText(premiseLines(scenario, '', 60, 12).at(-1)!)).toMatch(/^→ back to step #12/);
    expect(bindingsFor('premise', 12).find((b) => b.action === 'next')?.label).toBe('back to #12');
    expect(bindingsFor('premise', 0).find((b) => b.action === 'next')?.label).toBe('start');
  });
});

describe('N says how many idle polls it skipped', () => {
  // Steps 4..17 are idle polls; 18 is not.
  const idle = (i: number): boolean => i >= 4 && i <= 17;
  it('"skipped 14 idle polls", cleared by the next key', () => {
    const at3 = { ...initialUiState, target: 3 };
    const s = reduce(at3, 'skipIdle', { ...view, idle });
    expect(s.target).toBe(18);
    expect(s.notice).toBe('skipped 14 idle polls');
    expect(reduce(s, 'next', { ...view, idle }).notice).toBeNull();
  });

  it('says nothing when the next step was not idle; counts to the end of a finished run', () => {
    expect(reduce({ ...initialUiState, target: 18 }, 'skipIdle', { ...view, idle }).notice).toBeNull();
    const end = reduce({ ...initialUiState, target: 3 }, 'skipIdle', {
      ...view,
      steps: 10,
      finished: true,
      idle: (i) => i >= 4,
    });
    expect([end.target, end.notice]).toEqual([9, 'skipped 6 idle polls to the end']);
  });

  it('while the run has not reached a busy step yet, says it is skipping', () => {
    const s = reduce({ ...initialUiState, target: 3 }, 'skipIdle', { ...view, idle: (i) => i >= 4 });
    expect([s.skipFrom, s.notice]).toEqual([3, 'skipping idle polls…']);
  });
});

describe('Ctrl-C in the command line', () => {
  it('closes it and says the next one quits (Esc just closes)', () => {
    const ctx = { history: [], complete: () => [] };
    expect(commandKey(openCommandLine('dispatch'), 'c', key({ ctrl: true }), ctx)).toEqual({
      kind: 'close',
      interrupted: true,
    });
    expect(commandKey(openCommandLine('dispatch'), '', key({ escape: true }), ctx)).toEqual({ kind: 'close' });
    expect(CTRL_C_CLOSED).toMatch(/Ctrl-C again quits/);
  });
});

describe('the running-twice alert', () => {
  const running = (name: string, attempt: number): WorkerState => ({
    name,
    generation: 1,
    status: { kind: 'running', job: 'GenerateReport#1', since: 0, attempt },
    connection: 'redis',
    queue: 'default',
    options: { tries: 0, timeout: 60, sleep: 3, delay: 0, once: false },
    retryAfter: 30,
    blockFor: null,
  });

  it('is inverse and bold without colour, white on red with it, on every segment', () => {
    const [line] = runningTwiceLines([running('worker-1', 1), running('worker-2', 2)], 30);
    expect(lineText(line!)).toBe('!! GenerateReport#1 running twice');
    const chalk = makeChalk(1);
    for (const s of line!) {
      expect(styleOf(s, { colour: false, chalk, workers: [] })).toMatchObject({ inverse: true, bold: true });
      expect(styleOf(s, { colour: true, chalk, workers: [] })).toMatchObject({ backgroundColor: 'red', bold: true });
    }
  });
});
