// Reading a MONITOR capture from someone's own app (`redis-cli monitor > capture.txt`, Redis
// 6.2-7.x or Valkey), or lqsim's own ndjson (`lqsim run --format ndjson`): line by line from a
// file, so a capture of any size is held one line at a time. Nothing in it is trusted: a line that is not MONITOR's (truncated by a killed redis-cli,
// cut by `head`, edited) becomes a problem naming its line number, never a crash.
import { isAscii } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import type { ArgsWanted, MonitorLine } from '../redis/monitor-line.ts';
import { isMonitorOk, MonitorParseError, parseMonitorLine, parseMonitorLineHead } from '../redis/monitor-line.ts';
import { ownCopy } from '../redis/own-string.ts';
import { isNdjsonRecord } from '../output/ndjson.ts';
import { recogniseScript } from './recognise.ts';
import { commandName } from '../sim/command-name.ts';

export interface CapturedLine extends NodeOfLine {
  /** 1-based line number in the capture. */
  lineNo: number;
  line: MonitorLine;
}

/** A cluster capture's line (explain/cluster-capture.ts): its node, and its line in that node's file. */
export interface NodeOfLine {
  node?: string;
  nodeLineNo?: number;
}

export interface CaptureProblem extends NodeOfLine {
  lineNo: number;
  /** What is wrong, in one line ("not a MONITOR line: unterminated argument at offset 40: ..."). */
  problem: string;
  /**
   * Found in args the first pass does not read (CONFIGURATION_ARGS): set by a whole reading
   * (forEachEntry without `wanted`) for a line the first pass took, so it is told once, then.
   */
  pastFirstPass?: true;
}

export type CaptureEntry = CapturedLine | CaptureProblem;

export function isProblem(e: CaptureEntry): e is CaptureProblem {
  return 'problem' in e;
}

/** The entries of a capture's lines, in order: MONITOR's "OK" and blank lines are skipped. */
export async function* readCapture(lines: AsyncIterable<string>): AsyncGenerator<CaptureEntry> {
  let lineNo = 0;
  for await (const raw of lines) {
    lineNo++;
    const entry = captureEntry(raw, lineNo);
    if (entry !== null) yield entry;
  }
}

/**
 * What the first pass (the configuration: configuration.ts) reads of a MONITOR line: nothing of
 * a script's own commands (its EVAL says what it is), and of an EVAL the script and its keys, and
 * ARGV[1] only where it is a time (a migrate's now, a pop's until), not a payload; of other
 * commands their name and key, and how many args follow (their count tells a delete's ZREM from
 * another app's), BLPOP's and SELECT's whole. The second pass reads every line whole.
 */
export const CONFIGURATION_ARGS: ArgsWanted = (client, args) => {
  if (client === 'lua') return false;
  if (args.length < 2) return true;
  const name = commandName(args[0]!);
  // A command's name and key say what it is; the count of the rest tells Laravel's shape (a
  // delete's ZREM of one payload) from another app's. BLPOP's timeout is its last arg.
  if (name !== 'EVAL') return name === 'BLPOP' || name === 'SELECT' ? true : 'count';
  if (args.length < 3) return true;
  const keys = Number(args[2]);
  if (!Number.isInteger(keys)) return true;
  if (args.length < 3 + keys) return true;
  const script = recogniseScript(args[1]!)?.name;
  return args.length === 3 + keys && (script === undefined || script === 'pop' || script === 'migrateExpiredJobs');
};

/**
 * One line of a capture: its command, a problem, or null for what is not a command ("OK",
 * blank). Only the args `wanted` asks for, when given (the line is then `partial`).
 */
export function captureEntry(raw: string, lineNo: number, wanted?: ArgsWanted): CaptureEntry | null {
  // (A line starts with its time; blank ones, with nothing or a space.)
  if (raw.length === 0 || (raw.charCodeAt(0) <= 0x20 && raw.trim() === '') || isMonitorOk(raw)) return null;
  if (raw.startsWith('{')) return ndjsonEntry(raw, lineNo);
  try {
    const line = wanted === undefined ? parseMonitorLine(raw) : parseMonitorLineHead(raw, wanted);
    // The address is kept for the whole capture (a connection, an actor): not as a slice of its
    // line. Half a capture's lines are a script's, whose "client" is the one constant.
    line.client = line.client === LUA ? LUA : ownCopy(line.client);
    // A line of a cluster's merged capture, marked `@node2 ` (the engine's nodeLine): keyed by its
    // node as a node file's line is (explain/cluster-capture.ts).
    if (line.node !== undefined) {
      if (line.client !== LUA) line.client = `${line.node}/${line.client}`;
      return { lineNo, line, node: line.node };
    }
    return { lineNo, line };
  } catch (e) {
    const message = e instanceof MonitorParseError ? e.message : e instanceof Error ? e.message : String(e);
    return { lineNo, problem: `not a MONITOR line: ${message.split('\n')[0]}` };
  }
}

const LUA = 'lua';

/** The client of a line of lqsim's ndjson: `lqsim:<actor>:<process>` (MONITOR's are addresses). */
export const NDJSON_CLIENT = 'lqsim:';

/**
 * A line of lqsim's ndjson (src/output/ndjson.ts) as the MONITOR line it stands for: each actor's
 * process is a connection ("worker-1:2"), `t` (the virtual clock Laravel's commands carry) the time.
 */
function ndjsonEntry(raw: string, lineNo: number): CaptureEntry | null {
  let c: Record<string, unknown>;
  try {
    c = JSON.parse(raw) as Record<string, unknown>;
  } catch (e) {
    return { lineNo, problem: `not an ndjson command: ${e instanceof Error ? e.message : String(e)}` };
  }
  // explain's own ndjson ends with its settings, lives and findings (explain/records.ts): not commands.
  if (isNdjsonRecord(c)) return null;
  const { t, db, actor, process, source, args, binaryArgs } = c;
  if (
    typeof t !== 'number' ||
    typeof db !== 'number' ||
    typeof actor !== 'string' ||
    typeof process !== 'number' ||
    (source !== 'client' && source !== 'lua') ||
    !Array.isArray(args) ||
    !args.every((a) => typeof a === 'string')
  )
    return { lineNo, problem: 'not an ndjson command: needs t, db, actor, process, source (client|lua) and args' };
  const line: MonitorLine = {
    time: t.toFixed(6),
    db,
    client: source === 'lua' ? 'lua' : `${NDJSON_CLIENT}${actor}:${process}`,
    args: args as string[],
  };
  if (Array.isArray(binaryArgs) && binaryArgs.every((i) => typeof i === 'number'))
    line.binaryArgs = binaryArgs as number[];
  // A cluster run's command names its node: its actor's process is one client for every node
  // (lqsim knows the process behind each connection), so the client stays the process.
  if (typeof c.node === 'string' && c.node !== '') {
    line.node = c.node;
    return { lineNo, line, node: c.node };
  }
  return { lineNo, line };
}

/**
 * One pass over a capture file: each entry in order (awaited when `each` returns a promise), and
 * every 4,096 lines how many of the file's bytes have been read (for a progress bar). Each line
 * whole, or only the args `wanted` asks for (the first pass: CONFIGURATION_ARGS).
 */
export async function forEachEntry(
  file: string | number,
  each: (entry: CaptureEntry) => void | Promise<void>,
  progress?: (bytesRead: number) => void,
  wanted?: ArgsWanted,
): Promise<void> {
  let lineNo = 0;
  await forEachLine(file, (raw, bytesRead) => {
    lineNo++;
    if (progress !== undefined && lineNo % 4096 === 0) progress(bytesRead);
    const entry = captureEntry(raw, lineNo, wanted);
    if (entry === null) return undefined;
    // A problem in args the first pass did not read (rare: read the line again to know).
    if (wanted === undefined && isProblem(entry) && !raw.startsWith('{')) {
      const first = captureEntry(raw, lineNo, CONFIGURATION_ARGS);
      if (first !== null && !isProblem(first)) entry.pastFirstPass = true;
    }
    return each(entry);
  });
}

/** How much of a file is read at a time. */
const CHUNK = 1 << 16;

/**
 * A file's lines, as readline gives them (split at LF, CRLF or a lone CR; the last line without
 * its newline too), read into one buffer used over and over, with how many bytes have been read.
 * Each line is decoded on its own, a string of its own: nothing kept of a line holds on to a
 * chunk, and no chunk is left for the garbage collector. Awaited only when `each` returns a promise.
 */
export async function forEachLine(
  file: string | number,
  each: (line: string, bytesRead: number) => void | Promise<void>,
): Promise<void> {
  // A descriptor (standard input's spill, unlinked: src/cli/explain.ts) is read from its start
  // and left open for the next pass.
  const fd = typeof file === 'number' ? file : openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let bytesRead = 0;
    /** The start of a line that the chunks before ended in. */
    let carry: Buffer | undefined;
    let chunks = 0;
    const line = async (text: string): Promise<void> => {
      for (const l of crLines(text)) {
        const pending = each(l, bytesRead);
        if (pending !== undefined) await pending;
      }
    };
    for (;;) {
      // Read at once (an asynchronous read of 64 KB costs more than it reads), with a turn of the
      // event loop every 16 chunks (1 MB) so a signal's cleanup and other callbacks still run.
      const n = readSync(fd, buf, 0, CHUNK, bytesRead);
      if (n === 0) break;
      if (++chunks % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
      bytesRead += n;
      const chunk = buf.subarray(0, n);
      // MONITOR's lines are ASCII (the server escapes every other byte): latin1, which is the same
      // text for ASCII, decodes faster than UTF-8. lqsim's ndjson may hold UTF-8: its chunks are not ASCII.
      const encoding = isAscii(chunk) ? 'latin1' : 'utf8';
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        const text =
          carry === undefined
            ? chunk.toString(encoding, start, nl)
            : Buffer.concat([carry, chunk.subarray(start, nl)]).toString('utf8');
        carry = undefined;
        start = nl + 1;
        if (text.includes('\r')) await line(text);
        else {
          const pending = each(text, bytesRead);
          if (pending !== undefined) await pending;
        }
      }
      if (start < n)
        carry = Buffer.concat(carry === undefined ? [chunk.subarray(start)] : [carry, chunk.subarray(start)]);
    }
    if (carry !== undefined) await line(carry.toString('utf8'));
  } finally {
    if (typeof file !== 'number') closeSync(fd);
  }
}

/** A line read up to its LF: the CR of a CRLF dropped, and a lone CR ending a line of its own (as readline has it). */
function crLines(text: string): string[] {
  const body = text.endsWith('\r') ? text.slice(0, -1) : text;
  return body.includes('\r') ? body.split('\r') : [body];
}
