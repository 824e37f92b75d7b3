#!/usr/bin/env -S npx tsx
// Makes the README's picture of the terminal UI from a real run: starts `lqsim tui <scenario>` in
// a detached tmux (its own server socket in a temp dir, so nobody's tmux is touched), steps
// forward with the keys a person would press, captures the screen with its colours
// (`capture-pane -e -p`), quits, and converts the capture to an SVG (scripts/tui-screenshot-svg.ts).
//
//   npx tsx scripts/tui-screenshot.ts [--scenario timeout-max-attempts] [--steps 8]
//                                     [--size 120x36] [--out docs/tui.svg]
//   npx tsx scripts/tui-screenshot.ts --lab 'dispatch A run=45; worker; wait 40' --out docs/lab.svg
// With --lab it starts `lqsim lab` (from --scenario if given) and types each command after `:`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Tmux } from './tmux.ts';
import { ansiToSvg } from './tui-screenshot-svg.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    scenario: { type: 'string' },
    lab: { type: 'string' },
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

/** The TUI needs a terminal and no CI variable (Ink then draws only its last frame). */
function tmuxEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
  for (const k of Object.keys(env))
    if (k === 'CI' || k === 'CONTINUOUS_INTEGRATION' || k === 'TMUX' || k === 'NO_COLOR') delete env[k];
  delete env.FORCE_COLOR;
  return env;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const tmux = new Tmux(tmuxEnv(), socket, 'shot');
  const lab = values.lab
    ?.split(';')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  const scenario = values.scenario ?? (lab === undefined ? 'timeout-max-attempts' : '');
  const what = lab === undefined ? `tui ${scenario}` : `lab ${scenario}`.trim();
  const command = `cd '${root}' && node bin/lqsim.js ${what} 2>/dev/null`;
  try {
    tmux.start(command, columns, rows);
    await tmux.waitFor((s) => /step #\d+ · t\+/.test(s), 'the first step');
    await sleep(300); // keys pressed before the first frame's effects run would be lost
    if (lab === undefined) {
      tmux.keys('Right'); // the premise closes on step #0
      await tmux.waitFor((s) => s.includes('Redis MONITOR'), 'step #0');
      for (let i = 1; i <= steps; i++) {
        tmux.keys('n');
        await tmux.waitFor((s) => s.includes(`step #${i} · t+`), `step #${i}`);
      }
    } else {
      for (const [i, c] of lab.entries()) {
        tmux.keys(':');
        await tmux.waitFor((s) => /^:\s*$/m.test(s), 'the command line');
        tmux.keys(c);
        tmux.keys('Enter');
        await tmux.waitFor((s) => /^[✓✗] /m.test(s) && !s.includes(`:${c}`), `command ${i + 1}: ${c}`);
        await sleep(200);
      }
    }
    await sleep(300);
    const ansi = tmux.screenWithColours();
    if (values.ansi !== undefined) writeFileSync(values.ansi, ansi);
    const svg = ansiToSvg(ansi, { columns, rows, title: `lqsim ${what}` });
    mkdirSync(dirname(values.out), { recursive: true });
    writeFileSync(values.out, svg);
    tmux.keys('q');
    const until = Date.now() + 10_000;
    while (Date.now() < until && tmux.alive()) await sleep(100);
    console.log(
      `wrote ${values.out} (${columns}×${rows}, ${lab === undefined ? `step #${steps} of ${scenario}` : what})`,
    );
  } finally {
    tmux.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
