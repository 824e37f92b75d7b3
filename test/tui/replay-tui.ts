// `lqsim explain --tui` as a test drives it: a capture file (or a cluster's, one file per node)
// read as the CLI reads it, its replay on a private redis-server of its own, and the TUI on a fake
// terminal. Import it after taking CI
// out of the environment (Ink draws only the last frame when CI is set: see run-tui.test.ts).
import type { CapturedLine } from '../../src/explain/capture.ts';
import { isProblem } from '../../src/explain/capture.ts';
import type { CaptureInput } from '../../src/explain/cluster-capture.ts';
import { forEachCaptureEntry } from '../../src/explain/cluster-capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { replayCapture } from '../../src/explain/replay.ts';
import { captureTimeline } from '../../src/explain/timeline.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import type { RedisTarget } from '../../src/scenarios/runner.ts';
import { runTui } from '../../src/tui/run-tui.ts';
import { FakeStdin, FakeStdout } from './fake-terminal.ts';

/** The TUI over `file`'s replay (a path, or node captures), named `name`, on a `columns`×`rows` fake terminal. */
export async function replayTui(
  file: string | Exclude<CaptureInput, string | number>,
  name: string,
  columns: number,
  rows: number,
) {
  const lines: CapturedLine[] = [];
  await forEachCaptureEntry(file, (e) => {
    if (!isProblem(e)) lines.push(e);
  });
  const config = captureConfiguration(lines, typeof file === 'string' ? {} : { nodes: file.map((n) => n.label) });
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
