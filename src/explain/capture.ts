// Reading a MONITOR capture from someone's own app (`redis-cli monitor > capture.txt`, Redis
// 6.2-7.x or Valkey): line by line from a stream, so a capture of any size is held one line at a
// time. Nothing in it is trusted: a line that is not MONITOR's (truncated by a killed redis-cli,
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
  try {
    return { lineNo, line: parseMonitorLine(raw) };
  } catch (e) {
    const message = e instanceof MonitorParseError ? e.message : e instanceof Error ? e.message : String(e);
    return { lineNo, problem: `not a MONITOR line: ${message.split('\n')[0]}` };
  }
}

/** The lines of a file, or of standard input for "-", as a stream (CRLF too). */
export function captureLines(source: string, stdin: NodeJS.ReadableStream = process.stdin): AsyncIterable<string> {
  const input = source === '-' ? stdin : createReadStream(source);
  return createInterface({ input, crlfDelay: Infinity });
}
