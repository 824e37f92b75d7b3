// lqsim explain --tui on a Redis Cluster's capture (one file per node), at 80x24: the premise says
// it is a cluster, each step shows the node of the connection that sent it, and the state pane
// shows the hash-tagged queue's keys as the merged capture left them, replayed on a private
// redis-server.
import { describe, expect, it } from 'vitest';
import type { NodeCapture } from '../../src/explain/cluster-capture.ts';
import { forEachCaptureEntry } from '../../src/explain/cluster-capture.ts';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { replayCapture } from '../../src/explain/replay.ts';
import { captureTimeline } from '../../src/explain/timeline.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import type { RedisTarget } from '../../src/scenarios/runner.ts';

// Ink draws only the last frame when CI is set: see run-tui.test.ts.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
const { FakeStdin, FakeStdout, KEYS, settle, waitForFrame } = await import('../tui/fake-terminal.ts');
const { runTui } = await import('../../src/tui/run-tui.ts');

const DIR = new URL('../fixtures/explain/cluster/hash-tag/', import.meta.url).pathname;

describe('lqsim explain --tui node1.txt node2.txt node3.txt', () => {
  it("names each step's node at 80x24, beside the replayed state", async () => {
    const nodes: NodeCapture[] = ['node1', 'node2', 'node3'].map((label) => ({ label, file: `${DIR}${label}.txt` }));
    const lines: CapturedLine[] = [];
    await forEachCaptureEntry(nodes, (e) => {
      if (!isProblem(e)) lines.push(e);
    });
    const config = captureConfiguration(lines, { nodes: nodes.map((n) => n.label) });
    const name = 'node1.txt + node2.txt + node3.txt';
    const { timeline, findings } = captureTimeline(lines, config, { file: name });
    const stdin = new FakeStdin();
    const stdout = new FakeStdout(80, 24);
    const stderr = new FakeStdout(80, 24);
    const ui = runTui({
      replay: {
        name,
        premise: { scenario: timeline.scenario, profile: timeline.profile },
        run: (server, onStep) =>
          replayCapture({
            file: nodes,
            source: name,
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
    await waitForFrame(all, (f) => f.includes('the premise') && f.includes('cluster: 3 nodes'));
    stdin.write(KEYS.enter); // step #0: the worker's CLUSTER SLOTS on node1
    await waitForFrame(all, (f) => f.includes('seed-1@node1'));
    for (const _ of [1, 2, 3]) {
      await settle(60);
      stdin.write(KEYS.right);
    }
    // Step #3: the dispatcher's push on node2; Redis holds the job in the tagged queue.
    await waitForFrame(all, (f) => f.includes('dispatcher-1@node2') && f.includes('ProbeJob#1 attempts 0'));
    stdin.write('q');
    await expect(ui).resolves.toBe(0);
  }, 20_000);
});
