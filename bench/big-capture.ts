// A large MONITOR capture for `lqsim explain`'s bench: real Laravel 8.83's three-job capture
// (test/fixtures/explain/laravel8-three-jobs.txt) repeated until the file has the size asked for,
// each copy two seconds later than the one before, with fresh uuids, and the seconds in the
// scripts' ARGV moved with it, so every copy reads as three more jobs of the same app.
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';

const FIXTURE = new URL('../test/fixtures/explain/laravel8-three-jobs.txt', import.meta.url);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Writes a capture of at least `bytes` bytes to `file`; returns how many lines it has. */
export function writeBigCapture(file: string, bytes: number): number {
  const lines = readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && l !== 'OK');
  const first = Math.floor(Number(lines[0]!.slice(0, lines[0]!.indexOf(' '))));
  // A whole second in an argument within a day of the capture: the scripts' now and until.
  const seconds = /"(\d{10})"/g;
  const near = (n: number): boolean => Math.abs(n - first) < 86_400;
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, 'OK\n');
    let size = 3;
    let count = 0;
    for (let copy = 0; size < bytes; copy++) {
      const ids = new Map<string, string>();
      const shift = copy * 2;
      let chunk = '';
      for (const l of lines) {
        const space = l.indexOf(' ');
        const time = (Number(l.slice(0, space)) + shift).toFixed(6);
        const rest = l
          .slice(space)
          .replace(UUID, (u) => ids.get(u) ?? (ids.set(u, randomUUID()), ids.get(u)!))
          .replace(seconds, (m, s: string) => (near(Number(s)) ? `"${Number(s) + shift}"` : m));
        chunk += `${time}${rest}\n`;
        count++;
      }
      writeSync(fd, chunk);
      size += Buffer.byteLength(chunk);
    }
    return count;
  } finally {
    closeSync(fd);
  }
}
