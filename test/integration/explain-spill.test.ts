// `lqsim explain -` copies standard input to a file in TMPDIR (two passes read it). That copy must
// not outlive the process however it ends: SIGKILLed while still reading standard input, or while
// printing the trace, it leaves nothing in TMPDIR; nor does a normal run or bad input.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LQSIM_BIN, lqsimEnv } from '../helpers/cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'lqsim-spill-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A real capture repeated to about `mb` MB (each copy a valid run of MONITOR lines). */
function bigCapture(mb: number): Buffer {
  const one = readFileSync(new URL('../fixtures/explain/laravel8-ran-twice.txt', import.meta.url));
  return Buffer.concat(Array.from({ length: Math.ceil((mb * 1024 * 1024) / one.length) }, () => one));
}

/** What lqsim left in its TMPDIR (tsx, which runs src/ here, keeps its own cache there: not ours). */
const leftIn = (dir: string): string[] => readdirSync(dir).filter((f) => f.startsWith('lqsim'));

function explainStdin(dir: string, args: string[] = []): ChildProcess {
  return spawn(process.execPath, [LQSIM_BIN, 'explain', '-', ...args], {
    env: lqsimEnv({ TMPDIR: dir }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Writes `data` in 1 MB pieces, each once the pipe took the one before (lqsim is reading it). */
async function feed(child: ChildProcess, data: Buffer, upTo: number): Promise<void> {
  for (let at = 0; at < upTo; at += 1 << 20) {
    const piece = data.subarray(at, Math.min(upTo, at + (1 << 20)));
    await new Promise<void>((resolve, reject) => child.stdin!.write(piece, (e) => (e ? reject(e) : resolve())));
  }
}

const killed = (child: ChildProcess): Promise<NodeJS.Signals | null> =>
  new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));

describe('lqsim explain - (standard input spilled to TMPDIR)', () => {
  const capture = bigCapture(28);

  it('leaves nothing in TMPDIR when SIGKILLed while reading standard input', async () => {
    const dir = mkdtempSync(join(tmp, 'reading-'));
    const child = explainStdin(dir);
    const exited = killed(child);
    child.stdin!.on('error', () => undefined); // the pipe breaks when it is killed
    // 8 MB taken through a 64 KB pipe: lqsim is spilling it, standard input still open.
    await feed(child, capture, 8 << 20);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(leftIn(dir)).toEqual([]);
  });

  it('leaves nothing in TMPDIR when SIGKILLed while printing the trace', async () => {
    const dir = mkdtempSync(join(tmp, 'printing-'));
    const child = explainStdin(dir);
    const exited = killed(child);
    // The trace begins once standard input is spilled and the first pass has read it.
    const printing = new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    child.stderr!.resume();
    await feed(child, capture, capture.length);
    child.stdin!.end();
    await printing;
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(leftIn(dir)).toEqual([]);
  });

  it('leaves nothing after a run that ends, well or on bad input', async () => {
    const dir = mkdtempSync(join(tmp, 'ends-'));
    for (const [input, code] of [
      [readFileSync(new URL('../fixtures/seed-003-capture.txt', import.meta.url)), 0],
      [Buffer.from('not a capture\n'), 2],
    ] as const) {
      const child = explainStdin(dir);
      const exit = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.resume();
      child.stdin!.end(input);
      expect(await exit).toBe(code);
      if (code === 0) expect(out).toContain('DelayTestJob#1');
      expect(leftIn(dir)).toEqual([]);
    }
  });
});
