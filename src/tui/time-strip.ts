// A time strip per job a worker holds, runs or was killed running: its reservation (from the pop
// until the :reserved score, when retry_after runs out), its handle() run (so far, and on to its
// expected end) and the alarm (--timeout), on one time axis shared by every strip of the step, so
// "timeout must be shorter than retry_after" reads at a glance (seed 001):
//
//   ▕█████████┃▓▓▓▓    ✕        ▏   handle() ran past the expiry ┃; the alarm ✕ comes too late
//   ┃ expired t+30 · ends t+45 · ✕ alarm t+60
//
// Glyphs, not colours, carry the meaning (NO_COLOR): █ handle() so far, ▓ handle() still to run,
// ░ reserved without handle() running, ┃ the reservation expires, ✕ the alarm fires. Pure.
import { relTime } from '../output/describe.ts';
import type { StateSnapshot, WorkerState } from '../scenarios/timeline.ts';
import type { Line, Segment } from './segments.ts';
import { kept, seg } from './segments.ts';

/** One job on one worker, as the snapshot tells it (unix seconds). */
export interface JobWindow {
  worker: string;
  job: string;
  /** The reservation: from the pop (score − retry_after) to the :reserved score; null if unknown. */
  reserved: { from: number; until: number; gone: boolean } | null;
  /** handle(): from `from` to `ends` (its expected end) or, unknown, so far. */
  run: { from: number; ends: number | null } | null;
  /** SIGALRM, when armed. */
  alarm: number | null;
}

export const GLYPH = { ran: '█', toRun: '▓', reserved: '░', expiry: '┃', alarm: '✕' } as const;

/**
 * The windows of a snapshot, per worker in order: a worker holding a job (reserved, handle() next),
 * running one, or killed while running one (its reservation waits for retry_after). The reservation
 * is the job's :reserved entry for that attempt; when it is gone (migrated back after it expired,
 * re-reserved by another worker), it is the pop's: handle() started at the pop's second.
 */
export function jobWindows(state: StateSnapshot): JobWindow[] {
  const out: JobWindow[] = [];
  for (const w of state.workers) {
    const s = w.status;
    if (s.kind === 'running' || s.kind === 'reserved') {
      const score = reservedScore(state, s.job, s.attempt);
      const run = s.kind === 'running' ? { from: s.since, ends: s.ends ?? null } : null;
      const reserved = reservation(w, score, run?.from ?? null);
      // Held but no longer reserved (failed before handle(): MaxAttemptsExceededException): nothing to draw.
      if (reserved === null && run === null) continue;
      out.push({ worker: w.name, job: s.job, reserved, run, alarm: s.kind === 'running' ? (s.alarm ?? null) : null });
    } else if (s.kind === 'killed' && s.job !== undefined) {
      const score = reservedScore(state, s.job, null);
      if (score !== null)
        out.push({ worker: w.name, job: s.job, reserved: reservation(w, score, null), run: null, alarm: null });
    }
  }
  return out;
}

function reservedScore(state: StateSnapshot, job: string, attempt: number | null): number | null {
  for (const q of state.queues)
    for (const e of q.reserved) if (e.job === job && (attempt === null || e.attempts === attempt)) return e.score;
  return null;
}

function reservation(w: WorkerState, score: number | null, runFrom: number | null): JobWindow['reserved'] {
  if (w.retryAfter === null) return null;
  if (score !== null) return { from: score - w.retryAfter, until: score, gone: false };
  // The pop script's score was time() + retry_after, time() being the second handle() began in.
  if (runFrom === null) return null;
  const popped = Math.floor(runFrom);
  return { from: popped, until: popped + w.retryAfter, gone: true };
}

/** The axis every strip of a step shares: from the earliest start to the latest deadline (and now). */
export function axisOf(windows: readonly JobWindow[], now: number): { from: number; to: number } {
  const times = [now];
  for (const w of windows) {
    if (w.reserved) times.push(w.reserved.from, w.reserved.until);
    if (w.run) times.push(w.run.from, w.run.ends ?? now);
    if (w.alarm !== null) times.push(w.alarm);
  }
  const from = Math.min(...times);
  const to = Math.max(...times);
  return { from, to: to > from ? to : from + 1 };
}

/** The bar: `cells` characters, one per slice of the axis. */
export function stripCells(w: JobWindow, axis: { from: number; to: number }, now: number, cells: number): string {
  const n = Math.max(1, cells);
  const span = axis.to - axis.from;
  const at = (t: number): number => Math.max(0, Math.min(n - 1, Math.floor(((t - axis.from) / span) * n)));
  const chars: string[] = [];
  for (let i = 0; i < n; i++) {
    const mid = axis.from + ((i + 0.5) * span) / n;
    const runEnd = w.run ? (w.run.ends ?? now) : 0;
    const running = w.run !== null && mid >= w.run.from && mid < runEnd;
    const reserved = w.reserved !== null && mid >= w.reserved.from && mid < w.reserved.until;
    chars.push(running ? (mid < now ? GLYPH.ran : GLYPH.toRun) : reserved ? GLYPH.reserved : ' ');
  }
  // A run that started this very instant still shows where it begins.
  if (w.run !== null && chars.every((c) => c !== GLYPH.ran && c !== GLYPH.toRun)) chars[at(w.run.from)] = GLYPH.toRun;
  if (w.reserved) chars[at(w.reserved.until)] = GLYPH.expiry;
  if (w.alarm !== null) chars[at(w.alarm)] = GLYPH.alarm;
  return chars.join('');
}

/**
 * Whether this job can run twice at once: its reservation runs out before handle() ends or the
 * alarm kills the worker (no alarm: it never does). Unknown ends count as safe.
 */
export function outlivesReservation(w: JobWindow): boolean {
  if (w.reserved === null || w.run === null) return false;
  const stops = Math.min(w.run.ends ?? -Infinity, w.alarm ?? Infinity);
  return stops > w.reserved.until;
}

/** Below this width the caption names the marks by their glyphs only (the help has the legend). */
const WORDS_FROM = 40;

/** The strip's two lines: the bar, and its marks in time order (`┃ expired t+30s · ends t+45s · ✕ alarm t+60s`). */
export function timeStripLines(
  w: JobWindow,
  axis: { from: number; to: number },
  now: number,
  start: number,
  width: number,
  indent = 2,
): Line[] {
  const cells = Math.max(8, width - indent - 2);
  const bar: Line = [
    seg(' '.repeat(indent)),
    seg('▕', 'dim'),
    ...colourCells(stripCells(w, axis, now, cells)),
    seg('▏', 'dim'),
  ];
  const words = width >= WORDS_FROM;
  const late = outlivesReservation(w);
  const marks: Array<[number, Segment]> = [];
  if (w.reserved) {
    const when = w.reserved.until <= now ? 'expired' : 'expires';
    const text = words
      ? `${GLYPH.expiry} ${when} ${relTime(w.reserved.until, start)}`
      : `${GLYPH.expiry} ${relTime(w.reserved.until, start)}`;
    marks.push([w.reserved.until, kept(text, late ? 'warn' : 'dim')]);
  }
  if (w.run?.ends != null)
    marks.push([w.run.ends, kept(`${words ? 'ends' : 'end'} ${relTime(w.run.ends, start)}`, 'dim')]);
  if (w.alarm !== null)
    marks.push([
      w.alarm,
      kept(`${GLYPH.alarm}${words ? ' alarm' : ''} ${relTime(w.alarm, start)}`, late ? 'warn' : 'dim'),
    ]);
  else if (w.run !== null)
    marks.push([Infinity, kept(words ? 'no alarm' : `${GLYPH.alarm} none`, late ? 'warn' : 'dim')]);
  marks.sort((a, b) => a[0] - b[0]);
  const caption: Line = [seg(' '.repeat(indent))];
  marks.forEach(([, m], i) => {
    if (i > 0) caption.push(seg(words ? ' · ' : '  ', 'dim'));
    caption.push(m);
  });
  return marks.length === 0 ? [bar] : [bar, caption];
}

function colourCells(cells: string): Segment[] {
  const out: Segment[] = [];
  for (const ch of cells) {
    const tone =
      ch === GLYPH.ran || ch === GLYPH.toRun ? 'bold' : ch === GLYPH.alarm || ch === GLYPH.expiry ? 'warn' : 'dim';
    const last = out[out.length - 1];
    if (last !== undefined && last.tone === tone) last.text += ch;
    else out.push(seg(ch, tone));
  }
  return out;
}

/** Every strip of a snapshot by worker name (shared axis), each `width` wide. */
export function timeStrips(state: StateSnapshot, start: number, width: number): Map<string, Line[]> {
  const windows = jobWindows(state);
  const axis = axisOf(windows, state.t);
  return new Map(windows.map((w) => [w.worker, timeStripLines(w, axis, state.t, start, width)]));
}
