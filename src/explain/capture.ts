// Reading a MONITOR capture from someone's own app (`redis-cli monitor > capture.txt`, Redis
// 6.2-7.x or Valkey), or lqsim's own ndjson (`lqsim run --format ndjson`): line by line from a
// file, so a capture of any size is held one line at a time. Nothing in it is trusted: a line that is not MONITOR's (truncated by a killed redis-cli,
// cut by `head`, edited) becomes a problem naming its line number, never a crash.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { MonitorLine } from '../redis/monitor-line.ts';
import { isMonitorOk, MonitorParseError, parseMonitorLine } from '../redis/monitor-line.ts';

export interface CapturedLine {
  /** 1-based line number in the capture. */
  lineNo: number;
  line: MonitorLine;
}

export interface CaptureProblem {
  lineNo: number;
  /** What is wrong, in one line ("not a MONITOR line: unterminated argument at offset 40: ..."). */
  problem: string;
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

/** One line of a capture: its command, a problem, or null for what is not a command ("OK", blank). */
export function captureEntry(raw: string, lineNo: number): CaptureEntry | null {
  if (raw.trim() === '' || isMonitorOk(raw)) return null;
  if (raw.startsWith('{')) return ndjsonEntry(raw, lineNo);
  try {
    return { lineNo, line: parseMonitorLine(raw) };
  } catch (e) {
    const message = e instanceof MonitorParseError ? e.message : e instanceof Error ? e.message : String(e);
    return { lineNo, problem: `not a MONITOR line: ${message.split('\n')[0]}` };
  }
}

/** The client of a line of lqsim's ndjson: `lqsim:<actor>:<process>` (MONITOR's are addresses). */
export const NDJSON_CLIENT = 'lqsim:';

/**
 * A line of lqsim's ndjson (src/output/ndjson.ts) as the MONITOR line it stands for: each actor's
 * process is a connection ("worker-1:2"), `t` (the virtual clock Laravel's commands carry) the time.
 */
function ndjsonEntry(raw: string, lineNo: number): CaptureEntry {
  let c: Record<string, unknown>;
  try {
    c = JSON.parse(raw) as Record<string, unknown>;
  } catch (e) {
    return { lineNo, problem: `not an ndjson command: ${e instanceof Error ? e.message : String(e)}` };
  }
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
  return { lineNo, line };
}

/**
 * One pass over a capture file: each entry in order (awaited when `each` returns a promise), and
 * every 4,096 lines how many of the file's bytes have been read (for a progress bar).
 */
export async function forEachEntry(
  file: string | number,
  each: (entry: CaptureEntry) => void | Promise<void>,
  progress?: (bytesRead: number) => void,
): Promise<void> {
  // A descriptor (standard input's spill, unlinked: src/cli/explain.ts) is read from its start
  // and left open for the next pass.
  const input =
    typeof file === 'number'
      ? createReadStream('', { fd: file, start: 0, autoClose: false, highWaterMark: 1 << 16 })
      : createReadStream(file, { highWaterMark: 1 << 16 });
  let n = 0;
  for await (const entry of readCapture(createInterface({ input, crlfDelay: Infinity }))) {
    const pending = each(entry);
    if (pending !== undefined) await pending;
    if (progress !== undefined && ++n % 4096 === 0) progress(input.bytesRead);
  }
}
