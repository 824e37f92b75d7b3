// A terminal for end-to-end tests: a detached tmux session on a server socket of our own (nobody
// else's tmux is touched, and no socket is left in /tmp/tmux-*), driven with send-keys and read
// with capture-pane.
import { spawnSync } from 'node:child_process';

export function tmuxAvailable(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

export class Tmux {
  /** `socket`: a path for the server's socket, in a directory the test removes afterwards. */
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly socket: string,
  ) {}

  run(...args: string[]): string {
    const r = spawnSync('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: this.env });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr.trim()}`);
    return r.stdout;
  }

  start(command: string, columns: number, rows: number): void {
    this.run('new-session', '-d', '-s', 'e2e', '-x', String(columns), '-y', String(rows), command);
    this.run('set-option', '-t', 'e2e', 'status', 'off');
  }

  keys(...keys: string[]): void {
    this.run('send-keys', '-t', 'e2e', ...keys);
  }

  screen(): string {
    return this.run('capture-pane', '-p', '-t', 'e2e');
  }

  /** A tmux format of the pane: #{alternate_on}, #{cursor_flag}, #{pane_pid}... */
  format(f: string): string {
    return this.run('display-message', '-p', '-t', 'e2e', f).trim();
  }

  async waitFor(test: (screen: string) => boolean, what: string, ms = 20_000): Promise<string> {
    const until = Date.now() + ms;
    let screen = '';
    while (Date.now() < until) {
      screen = this.screen();
      if (test(screen)) return screen;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}; the screen was:\n${screen}`);
  }

  kill(): void {
    spawnSync('tmux', ['-S', this.socket, 'kill-server'], { env: this.env });
  }
}
