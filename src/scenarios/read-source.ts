// Reads a scenario file's text, refusing what is not one before reading it: a directory, a FIFO
// (opened without blocking, so a pipe with no writer cannot hang the command), a device such as
// /dev/zero (which never ends), a file over MAX_FILE_BYTES; each with its own reason, in one line.
// Synchronously: a file of at most MAX_FILE_BYTES, regular (fstat says so before a byte is read),
// opened without blocking. Through libuv's threads its five steps (open, fstat, two reads, close)
// each took a round trip through the event loop, ~1.5 ms of a one-job run (docs/performance.md).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { ScenarioError } from './errors.ts';
import { MAX_FILE_BYTES, sizeText } from './limits.ts';

export async function readScenarioSource(file: string): Promise<string> {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new ScenarioError(file, 0, 0, '', `cannot read: ${openFailure(err)}`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new ScenarioError(file, 0, 0, '', `cannot read: ${notAFile(stats)}`);
    if (stats.size > MAX_FILE_BYTES) throw tooBig(file, `${sizeText(stats.size)}`);
    // The size can change under us (a file still being written): stop one chunk past the limit.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 16, Math.max(stats.size + 1, 4096)));
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > MAX_FILE_BYTES) throw tooBig(file, `over ${sizeText(MAX_FILE_BYTES)}`);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function tooBig(file: string, size: string): ScenarioError {
  return new ScenarioError(
    file,
    0,
    0,
    '',
    `the file is ${size}; a scenario file may be at most ${sizeText(MAX_FILE_BYTES)}`,
  );
}

function notAFile(stats: Stats): string {
  if (stats.isDirectory()) return 'is a directory, not a scenario file';
  const what = stats.isFIFO()
    ? 'a FIFO (named pipe)'
    : stats.isCharacterDevice()
      ? 'a character device'
      : stats.isBlockDevice()
        ? 'a block device'
        : stats.isSocket()
          ? 'a socket'
          : 'something other than a file';
  return `not a regular file but ${what}`;
}

function openFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ELOOP':
      return 'a symlink loop (ELOOP): a symbolic link on the way points back to itself';
    case 'ENOENT':
      return 'no such file or directory (ENOENT)';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code})`;
    case 'EISDIR':
      return 'is a directory, not a scenario file';
    case 'ENOTDIR':
      return 'a part of the path is not a directory (ENOTDIR)';
    case 'ENAMETOOLONG':
      return 'the path is too long (ENAMETOOLONG)';
    default: {
      const message = err instanceof Error ? err.message : String(err);
      const m = /^([A-Z0-9_]+): ([^,]+)/.exec(message);
      return (m ? `${m[2]} (${m[1]})` : message).replace(/\s+/g, ' ');
    }
  }
}
