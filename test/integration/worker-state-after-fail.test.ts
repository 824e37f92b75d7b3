// A step's state says what each worker holds once the step is over. The failure that
// markJobAsFailedIfAlreadyExceedsMaxAttempts makes before handle() (Worker::process, seed 002)
// sends its ZREM in its own step, so from then on the worker holds nothing: it is done with the
// job and polls next, as after any other outcome (not still "holds …: handle() next").
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { runShipped, useRedis } from '../helpers/run.ts';

const redis = useRedis();

describe("the worker's status after a job fails before it runs", () => {
  it('timeout-max-attempts (5.7): each step leaves worker-1 as Worker::daemon has it, ending done with ImportCsv#1', async () => {
    const t = await runShipped('timeout-max-attempts', redis());
    const s = t.start;
    const statuses = t.steps.map((step) => [step.kind, step.state.workers[0]!.status]);
    // By hand from the scenario (tries 1, timeout 60, sleep 10, retry_after 90, handle() 120 s):
    expect(statuses).toEqual([
      ['dispatch', { kind: 'starting' }],
      // The pop at t+0 reserves attempts 1; handle() would end at t+120 but the alarm is at t+60.
      ['pop', { kind: 'reserved', job: 'ImportCsv#1', attempt: 1 }],
      ['process', { kind: 'running', job: 'ImportCsv#1', since: s, attempt: 1, ends: s + 120, alarm: s + 60 }],
      ['kill', { kind: 'killed', job: 'ImportCsv#1' }],
      ['restart', { kind: 'starting' }],
      // The new process finds nothing until the reservation (score t+90) expires.
      ['pop', { kind: 'idle', until: s + 70 }],
      ['pop', { kind: 'idle', until: s + 80 }],
      ['pop', { kind: 'idle', until: s + 90 }],
      ['pop', { kind: 'reserved', job: 'ImportCsv#1', attempt: 2 }],
      // attempts 2 > tries 1: failed (ZREM) before handle(); the worker holds the job no longer.
      ['fail', { kind: 'done', job: 'ImportCsv#1' }],
    ]);
    expect(t.steps.at(-1)!.state.failed.map((f) => f.job)).toEqual(['ImportCsv#1']);
  });

  it('8.x: the worker that re-popped a job past its tries is done with it in the failing step', async () => {
    // One worker, tries 1, retry_after 5: its handle() (20 s, no alarm) outlives the reservation,
    // so a second worker starting at t+6 migrates and pops it as attempts 2 and fails it at once.
    const { spec } = parseScenario(
      `
name: inline
title: inline
laravel: "8"
connections: { redis: { queue: default, retry_after: 5 } }
workers:
  - { name: worker-1, tries: 1, timeout: 0 }
  - { name: worker-2, tries: 1, timeout: 0, start: 6 }
jobs:
  J: { class: App\\Jobs\\J, attempts: [{ run: 20 }] }
timeline:
  - { at: 0, dispatch: J }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    const fail = t.steps.find((step) => step.kind === 'fail' && step.actor === 'worker-2');
    expect(fail).toBeDefined();
    const w2 = fail!.state.workers.find((w) => w.name === 'worker-2')!;
    expect(w2.status).toEqual({ kind: 'done', job: 'J#1' });
    // worker-1 is still in its handle() of attempt 1 (t+0 to t+20).
    const w1 = fail!.state.workers.find((w) => w.name === 'worker-1')!;
    expect(w1.status).toMatchObject({ kind: 'running', job: 'J#1', attempt: 1 });
  });
});
