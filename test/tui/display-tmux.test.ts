// Issue 25's display items in a real terminal (tmux), as a presenter drives them: the lab's `?`
// lists L once and no b, and PgDn pages it; Ctrl-C in the `:` line says the next one quits (and
// it does); the running-twice alert is white on red and bold, and stays while the state pane is
// scrolled; N says how many idle polls it skipped; P over a step says → goes back to it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Tmux, tmuxAvailable } from '../../scripts/tmux.ts';
import { cli, repoRoot, terminalEnv } from '../helpers/terminal.ts';

const scratch = mkdtempSync(join(tmpdir(), 'lqsim-tui-display-'));
const sessions: Tmux[] = [];
let started = 0;

function start(args: string, columns = 80, rows = 24): Tmux {
  const tmux = new Tmux(terminalEnv(), join(scratch, `tmux-${++started}.sock`));
  sessions.push(tmux);
  tmux.start(
    `cd '${repoRoot}' && node '${cli}' ${args} 2>/dev/null; echo "lqsim exited $?"; exec sleep 600`,
    columns,
    rows,
  );
  return tmux;
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Presses `key` and waits for the screen to show `what`. */
async function press(t: Tmux, key: string, test: (s: string) => boolean, what: string): Promise<string> {
  t.keys(key);
  return t.waitFor(test, what);
}

afterEach(() => {
  // Each session's lqsim ends its own redis-server when tmux hangs up on it.
  for (const s of sessions.splice(0)) s.kill();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!tmuxAvailable())('what the TUI shows (tmux, 80×24)', () => {
  it("the lab's help: each key once (L switches the version, no b), PgDn pages it; Ctrl-C in the : line", async () => {
    const t = start('lab');
    await t.waitFor((s) => s.includes('lab t+0s'), 'the lab');
    await pause(300);
    let screen = await press(t, '?', (s) => s.includes('Help · esc closes'), 'the help');
    expect(screen).toMatch(/│ L +switch the Laravel version/);
    expect(screen).toContain('PgUp/Dn page');
    // PgDn until the title bar says nothing is below (a page at a time: ↑ grows each press).
    const seen = [screen];
    for (let page = 1; /↓\d+/.test(seen.at(-1)!.split('\n')[1] ?? ''); page++) {
      const before = seen.at(-1)!;
      t.keys('PgDn');
      seen.push(await t.waitFor((s) => s !== before, `page ${page + 1}`));
      expect(page).toBeLessThan(10);
    }
    expect(seen.length).toBeGreaterThan(2);
    screen = seen.join('\n');
    expect(screen.match(/│ L {2,}/g)).toHaveLength(1);
    expect(screen).not.toMatch(/│ b {2,}/);
    expect(screen).toContain('Reading the state pane');
    expect(screen).toMatch(/┃ t\+30s +the reservation expires \(retry_after\)/);
    t.keys('Escape');
    await t.waitFor((s) => !s.includes('Help · esc closes'), 'the help closed');

    await press(t, ':', (s) => s.includes('lab command'), 'the command line');
    t.keys('dispatch Foo');
    screen = await press(t, 'C-c', (s) => s.includes('Ctrl-C again quits'), 'the notice');
    expect(screen).toContain('Ctrl-C closed the command line');
    screen = await press(t, 'C-c', (s) => s.includes('lqsim exited'), 'lqsim to exit');
    expect(screen).toContain('lqsim exited 0');
  });

  it('retry-after-vs-timeout: the alert is white on red, bold, and stays while the state pane scrolls; N and P say what they did', async () => {
    const t = start('tui retry-after-vs-timeout');
    await t.waitFor((s) => s.includes('the premise · → starts'), 'the premise');
    await pause(300);
    await press(t, 'Right', (s) => s.includes('step #0'), 'step #0');
    for (const n of [1, 2, 3]) await press(t, 'Right', (s) => s.includes(`step #${n} `), `step #${n}`);
    // #4 and #5 are worker-2 polling an empty queue (presenter.test.tsx checks which steps are idle).
    let screen = await press(t, 'N', (s) => s.includes('skipped 2 idle polls'), 'N to say what it skipped');
    expect(screen).toContain('step #6 ');
    screen = await press(t, 'Right', (s) => s.includes('step #7 '), 'step #7');
    expect(screen).not.toContain('skipped 2 idle polls');
    expect(screen).toMatch(/│ !! GenerateReport#1 running/);
    // Bold, white (37) on red (41): the SGR before the alert's text.
    expect(t.screenWithColours()).toMatch(/\u001b\[1m\u001b\[37m\u001b\[41m!! GenerateReport#1 running/);
    t.keys('Tab');
    screen = await press(t, 'PgDn', (s) => /↑\d+/.test(s.split('\n')[1] ?? ''), 'the state pane scrolled');
    expect(screen).toMatch(/│ !! GenerateReport#1 running/);

    screen = await press(t, 'P', (s) => s.includes('the premise'), 'the premise over step #7');
    expect(screen).toContain('retry-after-vs-timeout · the premise · → back to step #7');
    expect(screen).not.toContain('→ starts');
    screen = await press(t, 'Right', (s) => !s.includes('the premise'), 'back to the step');
    expect(screen).toContain('step #7 ');
  });
});
