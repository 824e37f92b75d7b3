// The pure pieces under the panes: key handling, layout, wrapping, the header and footer fitting,
// trace argument display, payload changes, due times.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { footerItems } from '../../src/tui/Footer.tsx';
import { headerLine } from '../../src/tui/header-line.ts';
import { MAIN_BINDINGS } from '../../src/tui/keymap.ts';
import { layoutFor, paneBody } from '../../src/tui/layout.ts';
import { payloadChanges } from '../../src/tui/payload-diff.ts';
import { lineText, lineWidth, seg, wrapLine } from '../../src/tui/segments.ts';
import { dueText, packParts } from '../../src/tui/state-lines.ts';
import { isVirtualTime, scriptLabel } from '../../src/tui/trace-rows.ts';
import type { View } from '../../src/tui/ui-state.ts';
import { cursorOf, initialUiState, reduce } from '../../src/tui/ui-state.ts';

const view = (v: Partial<View> = {}): View => ({
  steps: 5,
  finished: false,
  rows: 20,
  page: 10,
  stateLines: 8,
  statePage: 10,
  overlayLines: 0,
  overlayPage: 10,
  selectedRow: { step: 4, command: 2 },
  ...v,
});

describe('ui-state reduce', () => {
  it('next over steps already run moves the cursor; at the last step of a live run it asks for one more', () => {
    let s = reduce(initialUiState, 'next', view());
    expect(s.target).toBe(1);
    s = reduce({ ...s, target: 4 }, 'next', view());
    expect(s.target).toBe(5); // the session is asked for a 6th step
    expect(cursorOf(s.target, 5)).toBe(4); // shown once it has arrived
    expect(reduce({ ...s, target: 5 }, 'next', view()).target).toBe(6); // pressed again before it arrived: one more
    expect(reduce({ ...s, target: 6 }, 'prev', view()).target).toBe(3); // back from the step shown
  });

  it('next at the end of a finished run stops playing; prev and start never go below 0', () => {
    expect(reduce({ ...initialUiState, target: 4, playing: true }, 'next', view({ finished: true }))).toMatchObject({
      target: 4,
      playing: false,
    });
    expect(reduce(initialUiState, 'prev', view()).target).toBe(0);
    expect(reduce({ ...initialUiState, target: 3 }, 'start', view()).target).toBe(0);
    expect(reduce(initialUiState, 'end', view()).target).toBe(Infinity);
  });

  it('keys pressed faster than the screen redraws all count (steps move from the state, not the last frame)', () => {
    let s = initialUiState;
    for (let i = 0; i < 3; i++) s = reduce(s, 'next', view());
    expect(s.target).toBe(3);
  });

  it('↑ selects rows from the newest up; ↓ back to the newest follows again; a new step follows', () => {
    let s = reduce(initialUiState, 'up', view());
    expect(s.selected).toBe(18);
    s = reduce(s, 'down', view());
    expect(s.selected).toBeNull();
    s = reduce(reduce(s, 'pageUp', view()), 'next', view());
    expect(s.selected).toBeNull();
  });

  it('tab scrolls the state pane instead, within its lines', () => {
    const s = reduce(initialUiState, 'focus', view());
    expect(reduce(reduce(s, 'down', view({ stateLines: 14 })), 'down', view({ stateLines: 14 })).stateTop).toBe(2);
    expect(reduce(s, 'down', view({ stateLines: 8 })).stateTop).toBe(0);
  });

  it('the state pane keeps where it was scrolled from step to step; ↑ moves from what a shorter step shows', () => {
    let s = reduce(initialUiState, 'focus', view());
    for (let i = 0; i < 4; i++) s = reduce(s, 'down', view({ stateLines: 14 }));
    expect(s.stateTop).toBe(4);
    s = reduce(reduce(s, 'next', view()), 'prev', view());
    expect(s.stateTop).toBe(4);
    // The next step has 11 lines on a page of 10: one line is hidden, so ↑ shows the top.
    expect(reduce(s, 'up', view({ stateLines: 11 })).stateTop).toBe(0);
  });

  it('enter opens the selected line; i the step; esc, q and enter close; quit quits', () => {
    const open = reduce(initialUiState, 'detail', view());
    expect(open.overlay).toEqual({ kind: 'detail', step: 4, command: 2, top: 0, script: false });
    expect(reduce(open, 'script', view()).overlay).toMatchObject({ script: true });
    expect(reduce(open, 'close', view()).overlay).toEqual({ kind: 'none' });
    expect(reduce({ ...initialUiState, target: 2 }, 'info', view()).overlay).toMatchObject({
      kind: 'detail',
      step: 2,
      command: null,
    });
    expect(reduce(initialUiState, 'quit', view()).quit).toBe(true);
  });

  it('play from the end of a finished run starts over', () => {
    expect(reduce({ ...initialUiState, target: 4 }, 'play', view({ finished: true }))).toMatchObject({
      playing: true,
      target: 0,
    });
    expect(reduce({ ...initialUiState, target: 2 }, 'play', view())).toMatchObject({ playing: true, target: 2 });
  });
});

describe('layout', () => {
  it.each([
    [80, 24],
    [100, 30],
    [120, 40],
    [200, 60],
    [60, 16],
  ])('%i×%i: the parts add up to one row less than the terminal, the panes to its width', (columns, rows) => {
    const l = layoutFor(columns, rows);
    expect(l.headerRows + l.mainRows + l.narrationRows + 1 + l.footerRows).toBe(rows - 1);
    expect(l.traceWidth + l.stateWidth).toBe(columns);
    expect(paneBody(l.stateWidth, l.mainRows).width).toBeGreaterThanOrEqual(26);
    expect(paneBody(l.traceWidth, l.mainRows).rows).toBeGreaterThanOrEqual(rows >= 24 ? 12 : 6);
  });
});

describe('wrapLine', () => {
  it('breaks at spaces, keeps styles, indents continuations, never splits "‹Job#1 attempts:1››" before its ›', () => {
    const line = [
      seg('zadd', 'command'),
      seg(' queues:default:reserved '),
      seg('t+90s', 'time'),
      seg(' '),
      seg('‹ImportCsv#1 attempts:', 'payload'),
      seg('0→1', 'changed'),
      seg('›', 'payload'),
    ];
    const lines = wrapLine(line, 30, 4);
    expect(lines.map(lineText)).toEqual([
      'zadd queues:default:reserved',
      '    t+90s ‹ImportCsv#1',
      '    attempts:0→1›',
    ]);
    expect(lines[2]!.find((s) => s.text === '0→1')?.tone).toBe('changed');
  });

  it('keeps a first line whose text is exactly as wide as the indent (found by the property below)', () => {
    // Width 4, indent 3: "aa " fills the first line; 漢 (2 columns) cannot follow a 3-column
    // indent, so the indent gives way rather than the text.
    expect(wrapLine([seg('aa'), seg(' 漢')], 4, 3).map(lineText)).toEqual(['aa', '漢']);
  });

  it('no line is wider than asked; no text is lost but a part too wide for a line, elided with …; no word breaks mid-part', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom('a', 'b', '_', ' ', ':', '漢', '‹', '›'), maxLength: 30 }), {
          maxLength: 6,
        }),
        fc.integer({ min: 4, max: 40 }),
        fc.integer({ min: 0, max: 3 }),
        (texts, width, indent) => {
          const lines = wrapLine(
            texts.map((t) => seg(t)),
            width,
            indent,
          );
          for (const l of lines) expect(lineWidth(l)).toBeLessThanOrEqual(width);
          const squash = (s: string) => s.replace(/\s+/g, '');
          const input = squash(texts.join(''));
          const shown = lines.map((l) => squash(lineText(l)));
          // Each … stands for one or more letters of the input, and only there.
          const pattern = new RegExp(`^${shown.join('').split('…').join('.+')}$`, 'u');
          expect(input).toMatch(pattern);
          if (shown.join('').includes('…')) return;
          // Without elision, every line break falls where the input may break: at a space, before
          // a run of ':', or beside a wide character.
          const original = texts.join('');
          const letters = [...original].flatMap((ch, i) => (/\s/.test(ch) ? [] : [i]));
          const chars = [...original];
          let k = 0;
          for (const l of shown.slice(0, -1)) {
            k += [...l].length;
            if (k === 0 || k >= letters.length) continue;
            const [before, at] = [letters[k - 1]!, letters[k]!];
            const spaced = at - before > 1;
            const colon = chars[at] === ':' && chars[before] !== ':';
            const wide = chars[at] === '漢' || chars[before] === '漢';
            expect(spaced || colon || wide, `break between ${chars[before]} and ${chars[at]}`).toBe(true);
          }
        },
      ),
    );
  });
});

describe('header and footer', () => {
  const info = {
    scenario: 'retry-after-vs-timeout',
    profile: '5.7',
    step: 12,
    steps: 13,
    clock: 't+145s',
    status: 'waiting' as const,
    playing: true,
    speed: '1s/step',
  };
  it('the header fits any width from 40 columns, keeping the step and the clock', () => {
    for (let w = 40; w <= 200; w += 7) {
      const line = headerLine(info, w);
      expect(lineWidth(line)).toBeLessThanOrEqual(w);
      expect(lineText(line)).toContain('step #12 · t+145s');
    }
    expect(lineText(headerLine(info, 120))).toContain('Laravel 5.7');
  });

  it('a run that ended with an error never reads as finished', () => {
    const done = { ...info, status: 'finished' as const, playing: false };
    expect(lineText(headerLine(done, 120))).toContain('✓ finished · 13 steps');
    const failed = lineText(headerLine({ ...done, failed: true }, 120));
    expect(failed).toContain('✗ ended early · 13 steps');
    expect(failed).not.toContain('finished');
  });

  it('the footer keeps help and quit whatever the width', () => {
    for (const w of [30, 60, 80, 120]) {
      const items = footerItems(MAIN_BINDINGS, w);
      // Help reads "more" when some keys are left out: it lists them all.
      expect(items.map(([k]) => k)).toEqual(expect.arrayContaining(['?', 'q']));
      expect(items.reduce((n, [k, l]) => n + k.length + l.length + 2, 0)).toBeLessThanOrEqual(Math.max(w, 20));
    }
  });
});

describe('what the trace and state panes say', () => {
  it('unix times of the run read as virtual time; other numbers do not', () => {
    expect(isVirtualTime('1700000090', 1_700_000_000)).toBe(true);
    expect(isVirtualTime('90', 1_700_000_000)).toBe(false);
    expect(isVirtualTime('-inf', 1_700_000_000)).toBe(false);
    expect(scriptLabel('migrateExpiredJobs')).toBe('migrate');
    expect(scriptLabel(undefined)).toBe('lua script');
  });

  it('a payload change is a changed value, attempts first; cjson re-ordering the keys is not', () => {
    expect(payloadChanges({ job: 'x', attempts: 1, id: 'a' }, { id: 'a', attempts: 2, job: 'x' })).toEqual([
      { field: 'attempts', from: '1', to: '2' },
    ]);
    expect(payloadChanges({ job: 'x', attempts: 1 }, { attempts: 1, job: 'x' })).toEqual([]);
    expect(payloadChanges({ a: 1, attempts: 0 }, { a: 2, attempts: 1 }).map((c) => c.field)).toEqual(['attempts', 'a']);
  });

  it('due times: :delayed entries are due, :reserved entries expire', () => {
    expect(dueText(1090, 1060, 'reserved')).toBe('expires in 30s');
    expect(dueText(1090, 1090, 'reserved')).toBe('expires now');
    expect(dueText(1090, 1100, 'reserved')).toBe('expired 10s ago');
    expect(dueText(1060, 1000, 'delayed')).toBe('due in 60s');
    expect(dueText(1060, 1065, 'delayed')).toBe('due 5s ago');
    // Scores are Laravel's whole seconds; a step may be at an instant within one.
    expect(dueText(1090, 1000.5, 'reserved')).toBe('expires in 89.5s');
    expect(dueText(1060, 1060.25, 'delayed')).toBe('due 0.25s ago');
  });

  it('options are packed without splitting one', () => {
    expect(packParts(['tries 1', 'timeout 60', 'sleep 10', 'retry_after 90'], ' · ', 22)).toEqual([
      'tries 1 · timeout 60',
      'sleep 10',
      'retry_after 90',
    ]);
  });
});
