// PHP's encodings, as Laravel's payloads use them: json_encode() with default flags and
// serialize(). Pure; byte-exact for the values our scenarios produce.

/**
 * PHP json_encode() with default flags: like JSON.stringify, but "/" is escaped as "\/" and
 * every non-ASCII character as \uXXXX (JSON_UNESCAPED_UNICODE only arrives in Laravel 8.82).
 */
export function phpJsonEncode(value: unknown, opts: { unescapedUnicode?: boolean } = {}): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('value cannot be JSON-encoded');
  // "/" only ever occurs inside strings in JSON text, so a global replace is exact.
  const slashes = json.replace(/\//g, '\\/');
  // JSON_UNESCAPED_UNICODE keeps UTF-8 as is (JSON.stringify already escapes lone surrogates).
  if (opts.unescapedUnicode) return slashes;
  return slashes.replace(/[\u007f-\uffff]/g, (ch) => {
    const code = ch.charCodeAt(0);
    return code === 0x7f ? ch : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** A PHP object for serialize(): class name and properties in declaration order. */
export interface PhpObject {
  kind: 'object';
  className: string;
  properties: Array<{ name: string; visibility: 'public' | 'protected' | 'private'; value: PhpValue }>;
}
export interface PhpArray {
  kind: 'array';
  entries: Array<[string | number, PhpValue]>;
}
export type PhpValue = null | boolean | number | string | PhpObject | PhpArray;

const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

/** PHP serialize(). Protected names are mangled "\0*\0name", private "\0Class\0name". */
export function phpSerialize(value: PhpValue): string {
  if (value === null) return 'N;';
  if (typeof value === 'boolean') return `b:${value ? 1 : 0};`;
  if (typeof value === 'number') {
    // PHP ints are 64-bit; a larger whole number only exists in PHP as a float.
    if (Number.isInteger(value) && Math.abs(value) < 2 ** 63) return `i:${value};`;
    return `d:${phpFloat(value)};`;
  }
  if (typeof value === 'string') return `s:${byteLength(value)}:"${value}";`;
  if (value.kind === 'array') {
    const body = value.entries.map(([k, v]) => phpSerialize(k) + phpSerialize(v)).join('');
    return `a:${value.entries.length}:{${body}}`;
  }
  const props = value.properties
    .map((p) => {
      const mangled =
        p.visibility === 'public'
          ? p.name
          : p.visibility === 'protected'
            ? `\0*\0${p.name}`
            : `\0${value.className}\0${p.name}`;
      return phpSerialize(mangled) + phpSerialize(p.value);
    })
    .join('');
  return `O:${byteLength(value.className)}:"${value.className}":${value.properties.length}:{${props}}`;
}

/**
 * A float as serialize() writes it (serialize_precision -1): the shortest round-trip digits,
 * in exponent form below 1e-4 and from 1e17 up, with at least one decimal and a capital E.
 */
export function phpFloat(x: number): string {
  if (Number.isNaN(x)) return 'NAN';
  if (!Number.isFinite(x)) return x > 0 ? 'INF' : '-INF';
  const abs = Math.abs(x);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e17)) {
    const [mantissa, exp] = x.toExponential().split('e') as [string, string];
    return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exp.startsWith('-') ? exp : `+${exp.replace('+', '')}`}`;
  }
  return String(x);
}
