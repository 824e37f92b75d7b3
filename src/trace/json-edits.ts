// JSON arguments, two ways. A client-sent payload is PHP's json_encode output and is compared
// byte for byte: the replacements are applied to its raw text (string contents through their
// decoded form, so serialize() lengths are counted in real bytes), every other byte kept. A payload
// re-encoded by the server's Lua cjson (the :reserved copies) has a key order that differs between
// Redis and Valkey versions: it is compared as parsed JSON, written with its keys sorted.
import type { Edit, Replacements } from './replace.ts';
import { applyEdits, stringEdits } from './replace.ts';

/** The parsed value when `s` is a JSON object or array, else undefined. */
export function parseJsonContainer(s: string): unknown {
  if (s.length < 2 || (s[0] !== '{' && s[0] !== '[')) return undefined;
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * `raw` (valid JSON) with ids, uuids and times replaced and every other byte as it was. A time
 * that is a JSON number becomes the string "T+N", so the result is still JSON.
 */
export function normaliseRawJson(raw: string, r: Replacements): string {
  const edits: Edit[] = [];
  let i = 0;
  while (i < raw.length) {
    const c = raw[i]!;
    if (c === '"') {
      i = stringLiteralEdits(raw, i, r, edits);
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(raw)!;
      const time = /^\d{10}(\.\d+)?$/.test(m[0]) ? r.time(m[0]) : null;
      if (time !== null) edits.push({ from: i, to: i + m[0].length, text: `"${time}"` });
      i += m[0].length;
    } else i++;
  }
  return applyEdits(raw, edits);
}

/** Edits for the string literal opening at `open`, mapped onto the raw text; returns the index after it. */
function stringLiteralEdits(raw: string, open: number, r: Replacements, out: Edit[]): number {
  let decoded = '';
  const at: number[] = []; // at[k]: raw index of decoded unit k
  let j = open + 1;
  while (raw[j] !== '"') {
    at.push(j);
    if (raw[j] === '\\') {
      const e = raw[j + 1]!;
      if (e === 'u') {
        decoded += String.fromCharCode(parseInt(raw.slice(j + 2, j + 6), 16));
        j += 6;
      } else {
        decoded += ESCAPES[e] ?? e;
        j += 2;
      }
    } else decoded += raw[j++];
  }
  for (const e of stringEdits(decoded, r)) {
    const from = at[e.from]!;
    const to = at[e.to - 1]! + 1;
    // Edits cover ids, uuids and digits, which JSON never escapes: the raw span is the same text.
    if (raw.slice(from, to) !== decoded.slice(e.from, e.to)) continue;
    out.push({ from, to, text: e.text });
  }
  return j + 1;
}

/** The normalised value with object keys sorted (the form cjson-encoded copies are compared in). */
export function canonicalJson(value: unknown, r: Replacements): string {
  return JSON.stringify(canonicalValue(value, r));
}

function canonicalValue(value: unknown, r: Replacements): unknown {
  if (typeof value === 'string') return applyEdits(value, stringEdits(value, r));
  if (typeof value === 'number') {
    const time = Number.isInteger(value) && value >= 1e9 && value < 1e10 ? r.time(String(value)) : null;
    return time ?? value;
  }
  if (Array.isArray(value)) return value.map((v) => canonicalValue(v, r));
  if (typeof value === 'object' && value !== null) {
    const obj = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(obj).sort()) out[k] = canonicalValue(obj[k], r);
    return out;
  }
  return value;
}

/** `s` (JSON) with object keys sorted, nothing else changed; undefined when it is not JSON. */
export function sortedJson(s: string): string | undefined {
  const value = parseJsonContainer(s);
  return value === undefined ? undefined : JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const obj = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(obj)
      .sort()
      .map((k) => [k, sortKeys(obj[k])]),
  );
}

/** Every `id` of a payload object found in `value` (recursively). */
export function payloadIds(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) payloadIds(v, out);
  else if (typeof value === 'object' && value !== null) {
    const obj = value as Record<string, unknown>;
    if (typeof obj.id === 'string' && /^[A-Za-z0-9]{32}$/.test(obj.id)) out.add(obj.id);
    for (const v of Object.values(obj)) if (typeof v === 'object') payloadIds(v, out);
  }
}
