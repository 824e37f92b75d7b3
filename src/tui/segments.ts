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
  | 'key'
  /** What a presenter points at (a job running twice): inverse and bold, readable on a projector. */
  | 'alert';

export interface Segment {
  text: string;
  tone?: Tone;
  /** An actor name: coloured with that actor's colour. */
  actor?: string;
  /** A Redis Cluster node's label ("node2"): coloured with that node's colour. */
  node?: string;
  /** Never broken across lines by wrapLine() ("attempts 2", "expires in 30s"). */
  keep?: boolean;
}

export type Line = Segment[];

export const seg = (text: string, tone: Tone = 'plain'): Segment => ({ text, tone });
/** A segment wrapLine() keeps on one line. */
export const kept = (text: string, tone: Tone = 'plain'): Segment => ({ text, tone, keep: true });
export const actorSeg = (actor: string, text: string = actor): Segment => ({ text, actor });
/** Text in a cluster node's colour (`n2`, `node2 slot 5718`). */
export const nodeSeg = (node: string, text: string = node): Segment => ({ text, node });

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
 * start with `indent` spaces. Styles are kept across the breaks. A word wider than a line (a
 * prefixed key such as `laravel_database_queues:default:reserved`) breaks only where a name has
 * parts: before a `:`, after a `/` or `,`, beside a wide character; a part still wider than a
 * line is elided in its middle (`laravel_…queues`), never cut mid-word onto the next line.
 */
/** The least room a part is elided into (`lara…eues`); with less, the indent gives way. */
const MIN_ELIDED = 8;

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
    if (word.length === 0) continue;
    if (used + wordWidth(word) > max && hasText) newLine();
    const parts = wordWidth(word) > max - used ? partsOf(word) : [word];
    for (const part of parts) {
      const w = wordWidth(part);
      if (used + w > max && hasText) newLine();
      // An indent that leaves too little room to elide into (a wide character after a deep indent)
      // gives way when a whole line holds the part; with room, the part is elided and the indent,
      // which tells a continuation from a new trace row, stays.
      if (w > max - used && !hasText && used > 0 && w <= max && max - used < MIN_ELIDED) {
        current = [];
        used = 0;
      }
      for (const piece of w > max - used ? elide(part, max - used) : part) {
        current.push(piece);
        used += displayWidth(piece.text);
        hasText = true;
      }
    }
  }
  if (current.length > 0 || out.length === 0) out.push(trimEnd(current));
  return out;
}

/** Columns a word takes, without its trailing space (which a line's end drops). */
function wordWidth(word: readonly Segment[]): number {
  return displayWidth(
    word
      .map((p) => p.text)
      .join('')
      .trimEnd(),
  );
}

/**
 * Where a long word may break: before a run of `:` (`queues` | `:default` | `:reserved`, and
 * `RedisQueue` | `::pop`), after `/` or `,`, and on either side of a wide character (CJK text has
 * no spaces). Offsets in the word's joined text.
 */
function breaksOf(text: string): number[] {
  const out: number[] = [];
  const chars = [...text];
  let at = 0;
  chars.forEach((ch, i) => {
    const prev = chars[i - 1];
    if (
      prev !== undefined &&
      ((ch === ':' && prev !== ':') ||
        prev === '/' ||
        prev === ',' ||
        displayWidth(ch) === 2 ||
        displayWidth(prev) === 2) &&
      ch !== ' '
    )
      out.push(at);
    at += ch.length;
  });
  return out;
}

/** `word` split at its break points into parts, each keeping its pieces' styles. */
function partsOf(word: readonly Segment[]): Segment[][] {
  const text = word.map((p) => p.text).join('');
  const cuts = [0, ...breaksOf(text), text.length];
  return cuts.slice(1).map((end, i) => sliceWord(word, cuts[i]!, end));
}

/** The pieces of `word` between offsets `from` and `to` of its joined text. */
function sliceWord(word: readonly Segment[], from: number, to: number): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  for (const piece of word) {
    const end = at + piece.text.length;
    const text = piece.text.slice(Math.max(0, from - at), Math.max(0, to - at));
    if (text !== '' && end > from && at < to) out.push({ ...piece, text });
    at = end;
  }
  return out;
}

/**
 * `part` in `room` columns: its head and tail with `…` between (a key's start and its last
 * letters both help to tell it apart), cut between the words of a name where they allow
 * (`laravel_…queues`, not `laravel_dat…ase_queues`); a trailing space is dropped, as a line's end
 * drops it.
 */
function elide(part: readonly Segment[], room: number): Segment[] {
  const text = part
    .map((p) => p.text)
    .join('')
    .trimEnd();
  const chars = [...text];
  const budget = Math.max(0, room - 1);
  // Offsets (in `text`) after each character, and the columns up to there.
  const ends: number[] = [];
  const cols: number[] = [];
  let at = 0;
  let w = 0;
  for (const ch of chars) {
    at += ch.length;
    w += displayWidth(ch);
    ends.push(at);
    cols.push(w);
  }
  const total = w;
  const colsTo = (offset: number): number => (offset === 0 ? 0 : cols[ends.indexOf(offset)]!);
  const afterSeparator = (i: number): boolean => NAME_SEPARATORS.includes(chars[i]!);
  // Head: up to half the budget, ending after a separator if one is there.
  const headCols = Math.ceil(budget / 2);
  const headFits = ends.filter((e, i) => cols[i]! <= headCols && i < chars.length - 1);
  const headAtWord = ends.filter((e, i) => cols[i]! <= headCols && afterSeparator(i));
  const head = headAtWord.at(-1) ?? headFits.at(-1) ?? 0;
  // Tail: the rest of the budget, starting after a separator if one is there.
  const tailRoom = budget - colsTo(head);
  const starts = [0, ...ends.slice(0, -1)].map((start, i) => ({ start, i }));
  const tailFits = starts.filter(({ start }) => start >= head && total - colsTo(start) <= tailRoom);
  const tailAtWord = tailFits.filter(({ i }) => i > 0 && afterSeparator(i - 1));
  const tail = (tailAtWord[0] ?? tailFits[0])?.start ?? text.length;
  const before = sliceWord(part, 0, head);
  // The mark takes the style of the letters it stands for.
  const style = before[before.length - 1] ?? part[0]!;
  return [...before, { ...style, text: '…' }, ...sliceWord(part, tail, text.length)];
}

/** Where the words of a name meet (`laravel_database_queues`, `App\\Jobs\\Report`, `foo-bar.baz`). */
const NAME_SEPARATORS = ['_', '-', '.', '\\', '/'];

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
