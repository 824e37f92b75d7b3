// Everything the App draws for one (timeline, cursor, options), computed in one place from the
// session's snapshot. Pure, so a test can check what each pane holds without rendering.
import { jobLabels, relTime } from '../output/describe.ts';
import type { Step } from '../scenarios/timeline.ts';
import { findProfile } from '../sim/profiles/index.ts';
import type { DetailContext } from './detail-lines.ts';
import type { Layout } from './layout.ts';
import { paneBody } from './layout.ts';
import type { SessionSnapshot } from './live-session.ts';
import type { NarrationContext } from './narration-lines.ts';
import { fittedNarration, narrationHeading } from './narration-lines.ts';
import type { Line } from './segments.ts';
import { runningTwiceLines } from './running-twice.ts';
import { wrapAll } from './segments.ts';
import type { StateContext } from './state-lines.ts';
import { fittedStateLines } from './state-lines.ts';
import type { TraceContext } from './trace-rows.ts';
import { traceRowCount } from './trace-window.ts';
import type { UiState } from './ui-state.ts';
import { cursorOf } from './ui-state.ts';

export interface ViewModel {
  cursor: number;
  step: Step | undefined;
  finished: boolean;
  start: number;
  clock: string;
  /** What the trace pane builds its rows with (trace-window.ts builds those in view). */
  trace: TraceContext;
  /** Trace rows of steps 0..cursor. */
  traceRows: number;
  stateTitle: string;
  /** The running-twice alert: drawn above the state lines, never scrolled away while both runs last. */
  statePinned: Line[];
  /** The state pane's lines below the alert (what scrolls). */
  stateLines: Line[];
  narration: Line[];
  narrationHeading: string;
  detail: DetailContext;
  workers: string[];
}

export function viewModel(snap: SessionSnapshot, ui: Pick<UiState, 'target'>, layout: Layout): ViewModel {
  const { steps, timeline } = snap;
  const finished = snap.status === 'finished' || snap.status === 'stopped';
  const cursor = cursorOf(ui.target, steps.length);
  const step = steps[cursor];
  const start = timeline?.start ?? step?.t ?? 0;
  const labels = jobLabels({ jobs: timeline?.jobs ?? [] });
  const scripts = findProfile(timeline?.profile)?.scripts ?? {};
  const narrationCtx: NarrationContext = {
    start,
    atEnd: finished && cursor === steps.length - 1,
    jobs: timeline?.jobs ?? [],
    error: snap.error,
    warnings: timeline?.warnings ?? [],
  };
  const stateBody = paneBody(layout.stateWidth, layout.mainRows);
  const narrationWidth = layout.columns - 2;
  return {
    cursor,
    step,
    finished,
    start,
    clock: step === undefined ? 't+0s' : relTime(step.t, start),
    trace: { start, labels },
    traceRows: step === undefined ? 0 : traceRowCount(steps, start, cursor),
    stateTitle: step === undefined ? 'State' : stateTitle(step, start, layout.stateWidth),
    ...stateParts(
      step,
      {
        start,
        capture: timeline?.server.kind === 'capture',
        appClock: timeline?.appClockApart === true,
        jobs: timeline?.jobs ?? [],
      },
      stateBody,
    ),
    narration: step === undefined ? [] : fittedNarration(step, narrationCtx, narrationWidth, layout.narrationRows),
    narrationHeading: step === undefined ? '' : narrationHeading(step, start),
    detail: { timeline: { start, steps }, labels, scripts, narration: narrationCtx },
    workers: (step?.state.workers ?? []).map((w) => w.name),
  };
}

/** The state pane's lines, the running-twice alert (which stateLines puts first) apart. */
function stateParts(
  step: Step | undefined,
  ctx: StateContext,
  body: { width: number; rows: number },
): Pick<ViewModel, 'statePinned' | 'stateLines'> {
  if (step === undefined) return { statePinned: [], stateLines: [] };
  const lines = fittedStateLines(step.state, ctx, body.width, body.rows);
  const pinned = wrapAll(runningTwiceLines(step.state.workers, body.width), body.width).length;
  return { statePinned: lines.slice(0, pinned), stateLines: lines.slice(pinned) };
}

/** The state pane's title: the virtual clock, and which step's snapshot it is when there is room. */
function stateTitle(step: Step, start: number, width: number): string {
  const clock = relTime(step.state.t, start);
  return width >= 44 ? `State after #${step.index} · ${clock}` : `State · ${clock}`;
}
