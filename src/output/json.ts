// The whole timeline as one JSON document: scenario, profile, server, every step with its
// commands and state snapshot, jobs, failed jobs, warnings. JSON.parse of it gives back the
// Timeline (so a saved run can be asserted or rendered later). As in ndjson, the characters a
// terminal would act on are written as \uXXXX escapes: the values are unchanged.
import type { Timeline } from '../scenarios/timeline.ts';
import { replaceUnsafe } from './terminal-safe.ts';

function escapeUnits(m: string): string {
  let out = '';
  for (let i = 0; i < m.length; i++) out += `\\u${m.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** The pretty-printing of `depth` arrays around a value: what comes before it, and after. */
function wrapping(depth: number): { before: number; after: number } {
  const nest = (d: number): unknown => (d === 0 ? 0 : [nest(d - 1)]);
  const text = JSON.stringify(nest(depth), null, 2);
  const at = text.indexOf('0');
  return { before: at, after: text.length - at - 1 };
}
const WRAPPINGS = [0, 1, 2, 3].map(wrapping);

/** Pretty-printed (two spaces), newline-terminated. */
export function renderJson(timeline: Timeline): string {
  return jsonAt(timeline, 0) + '\n';
}

/**
 * `value` as renderJson writes it `depth` levels deep in a document (its lines after the first
 * indented to match), with no newline after it: for a document written a part at a time.
 */
export function jsonAt(value: unknown, depth: number): string {
  return safeJson(rawJsonAt(value, depth));
}

/** jsonAt's text before safeJson: what JSON.stringify writes, the characters a terminal acts on included. */
export function rawJsonAt(value: unknown, depth: number): string {
  // Indented by JSON.stringify itself: the value inside `depth` arrays is pretty-printed `depth`
  // levels in (a json document of a 200 MB capture is 360 MB of lines; indenting them after was
  // a second copy of it all). The arrays' own lines are cut off.
  const wrap = WRAPPINGS[depth] ?? wrapping(depth);
  let nested: unknown = value;
  for (let d = 0; d < depth; d++) nested = [nested];
  const text = depth === 0 ? JSON.stringify(value, null, 2) : JSON.stringify(nested, null, 2);
  return depth === 0 ? text : text.slice(wrap.before, text.length - wrap.after);
}

/**
 * JSON.stringify's text with what a terminal would act on written as \uXXXX escapes. It escapes
 * every character below U+0020 in strings, so the pretty-printing's own newlines are the only ones
 * left, and the rest of what is unsafe lies beyond ASCII or is DEL: text of ASCII without DEL
 * (almost all of it) is safe as it is, and tested natively (src/cli/byte-out.ts tests it on the
 * bytes it writes instead).
 */
export function safeJson(json: string): string {
  return isSafeJson(json) ? json : replaceUnsafe(json, (m) => (m === '\n' ? m : escapeUnits(m)));
}

/** Whether JSON.stringify's text is safe as it is: ASCII, without DEL. */
function isSafeJson(json: string): boolean {
  return Buffer.byteLength(json, 'utf8') === json.length && !json.includes('\x7f');
}
