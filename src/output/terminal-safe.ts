// Payloads, keys and scenario text are user data: printed raw, an ESC or C1 byte would drive the
// terminal (clear it, retitle the window, forge a hyperlink) and a bidi override would make a
// line read differently from what it is (Trojan Source, CVE-2021-42574). Everything that goes to
// a terminal passes through here first.

/**
 * Code points escaped by terminalSafe():
 * - C0 controls, DEL and C1 controls (U+0080-U+009F; U+009B is a one-byte CSI to some terminals);
 * - bidi embeddings, overrides, isolates and marks: U+202A-U+202E, U+2066-U+2069, U+200E, U+200F,
 *   U+061C;
 * - invisible characters that can hide or fake text: soft hyphen U+00AD, U+180E, zero width space
 *   U+200B, U+2060-U+2064 (word joiner, invisible operators), U+206A-U+206F (deprecated format
 *   controls), BOM U+FEFF, U+FFF9-U+FFFB (interlinear annotation), the Hangul fillers U+115F,
 *   U+1160, U+3164, U+FFA0, and the tag characters U+E0000-U+E007F (invisible ASCII look-alikes);
 * - line and paragraph separators U+2028, U+2029 (some terminals break the line on them);
 * - lone surrogates (they would reach the terminal as U+FFFD and hide what the data held).
 * ZWJ/ZWNJ (U+200D, U+200C) and variation selectors are kept: emoji and several scripts need
 * them, and they cannot reorder or hide text.
 */
const UNSAFE_CLASS =
  '[\\u{0}-\\u{1f}\\u{7f}-\\u{9f}\\u{ad}\\u{61c}\\u{115f}\\u{1160}\\u{180e}\\u{200b}\\u{200e}\\u{200f}' +
  '\\u{2028}-\\u{202e}\\u{2060}-\\u{2064}\\u{2066}-\\u{206f}\\u{3164}\\u{feff}\\u{fff9}-\\u{fffb}' +
  '\\u{ffa0}\\u{d800}-\\u{dfff}\\u{e0000}-\\u{e007f}]';
const UNSAFE = new RegExp(UNSAFE_CLASS, 'u');
const UNSAFE_ALL = new RegExp(UNSAFE_CLASS, 'gu');

/** `s` with every unsafe character (see UNSAFE_CLASS), whole code points, replaced by `replace(ch)`. */
export function replaceUnsafe(s: string, replace: (ch: string) => string): string {
  return s.replace(UNSAFE_ALL, replace);
}

/**
 * Characters that make quoteArg() quote: whitespace, quotes, backslashes, and the ‹ › (escaped: a
 * regular expression's are the one thing esbuild leaves unescaped, and the CLI bundle stays ASCII,
 * which bin/load-bundle.js reads faster) we use for abbreviations.
 */
const NEEDS_QUOTES = /[\s"'\\\u2039\u203A]/u;

/**
 * Printable ASCII, the text of nearly every line shown: safe as it is. A test of it spares the
 * Unicode classes above, which cost several times more per character (every arg of a 200 MB
 * capture's trace is tested).
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** Printable ASCII without space, quotes or backslash: an arg quoteArg() shows bare. */
const BARE_ASCII = /^[!#-&(-[\]-~]+$/;

const NAMED: Record<number, string> = { 0x0a: '\\n', 0x09: '\\t', 0x0d: '\\r' };

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** The escape for one unsafe code point: `\n` `\t` `\r`, `\xHH` below U+0080, `\uHHHH`, `\u{HHHHH}`. */
function escapeCodePoint(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x80) return NAMED[cp] ?? `\\x${hex(cp, 2)}`;
  if (cp <= 0xffff) return `\\u${hex(cp, 4)}`;
  return `\\u{${hex(cp, 5)}}`;
}

/** True when `s` holds no character terminalSafe() would escape. */
export function isTerminalSafe(s: string): boolean {
  return PRINTABLE_ASCII.test(s) || !UNSAFE.test(s);
}

/**
 * `s` with every control, bidi and invisible format character (see UNSAFE_CLASS) replaced by a
 * visible escape: `\n`, `\t`, `\r`, `\x1b`, `\x7f`, `\u0085`, `\u202e`, `\u{e0041}`. Printable
 * Unicode (é, ✓, 漢字, emoji) is kept. Backslashes are not escaped, so the result is for reading,
 * not for parsing back; quoteArg() gives an unambiguous form.
 */
export function terminalSafe(s: string): string {
  return PRINTABLE_ASCII.test(s) || !UNSAFE.test(s) ? s : s.replace(UNSAFE_ALL, escapeCodePoint);
}

/**
 * One Redis argument for display: bare when that is unambiguous (non-empty, no whitespace, quotes,
 * backslashes, ‹ › or unsafe characters), else double-quoted with `\\` and `\"` escaped and the
 * rest passed through terminalSafe(). Inside the quotes every backslash starts an escape.
 */
export function quoteArg(s: string): string {
  if (BARE_ASCII.test(s) || (s !== '' && !NEEDS_QUOTES.test(s) && !UNSAFE.test(s))) return s;
  return `"${terminalSafe(s.replace(/[\\"]/g, (c) => `\\${c}`))}"`;
}

/**
 * An argument whose bytes were not valid UTF-8 (decoded as latin1, one char per byte, see
 * TraceCommand.binaryArgs): always quoted, printable ASCII kept, every other byte as `\xHH`
 * (`\n` `\t` `\r` by name), the way redis-cli shows bytes.
 */
export function quoteBytes(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const b = s.charCodeAt(i);
    if (b === 0x5c || b === 0x22) out += `\\${s[i]}`;
    else if (b >= 0x20 && b < 0x7f) out += s[i];
    else if (b > 0xff)
      out += `\\u${hex(b, 4)}`; // not latin1 after all: still never raw
    else out += NAMED[b] ?? `\\x${hex(b, 2)}`;
  }
  return out + '"';
}
