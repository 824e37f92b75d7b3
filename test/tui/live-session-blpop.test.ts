// A reader who pauses the live TUI longer than block_for must not change what Redis does: while
// a worker waits in a BLPOP that the server would time out in real time, the session does not
// hold the run; those steps are shown from the record as the reader advances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { LiveSession } from '../../src/tui/live-session.ts';

let redis: RedisServer;
beforeAll(async () => {
  redis = await acquireRedis();
});
afterAll(async () => {
  await redis.stop();
});

// block_for 1 (real second), so a 1.6 s pause would let the server time the BLPOP out.
const { spec } = parseScenario(
  `
name: inline
title: inline
until: 3
connections:
  redis: { queue: default, retry_after: 90, block_for: 1 }
workers:
  - { name: worker-1, sleep: 3 }
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 0, note: the worker blocks }
  - { at: 1, dispatch: J }
`,
  'inline.yaml',
);

describe('live session with a pending BLPOP', () => {
  it('does not hold the run while the BLPOP could time out on the server; the trace is unchanged', async () => {
    const session = new LiveSession((onStep) => runScenario(spec, { redis, onStep }));
    const ended = session.start();
    session.request(1); // the reader looks at step #0 (the BLPOP) ...
    await new Promise((r) => setTimeout(r, 1600)); // ... for longer than block_for
    session.request(Infinity);
    const t = await ended;
    expect(t.warnings).toEqual([]);
    // The push at t+1 woke the BLPOP (not a real-time timeout at t+0).
    expect(t.steps.map((s) => [s.t - t.start, s.actor, s.kind])).toEqual([
      [0, 'worker-1', 'block'],
      [1, 'dispatcher', 'dispatch'],
      [1, 'worker-1', 'pop'],
      [1, 'worker-1', 'delete'],
      [1, 'worker-1', 'block'],
      [2, 'worker-1', 'pop'],
    ]);
  });
});
