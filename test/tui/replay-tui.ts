// `lqsim explain --tui` as a test drives it: a capture file read as the CLI reads it, its replay
// on a private redis-server of its own, and the TUI on a fake terminal. Import it after taking CI
// out of the environment (Ink draws only the last frame when CI is set: see run-tui.test.ts).
import { readFileSync } from 'node:fs';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { replayCapture } from '../../src/explain/replay.ts';
import { captureTimeline } from '../../src/explain/timeline.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import type { RedisTarget } from '../../src/scenarios/runner.ts';
import { runTui } from '../../src/tui/run-tui.ts';
import { FakeStdin, FakeStdout } from './fake-terminal.ts';

/** The TUI over `file`'s replay, named `name`, on a `columns`×`rows` fake terminal. */
export function replayTui(file: string, name: string, columns: number, rows: number) {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .map((raw, i) => captureEntry(raw, i + 1))
    .filter((e): e is CapturedLine => e !== null && !isProblem(e));
  const config = captureConfiguration(lines);
  const { timeline, findings } = captureTimeline(lines, config, { file: name });
  const stdin = new FakeStdin();
  const stdout = new FakeStdout(columns, rows);
  const stderr = new FakeStdout(columns, rows);
  const ui = runTui({
    replay: {
      name,
      premise: { scenario: timeline.scenario, profile: timeline.profile },
      run: (server, onStep) =>
        replayCapture({ file, source: name, config, problems: [], problemCount: 0, findings, url: server.url, onStep }),
    },
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    env: { FORCE_COLOR: '0' },
    withRedis: async <T>(fn: (server: RedisTarget) => Promise<T>): Promise<T> => {
      const server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
      try {
        return await fn(server);
      } finally {
        await server.stop();
      }
    },
  });
  return { ui, stdin, stdout, stderr, all: (): string => stdout.frames.join('') };
}
