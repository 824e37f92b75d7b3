// Bench section 9: the TUI and the lab as a presenter drives them (issue 25), in a real
// pseudo-terminal of 100×30 (util-linux `script`), as a person starts them: how long → takes to show
// a step that runs commands on Redis, how long a lab action takes with 50 and with 5,000 steps
// behind it (a dispatch at the lab's clock, which the held run takes on; and, for comparison, a new
// worker, which replays the session from t+0), and the lab's memory after `:wait 86400`. Each
// latency is from the key to the output that shows its result.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Goal } from './measure.ts';
import { median, verdict } from './measure.ts';

const word = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

/** A command in a pseudo-terminal: keys in, and waits for what its output says after them. */
class Pty {
  private out = '';
  private readonly child;
  constructor(command: string, env: NodeJS.ProcessEnv, cwd: string) {
    this.child = spawn('script', ['-qfec', `stty cols 100 rows 30; exec ${command}`, '/dev/null'], {
      env: { ...env, TERM: 'xterm-256color' },
      stdio: ['pipe', 'pipe', 'ignore'],
      cwd,
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.out += chunk.toString('utf8');
      // Only what came since the last mark is searched: keep the tail.
      if (this.out.length > 1 << 20) this.out = this.out.slice(-(1 << 19));
    });
  }

  /** Sends keys, then resolves with the ms until the output since them matches `shows`. */
  async timed(keys: string, shows: RegExp, timeoutMs = 600_000): Promise<number> {
    this.out = '';
    const t0 = performance.now();
    this.child.stdin.write(keys);
    await this.until(shows, timeoutMs);
    return performance.now() - t0;
  }

  async until(shows: RegExp, timeoutMs = 600_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!shows.test(plain(this.out))) {
      if (Date.now() > end || this.child.exitCode !== null)
        throw new Error(`waited for ${shows}; the output ended: ${plain(this.out).slice(-300)}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /** The lqsim process under `script`, and its memory now and at its peak (MB). */
  memory(): { rss: number; peak: number } {
    const pid = spawnSync('pgrep', ['-P', String(this.child.pid)], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')[0];
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  }

  /** Ends it whatever state it is in (a measurement that failed): the command first, then `script`. */
  kill(): void {
    if (this.child.exitCode !== null) return;
    const inner = spawnSync('pgrep', ['-P', String(this.child.pid)], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n');
    for (const pid of inner) if (pid !== '') process.kill(Number(pid), 'SIGTERM');
    this.child.kill('SIGTERM');
  }

  async quit(): Promise<void> {
    this.child.stdin.write('q');
    await new Promise((r) => setTimeout(r, 300));
    this.child.stdin.write('d'); // a lab with actions asks: discard
    await new Promise<void>((resolve) => {
      if (this.child.exitCode !== null) resolve();
      else this.child.on('exit', () => resolve());
    });
  }
}

/** The output without its escape sequences. */
function plain(s: string): string {
  return s.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b[()][0-9A-B]|\u001b[=>]/g, '');
}

const RIGHT = '\u001b[C';

export async function labBench(o: {
  bin: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  line: (s?: string) => void;
}): Promise<Goal[]> {
  const ptys: Pty[] = [];
  try {
    return await measure(o, (command) => {
      const pty = new Pty(command, o.env, o.cwd);
      ptys.push(pty);
      return pty;
    });
  } finally {
    // A measurement that threw leaves its terminal behind otherwise (and the lqsim in it, and its Redis).
    for (const pty of ptys) pty.kill();
  }
}

async function measure(
  o: { bin: string; line: (s?: string) => void },
  open: (command: string) => Pty,
): Promise<Goal[]> {
  const { line } = o;
  const node = `${word(process.execPath)} ${word(o.bin)}`;
  const goals: Goal[] = [];
  line(
    "9. the TUI and the lab in a 100×30 pty: → and the lab's . on a live step, a lab action at 50 and at 5,000 steps (target ≤ 50 ms median each), memory after :wait 86400 (≤ 300 MB)",
  );

  // → on steps that run commands: retry-after-vs-timeout's pops, migrates and deletes, run live.
  const tui = open(`${node} tui retry-after-vs-timeout`);
  await tui.until(/the premise/, 20_000);
  const rights: number[] = [];
  // The first → leaves the premise for step #0.
  for (let i = 0; i < 12; i++) rights.push(await tui.timed(RIGHT, new RegExp(`step #${i} ·`)));
  await tui.quit();
  const right = median(rights.slice(2)); // the first two warm the code up
  line(`   → on a live step: median ${right.toFixed(0)} ms over ${rights.length - 2} steps  ${verdict(right <= 50)}`);
  goals.push({
    goal: '→ on a live step (TUI)',
    tool: `${right.toFixed(0)} ms`,
    reference: '',
    value: right,
    target: '≤ 50 ms',
    met: right <= 50,
  });

  // Lab actions: the empty lab (one worker polling every 3 s: a step each), moved on to 50 and
  // to 5,000 steps, then a dispatch, three times.
  const lab = open(`${node} lab`);
  await lab.until(/step #0 · t\+0s/, 20_000);
  await new Promise((r) => setTimeout(r, 300));
  // `.` (next): the lab's own step, run on the held session (no replay).
  const dots: number[] = [];
  for (let i = 1; i <= 12; i++) dots.push(await lab.timed('.', new RegExp(`step #${i} ·`)));
  const dot = median(dots.slice(2));
  line(
    `   lab . (next) on a live step: median ${dot.toFixed(0)} ms over ${dots.length - 2} steps  ${verdict(dot <= 50)}`,
  );
  goals.push({
    goal: 'lab `.` (next) on a live step',
    tool: `${dot.toFixed(0)} ms`,
    reference: '',
    value: dot,
    target: '≤ 50 ms',
    met: dot <= 50,
  });
  for (const [steps, wait] of [
    [50, 150],
    [5000, 15_000 - 150],
  ] as const) {
    await lab.timed(`:wait ${wait}\r`, /✓ the clock moved on/);
    const took: number[] = [];
    for (let i = 0; i < 3; i++)
      took.push(await lab.timed(`:dispatch Bench${i}\r`, new RegExp(`✓ dispatched Bench${i}`)));
    const m = median(took);
    line(
      `   a lab action (dispatch, taken on by the held run) at ~${steps.toLocaleString('en')} steps: median ${m.toFixed(0)} ms  ${verdict(m <= 50)}`,
    );
    goals.push({
      goal: `lab action at ~${steps.toLocaleString('en')} steps`,
      tool: `${m.toFixed(0)} ms`,
      reference: '',
      value: m,
      target: '≤ 50 ms',
      met: m <= 50,
    });
  }
  // An action the held run cannot take on (a new worker shows, not started yet, in the steps before
  // it): the lab replays the session from t+0. Measured once: each adds a worker.
  const replay = await lab.timed(':worker\r', /✓ started worker-/);
  line(
    `   a lab action that replays from t+0 (worker) at ~5,000 steps: ${replay.toFixed(0)} ms  (no target: for comparison)`,
  );
  await lab.quit();

  // Memory after a day's wait, from a fresh lab.
  const day = open(`${node} lab`);
  await day.until(/step #0 · t\+0s/, 20_000);
  await new Promise((r) => setTimeout(r, 300));
  const waited = await day.timed(':wait 86400\r', /✓ the clock moved on/);
  const mem = day.memory();
  await day.quit();
  line(
    `   :wait 86400 took ${(waited / 1000).toFixed(1)} s; the lab's memory after it ${mem.rss.toFixed(0)} MB (peak ${mem.peak.toFixed(0)} MB)  ${verdict(mem.peak <= 300)}`,
  );
  goals.push({
    goal: 'lab memory after `:wait 86400` (peak)',
    tool: `${mem.peak.toFixed(0)} MB`,
    reference: '',
    value: mem.peak,
    target: '≤ 300 MB',
    met: mem.peak <= 300,
  });
  return goals;
}
