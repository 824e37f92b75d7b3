// lqsim explain --tui: the terminal UI over a capture replayed on a private redis-server. The
// premise is the capture's configuration and findings; each step shows Redis' own state after the
// captured commands, and the finding it is the evidence for.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { replayCapture } from '../../src/explain/replay.ts';
import { captureTimeline } from '../../src/explain/timeline.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import type { RedisTarget } from '../../src/scenarios/runner.ts';

// Ink draws only the last frame when CI is set: see run-tui.test.ts.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
const { runTui } = await import('../../src/tui/run-tui.ts');
const { FakeStdin, FakeStdout, KEYS, settle, waitForFrame } = await import('./fake-terminal.ts');

const FIXTURE = new URL('../fixtures/explain/laravel8-ran-twice.txt', import.meta.url).pathname;

describe('lqsim explain --tui', () => {
  it('steps through a real capture with the replayed state and the findings', async () => {
    const lines = readFileSync(FIXTURE, 'utf8')
      .split('\n')
      .map((raw, i) => captureEntry(raw, i + 1))
      .filter((e): e is CapturedLine => e !== null && !isProblem(e));
    const config = captureConfiguration(lines);
    const { timeline, findings } = captureTimeline(lines, config, { file: 'ran-twice.txt' });
    const stdin = new FakeStdin();
    const stdout = new FakeStdout(100, 30);
    const stderr = new FakeStdout(100, 30);
    const ui = runTui({
      replay: {
        name: 'ran-twice.txt',
        premise: { scenario: timeline.scenario, profile: timeline.profile },
        run: (server, onStep) =>
          replayCapture({
            file: FIXTURE,
            source: 'ran-twice.txt',
            config,
            problems: [],
            problemCount: 0,
            findings,
            url: server.url,
            onStep,
          }),
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
    const all = (): string => stdout.frames.join('');
    await waitForFrame(all, (f) => f.includes('the premise') && f.includes('retry_after: 3 s'));
    expect(all()).toContain('Laravel 8 profile');
    stdin.write(KEYS.enter); // close the premise: step #0
    await waitForFrame(all, (f) => f.includes('push: ProbeJob#1 onto default'));
    for (const _ of [1, 2]) {
      await settle(60);
      stdin.write(KEYS.right);
    }
    // Step #2: worker-2 reserved attempt 2 while worker-1 ran attempt 1; Redis holds attempt 2.
    await waitForFrame(all, (f) => f.includes('worker-2 pop: reserved ProbeJob#1 (attempts 2)'));
    // The state pane's reserved entry (Redis' own, replayed) and the step's finding, its certainty first.
    await waitForFrame(
      all,
      (f) => f.includes('ProbeJob#1 attempts 2') && f.includes('finding: likely (worker-2 deleted it'),
    );
    stdin.write('q');
    await expect(ui).resolves.toBe(0);
    expect(stderr.frames.join('')).toMatch(
      /lqsim: ran-twice\.txt: stopped after step #2 \(t\+3\.777s\); lqsim explain ran-twice\.txt prints the whole trace/,
    );
  }, 20_000);
});
