// Parser for one line of Redis' MONITOR stream (the inverse of replicationFeedMonitors +
// sdscatrepr, see redis-escape.ts for the forward direction):
//   [+]<sec>.<usec6> [<db> <client>] "<arg0>" "<arg1>" ...[\r\n]
// Every byte outside 0x20-0x7E is escaped by the server, so a valid line is pure printable
// ASCII; anything else is rejected rather than guessed at.
import { Buffer, isUtf8 } from 'node:buffer';
import { commandName } from '../sim/command-name.ts';

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
  /** Set when a reader asked for the first args only (ArgsWanted): the line has more, not read. */
  partial?: true;
  /** How many args the line has in all, when a reader asked for the rest to be counted only ('count'). */
  argc?: number;
  /**
   * The cluster node whose MONITOR printed it ("node2"), for a line of a cluster's merged capture:
   * such a line starts with `@<node> ` (nodeLine), which no server prints.
   */
  node?: string;
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

/**
 * Which args a reader needs, asked before each one (`args` holds those decoded so far): false
 * ends the parse there, and `args` holds only those (`partial` is then set); 'count' ends it too,
 * with the args left counted (`argc`). A reader that needs the first few args of a line that
 * carries a 1 KB payload after them spares decoding it.
 */
export type ArgsWanted = (client: string, args: readonly string[]) => boolean | 'count';

export function parseMonitorLine(line: string): MonitorLine {
  return parseMonitorArgs(line, undefined);
}

/** A line's header and the args `wanted` asks for (see ArgsWanted): the rest is left unread. */
export function parseMonitorLineHead(line: string, wanted: ArgsWanted): MonitorLine {
  return parseMonitorArgs(line, wanted);
}

/** A line of a cluster's merged capture: `@<node> ` and the node's own MONITOR line. */
export function nodeLine(node: string, line: string): string {
  return `@${node} ${line}`;
}

/** The node of a nodeLine and the MONITOR line it carries; no node for a plain line. */
export function splitNodeLine(line: string): { node?: string; line: string } {
  if (line.charCodeAt(0) !== 0x40 /* @ */) return { line };
  const space = line.indexOf(' ');
  if (space < 2) throw new MonitorParseError("expected a node name after '@'", line, 1);
  return { node: line.slice(1, space), line: line.slice(space + 1) };
}

function parseMonitorArgs(raw: string, wanted: ArgsWanted | undefined): MonitorLine {
  const { node, line } = splitNodeLine(raw);
  const h = parseHeader(line);
  const args: string[] = [];
  let binaryArgs: number[] | undefined;
  let partial = false;
  let argc: number | undefined;
  /** Where the last arg opens (after the last `" "`), found once for a long line: -2 until then. */
  let lastOpen = -2;
  const { end } = h;
  let i = h.argsStart;
  // argc == 0: the server would print "... [db client] " and nothing more
  while (i !== end) {
    const more = wanted === undefined ? true : wanted(h.client, args);
    // The args left, counted, unless their text leaves the count in doubt (then they are read).
    const left = more === 'count' ? argsFrom(line, i, end) : undefined;
    if (more === false || left !== undefined) {
      // A line that does not end its last arg (cut short by a killed redis-cli, or not MONITOR's
      // past here) is read whole, to say what is wrong with it as a whole reading does.
      if (line.charCodeAt(end - 1) !== QUOTE) return parseMonitorArgs(raw, undefined);
      partial = true;
      if (left !== undefined) argc = args.length + left;
      break;
    }
    if (line.charCodeAt(i) !== QUOTE) throw new MonitorParseError("expected '\"' to open an argument", line, i);
    const start = i + 1;
    const script = args.length === 1 && isEval(args[0]!) ? scriptAt(line, start) : undefined;
    if (script === undefined && lastOpen === -2 && end - start > LONG_ARG)
      lastOpen = lastArgOpen(line, h.argsStart, end);
    const last = script === undefined && i === lastOpen ? lastArg(line, start, end) : undefined;
    if (script !== undefined) {
      args.push(script.text);
      i = start + script.raw.length + 1;
    } else if (last !== undefined) {
      args.push(last);
      i = end;
    } else {
      const close = readArg(line, start, end);
      if (!scratch.slow) {
        // Fast path: printable ASCII without escapes is already the arg's exact text.
        args.push(line.slice(start, close));
      } else if (!scratch.high) {
        const text = scratch.buf.toString('latin1', 0, scratch.len);
        if (args.length === 1 && isEval(args[0]!)) learnScript(line.slice(start, close), text);
        args.push(text);
      } else if (isUtf8(scratch.buf.subarray(0, scratch.len))) {
        args.push(scratch.buf.toString('utf8', 0, scratch.len));
      } else {
        (binaryArgs ??= []).push(args.length);
        args.push(scratch.buf.toString('latin1', 0, scratch.len));
      }
      i = close + 1;
    }
    if (i === end) break;
    if (line.charCodeAt(i) !== SPACE) throw new MonitorParseError('expected a space between arguments', line, i);
    i++;
    if (i === end) throw new MonitorParseError("expected '\"' to open an argument", line, i);
  }
  const out: MonitorLine = { time: h.time, db: h.db, client: h.client, args };
  if (node !== undefined) out.node = node;
  if (binaryArgs) out.binaryArgs = binaryArgs;
  if (partial) out.partial = true;
  if (argc !== undefined) out.argc = argc;
  return out;
}

/**
 * How many args the rest of a line holds, from `i` (an arg's opening quote), without reading
 * them: one, and one more after each `" "` whose first quote ends an arg (not an escaped quote
 * that an arg's text ends with: `"x\" " "y"`); or undefined where that cannot tell: an arg that
 * is one space (`"a" " " "b"`, whose `" "` is an arg, not a gap). A broken line counts as it
 * looks; the whole reading tells it.
 */
function argsFrom(line: string, i: number, end: number): number | undefined {
  if (line.indexOf('" " "', i) !== -1) return undefined;
  let n = 1;
  for (let at = line.indexOf('" "', i + 1); at !== -1 && at < end; at = line.indexOf('" "', at + 1))
    if (!escaped(line, at, i)) n++;
  return n;
}

/** Whether the char at `at` is escaped: an odd run of backslashes before it (back to `from`). */
function escaped(line: string, at: number, from: number): boolean {
  let k = at - 1;
  while (k > from && line.charCodeAt(k) === BACKSLASH) k--;
  return (at - 1 - k) % 2 === 1;
}

/** A last arg worth reading at once: a payload (a push's, a reserved copy's, a delete's), not a short one. */
const LONG_ARG = 128;
/**
 * What JSON reads otherwise than MONITOR writes: a char that is not printable ASCII, and an
 * escape only one of them has (\x and \a are MONITOR's; \u, \f and \/ are JSON's). A false
 * alarm (an escaped backslash before an x) only sends the arg the slow way.
 */
const NOT_PRINTABLE = /[^\x20-\x7e]/;
const NOT_JSON_ESCAPE = /\\[xauf/]/;

/**
 * The line's last arg, from `start` to the quote that ends the line, read by JSON.parse (twice as
 * fast as the loop for a payload's hundreds of escaped quotes), when it is one arg whose escapes
 * JSON reads as MONITOR writes them; else undefined (readArg then reads it, and says what is wrong).
 */
function lastArg(line: string, start: number, end: number): string | undefined {
  if (end - start <= LONG_ARG || line.charCodeAt(end - 1) !== QUOTE) return undefined;
  const raw = line.slice(start - 1, end);
  // A payload comes again a line or a few later: a push's EVAL, then its script's RPUSH; a pop's
  // ZADD of the reserved copy, then the delete's ZREM of it. Texts that differ do so within a few
  // characters (their uuids), or in length.
  for (const seen of LAST_ARGS) if (seen.raw === raw) return seen.text;
  // Two simple tests: an alternation of the two is several times slower in V8's regexp engine.
  if (NOT_PRINTABLE.test(raw) || NOT_JSON_ESCAPE.test(raw)) return undefined;
  let text: string;
  try {
    text = JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
  if (LAST_ARGS.length === LAST_ARGS_KEPT) LAST_ARGS.pop();
  LAST_ARGS.unshift({ raw, text });
  return text;
}

/**
 * Where a line's last arg opens: after its last `" "` (args are separated by one), or its first
 * arg when it has none. One scan back from the end, not one per arg. An arg whose own text makes
 * a `" "` (ending in an escaped quote and a space, or a lone space) puts it inside an arg, where
 * no arg opens: then no arg is taken for the last, and each is read the slow way.
 */
function lastArgOpen(line: string, argsStart: number, end: number): number {
  const gap = line.lastIndexOf('" "', end - 1);
  return gap < argsStart ? argsStart : gap + 2;
}

/** The last args read lately, newest first (see lastArg): as many as a job's commands are lines apart. */
const LAST_ARGS: Array<{ raw: string; text: string }> = [];
const LAST_ARGS_KEPT = 8;

function isEval(name: string): boolean {
  return name.length === 4 && commandName(name) === 'EVAL';
}

/**
 * Scripts' texts as MONITOR prints them (escaped), each with its text: an app EVALs the same few
 * scripts over and over (Laravel's pop and migrates on every poll), each a few hundred escaped
 * chars, decoded once. A raw text followed by a quote is that arg whole (an escape never runs
 * past its end). Bounded: another app's scripts made on the fly fill it once, then it stops learning.
 */
const SCRIPTS: Array<{ raw: string; text: string }> = [];
const SCRIPTS_KEPT = 32;
/** Shorter texts cost less to decode than to look up. */
const SCRIPT_WORTH = 64;

function scriptAt(line: string, start: number): { raw: string; text: string } | undefined {
  // A slice compared whole: several times faster than startsWith(raw, start) in V8.
  for (const s of SCRIPTS)
    if (line.charCodeAt(start + s.raw.length) === QUOTE && line.slice(start, start + s.raw.length) === s.raw) return s;
  return undefined;
}

function learnScript(raw: string, text: string): void {
  if (raw.length >= SCRIPT_WORTH && SCRIPTS.length < SCRIPTS_KEPT) SCRIPTS.push({ raw, text });
}

/** The byte-exact args of a MONITOR line (no text decoding at all). */
export function parseMonitorArgBytes(raw: string): Uint8Array[] {
  const { line } = splitNodeLine(raw);
  const h = parseHeader(line);
  const args: Uint8Array[] = [];
  scanArgs(line, h, (start, close, slow) => {
    args.push(slow ? Uint8Array.from(scratch.buf.subarray(0, scratch.len)) : asciiBytes(line, start, close));
  });
  return args;
}

/** True for the "OK" reply to MONITOR itself (redis-cli prints it; raw RESP has "+OK"). */
/** The last lines parsedLines parsed: the array, how many it held then, and the parse. */
let lastParsed: { lines: readonly string[]; count: number; parsed: readonly MonitorLine[] } | null = null;

/**
 * A step's MONITOR lines parsed, MONITOR's own OK left out: once for everyone who reads them in
 * turn (the watch for other clients, the TTL service and the attribution each parsed every line
 * again; an EVAL's line carries its whole script). Only the last array's parse is kept (a run
 * that holds its lines, the lab's, would otherwise hold every parse too), and it is made again
 * if the array has grown since. The lines' args are shared: a reader must not change them.
 */
export function parsedLines(lines: readonly string[]): readonly MonitorLine[] {
  if (lastParsed !== null && lastParsed.lines === lines && lastParsed.count === lines.length) return lastParsed.parsed;
  const parsed: MonitorLine[] = [];
  for (const line of lines) if (!isMonitorOk(line)) parsed.push(parseMonitorLine(line));
  lastParsed = { lines, count: lines.length, parsed };
  return parsed;
}

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
  // Read at every line of a capture: one pass of charCodeAt, no closure, no regex.
  let i = line.charCodeAt(0) === 0x2b /* + */ ? 1 : 0;

  // "%ld.%06ld "
  const timeStart = i;
  while (i < end && isDigit(line.charCodeAt(i))) i++;
  if (i === timeStart) throw new MonitorParseError('expected timestamp seconds', line, i);
  if (line.charCodeAt(i) !== 0x2e /* . */) throw new MonitorParseError("expected '.' in timestamp", line, i);
  i++;
  for (let k = 0; k < 6; k++, i++)
    if (i >= end || !isDigit(line.charCodeAt(i))) throw new MonitorParseError('expected 6-digit microseconds', line, i);
  const time = line.slice(timeStart, i);
  if (i >= end || line.charCodeAt(i) !== SPACE)
    throw new MonitorParseError('expected a space after the timestamp', line, i);
  i++;

  // "[%d <client>] "
  if (i >= end || line.charCodeAt(i) !== 0x5b /* [ */) throw new MonitorParseError("expected '['", line, i);
  i++;
  const dbStart = i;
  let db = 0;
  for (let c = line.charCodeAt(i); i < end && isDigit(c); c = line.charCodeAt(++i)) db = db * 10 + (c - 0x30);
  // 10 digits is already beyond any configurable database count; refuse absurd numbers.
  if (i === dbStart || i - dbStart > 10) throw new MonitorParseError('expected a db number', line, dbStart);
  if (i >= end || line.charCodeAt(i) !== SPACE)
    throw new MonitorParseError('expected a space after the db number', line, i);
  i++;
  // The client ends at the first "] ": an IPv6 peer "[::1]:6379" has "]:" and cannot match.
  const close = line.indexOf('] ', i);
  if (close < 0 || close + 2 > end) throw new MonitorParseError("expected '] ' after the client", line, i);
  if (close === i) throw new MonitorParseError('expected a client address', line, i);
  const client = line.slice(i, close);
  return { time, db, client, argsStart: close + 2, end };
}

/**
 * Walks the quoted args. For each one calls onArg(start, close, slow): `start..close` is the raw
 * text between the quotes; when `slow` is true the arg had escapes and its decoded bytes are in
 * `scratch` (valid only during the callback). Stops early, returning true, where `more` says no
 * more args are wanted (the rest of the line is then neither read nor checked).
 */
function scanArgs(line: string, h: Header, onArg: (start: number, close: number, slow: boolean) => void): void {
  const { end } = h;
  let i = h.argsStart;
  if (i === end) return; // argc == 0: the server would print "... [db client] " and nothing more
  for (;;) {
    if (i >= end || line.charCodeAt(i) !== QUOTE)
      throw new MonitorParseError("expected '\"' to open an argument", line, i);
    const start = i + 1;
    const close = readArg(line, start, end);
    onArg(start, close, scratch.slow);
    i = close + 1;
    if (i === end) return;
    if (line.charCodeAt(i) !== SPACE) throw new MonitorParseError('expected a space between arguments', line, i);
    i++;
  }
}

/**
 * One quoted arg from `start` (just past its opening quote): the index of its closing quote.
 * `scratch.slow` says whether it had escapes, and then its decoded bytes are in `scratch`.
 */
function readArg(line: string, start: number, end: number): number {
  let j = start;
  let c = 0;
  for (; j < end; j++) {
    c = line.charCodeAt(j);
    if (c === QUOTE || c === BACKSLASH) break;
    if (c < SPACE || c > TILDE) throw new MonitorParseError('unescaped non-printable character in argument', line, j);
  }
  if (j >= end) throw new MonitorParseError('unterminated argument', line, start - 1);
  scratch.slow = c !== QUOTE;
  return scratch.slow ? decodeEscaped(line, start, j, end) : j;
}

/** Reused decode buffer: decoded bytes never outnumber the chars they came from. */
const scratch = { buf: Buffer.allocUnsafe(4096), len: 0, high: false, slow: false };

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
