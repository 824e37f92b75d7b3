// Finds Redis key names cut mid-word on screen lines: where one line's last word and the next
// line's first word join into a piece of a key, the break must fall before a `:` part
// (`laravel_database_queues` | `:default:reserved`), never inside a part (`…:defau` | `lt`,
// `:default:r` | `eserved`). A word with `…` was elided on purpose and passes.

/** Punctuation and pane borders around a word (a payload's ‹›, the actor's bar) are not part of a name. */
const clean = (word: string): string => word.replace(/^[‹([│▏╭╰]+|[›),│╮╯]+$/g, '');

/** `a|b` for each break inside a key's part, as it reads on screen. */
export function brokenNames(lines: readonly string[], keys: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    // The actor's bar and the pane's borders stand apart from the words.
    const words = (line: string): string[] => line.replace(/[│▏]/g, ' ').trim().split(/\s+/);
    const last = clean(words(lines[i]!).pop() ?? '');
    const first = clean(words(lines[i + 1]!)[0] ?? '');
    if (last === '' || first === '' || last.includes('…') || first.includes('…')) continue;
    const joined = last + first;
    if (first.startsWith(':') && !last.endsWith(':')) continue; // a break at a `:` part
    if (keys.some((k) => k.includes(joined))) out.push(`${last}|${first}`);
  }
  return out;
}
