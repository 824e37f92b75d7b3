// PHP's encodings, as Laravel's payloads use them: json_encode() with default flags and
// serialize(). Pure; byte-exact for the values our scenarios produce.

/**
 * PHP json_encode() with default flags: like JSON.stringify, but "/" is escaped as "\/" and
 * every non-ASCII character as \uXXXX (JSON_UNESCAPED_UNICODE only arrives in Laravel 8.82).
 */
export function phpJsonEncode(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('value cannot be JSON-encoded');
  // "/" only ever occurs inside strings in JSON text, so a global replace is exact.
  return json.replace(/\//g, '\\/').replace(/[\u007f-\uffff]/g, (ch) => {
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
    if (Number.isInteger(value)) return `i:${value};`;
    return `d:${value};`;
  }
  if (typeof value === 'string') return `s:${byteLength(value)}:"${value}";`;
  if (value.kind === 'array') {
    const body = value.entries.map(([k, v]) => phpSerialize(k) + phpSerialize(v)).join('');
    return `a:${value.entries.length}:{${body}}`;
  }
  const props = value.properties
    .map((p) => {
      const mangled =
        p.visibility === 'public' ? p.name : p.visibility === 'protected' ? `\0*\0${p.name}` : `\0${value.className}\0${p.name}`;
      return phpSerialize(mangled) + phpSerialize(p.value);
    })
    .join('');
  return `O:${byteLength(value.className)}:"${value.className}":${value.properties.length}:{${props}}`;
}
