// Parser for one line of Redis' MONITOR stream (the inverse of replicationFeedMonitors +
// sdscatrepr, see redis-escape.ts for the forward direction):
//   [+]<sec>.<usec6> [<db> <client>] "<arg0>" "<arg1>" ...[\r\n]
// Every byte outside 0x20-0x7E is escaped by the server, so a valid line is pure printable
// ASCII; anything else is rejected rather than guessed at.
import { Buffer, isUtf8 } from 'node:buffer';

export interface MonitorLine {
  /** "1489802333.957500" exactly as printed: seconds.microseconds, kept as a string so no precision is lost. */
  time: string;
  db: number;
  /** "127.0.0.1:63792" | "lua" | "unix:/path" | "[::1]:6379" */
  client: string;
  /** Unescaped args, each decoded as UTF-8, or as latin1 if its bytes are not valid UTF-8 (see binaryArgs). */
  args: string[];
  /** Indexes of args whose bytes were not valid UTF-8 and were decoded as latin1 (one char per byte). */
  binaryArgs?: number[];
}

export class MonitorParseError extends Error {
  constructor(
    message: string,
    readonly line: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}: ${excerpt(line, offset)}`);
    this.name = 'MonitorParseError';
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const TILDE = 0x7e;

interface Header {
  time: string;
  db: number;
  client: string;
  /** Index of the first arg's opening quote (== end when there are no args). */
  argsStart: number;
  /** Index just past the last meaningful char (a trailing CR/LF is excluded). */
  end: number;
}

export function parseMonitorLine(line: string): MonitorLine {
  const h = parseHeader(line);
  const args: string[] = [];
  let binaryArgs: number[] | undefined;
  scanArgs(line, h, (start, close, slow) => {
    if (!slow) {
      // Fast path: printable ASCII without escapes is already the arg's exact text.
      args.push(line.slice(start, close));
      return;
    }
    const bytes = scratch.buf.subarray(0, scratch.len);
    if (!scratch.high) {
      args.push(scratch.buf.toString('latin1', 0, scratch.len));
    } else if (isUtf8(bytes)) {
      args.push(scratch.buf.toString('utf8', 0, scratch.len));
    } else {
      (binaryArgs ??= []).push(args.length);
      args.push(scratch.buf.toString('latin1', 0, scratch.len));
    }
  });
  const out: MonitorLine = { time: h.time, db: h.db, client: h.client, args };
  if (binaryArgs) out.binaryArgs = binaryArgs;
  return out;
}

/** The byte-exact args of a MONITOR line (no text decoding at all). */
export function parseMonitorArgBytes(line: string): Uint8Array[] {
  const h = parseHeader(line);
  const args: Uint8Array[] = [];
  scanArgs(line, h, (start, close, slow) => {
    args.push(slow ? Uint8Array.from(scratch.buf.subarray(0, scratch.len)) : asciiBytes(line, start, close));
  });
  return args;
}

/** True for the "OK" reply to MONITOR itself (redis-cli prints it; raw RESP has "+OK"). */
export function isMonitorOk(line: string): boolean {
  const end = contentEnd(line);
  const start = line.charCodeAt(0) === 0x2b /* + */ ? 1 : 0;
  return end - start === 2 && line.startsWith('OK', start);
}

// ---------------------------------------------------------------------------------------

/** Length without a trailing "\r\n", "\n" or "\r" (a valid line never contains raw CR/LF). */
function contentEnd(line: string): number {
  let end = line.length;
  if (end > 0 && line.charCodeAt(end - 1) === 0x0a) end--;
  if (end > 0 && line.charCodeAt(end - 1) === 0x0d) end--;
  return end;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function parseHeader(line: string): Header {
  const end = contentEnd(line);
  let i = line.charCodeAt(0) === 0x2b /* + */ ? 1 : 0;
  const fail = (msg: string, at: number): never => {
    throw new MonitorParseError(msg, line, at);
  };

  // "%ld.%06ld "
  const timeStart = i;
  while (i < end && isDigit(line.charCodeAt(i))) i++;
  if (i === timeStart) fail('expected timestamp seconds', i);
  if (line.charCodeAt(i) !== 0x2e /* . */) fail("expected '.' in timestamp", i);
  i++;
  for (let k = 0; k < 6; k++, i++)
    if (i >= end || !isDigit(line.charCodeAt(i))) fail('expected 6-digit microseconds', i);
  const time = line.slice(timeStart, i);
  if (i >= end || line.charCodeAt(i) !== SPACE) fail('expected a space after the timestamp', i);
  i++;

  // "[%d <client>] "
  if (i >= end || line.charCodeAt(i) !== 0x5b /* [ */) fail("expected '['", i);
  i++;
  const dbStart = i;
  while (i < end && isDigit(line.charCodeAt(i))) i++;
  // 10 digits is already beyond any configurable database count; refuse absurd numbers.
  if (i === dbStart || i - dbStart > 10) fail('expected a db number', dbStart);
  const db = Number(line.slice(dbStart, i));
  if (i >= end || line.charCodeAt(i) !== SPACE) fail('expected a space after the db number', i);
  i++;
  // The client ends at the first "] ": an IPv6 peer "[::1]:6379" has "]:" and cannot match.
  const close = line.indexOf('] ', i);
  if (close < 0 || close + 2 > end) fail("expected '] ' after the client", i);
  if (close === i) fail('expected a client address', i);
  const client = line.slice(i, close);
  return { time, db, client, argsStart: close + 2, end };
}

/**
 * Walks the quoted args. For each one calls onArg(start, close, slow): `start..close` is the raw
 * text between the quotes; when `slow` is true the arg had escapes and its decoded bytes are in
 * `scratch` (valid only during the callback).
 */
function scanArgs(line: string, h: Header, onArg: (start: number, close: number, slow: boolean) => void): void {
  const { end } = h;
  let i = h.argsStart;
  if (i === end) return; // argc == 0: the server would print "... [db client] " and nothing more
  for (;;) {
    if (i >= end || line.charCodeAt(i) !== QUOTE)
      throw new MonitorParseError("expected '\"' to open an argument", line, i);
    const start = i + 1;
    let j = start;
    let c = 0;
    for (; j < end; j++) {
      c = line.charCodeAt(j);
      if (c === QUOTE || c === BACKSLASH) break;
      if (c < SPACE || c > TILDE) throw new MonitorParseError('unescaped non-printable character in argument', line, j);
    }
    if (j >= end) throw new MonitorParseError('unterminated argument', line, start - 1);
    if (c === QUOTE) {
      onArg(start, j, false);
      i = j + 1;
    } else {
      const close = decodeEscaped(line, start, j, end);
      onArg(start, close, true);
      i = close + 1;
    }
    if (i === end) return;
    if (line.charCodeAt(i) !== SPACE) throw new MonitorParseError('expected a space between arguments', line, i);
    i++;
  }
}

/** Reused decode buffer: decoded bytes never outnumber the chars they came from. */
const scratch = { buf: Buffer.allocUnsafe(4096), len: 0, high: false };

const HEX = new Int8Array(128).fill(-1);
for (let d = 0; d < 10; d++) HEX[0x30 + d] = d;
for (let d = 0; d < 6; d++) {
  HEX[0x61 + d] = 10 + d;
  HEX[0x41 + d] = 10 + d;
}

function hexAt(line: string, i: number): number {
  const c = line.charCodeAt(i);
  return c < 128 ? (HEX[c] ?? -1) : -1;
}

/**
 * Decodes an arg that contains escapes into `scratch`. `start` is the first char after the
 * opening quote, `firstEscape` the first backslash (everything before it is plain ASCII).
 * Returns the index of the closing quote.
 */
function decodeEscaped(line: string, start: number, firstEscape: number, end: number): number {
  if (scratch.buf.length < end - start) scratch.buf = Buffer.allocUnsafe(Math.max(end - start, scratch.buf.length * 2));
  const buf = scratch.buf;
  let n = 0;
  for (let k = start; k < firstEscape; k++) buf[n++] = line.charCodeAt(k);
  let high = false;
  let i = firstEscape;
  while (i < end) {
    const c = line.charCodeAt(i);
    if (c === QUOTE) {
      scratch.len = n;
      scratch.high = high;
      return i;
    }
    if (c !== BACKSLASH) {
      if (c < SPACE || c > TILDE) throw new MonitorParseError('unescaped non-printable character in argument', line, i);
      buf[n++] = c;
      i++;
      continue;
    }
    if (i + 1 >= end) break;
    const e = line.charCodeAt(i + 1);
    let b: number;
    switch (e) {
      case BACKSLASH:
      case QUOTE:
        b = e;
        break;
      case 0x6e /* n */:
        b = 0x0a;
        break;
      case 0x72 /* r */:
        b = 0x0d;
        break;
      case 0x74 /* t */:
        b = 0x09;
        break;
      case 0x61 /* a */:
        b = 0x07;
        break;
      case 0x62 /* b */:
        b = 0x08;
        break;
      case 0x78 /* x */: {
        const hi = i + 2 < end ? hexAt(line, i + 2) : -1;
        const lo = i + 3 < end ? hexAt(line, i + 3) : -1;
        if (hi < 0 || lo < 0) throw new MonitorParseError('expected two hex digits after \\x', line, i);
        b = (hi << 4) | lo;
        if (b >= 0x80) high = true;
        buf[n++] = b;
        i += 4;
        continue;
      }
      default:
        throw new MonitorParseError('unknown escape', line, i);
    }
    buf[n++] = b;
    i += 2;
  }
  throw new MonitorParseError('unterminated argument', line, start - 1);
}

function asciiBytes(line: string, start: number, close: number): Uint8Array {
  const out = new Uint8Array(close - start);
  for (let k = start; k < close; k++) out[k - start] = line.charCodeAt(k);
  return out;
}

/** A short, printable window of the line around `offset` for error messages (lines can be huge). */
function excerpt(line: string, offset: number): string {
  const from = Math.max(0, offset - 30);
  const to = Math.min(line.length, offset + 30);
  const text = JSON.stringify(line.slice(from, to));
  return `${from > 0 ? '…' : ''}${text}${to < line.length ? '…' : ''}`;
}
