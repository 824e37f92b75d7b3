// A terminal driven by a program: a detached tmux session on a server socket of our own (nobody
// else's tmux is touched, and no socket is left in /tmp/tmux-*), driven with send-keys and read
// with capture-pane. Used by the end-to-end tests and by the README screenshot script.
import { spawnSync } from 'node:child_process';

export function tmuxAvailable(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

export class Tmux {
  /** `socket`: a path for the server's socket, in a directory the test removes afterwards. */
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly socket: string,
    private readonly session = 'e2e',
  ) {}

  run(...args: string[]): string {
    const r = spawnSync('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: this.env });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr.trim()}`);
    return r.stdout;
  }

  start(command: string, columns: number, rows: number): void {
    this.run('new-session', '-d', '-s', this.session, '-x', String(columns), '-y', String(rows), command);
    this.run('set-option', '-t', this.session, 'status', 'off');
  }

  keys(...keys: string[]): void {
    this.run('send-keys', '-t', this.session, ...keys);
  }

  screen(): string {
    return this.run('capture-pane', '-p', '-t', this.session);
  }

  /** The screen with its colours (SGR escapes), as `capture-pane -e` gives it. */
  screenWithColours(): string {
    return this.run('capture-pane', '-e', '-p', '-t', this.session);
  }

  /** Whether the session (the program in it) is still there. */
  alive(): boolean {
    return spawnSync('tmux', ['-S', this.socket, 'has-session', '-t', this.session], { env: this.env }).status === 0;
  }

  /** A tmux format of the pane: #{alternate_on}, #{cursor_flag}, #{pane_pid}... */
  format(f: string): string {
    return this.run('display-message', '-p', '-t', this.session, f).trim();
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
