// A Redis Cluster's capture: one `redis-cli -p P monitor > file` per node, read together as one
// capture merged by MONITOR's timestamps, each line keeping its node. Each file is read a line at a
// time (a capture of any size), and a file's own order is never changed: the merge takes the
// earliest head of the files, the first file on equal times. An EVAL moves with the `[0 lua]`
// lines that follow it in its file (Redis runs a script whole, and its lines may carry later
// times than another node's command sent meanwhile): they stay right after their EVAL.
//
// MONITOR's client address is a node's: a process holds one connection per node (and phpredis'
// RedisCluster one more, to its seed, for CLUSTER SLOTS), and the same local port can show on two
// nodes. So a merged line's client is "node/address" (the engine's connectionKey): every connection
// is keyed by node and address.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { ArgsWanted } from '../redis/monitor-line.ts';
import type { CaptureEntry } from './capture.ts';
import { captureEntry, CONFIGURATION_ARGS, forEachEntry, isProblem } from './capture.ts';

/** One node's capture file and the name its lines carry. */
export interface NodeCapture {
  file: string;
  /** The node's name in the trace: `label=file`, else the file's name without its extension. */
  label: string;
}

/** What `lqsim explain` reads: one file (a path, or standard input's descriptor), or one per node. */
export type CaptureInput = string | number | readonly NodeCapture[];

/** A node's name: letters, digits, `.`, `_`, `-` (it shows in the trace beside each actor). */
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

/**
 * The node captures named on the command line: `FILE` (named after the file, without extension)
 * or `LABEL=FILE` (a FILE that exists as written is a file, even with an `=` in its name).
 * Throws with the argument and what is wrong: a label twice, a bad label.
 */
export function nodeCaptures(args: readonly string[], exists: (path: string) => boolean): NodeCapture[] {
  const out: NodeCapture[] = [];
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const named = eq > 0 && !exists(arg);
    const file = named ? arg.slice(eq + 1) : arg;
    const label = named ? arg.slice(0, eq) : basename(file, extname(file));
    if (!LABEL.test(label))
      throw new Error(
        `${arg}: node name ${JSON.stringify(label)} is not a name (letters, digits, . _ -, up to 32): name it with LABEL=FILE`,
      );
    const twice = out.find((n) => n.label === label);
    if (twice !== undefined)
      throw new Error(`${arg}: node name ${label} is ${twice.file}'s already: name one with LABEL=FILE`);
    out.push({ file, label });
  }
  return out;
}

/**
 * The client of a node's line in a merged capture: its address at its node ("node2/127.0.0.1:5000"),
 * the engine's connectionKey (src/redis/connections.ts, not imported: it loads the Redis client).
 */
export function nodeClient(client: string, node: string): string {
  return `${node}/${client}`;
}

/** A file's size, or the sum of the node files' sizes (the progress bar's whole). */
export function captureSize(input: CaptureInput, fdSize: (fd: number) => number): number {
  if (typeof input === 'number') return fdSize(input);
  if (typeof input === 'string') return statSync(input).size;
  return input.reduce((sum, n) => sum + statSync(n.file).size, 0);
}

/**
 * One pass over a capture, one file or merged from a file per node: each entry in order, as
 * capture.ts's forEachEntry gives a file's (a merged entry's `lineNo` counts the merged lines, and
 * it carries its node and its line in its own file).
 */
export async function forEachCaptureEntry(
  input: CaptureInput,
  each: (entry: CaptureEntry) => void | Promise<void>,
  progress?: (bytesRead: number) => void,
  wanted?: ArgsWanted,
): Promise<void> {
  if (typeof input === 'string' || typeof input === 'number') return forEachEntry(input, each, progress, wanted);
  const fds: number[] = [];
  try {
    const readers = input.map((n) => {
      const fd = openSync(n.file, 'r');
      fds.push(fd);
      return new NodeReader(n.label, fileLines(fd), wanted);
    });
    let count = 0;
    for (const entry of mergedEntries(readers)) {
      const pending = each(entry);
      if (pending !== undefined) await pending;
      if (++count % 4096 !== 0) continue;
      progress?.(readers.reduce((s, r) => s + r.bytesRead(), 0));
      // A turn of the event loop now and then, as forEachLine takes one: a signal's cleanup still runs.
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

/** Node captures held as text (a test, the library): their entries merged, as the CLI reads files. */
export function mergeNodeCaptures(
  nodes: ReadonlyArray<{ label: string; text: string }>,
  wanted?: ArgsWanted,
): CaptureEntry[] {
  const readers = nodes.map((n) => new NodeReader(n.label, textLines(n.text), wanted));
  return [...mergedEntries(readers)];
}

/** The nodes' entries in time order (see the top of this file), numbered as the merged capture's lines. */
function* mergedEntries(readers: readonly NodeReader[]): Generator<CaptureEntry> {
  let lineNo = 0;
  for (;;) {
    let next: NodeReader | undefined;
    for (const r of readers) if (r.head !== undefined && (next === undefined || earlier(r.head, next.head!))) next = r;
    if (next === undefined) return;
    for (const entry of next.take()) {
      entry.lineNo = ++lineNo;
      yield entry;
    }
  }
}

function* textLines(text: string): Generator<string> {
  for (const line of text.split('\n')) yield withoutCr(line);
}

/** A node's entries in its file's order, a unit at a time: a command with the lua lines after it. */
class NodeReader {
  /** The next unit's first entry's time ("sec.usec"), split for an exact comparison; undefined at the end. */
  head: Time | undefined;
  private unit: CaptureEntry[] = [];
  /** The entry read past the unit (the next unit's first), with where it goes. */
  private ahead: Placed | undefined;
  private lineNo = 0;
  /** The time of the file's line before: a line whose head cannot be read keeps its place after it. */
  private last: Time = { sec: 0, usec: 0 };

  constructor(
    private readonly label: string,
    private readonly lines: Generator<string, void, unknown> & { bytesRead?: () => number },
    private readonly wanted?: ArgsWanted,
  ) {
    this.ahead = this.read();
    this.fill();
  }

  /** How much of its file has been read (a progress bar's). */
  bytesRead(): number {
    return this.lines.bytesRead?.() ?? 0;
  }

  /** The unit at the head, and the next one read. */
  take(): CaptureEntry[] {
    const unit = this.unit;
    this.fill();
    return unit;
  }

  private fill(): void {
    const first = this.ahead;
    this.unit = first === undefined ? [] : [first.entry];
    this.ahead = this.read();
    // A command's script lines go with it.
    if (first !== undefined && first.client)
      while (this.ahead !== undefined && this.ahead.lua) {
        this.unit.push(this.ahead.entry);
        this.ahead = this.read();
      }
    this.head = first?.at;
  }

  /** The file's next entry (MONITOR's OK and blank lines skipped), with its node and its own line number. */
  private read(): Placed | undefined {
    for (;;) {
      const { value, done } = this.lines.next();
      if (done === true) return undefined;
      this.lineNo++;
      const entry = captureEntry(value, this.lineNo, this.wanted);
      if (entry === null) continue;
      // Where a line goes is read from what a first pass reads of it (CONFIGURATION_ARGS), so both
      // passes merge the files alike and number their lines alike. (A problem in args a first pass
      // does not read is told by the whole reading: forEachEntry's rule.)
      const head =
        isProblem(entry) && this.wanted !== CONFIGURATION_ARGS
          ? captureEntry(value, this.lineNo, CONFIGURATION_ARGS)
          : entry;
      if (this.wanted === undefined && isProblem(entry) && head !== null && !isProblem(head))
        entry.pastFirstPass = true;
      entry.nodeLineNo = this.lineNo;
      // (A line marked with its node already, `@node2 `, keeps it.)
      if (entry.node === undefined) {
        entry.node = this.label;
        if (!isProblem(entry) && entry.line.client !== 'lua')
          entry.line.client = nodeClient(entry.line.client, this.label);
      }
      if (head === null || isProblem(head)) return { entry, at: this.last, client: false, lua: false };
      this.last = timeOf(head.line.time);
      const lua = head.line.client === 'lua';
      return { entry, at: this.last, client: !lua, lua };
    }
  }
}

/** A MONITOR time, "sec.usec", as two integers. */
interface Time {
  sec: number;
  usec: number;
}

/**
 * An entry and where the merge puts it: at its time (a line not MONITOR's: at the line's before
 * it), a command with the script lines after it, a script's line with the command before it.
 */
interface Placed {
  entry: CaptureEntry;
  at: Time;
  client: boolean;
  lua: boolean;
}

function timeOf(time: string): Time {
  const [sec = '0', usec = '0'] = time.split('.');
  return { sec: Number(sec), usec: Number(usec.padEnd(6, '0').slice(0, 6)) };
}

/** Strictly earlier: an equal time keeps the files' order (the reader listed first wins). */
function earlier(a: { sec: number; usec: number }, b: { sec: number; usec: number }): boolean {
  return a.sec < b.sec || (a.sec === b.sec && a.usec < b.usec);
}

const CHUNK = 1 << 16;

/** A file's lines (see readLines), and how many of its bytes have been read. */
function fileLines(fd: number): Generator<string, void, unknown> & { bytesRead: () => number } {
  let bytes = 0;
  return Object.assign(
    readLines(fd, (n) => (bytes = n)),
    { bytesRead: () => bytes },
  );
}

/**
 * A file's lines (split at LF; a CR before it dropped, as capture.ts reads them), read a chunk at a
 * time; `read` is told how many bytes have been read.
 */
function* readLines(fd: number, read: (bytes: number) => void): Generator<string> {
  const buf = Buffer.allocUnsafe(CHUNK);
  let pos = 0;
  let carry: Buffer | undefined;
  for (;;) {
    const n = readSync(fd, buf, 0, CHUNK, pos);
    if (n === 0) break;
    pos += n;
    read(pos);
    const chunk = buf.subarray(0, n);
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const bytes = carry === undefined ? chunk.subarray(start, nl) : Buffer.concat([carry, chunk.subarray(start, nl)]);
      carry = undefined;
      start = nl + 1;
      yield withoutCr(bytes.toString('utf8'));
    }
    if (start < n)
      carry = Buffer.concat(carry === undefined ? [chunk.subarray(start)] : [carry, chunk.subarray(start)]);
  }
  if (carry !== undefined) yield withoutCr(carry.toString('utf8'));
}

function withoutCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
