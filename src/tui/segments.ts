// A line of the TUI as data: styled pieces of text. The pure builders (trace rows, state lines,
// narration, details) return these, so tests can read what a pane shows without rendering, and
// the components only map styles to Ink props. Every `text` is already terminal-safe.
import { displayWidth } from '../output/wrap.ts';

/** What a piece of text means; theme.ts maps each to colours (or none, under NO_COLOR). */
export type Tone =
  | 'plain'
  | 'dim'
  | 'bold'
  | 'command'
  | 'lua'
  | 'time'
  | 'payload'
  | 'changed'
  | 'script'
  | 'heading'
  | 'good'
  | 'warn'
  | 'bad'
  | 'note'
  | 'key';

export interface Segment {
  text: string;
  tone?: Tone;
  /** An actor name: coloured with that actor's colour. */
  actor?: string;
  /** Never broken across lines by wrapLine() ("attempts 2", "expires in 30s"). */
  keep?: boolean;
}

export type Line = Segment[];

export const seg = (text: string, tone: Tone = 'plain'): Segment => ({ text, tone });
/** A segment wrapLine() keeps on one line. */
export const kept = (text: string, tone: Tone = 'plain'): Segment => ({ text, tone, keep: true });
export const actorSeg = (actor: string, text: string = actor): Segment => ({ text, actor });

export function lineText(line: Line): string {
  return line.map((s) => s.text).join('');
}

export function lineWidth(line: Line): number {
  return displayWidth(lineText(line));
}

/** `s` padded with spaces to `width` columns (never cut). */
export function pad(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - displayWidth(s)));
}

/** `s` cut to `width` columns, ending in `…` when cut. */
export function clip(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = displayWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return out + '…';
}

/**
 * `line` broken into lines of at most `width` columns, at spaces where it can; continuation lines
 * start with `indent` spaces. Styles are kept across the breaks; a piece wider than a line is cut
 * into line-sized chunks.
 */
export function wrapLine(line: Line, width: number, indent = 0): Line[] {
  const max = Math.max(1, width);
  // Words: runs of pieces up to and including a space; a line breaks only between words.
  const words: Segment[][] = [[]];
  for (const s of line) {
    for (const text of s.keep === true ? [s.text] : s.text.split(/(?<= )/)) {
      if (text === '') continue;
      words[words.length - 1]!.push({ ...s, text });
      if (text.endsWith(' ')) words.push([]);
    }
  }
  const out: Line[] = [];
  let current: Line = [];
  let used = 0;
  // Whether `current` holds text beyond its indent (used === margin can also mean real text).
  let hasText = false;
  const margin = Math.min(indent, max - 1);
  const newLine = (): void => {
    out.push(trimEnd(current));
    current = margin > 0 ? [seg(' '.repeat(margin))] : [];
    used = margin;
    hasText = false;
  };
  for (const word of words) {
    const w = displayWidth(
      word
        .map((p) => p.text)
        .join('')
        .trimEnd(),
    );
    if (w === 0 && word.length === 0) continue;
    if (used + w > max && hasText) newLine();
    for (const piece of word) {
      let text = piece.text;
      // A word wider than a whole line is cut into line-sized chunks.
      while (displayWidth(text.trimEnd()) > max - used) {
        let cut = '';
        for (const ch of text) {
          if (displayWidth(cut + ch) > max - used) break;
          cut += ch;
        }
        if (cut === '') {
          if (hasText) newLine();
          else if (used > 0) {
            current = []; // the indent leaves no room for a wide character: drop it
            used = 0;
          } else break; // wider than the whole line (a wide character in 1 column): let it be
          continue;
        }
        current.push({ ...piece, text: cut });
        text = text.slice(cut.length);
        hasText = true;
        newLine();
      }
      if (text !== '') {
        current.push({ ...piece, text });
        used += displayWidth(text);
        hasText = true;
      }
    }
  }
  if (current.length > 0 || out.length === 0) out.push(trimEnd(current));
  return out;
}

/** Without trailing spaces (a line that ends at the pane's edge must not overflow it). */
function trimEnd(line: Line): Line {
  const out = line.slice();
  while (out.length > 0) {
    const last = out[out.length - 1]!;
    const text = last.text.trimEnd();
    if (text !== '') {
      out[out.length - 1] = { ...last, text };
      break;
    }
    out.pop();
  }
  return out;
}

/** Columns of spaces a line starts with. */
export function leadingSpaces(line: Line): number {
  const text = lineText(line);
  return text.length - text.trimStart().length;
}

/** Every line wrapped to `width`, continuations indented two past the line's own indent. */
export function wrapAll(lines: readonly Line[], width: number): Line[] {
  return lines.flatMap((line) => wrapLine(line, width, leadingSpaces(line) + 2));
}
