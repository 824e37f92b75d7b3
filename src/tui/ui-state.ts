// What the person has chosen to look at, and how each key changes it. Pure: the App passes in
// what the screen currently holds (`View`) and asks the session for steps the state wants.
export type Overlay =
  | { kind: 'none' }
  | { kind: 'help'; top: number }
  /** The scenario's title and description: shown when the TUI opens on a scenario, and on P. */
  | { kind: 'premise'; top: number }
  | { kind: 'detail'; step: number; command: number | null; top: number; script: boolean };

export interface UiState {
  /** The step the person wants to see; Infinity: the last one, whatever it will be. */
  target: number;
  /** Selected trace row; null follows the newest row. */
  selected: number | null;
  focus: 'trace' | 'state';
  stateTop: number;
  overlay: Overlay;
  raw: boolean;
  playing: boolean;
  /** Index into SPEEDS. */
  speed: number;
  quit: boolean;
  /** N pressed and no later step that is not an idle poll has run yet: the step N started from. */
  skipFrom: number | null;
  /** While N runs on: the first step it has not looked at (those before it, after skipFrom, are idle polls). */
  skipSeen: number | null;
  /** b pressed: back to the scenario picker. */
  back: boolean;
  /** What the last key did that the screen does not show by itself ("skipped 14 idle polls"); the next key clears it. */
  notice: string | null;
}

/** Milliseconds between steps when playing. */
export const SPEEDS = [4000, 2000, 1000, 500, 250, 100] as const;

export const initialUiState: UiState = {
  target: 0,
  selected: null,
  focus: 'trace',
  stateTop: 0,
  overlay: { kind: 'none' },
  raw: false,
  playing: false,
  speed: 2,
  quit: false,
  skipFrom: null,
  skipSeen: null,
  back: false,
  notice: null,
};

export interface View {
  /** Steps run so far. */
  steps: number;
  /** No more steps will come. */
  finished: boolean;
  /** Trace rows up to the cursor, and how many fit. */
  rows: number;
  page: number;
  /** State pane lines and how many fit. */
  stateLines: number;
  statePage: number;
  /** Lines of the open overlay (help or details) and how many fit. */
  overlayLines: number;
  overlayPage: number;
  /** The step and command of the selected trace row. */
  selectedRow: { step: number; command: number | null } | null;
  /** Whether step i (run already) is an idle poll (idle-steps.ts); absent: none is. */
  idle?: (step: number) => boolean;
}

export type Action =
  | 'next'
  | 'prev'
  | 'start'
  | 'end'
  | 'up'
  | 'down'
  | 'pageUp'
  | 'pageDown'
  | 'top'
  | 'follow'
  | 'focus'
  | 'detail'
  | 'info'
  | 'script'
  | 'raw'
  | 'help'
  | 'close'
  | 'play'
  | 'faster'
  | 'slower'
  | 'skipIdle'
  | 'premise'
  | 'picker'
  | 'lab'
  | 'quit';

const clamp = (n: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, n));

/**
 * A new step: the trace follows its newest line again. The state pane keeps where the person
 * scrolled it (the queues, say, below the workers at 80×24), clamped to what the step has.
 */
function atStep(s: UiState, target: number): UiState {
  return { ...s, target, selected: null, skipFrom: null, skipSeen: null };
}

/**
 * N: the first step after the cursor that is not an idle poll. When every step run so far after
 * it is idle and the run goes on, ask for one more and remember where N started: the App sends
 * 'skipIdle' again as each step arrives, until a step that is not idle (or the end) arrives.
 */
function skipIdle(s: UiState, cursor: number, v: View): UiState {
  const from = s.skipFrom ?? cursor;
  // As each step arrives, only it is looked at: the ones before were idle polls (a long run on
  // would otherwise look at every one of them again at each new step).
  const seen = s.skipFrom !== null && s.skipSeen !== null && s.skipSeen <= v.steps ? s.skipSeen : from + 1;
  for (let i = seen; i < v.steps; i++) if (!(v.idle?.(i) ?? false)) return skipped(atStep(s, i), i - from - 1);
  if (v.finished) {
    const last = Math.max(0, v.steps - 1);
    // Every step after `from` was an idle poll (else the loop stopped at it): the last one too.
    return skipped(atStep(s, last), Math.max(0, last - from), ' to the end');
  }
  return { ...atStep(s, v.steps), skipFrom: from, skipSeen: v.steps, notice: 'skipping idle polls…' };
}

/** N says how far it went: "skipped 14 idle polls" (nothing when the next step was not idle). */
function skipped(s: UiState, n: number, where = ''): UiState {
  return { ...s, notice: n === 0 ? null : `skipped ${n} idle poll${n === 1 ? '' : 's'}${where}` };
}

function moveSelection(s: UiState, by: number, v: View): UiState {
  if (v.rows === 0) return s;
  const from = s.selected ?? v.rows - 1;
  const to = clamp(from + by, 0, v.rows - 1);
  return { ...s, selected: to === v.rows - 1 ? null : to };
}

function scroll(s: UiState, by: number, v: View): UiState {
  if (s.overlay.kind !== 'none') {
    const top = clamp(s.overlay.top + by, 0, Math.max(0, v.overlayLines - v.overlayPage));
    return { ...s, overlay: { ...s.overlay, top } };
  }
  if (s.focus === 'state') {
    // From what is shown: a step with fewer lines shows less than stateTop asks for.
    const max = Math.max(0, v.stateLines - v.statePage);
    return { ...s, stateTop: clamp(clamp(s.stateTop, 0, max) + by, 0, max) };
  }
  return moveSelection(s, by, v);
}

/**
 * The state after `action`. Steps move from the state's own target (not from what was last drawn),
 * so keys pressed faster than the screen redraws all count.
 */
export function reduce(s: UiState, action: Action, v: View): UiState {
  const next = reduceKey(s, action, v);
  return action === 'skipIdle' || next.notice === null ? next : { ...next, notice: null };
}

function reduceKey(s: UiState, action: Action, v: View): UiState {
  const cursor = cursorOf(s.target, v.steps);
  switch (action) {
    case 'next':
      // The premise is the screen before step #0: → starts, at the step that is already there.
      if (s.overlay.kind === 'premise') return { ...s, overlay: { kind: 'none' } };
      if (cursor < v.steps - 1) return atStep(s, cursor + 1);
      // The run is held after its last step: ask for one more (each press counts, even before it arrives).
      if (!v.finished) return atStep(s, Math.max(s.target, v.steps - 1) + 1);
      return { ...s, playing: false };
    case 'prev':
      return atStep({ ...s, playing: false }, Math.max(0, cursor - 1));
    case 'start':
      return atStep({ ...s, playing: false }, 0);
    case 'end':
      return atStep(s, Infinity);
    case 'up':
      return scroll(s, -1, v);
    case 'down':
      return scroll(s, 1, v);
    case 'pageUp':
      return scroll(s, -Math.max(1, pageOf(s, v) - 1), v);
    case 'pageDown':
      return scroll(s, Math.max(1, pageOf(s, v) - 1), v);
    case 'top':
      return s.focus === 'state' ? { ...s, stateTop: 0 } : { ...s, selected: v.rows > 0 ? 0 : null };
    case 'follow':
      return { ...s, selected: null };
    case 'focus':
      return { ...s, focus: s.focus === 'trace' ? 'state' : 'trace' };
    case 'detail':
      if (v.selectedRow === null) return s;
      return { ...s, playing: false, overlay: { kind: 'detail', ...v.selectedRow, top: 0, script: false } };
    case 'info':
      return v.steps === 0
        ? s
        : { ...s, playing: false, overlay: { kind: 'detail', step: cursor, command: null, top: 0, script: false } };
    case 'script':
      return s.overlay.kind === 'detail' ? { ...s, overlay: { ...s.overlay, script: !s.overlay.script } } : s;
    case 'raw':
      return { ...s, raw: !s.raw };
    case 'help':
      return { ...s, overlay: s.overlay.kind === 'help' ? { kind: 'none' } : { kind: 'help', top: 0 } };
    case 'close':
      return { ...s, overlay: { kind: 'none' } };
    case 'play':
      if (s.playing) return { ...s, playing: false };
      // Playing from the last step of a finished run starts over.
      return {
        ...s,
        playing: true,
        ...(v.finished && cursor >= v.steps - 1 ? { target: 0, selected: null, stateTop: 0 } : {}),
      };
    case 'faster':
      return { ...s, speed: Math.min(SPEEDS.length - 1, s.speed + 1) };
    case 'slower':
      return { ...s, speed: Math.max(0, s.speed - 1) };
    case 'skipIdle':
      return skipIdle({ ...s, playing: false }, cursor, v);
    case 'premise':
      return {
        ...s,
        playing: false,
        overlay: s.overlay.kind === 'premise' ? { kind: 'none' } : { kind: 'premise', top: 0 },
      };
    case 'picker':
      return { ...s, playing: false, back: true };
    case 'lab':
      // The App branches into the lab (it has the session); nothing of the view changes here.
      return { ...s, playing: false };
    case 'quit':
      return { ...s, quit: true, playing: false };
  }
}

function pageOf(s: UiState, v: View): number {
  if (s.overlay.kind !== 'none') return v.overlayPage;
  return s.focus === 'state' ? v.statePage : v.page;
}

/** The step shown for a target, given the steps run so far. */
export function cursorOf(target: number, steps: number): number {
  return Math.max(0, Math.min(target, steps - 1));
}

/** "every 1s", "every 0.25s". */
export function speedLabel(speed: number): string {
  const ms = SPEEDS[clamp(speed, 0, SPEEDS.length - 1)]!;
  return `${ms / 1000}s/step`;
}
