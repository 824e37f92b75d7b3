// How big a scenario file may be, checked before the YAML is parsed (size, nesting) or while it is
// (entry counts, on the parsed document before it becomes JS objects and meets zod): a 50 MB file
// once took V8 to 4.3 GB and out of memory, 10,000 nested `[` to "Maximum call stack size
// exceeded". The shipped scenarios are at most 3 KB, 15 timeline entries and 6 levels deep;
// every limit is far above what a scenario written by hand or by `lqsim lab` reaches.

/** Bytes: 1 MiB (parsing that much takes ~230 MB of memory, the process included). */
export const MAX_FILE_BYTES = 1 << 20;
export const MAX_TIMELINE_ENTRIES = 10_000;
export const MAX_JOBS = 1_000;
export const MAX_WORKERS = 100;
/** Lists and mappings inside one another, flow ([ {) and block (indentation) alike. */
export const MAX_NESTING = 64;

/** "52.0 MiB" for a byte count; exact bytes where a rounded size would read as the limit itself. */
export function sizeText(bytes: number): string {
  if (bytes === MAX_FILE_BYTES) return `${bytes} bytes (1 MiB)`;
  return bytes >= 8 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MiB` : `${bytes} bytes`;
}

/**
 * The first place (1-based line and column) where lists and mappings nest deeper than `max`, or
 * null: a scan of the text, before a parser recurses into it. It follows what opens a level in
 * YAML (an indentation deeper than the lines above, a "- " item, a `[` or `{` where a value
 * starts) and skips what cannot (quoted text, comments, block scalars' lines). Where it is unsure
 * (a `[` inside a plain value) it counts, which can only make it stricter by a level or two.
 */
export function nestingTooDeep(source: string, max: number = MAX_NESTING): { line: number; col: number } | null {
  const indents: number[] = [];
  let flow = 0;
  let quote: '"' | "'" | null = null;
  /** The indentation of the line that opened a block scalar (`|`, `>`): deeper lines are its text. */
  let blockScalar: number | null = null;
  let lineStart = 0;
  for (let line = 1; lineStart <= source.length; line++) {
    let lineEnd = source.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = source.length;
    const text = source.slice(lineStart, lineEnd).replace(/\r$/, '');
    lineStart = lineEnd + 1;
    let j = 0;
    let indent = -1;
    if (quote === null && flow === 0) {
      while (text[j] === ' ') j++;
      indent = j;
      const blank = j === text.length || text[j] === '#';
      if (blockScalar !== null) {
        if (blank || indent > blockScalar) continue;
        blockScalar = null;
      }
      if (blank) continue;
      while (indents.length > 0 && indents[indents.length - 1]! >= indent) indents.pop();
      indents.push(indent);
      // "- - x": each item indicator opens one more level, at its own column.
      while (/^[-?](?: |$)/.test(text.slice(j))) {
        j += 1;
        while (text[j] === ' ') j++;
        indents.push(j);
      }
      if (indents.length > max) return { line, col: indent + 1 };
    }
    let prev = ''; // the last non-blank character outside quotes: whether a value starts here
    for (; j < text.length; j++) {
      const c = text[j]!;
      if (quote === "'") {
        if (c === "'") {
          if (text[j + 1] === "'") j++;
          else quote = null;
        }
        continue;
      }
      if (quote === '"') {
        if (c === '\\') j++;
        else if (c === '"') quote = null;
        continue;
      }
      if (c === ' ' || c === '\t') continue;
      if (c === '#' && (j === 0 || text[j - 1] === ' ' || text[j - 1] === '\t')) break;
      const valueStarts = prev === '' || '-?:[{,'.includes(prev);
      if ((c === '&' || c === '!') && valueStarts) {
        // An anchor or a tag (&a, !!seq) goes before the value it names: the value still starts after it.
        while (j + 1 < text.length && !' \t,[]{}'.includes(text[j + 1]!)) j++;
        continue;
      }
      if ((c === '"' || c === "'") && valueStarts) quote = c;
      else if ((c === '[' || c === '{') && (flow > 0 || valueStarts)) {
        flow++;
        if (indents.length + flow > max) return { line, col: j + 1 };
      } else if ((c === ']' || c === '}') && flow > 0) flow--;
      prev = c;
    }
    // A block scalar's header ends its line: `key: |`, `- >-`, `note: |2 # comment`.
    if (quote === null && flow === 0 && indent >= 0 && /(?:^|\s)[|>][-+0-9]*\s*(?:#.*)?$/.test(text)) {
      blockScalar = indent;
    }
  }
  return null;
}
