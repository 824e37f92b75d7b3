// The replacements the normaliser makes inside one string: unix times → T+N, job ids → ID1...,
// uuids → UUID1..., numbered in order of first appearance (and lock owners → OWNER1..., which
// the normaliser names by their place in a lock command, not inside strings). Inside PHP serialize() output a
// replacement changes a string's byte length, so every enclosing `s:N:"..."` gets its N rewritten
// (nested ones included) and the serialized text stays valid. Replacements are computed as edits
// over ASCII-only spans (ids, uuids, digits), so the same edits can be applied to a JSON literal's
// raw bytes without touching its escaping (see json-edits.ts).

/** A replacement of s.slice(from, to) (an ASCII span) by `text` (ASCII). */
export interface Edit {
  from: number;
  to: number;
  text: string;
}

/** Unix times within this many seconds of the trace's start are rewritten (about 115 days). */
export const TIME_WINDOW = 10_000_000;

/** The numbering state of one trace: the same id gets the same name everywhere in it. */
export class Replacements {
  readonly ids = new Map<string, string>();
  readonly uuids = new Map<string, string>();
  readonly owners = new Map<string, string>();
  /** Strings that are job ids (the `id` of a payload); only these 32-character tokens are replaced. */
  readonly knownIds = new Set<string>();

  constructor(readonly start: number) {}

  id(raw: string): string {
    let name = this.ids.get(raw);
    if (name === undefined) this.ids.set(raw, (name = `ID${this.ids.size + 1}`));
    return name;
  }

  uuid(raw: string): string {
    let name = this.uuids.get(raw.toLowerCase());
    if (name === undefined) this.uuids.set(raw.toLowerCase(), (name = `UUID${this.uuids.size + 1}`));
    return name;
  }

  /** A cache lock's owner (Str::random(), drawn per lock object): OWNER1, OWNER2... */
  owner(raw: string): string {
    let name = this.owners.get(raw);
    if (name === undefined) this.owners.set(raw, (name = `OWNER${this.owners.size + 1}`));
    return name;
  }

  /** `T+90`, `T-5`, `T+0.25` for a unix time near the start; null for any other number. */
  time(raw: string): string | null {
    const v = Number(raw);
    if (!Number.isFinite(v) || Math.abs(v - this.start) > TIME_WINDOW) return null;
    const decimals = raw.includes('.') ? raw.length - raw.indexOf('.') - 1 : 0;
    const d = v - this.start;
    const text = Math.abs(d).toFixed(decimals);
    return d < 0 && Number(text) !== 0 ? `T-${text}` : `T+${text}`;
  }
}

/** A uuid, a 32-character token (a Str::random(32) id when known), or a 10-digit unix time, standing alone. */
const TOKEN =
  /(?<![A-Za-z0-9])(?:([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})|([A-Za-z0-9]{32})|(\d{10}(?:\.\d+)?))(?![A-Za-z0-9])/g;

/** Edits for the plain text s[from, to): no serialized strings considered. */
function plainEdits(s: string, from: number, to: number, r: Replacements, out: Edit[]): number {
  const part = s.slice(from, to);
  let delta = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(part); m !== null; m = TOKEN.exec(part)) {
    let text: string | null = null;
    if (m[1] !== undefined) text = r.uuid(m[1]);
    else if (m[2] !== undefined) text = r.knownIds.has(m[2]) ? r.id(m[2]) : null;
    else if (m[3] !== undefined) text = r.time(m[3]);
    if (text === null) continue;
    out.push({ from: from + m.index, to: from + m.index + m[0].length, text });
    delta += text.length - m[0].length;
  }
  return delta;
}

/** A serialized string's header `s:N:"` at `at`, where a serialize() token can start. */
const SERIALIZED = /s:(\d{1,9}):"/y;

/** The end (index of the closing quote) of `byteLength` UTF-8 bytes from `from`, or -1. */
function endOfBytes(s: string, from: number, byteLength: number): number {
  let bytes = 0;
  let i = from;
  while (bytes < byteLength && i < s.length) {
    const cp = s.codePointAt(i)!;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += cp > 0xffff ? 2 : 1;
  }
  return bytes === byteLength && s[i] === '"' && s[i + 1] === ';' ? i : -1;
}

/**
 * Edits for s[from, to), serialize()-aware: each `s:N:"content";` is normalised inside and its N
 * rewritten to the new byte length. Returns the change in length (= in bytes: every edit is ASCII).
 */
function serializedEdits(s: string, from: number, to: number, r: Replacements, out: Edit[]): number {
  let delta = 0;
  let segment = from;
  let i = s.indexOf('s:', from);
  while (i >= 0 && i < to) {
    const prev = i === from ? '' : s[i - 1];
    SERIALIZED.lastIndex = i;
    const m = prev !== undefined && (prev === '' || ';{}'.includes(prev)) ? SERIALIZED.exec(s) : null;
    const contentStart = m ? i + m[0].length : -1;
    const close = m ? endOfBytes(s, contentStart, Number(m[1])) : -1;
    if (m === null || close < 0 || close + 2 > to) {
      i = s.indexOf('s:', i + 1);
      continue;
    }
    delta += plainEdits(s, segment, i, r, out);
    const inner: Edit[] = [];
    const innerDelta = serializedEdits(s, contentStart, close, r, inner);
    if (innerDelta !== 0) {
      const digits = m[1]!;
      const text = String(Number(digits) + innerDelta);
      out.push({ from: i + 2, to: i + 2 + digits.length, text });
      delta += text.length - digits.length;
    }
    out.push(...inner);
    delta += innerDelta;
    segment = close + 2;
    i = s.indexOf('s:', segment);
  }
  delta += plainEdits(s, segment, to, r, out);
  return delta;
}

/** The edits that normalise `s` (ids, uuids, times; serialized lengths kept consistent), in order. */
export function stringEdits(s: string, r: Replacements): Edit[] {
  const out: Edit[] = [];
  if (s.includes('s:')) serializedEdits(s, 0, s.length, r, out);
  else plainEdits(s, 0, s.length, r, out);
  return out;
}

export function applyEdits(s: string, edits: readonly Edit[]): string {
  if (edits.length === 0) return s;
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += s.slice(at, e.from) + e.text;
    at = e.to;
  }
  return out + s.slice(at);
}

/** `s` normalised. */
export function normaliseString(s: string, r: Replacements): string {
  return applyEdits(s, stringEdits(s, r));
}
