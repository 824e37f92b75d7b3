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

/** Pretty-printed (two spaces), newline-terminated. */
export function renderJson(timeline: Timeline): string {
  // The only unsafe character outside strings is the pretty-printing's own newline.
  return replaceUnsafe(JSON.stringify(timeline, null, 2), (m) => (m === '\n' ? m : escapeUnits(m))) + '\n';
}
