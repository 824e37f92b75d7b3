// The bench's TUI figure: from the moment `lqsim tui <scenario>` is started, as a person starts it,
// to its first frame on the terminal (the scenario's premise). The command runs in a real
// pseudo-terminal of 80×24 (util-linux `script`), with Redis started by the command itself, so
// the figure counts Node's start, the bundle, loading the scenario and Ink's first render. Then `q`.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** A POSIX shell word. */
const word = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

/** Milliseconds from spawning the command to the premise on screen; rejects after `timeoutMs`. */
export function tuiFirstFrameMs(
  bin: string,
  scenario: string,
  o: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<number> {
  const command = `stty cols 80 rows 24; exec ${word(process.execPath)} ${word(bin)} tui ${word(scenario)}`;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, TERM: 'xterm-256color', ...o.env },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let seen = '';
    let frameMs: number | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no first frame within ${o.timeoutMs ?? 10_000} ms`));
    }, o.timeoutMs ?? 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      if (frameMs !== undefined) return;
      seen += chunk.toString('utf8');
      if (!seen.includes('the premise')) return;
      frameMs = performance.now() - started;
      child.stdin.write('q');
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', () => {
      clearTimeout(timer);
      if (frameMs === undefined) reject(new Error(`lqsim tui ended before its first frame: ${seen.slice(-200)}`));
      else resolve(frameMs);
    });
  });
}
