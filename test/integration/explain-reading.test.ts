// How `lqsim explain` reads a capture file and writes its trace: the first pass reads each line
// only as far as the configuration needs, so a line broken further on is told by the second pass,
// once; and a reader slower than the trace (`| less`) holds it up instead of the process holding
// the whole trace in memory.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeBigCapture } from '../../bench/big-capture.ts';
import { LQSIM_BIN, lqsim, lqsimEnv } from '../helpers/cli.ts';

const THREE_JOBS = new URL('../fixtures/explain/laravel8-three-jobs.txt', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'lqsim-reading-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a line broken past what the first pass reads', () => {
  // The first push's payload (its EVAL's last arg) ends in an escape MONITOR never prints.
  const lines = readFileSync(THREE_JOBS, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.includes('"EVAL" "-- Push the job onto the queue'));
  lines[at] = `${lines[at]!.slice(0, -1)}\\q"`;
  const file = join(dir, 'broken-payload.txt');
  writeFileSync(file, lines.join('\n'));
  const lineNo = at + 1;

  it('is told once, on stderr and in the warnings, and the rest is explained', async () => {
    const r = await lqsim(['explain', file]);
    expect(r.code, r.stderr).toBe(0);
    const told = r.stderr.split('\n').filter((l) => l !== '');
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(new RegExp(`^lqsim: ${file}:${lineNo}: not a MONITOR line: unknown escape at offset \\d+`));
    expect(r.stdout).toContain(`line ${lineNo}: not a MONITOR line: unknown escape`);
    // The other two pushes and every poll and delete are still read.
    expect(r.stdout).toMatch(/a MONITOR capture of \d+ commands, explained/);
    expect(r.stdout).toContain('findings:');
  });

  it("is among json's warnings too", async () => {
    const r = await lqsim(['explain', file, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { warnings: string[] };
    expect(doc.warnings.filter((w) => w.startsWith(`line ${lineNo}: `))).toHaveLength(1);
  });
});

describe('many broken lines, some broken past what the first pass reads', () => {
  it('names the first twenty and counts the rest, each broken line told once', async () => {
    const lines = readFileSync(THREE_JOBS, 'utf8').split('\n');
    const pushes = lines.flatMap((l, i) => (l.includes('"EVAL" "-- Push the job onto the queue') ? [i] : []));
    for (const i of pushes) lines[i] = `${lines[i]!.slice(0, -1)}\\q"`; // broken in the payload: pass 2 finds them
    const garbage = Array.from({ length: 22 }, (_, n) => `not a monitor line ${n}`); // pass 1 finds these
    const file = join(dir, 'many-broken.txt');
    writeFileSync(file, [...garbage, ...lines].join('\n'));
    const r = await lqsim(['explain', file]);
    expect(r.code, r.stderr).toBe(0);
    const told = r.stderr.split('\n').filter((l) => l !== '');
    const named = told.filter((l) => l.startsWith(`lqsim: ${file}:`));
    const counted = told.map((l) => /^lqsim: (\d+) more lines that are not MONITOR's$/.exec(l)?.[1]).filter(Boolean);
    expect(named).toHaveLength(20);
    expect(named.length + counted.reduce((a, n) => a + Number(n), 0)).toBe(garbage.length + pushes.length);
    expect(told).toHaveLength(named.length + counted.length);
  });
});

/** Bytes the process has read (Linux: /proc/<pid>/io). */
function bytesRead(pid: number): number {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return Number(/^rchar: (\d+)$/m.exec(io)?.[1] ?? 0);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('a reader slower than the trace', () => {
  it('holds the second pass up (it reads no further than the pipe takes), then gets the whole trace', async () => {
    const file = join(dir, 'capture.txt');
    writeBigCapture(file, 30e6, { connectionPerJob: true });
    const size = statSync(file).size;
    const child = spawn(process.execPath, [LQSIM_BIN, 'explain', file], {
      env: lqsimEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      // Nobody reads stdout yet. Pass 1 reads the whole file; pass 2 starts printing and must stop
      // as soon as the pipe and stdout's buffer are full.
      const deadline = Date.now() + 60_000;
      while (bytesRead(child.pid!) < size && Date.now() < deadline) await sleep(100);
      await sleep(1500);
      const read = bytesRead(child.pid!);
      expect(read, 'pass 1 read the file').toBeGreaterThanOrEqual(size);
      // The trace is about a quarter of the capture: a pipe (64 KB) and a buffer (16 KB) of it
      // are a few hundred KB of pass 2's reading; without waiting, pass 2 would read it all.
      expect(read - size, 'pass 2 read ahead of the reader').toBeLessThan(size / 4);
    } finally {
      child.stdout.resume();
    }
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    expect(await exited, stderr).toBe(0);
    expect(out).toContain('findings:');
  }, 120_000);
});
