// runTui draws its first frame before it has a Redis: the premise comes from the scenario as
// loaded, the server is asked for once the frame is on screen, and a Redis that cannot be had
// closes the UI and surfaces as the error the CLI prints (exit 1), the screen restored.
import { describe, expect, it } from 'vitest';
import { RedisUnavailableError } from '../../src/redis/errors.ts';
import type { RedisTarget } from '../../src/scenarios/runner.ts';

// Ink draws only the last frame when CI is set (is-in-ci, read when Ink is first imported); the
// CLI refuses the TUI there, so these tests run as on a person's terminal. This file has its own
// module graph, so Ink is imported here (run-tui and fake-terminal both import it), after the change.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
const { runTui } = await import('../../src/tui/run-tui.ts');
const { FakeStdin, FakeStdout, waitForFrame } = await import('./fake-terminal.ts');

describe('lqsim tui before Redis is up', () => {
  it('shows the premise at once, and closes with Redis’ own error when there is none', async () => {
    const stdout = new FakeStdout(80, 24);
    const stderr = new FakeStdout(80, 24);
    let asked = false;
    let fail: (e: Error) => void = () => {};
    const ui = runTui({
      scenario: 'timeout-max-attempts',
      stdin: new FakeStdin() as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stderr: stderr as unknown as NodeJS.WriteStream,
      env: { FORCE_COLOR: '0' },
      // A Redis that takes its time, then turns out not to be there.
      withRedis: <T>(_fn: (server: RedisTarget) => Promise<T>): Promise<T> => {
        asked = true;
        return new Promise<T>((_resolve, reject) => (fail = reject));
      },
    });
    const screen = (): string => stdout.frames.join('');
    const frame = await waitForFrame(screen, (f) => f.includes('the premise'));
    expect(frame).toContain('A job outlives --timeout');
    expect(frame).toContain('Laravel 5.7 profile');
    expect(frame).toContain('starting');
    expect(asked).toBe(true);

    fail(new RedisUnavailableError(['local redis-server: not found']));
    await expect(ui).rejects.toBeInstanceOf(RedisUnavailableError);
    // Back on the shell's screen (the alternate screen left, the cursor shown), and no run summary.
    expect(stdout.frames.at(-1)).toContain('\x1b[?1049l');
    expect(stderr.frames.join('')).not.toContain('timeout-max-attempts:');
  });

  it('shows the premise under the profile --laravel names', async () => {
    const stdout = new FakeStdout(80, 24);
    let fail: (e: Error) => void = () => {};
    const ui = runTui({
      scenario: 'timeout-max-attempts',
      laravel: '8',
      stdin: new FakeStdin() as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stderr: new FakeStdout(80, 24) as unknown as NodeJS.WriteStream,
      env: { FORCE_COLOR: '0' },
      withRedis: <T>(): Promise<T> => new Promise<T>((_resolve, reject) => (fail = reject)),
    });
    const frame = await waitForFrame(
      () => stdout.frames.join(''),
      (f) => f.includes('the premise'),
    );
    expect(frame).toContain('Laravel 8 profile');
    fail(new RedisUnavailableError(['none']));
    await expect(ui).rejects.toBeInstanceOf(RedisUnavailableError);
  });
});
