// lqsim explain --tui on a Redis Cluster's capture (one file per node), at 80x24: the premise says
// it is a cluster, each step shows the node of the connection that sent it, and the state pane
// shows the hash-tagged queue's keys as the merged capture left them, replayed on a private
// redis-server.
import { describe, expect, it } from 'vitest';
import type { NodeCapture } from '../../src/explain/cluster-capture.ts';

// Ink draws only the last frame when CI is set: see run-tui.test.ts.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
const { KEYS, settle, waitForFrame } = await import('../tui/fake-terminal.ts');
const { replayTui } = await import('../tui/replay-tui.ts');

const DIR = new URL('../fixtures/explain/cluster/hash-tag/', import.meta.url).pathname;

describe('lqsim explain --tui node1.txt node2.txt node3.txt', () => {
  it("names each step's node at 80x24, beside the replayed state", async () => {
    const nodes: NodeCapture[] = ['node1', 'node2', 'node3'].map((label) => ({ label, file: `${DIR}${label}.txt` }));
    const { ui, stdin, all } = await replayTui(nodes, 'node1.txt + node2.txt + node3.txt', 80, 24);
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
