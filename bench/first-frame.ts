// Figure 4 of the bench: from "Redis is up" to the TUI's first frame that shows step #0, in
// process, on an 80×24 fake terminal. It counts what `lqsim tui <scenario>` does once it has a
// server: loading the scenario, running step #0 against Redis (connections, MONITOR, the
// barrier, the snapshot) and Ink's render of it. The CLI imports the UI before it asks for a
// server (src/cli.ts tuiCommand), so that import is measured apart.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { RedisServer } from '../src/redis/server.ts';

class FakeStdout extends EventEmitter {
  isTTY = true;
  columns = 80;
  rows = 24;
  constructor(private readonly onWrite: (frame: string) => void) {
    super();
  }
  write = (frame: string): boolean => {
    this.onWrite(frame);
    return true;
  };
}

class FakeStdin extends EventEmitter {
  isTTY = true;
  read = (): null => null;
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

export async function firstFrameMs(
  server: RedisServer,
  scenario = 'timeout-max-attempts',
): Promise<{ importMs: number; frameMs: number }> {
  const i0 = performance.now();
  const [
    { createElement },
    { render },
    { App },
    { LiveSession },
    { resolveScenario },
    { loadScenarioFile },
    { runScenario },
  ] = await Promise.all([
    import('react'),
    import('ink'),
    import('../src/tui/App.tsx'),
    import('../src/tui/live-session.ts'),
    import('../src/scenarios/catalog.ts'),
    import('../src/scenarios/load.ts'),
    import('../src/scenarios/runner.ts'),
  ]);
  const t0 = performance.now();
  const importMs = t0 - i0;
  const file = await resolveScenario(scenario);
  const session = new LiveSession(async (onStep) =>
    runScenario((await loadScenarioFile(file)).spec, { redis: server, file, onStep }),
  );
  void session.start().catch(() => undefined);
  let shown: number | undefined;
  let resolveShown: () => void = () => {};
  const seen = new Promise<void>((r) => (resolveShown = r));
  // Step #0 of timeout-max-attempts dispatches ImportCsv#1 with an RPUSH: the frame shows it.
  const stdout = new FakeStdout((frame) => {
    if (shown === undefined && frame.includes('RPUSH')) {
      shown = performance.now();
      resolveShown();
    }
  });
  const app = render(createElement(App, { session, scenario, colour: false }), {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: new FakeStdin() as unknown as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const timeout = setTimeout(resolveShown, 10_000);
  await seen;
  clearTimeout(timeout);
  app.unmount();
  await session.stop();
  if (shown === undefined) throw new Error('the TUI never showed step #0 within 10 s');
  return { importMs, frameMs: shown - t0 };
}
