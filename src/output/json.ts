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

/** Anything but printable ASCII and the newline. */
const BEYOND_ASCII = /[^\n\x20-\x7e]/;

/** Pretty-printed (two spaces), newline-terminated. */
export function renderJson(timeline: Timeline): string {
  return jsonAt(timeline, 0) + '\n';
}

/**
 * `value` as renderJson writes it `depth` levels deep in a document (its lines after the first
 * indented to match), with no newline after it: for a document written a part at a time.
 */
export function jsonAt(value: unknown, depth: number): string {
  const json = JSON.stringify(value, null, 2);
  // JSON.stringify escapes every character below U+0020 in strings, so the pretty-printing's own
  // newlines are the only ones left, and the rest of what is unsafe lies beyond ASCII: text of
  // printable ASCII and newlines (almost all of it) is safe as it is, without a call per line.
  const text = BEYOND_ASCII.test(json) ? replaceUnsafe(json, (m) => (m === '\n' ? m : escapeUnits(m))) : json;
  return depth === 0 ? text : text.replaceAll('\n', `\n${'  '.repeat(depth)}`);
}
