// Keys → actions, per screen. The footer and the help screen are generated from the same table,
// so what they say is what the keys do.
import type { Key } from 'ink';
import type { Action } from './ui-state.ts';

export type Mode = 'main' | 'help' | 'detail';

export interface Binding {
  /** As shown in the footer and help. */
  keys: string;
  /** Short label for the footer; the help uses `help`. */
  label: string;
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
    help: 'next step (runs it live if it has not run yet)',
    action: 'next',
    match: (i, k) => k.rightArrow || is('n', ' ', 'l')(i, k),
  },
  {
    keys: '← p',
    label: 'prev',
    help: 'previous step (from the stored snapshot, no re-run)',
    action: 'prev',
    match: (i, k) => k.leftArrow || k.backspace || k.delete || is('p', 'h')(i, k),
  },
  { keys: 'a', label: 'play', help: 'play / pause', action: 'play', match: is('a') },
  { keys: '+ -', label: 'speed', help: 'play faster / slower', action: 'faster', match: is('+', '=', ']') },
  { keys: '-', label: '', help: '', action: 'slower', match: is('-', '_', '[') },
  {
    keys: 'g G',
    label: 'start/end',
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
    help: 'switch the scrolled pane: trace / state',
    action: 'focus',
    match: (_i, k) => k.tab,
  },
  {
    keys: 'enter',
    label: 'details',
    help: 'the selected line in full (payload pretty-printed, script on s)',
    action: 'detail',
    match: (i, k) => k.return || is('d')(i, k),
  },
  {
    keys: 'i',
    label: 'info',
    help: "this step's whole narration (Laravel methods, why, note)",
    action: 'info',
    match: is('i'),
  },
  { keys: 'r', label: 'raw', help: 'raw view: every argument verbatim', action: 'raw', match: is('r') },
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

export const HELP_BINDINGS: readonly Binding[] = [
  { keys: '↑ ↓', label: 'scroll', help: 'scroll', action: 'up', match: (i, k) => k.upArrow || is('k')(i, k) },
  { keys: '↓', label: '', help: '', action: 'down', match: (i, k) => k.downArrow || is('j')(i, k) },
  {
    keys: 'esc q ?',
    label: 'back',
    help: 'back',
    action: 'close',
    match: (i, k) => k.escape || k.return || is('q', '?')(i, k),
  },
];

const BY_MODE: Record<Mode, readonly Binding[]> = { main: MAIN_BINDINGS, detail: DETAIL_BINDINGS, help: HELP_BINDINGS };

export function actionFor(mode: Mode, input: string, key: Key): Action | null {
  if (key.ctrl && input === 'c') return 'quit';
  return BY_MODE[mode].find((b) => b.match(input, key))?.action ?? null;
}

export function bindingsFor(mode: Mode): readonly Binding[] {
  return BY_MODE[mode];
}
