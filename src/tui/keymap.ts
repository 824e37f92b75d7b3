// Keys → actions, per screen. The footer and the help screen are generated from the same table,
// so what they say is what the keys do.
import type { Key } from 'ink';
import type { Action } from './ui-state.ts';

export type Mode = 'main' | 'help' | 'detail' | 'premise';

export interface Binding {
  /** As shown in the footer and help. */
  keys: string;
  /** Short label for the footer ('' keeps it out); the help uses `help`. */
  label: string;
  /** The keys as the footer shows them, when shorter than `keys` ('→' for '→ n space'). */
  footer?: string;
  /**
   * Which bindings the footer keeps when not all fit (80 columns): lower first; absent ranks
   * last. Shown in table order either way.
   */
  rank?: number;
  help: string;
  action: Action;
  match: (input: string, key: Key) => boolean;
}

const is =
  (...chars: string[]) =>
  (input: string, key: Key) =>
    !key.ctrl && !key.meta && chars.includes(input);

export const MAIN_BINDINGS: readonly Binding[] = [
  {
    keys: '→ n space',
    label: 'next',
    footer: '→',
    rank: 1,
    help: 'next step (runs it live if it has not run yet)',
    action: 'next',
    match: (i, k) => k.rightArrow || is('n', ' ', 'l')(i, k),
  },
  {
    keys: '← p',
    label: 'prev',
    footer: '←',
    rank: 1,
    help: 'previous step (from the stored snapshot, no re-run)',
    action: 'prev',
    match: (i, k) => k.leftArrow || k.backspace || k.delete || is('p', 'h')(i, k),
  },
  {
    keys: 'N',
    label: 'skip idle',
    help: 'forward to the next step that is not an idle poll (a poll that found nothing and changed nothing); runs on until one comes',
    action: 'skipIdle',
    rank: 3,
    match: is('N'),
  },
  { keys: 'a', label: 'play', help: 'play / pause', action: 'play', rank: 7, match: is('a') },
  { keys: '+ -', label: 'speed', help: 'play faster / slower', action: 'faster', match: is('+', '=', ']') },
  { keys: '-', label: '', help: '', action: 'slower', match: is('-', '_', '[') },
  {
    keys: 'g G',
    label: 'start/end',
    footer: 'g/G',
    rank: 8,
    help: 'jump to the first / last step (G runs the rest)',
    action: 'start',
    match: (i, k) => k.home || is('g')(i, k),
  },
  { keys: 'G', label: '', help: '', action: 'end', match: (i, k) => k.end || is('G')(i, k) },
  {
    keys: '↑ ↓',
    label: 'scroll',
    help: 'select a line in the trace (or scroll the state pane)',
    action: 'up',
    match: (i, k) => k.upArrow || is('k')(i, k),
  },
  { keys: '↓', label: '', help: '', action: 'down', match: (i, k) => k.downArrow || is('j')(i, k) },
  {
    keys: 'PgUp PgDn',
    label: '',
    help: 'scroll a page',
    action: 'pageUp',
    match: (i, k) => k.pageUp || (k.ctrl && i === 'u'),
  },
  { keys: 'PgDn', label: '', help: '', action: 'pageDown', match: (i, k) => k.pageDown || (k.ctrl && i === 'd') },
  {
    keys: 'tab',
    label: 'pane',
    rank: 5,
    help: 'switch the scrolled pane: trace / state',
    action: 'focus',
    match: (_i, k) => k.tab,
  },
  {
    keys: 'enter',
    label: 'details',
    rank: 2,
    help: 'the selected line in full (payload pretty-printed, script on s)',
    action: 'detail',
    match: (i, k) => k.return || is('d')(i, k),
  },
  {
    keys: 'i',
    label: 'info',
    rank: 2,
    help: "this step's whole narration (Laravel methods, why, note)",
    action: 'info',
    match: is('i'),
  },
  { keys: 'r', label: 'raw', help: 'raw view: every argument verbatim', action: 'raw', rank: 4, match: is('r') },
  {
    keys: 'P',
    label: 'premise',
    help: "the scenario's premise again: its title and description (→ or esc closes it)",
    action: 'premise',
    rank: 6,
    match: is('P'),
  },
  {
    keys: 'b',
    label: 'scenarios',
    help: 'back to the scenario list (when the scenario was opened from it)',
    action: 'picker',
    rank: 6,
    match: is('b'),
  },
  {
    keys: 'L',
    label: 'lab',
    help: 'branch into the lab from this step: dispatch, kill, move the clock yourself (what came after is dropped)',
    action: 'lab',
    rank: 6,
    match: is('L'),
  },
  { keys: 'esc', label: '', help: 'back to following the newest line', action: 'follow', match: (_i, k) => k.escape },
  { keys: '?', label: 'help', help: 'this help', action: 'help', match: is('?') },
  { keys: 'q', label: 'quit', help: 'quit (also Ctrl-C); the terminal is restored', action: 'quit', match: is('q') },
];

export const DETAIL_BINDINGS: readonly Binding[] = [
  { keys: '↑ ↓', label: 'scroll', help: 'scroll', action: 'up', match: (i, k) => k.upArrow || is('k')(i, k) },
  { keys: '↓', label: '', help: '', action: 'down', match: (i, k) => k.downArrow || is('j')(i, k) },
  { keys: 'PgUp', label: '', help: '', action: 'pageUp', match: (i, k) => k.pageUp },
  { keys: 'PgDn', label: '', help: '', action: 'pageDown', match: (i, k) => k.pageDown || is(' ')(i, k) },
  { keys: 's', label: 'script', help: 'show / hide the Lua script source', action: 'script', match: is('s') },
  {
    keys: 'esc q enter i',
    label: 'back',
    help: 'back to the trace (i too: it opened this view)',
    action: 'close',
    match: (i, k) => k.escape || k.return || k.backspace || k.delete || is('q', 'd', 'i')(i, k),
  },
];

/** PgUp/PgDn (and Ctrl-U/Ctrl-D, space as in less) page through a screen that scrolls. */
const PAGE_BINDINGS: readonly Binding[] = [
  {
    keys: 'PgUp PgDn',
    label: 'page',
    footer: 'PgUp/Dn',
    help: 'scroll a page',
    action: 'pageUp',
    match: (i, k) => k.pageUp || (k.ctrl && i === 'u'),
  },
  {
    keys: 'PgDn',
    label: '',
    help: '',
    action: 'pageDown',
    match: (i, k) => k.pageDown || (k.ctrl && i === 'd') || is(' ')(i, k),
  },
];

export const HELP_BINDINGS: readonly Binding[] = [
  { keys: '↑ ↓', label: 'scroll', help: 'scroll', action: 'up', match: (i, k) => k.upArrow || is('k')(i, k) },
  { keys: '↓', label: '', help: '', action: 'down', match: (i, k) => k.downArrow || is('j')(i, k) },
  ...PAGE_BINDINGS,
  {
    keys: 'esc q ?',
    label: 'back',
    help: 'back',
    action: 'close',
    match: (i, k) => k.escape || k.return || is('q', '?')(i, k),
  },
];

export const PREMISE_BINDINGS: readonly Binding[] = [
  {
    keys: '→ enter',
    label: 'start',
    help: 'close it: step #0 (or the step you were at)',
    action: 'next',
    match: (i, k) => k.rightArrow || k.return || is('n', ' ', 'l')(i, k),
  },
  { keys: '↑ ↓', label: 'scroll', help: 'scroll', action: 'up', match: (i, k) => k.upArrow || is('k')(i, k) },
  { keys: '↓', label: '', help: '', action: 'down', match: (i, k) => k.downArrow || is('j')(i, k) },
  ...PAGE_BINDINGS.map((b) => ({ ...b, label: '' })),
  { keys: 'esc P', label: 'close', help: 'close it', action: 'close', match: (i, k) => k.escape || is('P')(i, k) },
  { keys: '?', label: 'help', help: 'help', action: 'help', match: is('?') },
  { keys: 'q', label: 'quit', help: 'quit', action: 'quit', match: is('q') },
];

const BY_MODE: Record<Mode, readonly Binding[]> = {
  main: MAIN_BINDINGS,
  detail: DETAIL_BINDINGS,
  help: HELP_BINDINGS,
  premise: PREMISE_BINDINGS,
};

export function actionFor(mode: Mode, input: string, key: Key): Action | null {
  if (key.ctrl && input === 'c') return 'quit';
  return BY_MODE[mode].find((b) => b.match(input, key))?.action ?? null;
}

/**
 * The bindings of a screen. `at`: the step the premise was opened over; past step #0, → goes back
 * to it rather than starting (P pressed mid-run).
 */
export function bindingsFor(mode: Mode, at = 0): readonly Binding[] {
  if (mode !== 'premise' || at <= 0) return BY_MODE[mode];
  return PREMISE_BINDINGS.map((b) =>
    b.action === 'next' ? { ...b, label: `back to #${at}`, footer: '→', help: `close it: back to step #${at}` } : b,
  );
}
