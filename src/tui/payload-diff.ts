// What changed in a job's payload since the trace last showed it: the pop script bumps `attempts`
// (0→1), a release pushes it back with the new count. cjson re-encoding the reserved copy changes
// the key order but no value, so that is not a change. Pure.
import { isDeepStrictEqual } from 'node:util';

export interface FieldChange {
  field: string;
  /** Display form of the old and new values (JSON, cut short). */
  from: string;
  to: string;
}

export type ParsedPayload = Record<string, unknown>;

export function parsePayload(raw: string): ParsedPayload | null {
  if (raw.length < 2 || raw[0] !== '{') return null;
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as ParsedPayload) : null;
  } catch {
    return null;
  }
}

/** Top-level fields whose values differ, `attempts` first; added and removed fields count too. */
export function payloadChanges(before: ParsedPayload, after: ParsedPayload): FieldChange[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changes = fields
    .filter((f) => !isDeepStrictEqual(before[f], after[f]))
    .map((field) => ({ field, from: short(before[field]), to: short(after[field]) }));
  return changes.sort((a, b) => Number(b.field === 'attempts') - Number(a.field === 'attempts'));
}

function short(v: unknown): string {
  if (v === undefined) return '∅';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 16 ? `${s.slice(0, 15)}…` : s;
}
