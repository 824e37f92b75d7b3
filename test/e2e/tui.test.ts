// `lqsim tui` as a person uses it: the real CLI in a real terminal (tmux), keys pressed, the
// screen read back. Quitting must leave the alternate screen with the cursor shown and the shell's
// screen as it was, and no redis-server behind; without a terminal it prints the text trace.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Tmux, tmuxAvailable } from '../../scripts/tmux.ts';
import { cli, repoRoot, terminalEnv } from '../helpers/terminal.ts';

const scratch = mkdtempSync(join(tmpdir(), 'lqsim-tui-e2e-'));
/** How many scenarios ship: the picker's count ("7/20"). */
const SHIPPED = readdirSync(join(repoRoot, 'scenarios')).filter((f) => f.endsWith('.yaml')).length;
const ANNOUNCE = /using local redis-server \S+ on 127\.0\.0\.1:\d+ \(pid (\d+)\)/;

const sessions: Tmux[] = [];
let started = 0;
const redisPids: number[] = [];

function processEnded(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

async function eventually(test: () => boolean, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (test()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return test();
}

/** Starts `lqsim tui <args>` in a shell in tmux; its stderr goes to a file shown after it exits. */
function startTui(
  args: string,
  columns = 120,
  rows = 40,
  cwd = repoRoot,
  command = 'tui',
): { tmux: Tmux; stderr: () => string; redisPid: () => number | undefined } {
  const n = ++started;
  const tmux = new Tmux(terminalEnv(), join(scratch, `tmux-${n}.sock`));
  sessions.push(tmux);
  const err = join(scratch, `stderr-${n}.txt`);
  const shell = `cd '${cwd}' && node '${cli}' ${command} ${args} 2>'${err}'; code=$?; cat '${err}'; echo "lqsim exited $code"; exec sleep 600`;
  tmux.start(shell, columns, rows); // tmux runs it with sh -c
  const stderr = (): string => (existsSync(err) ? readFileSync(err, 'utf8') : '');
  const redisPid = (): number | undefined => {
    const m = ANNOUNCE.exec(stderr());
    if (m === null) return undefined;
    const pid = Number(m[1]);
    if (!redisPids.includes(pid)) redisPids.push(pid);
    return pid;
  };
  return { tmux, stderr, redisPid };
}

/** After the app has gone: the shell's screen is back, the cursor shown, redis-server ended. */
async function expectRestored(t: ReturnType<typeof startTui>, code: number): Promise<void> {
  const screen = await t.tmux.waitFor((s) => /lqsim exited \d+\n/.test(s), 'lqsim to exit', 15_000);
  expect(screen, `stderr:\n${t.stderr()}`).toContain(`lqsim exited ${code}`);
  expect(screen).not.toContain('Redis MONITOR'); // the app was on the alternate screen, now left
  expect(t.tmux.format('#{alternate_on}')).toBe('0');
  expect(t.tmux.format('#{cursor_flag}')).toBe('1');
  // The cursor is shown on the terminal; stderr, a file here, holds only lqsim's lines.
  expect(JSON.stringify(t.stderr())).not.toContain('\\u001b[?25h');
  const pid = t.redisPid();
  expect(pid, `no redis-server announced:\n${t.stderr()}`).toBeTypeOf('number');
  expect(await eventually(() => processEnded(pid!)), `redis-server ${pid} still running`).toBe(true);
}

afterEach(() => {
  for (const s of sessions.splice(0)) s.kill();
  for (const pid of redisPids.splice(0)) if (!processEnded(pid)) process.kill(pid, 'SIGKILL');
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!tmuxAvailable())('lqsim tui in a terminal (tmux)', () => {
  it('steps forward and back with the keys, shows the panes, and q restores the terminal', async () => {
    const t = startTui('timeout-max-attempts');
    let screen = await t.tmux.waitFor((s) => s.includes('the premise · → starts'), 'the premise');
    expect(screen).toContain('A job outlives --timeout');
    await new Promise((r) => setTimeout(r, 300)); // keys typed before the first frame's effects run would be lost
    t.tmux.keys('Right'); // closes the premise on step #0, running nothing more
    screen = await t.tmux.waitFor((s) => s.includes('Redis MONITOR'), 'the first step');
    expect(screen).toContain('step #0 · t+0s');
    expect(screen).toContain('RPUSH queues:default ‹ImportCsv#1 attempts:0›');
    expect(screen).toContain('● live · 1 step run');
    expect(t.tmux.format('#{alternate_on}')).toBe('1');

    t.tmux.keys('n');
    screen = await t.tmux.waitFor((s) => s.includes('step #1 · t+0s'), 'step #1');
    expect(screen).toContain('[lua] zadd queues:default:reserved t+90s');
    expect(screen).toContain('‹ImportCsv#1 attempts:0→1›');

    t.tmux.keys('Right', 'Space');
    screen = await t.tmux.waitFor((s) => s.includes('step #3 · t+60s'), 'the kill step');
    expect(screen).toContain('worker-1 killed while running ImportCsv#1');
    expect(screen).toContain('t+90s · expires in 30s');
    expect(screen).toContain('Worker::registerTimeoutHandler → Worker::kill');

    t.tmux.keys('Left');
    screen = await t.tmux.waitFor((s) => s.includes('step #2 · t+0s'), 'back to step #2');
    expect(screen).toContain('worker-1 running');
    expect(screen).toContain('ImportCsv#1 since t+0s (attempt 1)');
    expect(screen).toContain('● live · 4 steps run'); // going back ran nothing

    t.tmux.keys('q');
    await expectRestored(t, 0);
    expect(t.tmux.screen()).toContain('timeout-max-attempts: stopped after step #3 (t+60s)');
  });

  it('works when started from another directory (the project tsconfig, so JSX, is found from anywhere)', async () => {
    const t = startTui('dispatch', 80, 24, scratch);
    await t.tmux.waitFor((s) => s.includes('the premise') || s.includes('lqsim exited'), 'the premise');
    await new Promise((r) => setTimeout(r, 300));
    t.tmux.keys('Right');
    const screen = await t.tmux.waitFor(
      (s) => s.includes('Redis MONITOR') || s.includes('lqsim exited'),
      'the first step',
    );
    expect(screen, `stderr:\n${t.stderr()}`).toContain('RPUSH queues:default ‹SendWelcomeEmail#1');
    t.tmux.keys('q');
    await expectRestored(t, 0);
  });

  it('redraws to fit when the terminal is resized to 80×24, and Ctrl-C quits cleanly', async () => {
    const t = startTui('timeout-max-attempts');
    await t.tmux.waitFor((s) => s.includes('the premise'), 'the premise');
    await new Promise((r) => setTimeout(r, 300));
    t.tmux.keys('n', 'n', 'n', 'n'); // the first closes the premise
    await t.tmux.waitFor((s) => s.includes('step #3 · t+60s'), 'the kill step');
    t.tmux.run('resize-window', '-t', 'e2e', '-x', '80', '-y', '24');
    const complete = (s: string): boolean => {
      const lines = s.split('\n');
      return (
        lines[0]!.includes('step #3 · t+60s') &&
        lines[1]!.includes('Redis MONITOR') &&
        lines[22]!.startsWith('→') &&
        lines.every((l) => l.length <= 80)
      );
    };
    const screen = await t.tmux.waitFor(complete, 'a complete redraw at 80×24');
    const lines = screen.split('\n');
    expect(lines.filter((l) => l.includes('Redis MONITOR'))).toHaveLength(1);
    expect(screen).toContain('worker-1 killed');
    expect(screen).toContain('expires in 30s');
    expect(lines[0]).toContain('step #3 · t+60s');

    t.tmux.keys('C-c');
    await expectRestored(t, 0);
  });

  it('enlarged during a run (80×24 → 100×40), q leaves no fragment of the UI on the shell screen', async () => {
    const t = startTui('dispatch', 80, 24);
    await t.tmux.waitFor((s) => s.includes('the premise'), 'the premise');
    await new Promise((r) => setTimeout(r, 300));
    t.tmux.keys('Right');
    await t.tmux.waitFor((s) => s.includes('Redis MONITOR'), 'step #0');
    t.tmux.run('resize-window', '-t', 'e2e', '-x', '100', '-y', '40');
    await t.tmux.waitFor((s) => s.split('\n').length >= 39 && s.includes('Redis MONITOR'), 'the redraw at 100×40');
    t.tmux.keys('q');
    await expectRestored(t, 0);
    expect(t.tmux.screen()).not.toMatch(/[│╭╮╰╯─]/);
  });

  it('G runs the rest live to the end; the summary says the run finished', async () => {
    const t = startTui('timeout-max-attempts');
    await t.tmux.waitFor((s) => s.includes('the premise'), 'the premise');
    await new Promise((r) => setTimeout(r, 300));
    t.tmux.keys('Right');
    await t.tmux.waitFor((s) => s.includes('Redis MONITOR'), 'step #0');
    t.tmux.keys('G');
    const screen = await t.tmux.waitFor((s) => s.includes('✓ finished · 10 steps'), 'the end of the run');
    expect(screen).toContain('MaxAttemptsExceededException');
    expect(screen).toContain('the run is over: 1 job (1 failed).');
    t.tmux.keys('q');
    await expectRestored(t, 0);
    expect(t.tmux.screen()).toContain('timeout-max-attempts: the run finished after 10 steps (t+90s)');
  });

  it('SIGTERM while it runs: the terminal is restored and redis-server stopped (exit 143)', async () => {
    const t = startTui('timeout-max-attempts');
    await t.tmux.waitFor((s) => s.includes('step #0 · t+0s'), 'the first step');
    const shell = t.tmux.format('#{pane_pid}');
    const node = spawnSync('pgrep', ['-P', shell, '-f', 'lqsim.js'], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
    expect(node, 'the lqsim process').toMatch(/^\d+$/);
    process.kill(Number(node), 'SIGTERM');
    await expectRestored(t, 143);
  });

  it('with no scenario named, the picker opens; enter starts the chosen one', async () => {
    const t = startTui('');
    await t.tmux.waitFor((s) => s.includes('choose a scenario'), 'the picker');
    await new Promise((r) => setTimeout(r, 300)); // keys typed before the first frame's effects run would be lost
    const target = t.tmux
      .screen()
      .split('\n')
      .findIndex((l) => l.includes('timeout-max-attempts'));
    const first =
      t.tmux
        .screen()
        .split('\n')
        .findIndex((l) => l.includes('1/')) + 1; // the list's first row, under its title (learning order)
    for (let i = first; i < target; i++) t.tmux.keys('Down');
    t.tmux.keys('Enter');
    const screen = await t.tmux.waitFor((s) => s.includes('the premise'), 'the chosen scenario');
    expect(screen).toContain('lqsim timeout-max-attempts');
    // b goes back to the list, on the scenario it was.
    await new Promise((r) => setTimeout(r, 300));
    t.tmux.keys('Right');
    await t.tmux.waitFor((s) => s.includes('Redis MONITOR'), 'step #0');
    t.tmux.keys('b');
    await t.tmux.waitFor((s) => s.includes(`${target - first + 1}/${SHIPPED}`), 'the picker again');
    t.tmux.keys('q');
    await expectRestored(t, 0);
  });
});

describe.skipIf(!tmuxAvailable())('lqsim lab in a terminal (tmux, 80×24)', () => {
  it('dispatches, runs to the next event, kills, undoes and saves with the keys; the saved file runs', async () => {
    const dir = mkdtempSync(join(scratch, 'lab-'));
    const t = startTui('', 80, 24, dir, 'lab');
    let screen = await t.tmux.waitFor((s) => s.includes('step #0 · t+0s'), 'the lab');
    expect(screen).toContain('lab t+0s');
    await new Promise((r) => setTimeout(r, 300)); // keys typed before the first frame's effects run would be lost
    t.tmux.keys('D');
    screen = await t.tmux.waitFor((s) => s.includes(':dispatch'), 'the command line');
    expect(screen).toContain('dispatch <Job> [queue=Q]'); // the usage, where the narration was
    t.tmux.keys('SendEmail run=5', 'Enter');
    screen = await t.tmux.waitFor((s) => s.includes('✓ dispatched SendEmail'), 'the dispatch');
    expect(screen).toContain('step #1 · t+0s');
    expect(screen).toContain('RPUSH queues:default ‹SendEmail#1');
    t.tmux.keys('.');
    screen = await t.tmux.waitFor((s) => s.includes('step #2 · t+3s'), 'the next event');
    expect(screen).toContain('reserved SendEmail#1');
    t.tmux.keys('K');
    await t.tmux.waitFor((s) => /^:kill\s*$/m.test(s), 'the kill command');
    t.tmux.keys('Tab');
    await t.tmux.waitFor((s) => s.includes(':kill worker-1'), 'completion of the running worker');
    t.tmux.keys('Enter');
    await t.tmux.waitFor((s) => s.includes('SIGKILL to worker-1'), 'the kill');
    t.tmux.keys('u');
    screen = await t.tmux.waitFor((s) => s.includes('undone'), 'the undo');
    expect(screen).not.toContain('SIGKILL');
    t.tmux.keys('w');
    await t.tmux.waitFor((s) => s.includes(':save lab-1.yaml'), 'the save command, with a free file name');
    t.tmux.keys('Enter');
    await t.tmux.waitFor((s) => s.includes('✓ saved'), 'the save');
    t.tmux.keys('q');
    await expectRestored(t, 0);
    // The closing line (wrapped at 80 columns): the kill was undone, one action is left.
    expect(t.tmux.screen().replace(/\n/g, '')).toMatch(/lab: 1 action, \d+ steps shown; saved as \S*lab-1\.yaml/);
    const saved = readFileSync(join(dir, 'lab-1.yaml'), 'utf8');
    expect(saved).toContain('- { at: 0, late: true, dispatch: SendEmail }');
    expect(saved).not.toContain('kill:');
    const run = spawnSync(process.execPath, [cli, 'run', 'lab-1.yaml'], {
      cwd: dir,
      env: terminalEnv(),
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('reserved SendEmail#1');
  });

  it('a bad command gets a one-line message and changes nothing; L in lqsim tui branches into the lab', async () => {
    const t = startTui('timeout-max-attempts', 80, 24);
    await t.tmux.waitFor((s) => s.includes('the premise'), 'the premise');
    await new Promise((r) => setTimeout(r, 300));
    t.tmux.keys('Right', 'n');
    await t.tmux.waitFor((s) => s.includes('step #1 · t+0s'), 'step #1');
    t.tmux.keys('L');
    let screen = await t.tmux.waitFor((s) => s.includes('lab t+0s'), 'the lab from step #1');
    expect(screen).toContain('step #1 · t+0s');
    t.tmux.keys(':');
    await t.tmux.waitFor((s) => s.includes('commands: dispatch'), 'the command line');
    t.tmux.keys('kill worker-7', 'Enter');
    screen = await t.tmux.waitFor((s) => s.includes('✗ kill: no worker named worker-7'), 'the refusal');
    expect(screen).toContain('step #1 · t+0s');
    t.tmux.keys('q');
    await expectRestored(t, 0);
    expect(t.tmux.screen()).toMatch(/timeout-max-attempts \(lab\): 0 actions, 2 steps shown; nothing to save/);
  });
});

describe('lqsim tui without a terminal', () => {
  it('prints the text trace, with a notice on stderr', async () => {
    const child = spawn(process.execPath, [cli, 'tui', 'timeout-max-attempts'], {
      cwd: repoRoot,
      env: { ...terminalEnv(), FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      'lqsim: not a terminal: printing the text trace instead of the terminal UI (same as lqsim run)',
    );
    expect(stdout).toMatch(/^#0 {2}t\+0s {4}dispatcher {2}dispatch ImportCsv#1 onto queues:default$/m);
    expect(stdout).toContain('failed jobs: 1');
    const pid = Number(ANNOUNCE.exec(stderr)?.[1]);
    expect(await eventually(() => processEnded(pid))).toBe(true);
  });

  it('with no scenario named it cannot pick one: exit 2 and one line', () => {
    const r = spawnSync(process.execPath, [cli, 'tui'], {
      cwd: repoRoot,
      env: terminalEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^lqsim: tui: not a terminal, so no scenario picker; name one \(lqsim list shows them\)\n$/,
    );
  });

  it('lqsim lab needs a terminal: exit 2 and one line, after a bad scenario is reported first', () => {
    const r = spawnSync(process.execPath, [cli, 'lab'], {
      cwd: repoRoot,
      env: terminalEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("lqsim: lab: not a terminal: the lab is interactive; lqsim run prints a scenario's trace\n");
    const bad = spawnSync(process.execPath, [cli, 'lab', 'no-such-scenario'], {
      cwd: repoRoot,
      env: terminalEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^lqsim: no-such-scenario: no such scenario; run lqsim list to see them\n$/);
  });
});
