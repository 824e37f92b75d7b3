// Word wrapping by terminal columns, for notes and messages. Notes may be Chinese or Japanese
// (the seeds are), so CJK characters count two columns and a line may break beside any of them.

/** East Asian Wide/Fullwidth ranges (the common blocks; an approximation of UAX #11). */
const WIDE: [number, number][] = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x23f0, 0x23f0],
  [0x23f3, 0x23f3],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x267f, 0x267f],
  [0x2693, 0x2693],
  [0x26a1, 0x26a1],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26ce, 0x26ce],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f2, 0x26f3],
  [0x26f5, 0x26f5],
  [0x26fa, 0x26fa],
  [0x26fd, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x274e, 0x274e],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f680, 0x1f6ff],
  [0x1f900, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200c\u200d]$/u;

/** Columns one code point takes: 0 (combining marks, ZWJ/ZWNJ), 2 (wide) or 1. */
export function charWidth(ch: string): 0 | 1 | 2 {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x300) return 1;
  if (ZERO_WIDTH.test(ch)) return 0;
  for (const [lo, hi] of WIDE) {
    if (cp < lo) break;
    if (cp <= hi) return 2;
  }
  return 1;
}

export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += charWidth(ch);
  return w;
}

interface Token {
  text: string;
  width: number;
  /** A space separated it from the token before. */
  space: boolean;
}

/** Breakable pieces: runs of narrow non-space characters, and each wide character on its own. */
function tokenize(paragraph: string): Token[] {
  const out: Token[] = [];
  let text = '';
  let width = 0;
  let space = false;
  const flush = () => {
    if (text === '') return;
    out.push({ text, width, space });
    text = '';
    width = 0;
    space = false;
  };
  for (const ch of paragraph) {
    if (ch === ' ') {
      flush();
      space = true;
      continue;
    }
    const w = charWidth(ch);
    if (w === 2) {
      flush();
      out.push({ text: ch, width: 2, space });
      space = false;
    } else {
      text += ch;
      width += w;
    }
  }
  flush();
  return out;
}

/**
 * `text` (one paragraph, no newlines) as lines of at most `width` columns. Breaks at spaces and
 * beside wide characters; a piece longer than a line is cut. Runs of spaces collapse to one.
 */
export function wrap(text: string, width: number): string[] {
  const max = Math.max(1, Math.floor(width));
  const lines: string[] = [];
  let line = '';
  let lineWidth = 0;
  for (const tok of tokenize(text)) {
    const sep = line !== '' && tok.space ? 1 : 0;
    if (lineWidth + sep + tok.width <= max) {
      line += (sep ? ' ' : '') + tok.text;
      lineWidth += sep + tok.width;
      continue;
    }
    if (line !== '') lines.push(line);
    line = '';
    lineWidth = 0;
    for (const ch of tok.text) {
      const w = charWidth(ch);
      if (lineWidth + w > max && line !== '') {
        lines.push(line);
        line = '';
        lineWidth = 0;
      }
      line += ch;
      lineWidth += w;
    }
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}
