// lqsim explain --tui: the terminal UI over a capture replayed on a private redis-server. The
// premise is the capture's configuration and findings; each step shows Redis' own state after the
// captured commands, and the finding it is the evidence for.
import { describe, expect, it } from 'vitest';

// Ink draws only the last frame when CI is set: see run-tui.test.ts.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
const { KEYS, settle, waitForFrame } = await import('./fake-terminal.ts');
const { replayTui } = await import('./replay-tui.ts');

const FIXTURE = new URL('../fixtures/explain/laravel8-ran-twice.txt', import.meta.url).pathname;

describe('lqsim explain --tui', () => {
  it('steps through a real capture with the replayed state and the findings', async () => {
    const { ui, stdin, stderr, all } = await replayTui(FIXTURE, 'ran-twice.txt', 100, 30);
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
