// Keys as the App handles them. A terminal sends Esc as one byte; typed quickly before another key
// (Esc then q, in one read), the two arrive together, and Ink reads "\x1bq" as Alt+q. Nothing here
// is bound to Alt, so such an input is taken for what the person pressed: Esc, then the key. Pure.
import type { Key } from 'ink';

/** The key presses in one input from Ink, in order. */
export function keyPresses(input: string, key: Key): Array<[string, Key]> {
  const special =
    key.upArrow ||
    key.downArrow ||
    key.leftArrow ||
    key.rightArrow ||
    key.pageUp ||
    key.pageDown ||
    key.home ||
    key.end ||
    key.return ||
    key.tab ||
    key.backspace ||
    key.delete ||
    key.ctrl;
  if (key.meta && !special && /^[\x20-\x7e]$/.test(input)) {
    return [
      ['', { ...key, meta: false, escape: true }],
      [input, { ...key, meta: false, escape: false }],
    ];
  }
  return [[input, key]];
}
