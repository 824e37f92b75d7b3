#!/usr/bin/env -S npx tsx
// Makes the README's picture of the terminal UI from a real run: starts `lqsim tui <scenario>` in
// a detached tmux (its own server socket in a temp dir, so nobody's tmux is touched), steps
// forward with the keys a person would press, captures the screen with its colours
// (`capture-pane -e -p`), quits, and converts the capture to an SVG (scripts/tui-screenshot-svg.ts).
//
//   npx tsx scripts/tui-screenshot.ts [--scenario timeout-max-attempts] [--steps 8]
//                                     [--size 120x36] [--out docs/tui.svg]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ansiToSvg } from './tui-screenshot-svg.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'timeout-max-attempts' },
    steps: { type: 'string', default: '8' },
    size: { type: 'string', default: '120x36' },
    out: { type: 'string', default: join(root, 'docs', 'tui.svg') },
    ansi: { type: 'string' },
  },
});
const [columns, rows] = values.size.split('x').map(Number) as [number, number];
const steps = Number(values.steps);
const scratch = mkdtempSync(join(tmpdir(), 'lqsim-screenshot-'));
const socket = join(scratch, 'tmux.sock');

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: tmuxEnv() });
  if (r.error) throw new Error(`tmux: ${r.error.message} (is tmux installed?)`);
  if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** The TUI needs a terminal and no CI variable (Ink then draws only its last frame). */
function tmuxEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
  for (const k of Object.keys(env)) if (k === 'CI' || k === 'CONTINUOUS_INTEGRATION' || k === 'TMUX' || k === 'NO_COLOR') delete env[k];
  delete env.FORCE_COLOR;
  return env;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForScreen(test: (screen: string) => boolean, what: string, ms = 20_000): Promise<string> {
  const until = Date.now() + ms;
  let screen = '';
  while (Date.now() < until) {
    screen = tmux('capture-pane', '-p', '-t', 'shot');
    if (test(screen)) return screen;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}; the screen was:\n${screen}`);
}

async function main(): Promise<void> {
  const command = `cd '${root}' && node bin/lqsim.js tui '${values.scenario}' 2>/dev/null`;
  tmux('new-session', '-d', '-s', 'shot', '-x', String(columns), '-y', String(rows), command);
  try {
    tmux('set-option', '-t', 'shot', 'status', 'off');
    await waitForScreen((s) => /step #0 · t\+/.test(s), 'the first step');
    for (let i = 1; i <= steps; i++) {
      tmux('send-keys', '-t', 'shot', 'n');
      await waitForScreen((s) => s.includes(`step #${i} · t+`), `step #${i}`);
    }
    await sleep(300);
    const ansi = tmux('capture-pane', '-e', '-p', '-t', 'shot');
    if (values.ansi !== undefined) writeFileSync(values.ansi, ansi);
    const svg = ansiToSvg(ansi, { columns, rows, title: `lqsim tui ${values.scenario}` });
    mkdirSync(dirname(values.out), { recursive: true });
    writeFileSync(values.out, svg);
    tmux('send-keys', '-t', 'shot', 'q');
    const until = Date.now() + 10_000;
    while (Date.now() < until && spawnSync('tmux', ['-S', socket, 'has-session', '-t', 'shot']).status === 0) await sleep(100);
    console.log(`wrote ${values.out} (${columns}×${rows}, step #${steps} of ${values.scenario})`);
  } finally {
    spawnSync('tmux', ['-S', socket, 'kill-server']);
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
