// The TUI's state pane on lqsim explain's capture whose app clock is far from Redis' (the
// conformance harness's virtual clock, Carbon::setTestNow at 1700000000 while MONITOR said
// 1795305900: case-a.monitor.txt): a :reserved score is a time the app sent, so the pane names the
// date it is on the app's clock and claims no expiry, as the text view's titles do. On a capture
// whose clock is Redis', and in a scenario's run, it says when the reservation expires.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { explainCapture } from '../../src/explain/index.ts';
import type { Step, Timeline, ZsetEntry } from '../../src/scenarios/timeline.ts';
import type { SessionSnapshot } from '../../src/tui/live-session.ts';
import { layoutFor } from '../../src/tui/layout.ts';
import { lineText } from '../../src/tui/segments.ts';
import { viewModel } from '../../src/tui/view-model.ts';

/** The state pane's text for one step at `t` holding one reserved job with `score`. */
function statePane(
  kind: 'capture' | 'local',
  t: number,
  score: number,
  o: { columns?: number; rows?: number; appClockApart?: boolean } = {},
): string {
  const reserved: ZsetEntry = { job: 'ProbeJob#1', attempts: 1, raw: '{}', score };
  const step: Step = {
    index: 0,
    t,
    actor: 'worker-1',
    kind: 'pop',
    title: 'pop: reserved ProbeJob#1 (attempts 1)',
    methods: [],
    commands: [],
    state: {
      t,
      queues: [
        {
          name: 'default',
          keys: { ready: 'queues:default', delayed: 'queues:default:delayed', reserved: 'queues:default:reserved' },
          sizes: { ready: 0, delayed: 0, reserved: 1 },
          ready: [],
          delayed: [],
          reserved: [reserved],
        },
      ],
      workers: [],
      failed: [],
      executions: {},
    },
  };
  const timeline: Timeline = {
    scenario: { name: 'case-a.monitor.txt', title: 'a MONITOR capture', file: 'case-a.monitor.txt' },
    profile: '8',
    start: Math.floor(t),
    server: { kind, version: '', describe: kind },
    steps: [step],
    jobs: [],
    failed: [],
    warnings: [],
    ...(o.appClockApart === true ? { appClockApart: true } : {}),
  };
  const snap: SessionSnapshot = { status: 'finished', steps: [step], timeline };
  return viewModel(snap, { target: 0, raw: false } as never, layoutFor(o.columns ?? 160, o.rows ?? 45))
    .stateLines.map(lineText)
    .join('\n');
}

describe('the state pane on a capture whose app clock is not Redis', () => {
  it("names a reservation's end as the app's date, never 'expired 95305810s ago'", () => {
    for (const [columns, rows] of [
      [160, 45],
      [80, 24],
    ] as const) {
      const pane = statePane('capture', 1795305900.717, 1700000090, { columns, rows, appClockApart: true });
      expect(pane.replace(/\s+/g, ' ')).toContain("2023-11-14 22:14:50 UTC · app's clock");
      expect(pane).not.toMatch(/expire|t-\d/);
    }
  });

  it("names the app's date on a host whose clock is a few minutes off, which the capture's configuration told", () => {
    // The worker's migrate said now = MONITOR's second - 200: its pop's now + 90 is behind MONITOR's
    // instant, but the reservation has 90 s to run on the app's clock.
    const pane = statePane('capture', 1795570679.166, 1795570479 + 90, { appClockApart: true });
    expect(pane).toContain("2026-11-25 01:36:09 UTC · app's clock");
    expect(pane).not.toContain('expire');
  });

  it("says when it expires where the capture's clock is Redis' (within 30 days of MONITOR's)", () => {
    expect(statePane('capture', 1795570679.166, 1795570682)).toContain('t+3s · expires in 2.834s');
    // A worker's reservation that ran out: expired, on Redis' clock (t+ from the step's second here).
    expect(statePane('capture', 1795570683.777, 1795570682)).toContain('t-1s · expired 1.777s ago');
  });

  it("in a scenario's run (virtual time throughout) a far score is still a due time", () => {
    expect(statePane('local', 1700000000, 1700000000 + 40 * 86_400)).toContain('expires in 3456000s');
  });

  it("is told by lqsim explain's timeline when the capture's app clock is apart from MONITOR's", () => {
    const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
    // Carbon::setTestNow(1700000000) in the harness, MONITOR at 1795305900.
    expect(explainCapture(read('../../conformance/laravel/captures/case-a.monitor.txt')).timeline.appClockApart).toBe(
      true,
    );
    // Real Laravel on the real clock.
    expect(explainCapture(read('../fixtures/explain/laravel8-ran-twice.txt')).timeline.appClockApart).toBeUndefined();
  });
});
