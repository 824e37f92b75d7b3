// The lab's three experiments as a presenter runs them, in a real terminal (tmux, 80×24): the
// retry_after race, a SIGKILL mid-job, a delayed job migrating. Each is saved with `w` while the
// lab stands between two steps of one instant; the file must replay what the lab showed: `lqsim
// run` gives as many steps and the same last one, and `lqsim lab <file>` reopens on that step.
// (test/integration/lab-trust.test.ts compares them command for command, for random sessions.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Tmux, tmuxAvailable } from '../../scripts/tmux.ts';
import { cli, terminalEnv } from '../helpers/terminal.ts';

const scratch = mkdtempSync(join(tmpdir(), 'lqsim-lab-e2e-'));
const sessions: Tmux[] = [];
let started = 0;

afterEach(() => {
  for (const s of sessions.splice(0)) s.kill();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `lqsim lab [file]` in tmux at 80×24 in `dir`; the shell prints its exit code when it ends. */
function lab(dir: string, file = ''): Tmux {
  const tmux = new Tmux(terminalEnv(), join(scratch, `tmux-${++started}.sock`));
  sessions.push(tmux);
  tmux.start(`cd '${dir}' && node '${cli}' lab ${file} 2>&1; echo "lqsim exited $?"; exec sleep 600`, 80, 24);
  return tmux;
}

/** The header's `step #N · t+Xs` of the step in view. */
function stepInView(screen: string): string {
  const m = /step #(\d+) · (t\+[\d.]+s)/.exec(screen);
  if (m === null) throw new Error(`no step in view:\n${screen}`);
  return `#${m[1]} ${m[2]}`;
}

/**
 * Runs each command through the `:` line, waiting for the lab's ✓ or ✗ after it; `next` is the
 * `.` key, which says nothing but moves the view on a step.
 */
async function commands(tmux: Tmux, ...lines: string[]): Promise<void> {
  for (const line of lines) {
    if (line === 'next') {
      const before = stepInView(tmux.screen());
      tmux.keys('.');
      await tmux.waitFor((s) => /step #\d+ · t\+/.test(s) && stepInView(s) !== before, 'the next step');
      continue;
    }
    tmux.keys(':');
    await tmux.waitFor((s) => /^:\s*$/m.test(s), 'the command line');
    tmux.keys(line, 'Enter');
    const screen = await tmux.waitFor((s) => /^[✓✗] /m.test(s) && !/^:/m.test(s), `${line} to be done`);
    expect(screen, line).not.toMatch(/^✗ /m);
  }
}

const EXPERIMENTS: Array<{ name: string; lines: string[]; shows: RegExp }> = [
  {
    // retry_after 30 against a 45 s job: at t+30 worker-1 reserves it again while worker-2 runs it.
    name: 'retry_after shorter than the job',
    lines: ['set redis retry_after=30', 'worker', 'dispatch Report run=45', 'wait 29', 'next'],
    shows: /reserved Report#1 \(attempts 2\)/,
  },
  {
    // Killed mid-job at t+3, the job waits in :reserved until t+93: the new process's migrate moves
    // it back and its pop reserves it (attempts 2), with its process step at the same instant.
    name: 'SIGKILL mid-job',
    lines: ['dispatch Import run=60', 'next', 'next', 'kill worker-1', 'wait 88', 'next'],
    shows: /reserved Import#1 \(attempts 2\)/,
  },
  {
    // Due at t+10, moved from :delayed by the migrate of worker-1's poll at t+12.
    name: 'a delayed job migrating',
    lines: ['worker', 'dispatch Later delay=10', 'wait 9', 'next', 'next', 'next'],
    shows: /reserved Later#1/,
  },
];

describe.skipIf(!tmuxAvailable())('lqsim lab: the three experiments, saved mid-instant, replay as shown', () => {
  for (const x of EXPERIMENTS) {
    it(
      x.name,
      async () => {
        const dir = mkdtempSync(join(scratch, 'x-'));
        const tmux = lab(dir);
        await tmux.waitFor((s) => s.includes('step #0 · t+0s'), 'the lab');
        await new Promise((r) => setTimeout(r, 300)); // keys before the first frame's effects run would be lost
        await commands(tmux, ...x.lines);
        expect(tmux.screen()).toMatch(x.shows);
        tmux.keys('w');
        await tmux.waitFor((s) => s.includes(':save lab-1.yaml'), 'the save command');
        tmux.keys('Enter');
        // The lab stood mid-instant: it runs the rest of that instant first, and says so.
        let screen = await tmux.waitFor((s) => s.includes('✓ saved lab-1.yaml'), 'the save');
        expect(screen.replace(/\n/g, ' ')).toMatch(/with the \d+ steps? left at t\+[\d.]+s/);
        const shown = stepInView(screen);
        tmux.keys('q');
        screen = await tmux.waitFor((s) => s.includes('lqsim exited'), 'the lab to end');
        const count = Number(/(\d+) steps shown; saved as/.exec(screen.replace(/\n/g, ''))?.[1]);
        expect(count).toBeGreaterThan(0);

        // lqsim run of the file: as many steps, the last one the step the lab showed.
        const run = spawnSync(process.execPath, [cli, 'run', 'lab-1.yaml', '--format', 'json'], {
          cwd: dir,
          env: terminalEnv(),
          encoding: 'utf8',
          maxBuffer: 1 << 26,
        });
        expect(run.status, run.stderr).toBe(0);
        const steps = (JSON.parse(run.stdout) as { start: number; steps: Array<{ index: number; t: number }> }).steps;
        expect(steps).toHaveLength(count);
        expect(readFileSync(join(dir, 'lab-1.yaml'), 'utf8')).toMatch(/^until: /m);

        // lqsim lab of the file reopens on that step.
        const again = lab(dir, 'lab-1.yaml');
        screen = await again.waitFor((s) => /step #\d+ · t\+/.test(s) && s.includes('lab t+'), 'the saved lab');
        expect(stepInView(screen)).toBe(shown);
        again.keys('q');
        await again.waitFor((s) => s.includes('lqsim exited 0'), 'the lab to end');
      },
      90_000,
    );
  }
});
