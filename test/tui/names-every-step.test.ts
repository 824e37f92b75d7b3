// Issue 25 items 7 and 10 on real runs: at every step of the scenarios where the session saw
// `laravel_database_queues:defau│lt` (killed-mid-job, chain, burst-and-priorities,
// block-for-wakeup on Laravel 8; the 5.7 names at 60×16), the state pane and the trace lines of
// the step shown break no key name inside a part and no `↻ process 2`, and the state pane lists
// the workers above the queues whenever it shows both.
import { beforeAll, describe, expect, it } from 'vitest';
import { jobLabels } from '../../src/output/describe.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { layoutFor, paneBody } from '../../src/tui/layout.ts';
import { lineText } from '../../src/tui/segments.ts';
import { traceLines } from '../../src/tui/trace-lines.ts';
import { buildTraceRows } from '../../src/tui/trace-rows.ts';
import { viewModel } from '../../src/tui/view-model.ts';
import { brokenNames } from '../helpers/broken-names.ts';
import { runFile, useRedis } from '../helpers/run.ts';

const RUNS: Array<[string, string]> = [
  ['killed-mid-job', '8'],
  ['chain', '8'],
  ['burst-and-priorities', '8'],
  ['block-for-wakeup', '8'],
  ['killed-mid-job', '5.7'],
  ['burst-and-priorities', '5.7'],
];
const SIZES = [
  [60, 16],
  [80, 24],
  [120, 40],
] as const;

const redis = useRedis();
const recorded = new Map<string, Timeline>();
beforeAll(async () => {
  for (const [name, laravel] of RUNS) {
    const t = await runFile(await resolveScenario(name), redis(), laravel);
    if (t.error !== undefined) throw new Error(`${name}@${laravel}: ${t.error}`);
    recorded.set(`${name}@${laravel}`, t);
  }
}, 120_000);

/** Every key name the run's queues have. */
function keysOf(t: Timeline): string[] {
  const keys = new Set<string>();
  for (const s of t.steps)
    for (const q of s.state.queues) for (const k of Object.values(q.keys)) if (k !== undefined) keys.add(k);
  return [...keys];
}

describe.each(RUNS)('%s on Laravel %s', (name, laravel) => {
  for (const [columns, rows] of SIZES) {
    it(`${columns}×${rows}: no name broken mid-word, workers above queues, at every step`, () => {
      const t = recorded.get(`${name}@${laravel}`)!;
      const keys = keysOf(t);
      expect(keys.some((k) => k.includes(':reserved'))).toBe(true);
      const layout = layoutFor(columns, rows);
      const labels = jobLabels(t);
      const snap = { status: 'finished' as const, steps: t.steps, timeline: t };
      const broken: string[] = [];
      for (const step of t.steps) {
        const vm = viewModel(snap, { target: step.index }, layout);
        const state = [...vm.statePinned, ...vm.stateLines].map(lineText);
        const rowsOfStep = buildTraceRows(t.steps, step.index, { start: t.start, labels }).filter(
          (r) => r.step === step.index,
        );
        const trace = traceLines(rowsOfStep, {
          width: paneBody(layout.traceWidth, layout.mainRows).width,
          start: t.start,
          rowPrefix: layout.rowPrefix,
          step: step.index,
          selected: null,
        }).map((l) => lineText(l.line));
        for (const b of [...brokenNames(state, keys), ...brokenNames(trace, keys)]) broken.push(`#${step.index} ${b}`);
        // `↻ process` at a line's end would have its number on the next line.
        for (const l of state) if (/↻ process$/.test(l.trimEnd())) broken.push(`#${step.index} ${l}`);
        const firstWorker = state.findIndex((l) => /^worker-\d+ (?!tries)/.test(l));
        const firstQueue = state.findIndex((l) => keys.includes(l.trim().split(/\s+/)[0]!) || /^\S*queues\b/.test(l));
        if (firstWorker >= 0 && firstQueue >= 0)
          expect(firstWorker, `#${step.index}: workers below the queues\n${state.join('\n')}`).toBeLessThan(firstQueue);
      }
      expect(broken).toEqual([]);
    });
  }
});
