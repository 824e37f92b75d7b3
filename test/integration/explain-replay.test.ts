// lqsim explain --tui's state pane: a real Laravel 8.83 capture replayed step by step on a private
// redis-server; the queues after each step, as derived by hand from the capture, are Redis' own.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { replayCapture } from '../../src/explain/replay.ts';
import { captureTimeline } from '../../src/explain/timeline.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import type { Step } from '../../src/scenarios/timeline.ts';

const FIXTURE = new URL('../fixtures/explain/laravel8-ran-twice.txt', import.meta.url).pathname;

// A private redis-server per test: each replay starts from an empty Redis, as the TUI's does.
let server: RedisServer;
beforeEach(async () => {
  server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
});
afterEach(async () => server?.stop());

async function replay(file: string): Promise<Step[]> {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .map((raw, i) => captureEntry(raw, i + 1))
    .filter((e): e is CapturedLine => e !== null && !isProblem(e));
  const config = captureConfiguration(lines);
  const { findings } = captureTimeline(lines, config, { file });
  const seen: Step[] = [];
  const timeline = await replayCapture({
    file,
    source: 'capture',
    config,
    problems: [],
    problemCount: 0,
    findings,
    url: server.url,
    onStep: async (step, sofar) => {
      // Each step arrives with its state, and the timeline holds exactly the steps so far.
      expect(sofar.steps.at(-1)).toBe(step);
      seen.push(step);
    },
  });
  expect(timeline.steps).toEqual(seen);
  return seen;
}

/** ready / :delayed / :reserved / :notify sizes, and the reserved entries as label@attempts. */
const queue = (s: Step) => {
  const q = s.state.queues[0]!;
  return {
    sizes: [q.sizes.ready, q.sizes.delayed, q.sizes.reserved, q.sizes.notify],
    reserved: q.reserved.map((e) => `${e.job}@${e.attempts}`),
  };
};

describe('replaying a capture for the state pane', () => {
  it('shows after each step what the capture did to the queue, in Redis itself', async () => {
    const steps = await replay(FIXTURE);
    expect(steps.map((s) => s.title)).toEqual([
      'push: ProbeJob#1 onto default',
      'pop: reserved ProbeJob#1 (attempts 1) until t+3s',
      'pop: reserved ProbeJob#1 (attempts 2) until t+6s',
      'delete: ProbeJob#1 (ZREM of its reserved copy)',
      'pop: no job on default',
      'delete: ProbeJob#1 (ZREM of its reserved copy)',
      'pop: no job on default',
    ]);
    // By hand: the push (ready 1, notify 1); worker-1's pop (reserved attempts 1, notify popped);
    // worker-2's migrate of the expired reservation and its pop (reserved attempts 2); worker-1's
    // ZREM of its attempts-1 copy removes nothing (the copy in :reserved is attempts 2); its empty
    // poll; worker-2's ZREM empties :reserved.
    expect(steps.map(queue)).toEqual([
      { sizes: [1, 0, 0, 1], reserved: [] },
      { sizes: [0, 0, 1, 0], reserved: ['ProbeJob#1@1'] },
      { sizes: [0, 0, 1, 0], reserved: ['ProbeJob#1@2'] },
      { sizes: [0, 0, 1, 0], reserved: ['ProbeJob#1@2'] },
      { sizes: [0, 0, 1, 0], reserved: ['ProbeJob#1@2'] },
      { sizes: [0, 0, 0, 0], reserved: [] },
      { sizes: [0, 0, 0, 0], reserved: [] },
    ]);
    expect(steps[1]!.state.queues[0]!.reserved[0]!.score).toBe(1795570682);
    // The findings are the notes of the steps holding the last line they cite (25, 27, 34).
    expect(steps[2]!.note).toMatch(
      /^finding: likely \(.*\): ProbeJob#1 reserved again by worker-2.*; or: max-attempts-exceeded, if /,
    );
    expect(steps[3]!.note).toMatch(
      /^finding: certain: worker-1 finished ProbeJob#1 \(attempt 1\) 5\.0 s after its pop/,
    );
    expect(steps[5]!.note).toMatch(/^finding: certain: worker-2 finished ProbeJob#1 \(attempt 2\)/);
    expect(steps[0]!.note).toBeUndefined();
  });

  it('says where the capture began after a job was queued (the replay has no job to give)', async () => {
    // The same capture without its first five lines ("OK", the web request's SELECT and push):
    // worker-1's pop got the job in the capture; in the replay the queue is empty.
    const dir = mkdtempSync(join(tmpdir(), 'replay-'));
    const cut = join(dir, 'cut.txt');
    writeFileSync(cut, readFileSync(FIXTURE, 'utf8').split('\n').slice(5).join('\n'));
    try {
      const steps = await replay(cut);
      expect(steps[0]!.title).toBe('pop: reserved ProbeJob#1 (attempts 1) until t+3s');
      expect(steps[0]!.note).toMatch(/replay: this pop got a job in the capture, but the replay had none to give/);
      expect(queue(steps[0]!).sizes).toEqual([0, 0, 0, 0]);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
