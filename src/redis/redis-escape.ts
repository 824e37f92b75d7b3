// The forward direction of monitor-line.ts: Redis' own formatting, byte for byte.
// sdscatrepr() is src/sds.c (identical Redis 5 → 7.4 and Valkey 8); Redis never sets LC_CTYPE,
// so isprint() is the C locale's: 0x20-0x7E. Everything else is \xhh in lower case.

import { Buffer } from 'node:buffer';

const encoder = new TextEncoder();

const HEX_DIGITS = '0123456789abcdef';
/** Precomputed text for each byte, so the loop below does one table lookup per byte. */
const REPR: string[] = Array.from({ length: 256 }, (_, b) => {
  switch (b) {
    case 0x5c:
      return '\\\\';
    case 0x22:
      return '\\"';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    default:
      return b >= 0x20 && b <= 0x7e ? String.fromCharCode(b) : `\\x${HEX_DIGITS[b >> 4]}${HEX_DIGITS[b & 15]}`;
  }
});

/** Redis' sdscatrepr(): the double-quoted, escaped form of the bytes (strings are taken as UTF-8). */
export function sdscatrepr(bytes: Uint8Array | string): string {
  if (typeof bytes === 'string') {
    if (isPlain(bytes)) return `"${bytes}"`;
    bytes = encoder.encode(bytes);
  }
  let out = '"';
  for (let i = 0; i < bytes.length; i++) out += REPR[bytes[i]!];
  return out + '"';
}

/**
 * One MONITOR line the way replicationFeedMonitors() builds it, without the leading '+' and the
 * trailing CRLF: `<time> [<db> <client>] "<arg0>" "<arg1>" ...`. (Integer-encoded args print
 * as "%ld", which is the same text as sdscatrepr of their digits.) String args are UTF-8, except
 * those listed in `binaryArgs` (as parseMonitorLine reports them), which are one byte per char,
 * so formatting a parsed line gives back the original text.
 */
export function formatMonitorLine(l: {
  time: string;
  db: number;
  client: string;
  args: (string | Uint8Array)[];
  binaryArgs?: number[];
}): string {
  let out = `${l.time} [${l.db} ${l.client}] `;
  for (let j = 0; j < l.args.length; j++) {
    if (j > 0) out += ' ';
    const arg = l.args[j]!;
    out +=
      typeof arg === 'string' && l.binaryArgs?.includes(j) ? sdscatrepr(Buffer.from(arg, 'latin1')) : sdscatrepr(arg);
  }
  return out;
}

/** True when every char is printable ASCII and needs no escaping, so the text is its own repr. */
function isPlain(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}
