// The lab's `:` command line as a pure state machine: typing, ← → within the line, backspace,
// Tab completion (the shared prefix at once; the choices shown when they differ), ↑ ↓ through
// the history, Enter to run, Esc to close. The App feeds it Ink's keys and runs what it submits.
import type { Key } from 'ink';

export interface CommandLine {
  text: string;
  /** Cursor position in `text`. */
  at: number;
  /** Index into the history while browsing it (null: editing a new line). */
  browsing: number | null;
  /** What Tab offered when the completions differ (shown under the line). */
  choices: readonly string[];
}

export function openCommandLine(text = ''): CommandLine {
  return { text, at: text.length, browsing: null, choices: [] };
}

export type CommandKeyResult =
  | { kind: 'edit'; line: CommandLine }
  | { kind: 'submit'; text: string }
  /** `interrupted`: Ctrl-C closed it (a second Ctrl-C quits: the screen says so, CTRL_C_CLOSED). */
  | { kind: 'close'; interrupted?: boolean };

/** What the lab's bottom row says after Ctrl-C closed the command line instead of quitting. */
export const CTRL_C_CLOSED = 'Ctrl-C closed the command line · Ctrl-C again quits';

export interface CommandContext {
  history: readonly string[];
  complete(text: string): string[];
}

export function commandKey(line: CommandLine, input: string, key: Key, ctx: CommandContext): CommandKeyResult {
  const edit = (text: string, at = text.length, choices: readonly string[] = []): CommandKeyResult => ({
    kind: 'edit',
    line: { text, at: Math.max(0, Math.min(at, text.length)), browsing: null, choices },
  });
  if (key.ctrl && input === 'c') return { kind: 'close', interrupted: true };
  if (key.escape) return { kind: 'close' };
  if (key.return) return { kind: 'submit', text: line.text };
  if (key.tab) {
    const head = line.text.slice(0, line.at);
    const options = ctx.complete(head);
    if (options.length === 0) return edit(line.text, line.at);
    const shared = commonPrefix(options);
    const text = shared + line.text.slice(line.at);
    return edit(text, shared.length, options.length > 1 && shared === head ? options : []);
  }
  if (key.upArrow || key.downArrow) {
    const h = ctx.history;
    if (h.length === 0) return { kind: 'edit', line };
    const from = line.browsing ?? h.length;
    const to = key.upArrow ? Math.max(0, from - 1) : from + 1;
    if (to >= h.length) return edit('');
    const text = h[to]!;
    return { kind: 'edit', line: { text, at: text.length, browsing: to, choices: [] } };
  }
  if (key.leftArrow) return { kind: 'edit', line: { ...line, at: Math.max(0, line.at - 1) } };
  if (key.rightArrow) return { kind: 'edit', line: { ...line, at: Math.min(line.text.length, line.at + 1) } };
  if (key.home || (key.ctrl && input === 'a')) return { kind: 'edit', line: { ...line, at: 0 } };
  if (key.end || (key.ctrl && input === 'e')) return { kind: 'edit', line: { ...line, at: line.text.length } };
  if (key.ctrl && input === 'u') return edit(line.text.slice(line.at), 0);
  if (key.backspace || key.delete) {
    // An empty line closes, as in vim and less.
    if (line.text === '') return { kind: 'close' };
    if (line.at === 0) return { kind: 'edit', line };
    return edit(line.text.slice(0, line.at - 1) + line.text.slice(line.at), line.at - 1);
  }
  if (key.ctrl || key.meta) return { kind: 'edit', line };
  // Printable text (several characters when pasted or typed fast); no control characters.
  const typed = input.replace(/[\u0000-\u001f\u007f]/g, '');
  if (typed === '') return { kind: 'edit', line };
  return edit(line.text.slice(0, line.at) + typed + line.text.slice(line.at), line.at + typed.length);
}

/** The longest prefix the completions share (what Tab fills in at once). */
export function commonPrefix(options: readonly string[]): string {
  if (options.length === 0) return '';
  let p = options[0]!;
  for (const o of options) while (!o.startsWith(p)) p = p.slice(0, -1);
  return p;
}
