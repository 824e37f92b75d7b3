// The pop script's reserved copy, foreseen. The script decodes the job with cjson, adds 1 to its
// attempts and encodes it again (`reserved = cjson.encode(reserved)`): the copy it puts on
// :reserved, which the worker later deletes or releases by name. cjson writes an object's keys in
// Lua's table order (Redis' Lua 5.1), which depends only on the keys and the order they were
// inserted in (the payload's), never on the values: a pop that came back shows the order for every
// payload of the same shape (the same keys in the same order, at each level). The values cjson
// writes by its own rules (lua_cjson's char2escape: `\/`, `\u0000`-style escapes, `\u007f`;
// numbers by "%.14g"), which this writes for what it is sure of: strings, integers under 10^14,
// true, false, null, and objects. Anything else (an array, a fraction, a key JavaScript would
// reorder, a lone surrogate) is not foreseen, and that pop is awaited as before.
//
// Nothing is taken on trust: an order is kept only when writing that pop's own copy with it gives
// back exactly what Redis answered, and every foreseen copy is compared with Redis' reply when it
// comes (check.ts), a difference stopping the run.

/** An object's keys in the order cjson writes them, with the order of each value that is an object. */
interface Order {
  readonly keys: readonly string[];
  readonly nested: ReadonlyMap<string, Order>;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keys a JavaScript object lists first, in numeric order, whatever order they came in. */
const INDEX_LIKE = /^(?:0|[1-9]\d*)$/;

export class ReservedCopies {
  /** By a payload's shape: the order its copy is written in, or null where that shape is not foreseen. */
  private readonly orders = new Map<string, Order | null>();

  /** The copy the pop script makes of `payload` (attempts + 1), or null when the model cannot write it. */
  foresee(payload: string): string | null {
    const job = parse(payload);
    if (job === undefined || typeof job.attempts !== 'number') return null;
    const s = shape(job);
    if (s === null) return null;
    const order = this.orders.get(s);
    if (order === undefined || order === null) return null;
    return encodeObject({ ...job, attempts: job.attempts + 1 }, order);
  }

  /** What a pop of `payload` returned as its reserved copy: its order, kept where it writes that copy exactly. */
  learn(payload: string, reserved: string): void {
    const job = parse(payload);
    if (job === undefined || typeof job.attempts !== 'number') return;
    const s = shape(job);
    if (s === null || this.orders.get(s) === null) return;
    const copy = parse(reserved);
    const order = copy === undefined ? null : orderOf(copy);
    const writes = order !== null && encodeObject({ ...job, attempts: job.attempts + 1 }, order) === reserved;
    this.orders.set(s, writes ? order : null);
  }
}

function parse(text: string): { [key: string]: Json } | undefined {
  try {
    const v = JSON.parse(text) as Json;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The keys at each level, in order; null where the object holds what is not foreseen (an array, an empty object, an index-like key). */
function shape(o: { [key: string]: Json }): string | null {
  const keys = Object.keys(o);
  if (keys.length === 0) return null;
  const parts: string[] = [];
  for (const k of keys) {
    if (INDEX_LIKE.test(k)) return null;
    const v = o[k]!;
    if (Array.isArray(v)) return null;
    if (v !== null && typeof v === 'object') {
      const inner = shape(v);
      if (inner === null) return null;
      parts.push(`${JSON.stringify(k)}:${inner}`);
    } else parts.push(JSON.stringify(k));
  }
  return `{${parts.join(',')}}`;
}

function orderOf(o: { [key: string]: Json }): Order | null {
  const nested = new Map<string, Order>();
  for (const [k, v] of Object.entries(o)) {
    if (Array.isArray(v)) return null;
    if (v !== null && typeof v === 'object') {
      const inner = orderOf(v);
      if (inner === null) return null;
      nested.set(k, inner);
    }
  }
  return { keys: Object.keys(o), nested };
}

function encodeObject(o: { [key: string]: Json }, order: Order): string | null {
  if (order.keys.length !== Object.keys(o).length) return null;
  const parts: string[] = [];
  for (const k of order.keys) {
    if (!Object.hasOwn(o, k)) return null;
    const v = o[k]!;
    const nested = order.nested.get(k);
    const value =
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? nested === undefined
          ? null
          : encodeObject(v, nested)
        : nested !== undefined
          ? null
          : encodeValue(v);
    const key = encodeString(k);
    if (value === null || key === null) return null;
    parts.push(`${key}:${value}`);
  }
  return `{${parts.join(',')}}`;
}

function encodeValue(v: Json): string | null {
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 1e14 && !Object.is(v, -0) ? String(v) : null;
  if (typeof v === 'string') return encodeString(v);
  return null;
}

/** lua_cjson's char2escape: control characters, `"`, `\`, `/` and DEL escaped; every other byte as it is. */
function encodeString(s: string): string | null {
  // A surrogate pair is one character, written as its UTF-8 bytes; a lone half is not foreseen.
  if (LONE_SURROGATE.test(s)) return null;
  return `"${s.replace(ESCAPED, (c) => ESCAPES[c.charCodeAt(0)]!)}"`;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const ESCAPED = /[\u0000-\u001f"\\/\u007f]/g;
const ESCAPES: Record<number, string> = {
  ...Object.fromEntries(Array.from({ length: 32 }, (_, c) => [c, `\\u${c.toString(16).padStart(4, '0')}`])),
  8: '\\b',
  9: '\\t',
  10: '\\n',
  12: '\\f',
  13: '\\r',
  0x22: '\\"',
  0x2f: '\\/',
  0x5c: '\\\\',
  0x7f: '\\u007f',
};
