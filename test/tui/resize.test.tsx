// The App in terminals of several sizes and while the terminal is resized: it always fills the
// screen (one row less than the terminal, so Ink redraws in place), never draws past the right
// edge, and keeps what a learner needs at 80×24.
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/output/wrap.ts';
import { App } from '../../src/tui/App.tsx';
import { recordedSession } from '../../src/tui/live-session.ts';
import { renderInTerminal, settle } from './fake-terminal.ts';
import { recordScenarios } from './recorded.ts';
import { flat, region } from './screen.ts';

const timeline = recordScenarios('timeout-max-attempts');

function expectFits(frame: string, columns: number, rows: number): void {
  const lines = frame.replace(/\n$/, '').split('\n');
  expect(lines).toHaveLength(rows - 1);
  const widest = Math.max(...lines.map((l) => displayWidth(l)));
  expect(widest).toBeLessThanOrEqual(columns);
}

describe('terminal size', () => {
  it('fills 80×24, 120×40 and 200×60, and resizes between them cleanly', async () => {
    const term = renderInTerminal(
      <App
        session={recordedSession(timeline('timeout-max-attempts'))}
        scenario="x"
        colour={false}
        initial={{ target: 3 }}
      />,
      120,
      40,
    );
    await settle();
    expectFits(term.lastFrame(), 120, 40);

    for (const [columns, rows] of [
      [80, 24],
      [200, 60],
      [100, 30],
      [80, 24],
    ] as const) {
      await term.resize(columns, rows);
      const frame = term.lastFrame();
      expectFits(frame, columns, rows);
      // What the kill step must show, at every size.
      expect(flat(region(frame, 'state', columns, rows))).toContain('worker-1 killed');
      expect(flat(region(frame, 'state', columns, rows))).toContain('t+90s · expires in 30s');
      expect(flat(region(frame, 'narration', columns, rows))).toContain('note: --timeout=60 fires SIGALRM');
      expect(flat(region(frame, 'header', columns, rows))).toContain('step #3 · t+60s');
    }
    term.unmount();
  });

  it('a larger terminal shows more: every trace row carries its time and actor, the title is in the narration', async () => {
    const small = renderInTerminal(
      <App
        session={recordedSession(timeline('timeout-max-attempts'))}
        scenario="x"
        colour={false}
        initial={{ target: 3 }}
      />,
      80,
      24,
    );
    const large = renderInTerminal(
      <App
        session={recordedSession(timeline('timeout-max-attempts'))}
        scenario="x"
        colour={false}
        initial={{ target: 3 }}
      />,
      160,
      50,
    );
    await settle();
    expect(region(small.lastFrame(), 'trace', 80, 24)).toMatch(/▏ +EVAL/);
    expect(region(large.lastFrame(), 'trace', 160, 50)).toMatch(/t\+0s\s+worker-1\s+EVAL ‹pop›/);
    expect(flat(region(large.lastFrame(), 'narration', 160, 50))).toContain('worker-1 SIGALRM after 60s (--timeout)');
    expect(flat(region(large.lastFrame(), 'trace', 160, 50))).toContain('#0 t+0s dispatcher dispatch ImportCsv#1');
    small.unmount();
    large.unmount();
  });

  it('tab moves the scrolling to the state pane when it does not fit', async () => {
    const term = renderInTerminal(
      <App
        session={recordedSession(timeline('timeout-max-attempts'))}
        scenario="x"
        colour={false}
        initial={{ target: 9 }}
      />,
      60,
      16,
    );
    await settle();
    const before = region(term.lastFrame(), 'state', 60, 16);
    expect(before).toMatch(/↓\d+ tab/);
    await term.press('\t', '\u001b[B', '\u001b[B');
    const after = region(term.lastFrame(), 'state', 60, 16);
    expect(after).toMatch(/↑2/);
    expect(after).not.toEqual(before);
    term.unmount();
  });

  it('below 60×16 it says the size it needs instead of drawing garbage, and draws again once enlarged', async () => {
    const term = renderInTerminal(
      <App
        session={recordedSession(timeline('timeout-max-attempts'))}
        scenario="x"
        colour={false}
        initial={{ target: 3 }}
      />,
      50,
      12,
    );
    await settle();
    const small = term.lastFrame();
    const lines = small.replace(/\n$/, '').split('\n');
    expect(lines.length).toBeLessThanOrEqual(11);
    expect(Math.max(...lines.map((l) => displayWidth(l)))).toBeLessThanOrEqual(50);
    expect(flat(small)).toContain('lqsim needs a terminal of at least 60×16; this one is 50×12.');
    expect(small).not.toMatch(/[╭╮╰╯]/);
    await term.resize(80, 24);
    expect(flat(region(term.lastFrame(), 'header', 80, 24))).toContain('step #3 · t+60s');
    term.unmount();
  });
});
