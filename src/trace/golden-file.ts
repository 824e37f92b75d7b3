// Golden files on disk: written atomically (a temporary file beside it, then rename), so a failed
// or interrupted write never leaves half a golden behind; read only up to a size that a person can
// still review, so a huge or wrong file is refused in bounded memory instead of parsed whole.
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { open, rename, writeFile } from 'node:fs/promises';
import { removeTemporary, removeTemporarySync } from '../files.ts';
import { formatGolden, parseGolden } from './golden-text.ts';
import type { NormalisedTrace } from './normalise.ts';

/** The largest golden file read (16 MiB, about 40,000 jobs' worth of commands). */
export const MAX_GOLDEN_BYTES = 16 * 1024 * 1024;

/** A golden file that cannot be read or is no golden trace; the message names the file (and line). */
export class GoldenFileError extends Error {}

function tooLarge(file: string, size: number): GoldenFileError {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  return new GoldenFileError(
    `${file}: ${mb(size)}, more than a golden trace may be (${mb(MAX_GOLDEN_BYTES)}): is it a golden at all? A scenario this long is better checked with assertions than reviewed as a golden`,
  );
}

function cannotRead(file: string, e: unknown): GoldenFileError {
  return new GoldenFileError(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
}

/** A write that failed, named by the golden file (not the temporary one beside it that failed). */
function cannotWrite(file: string, e: unknown): GoldenFileError {
  return new GoldenFileError(`${file}: cannot write: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
}

function parsed(file: string, text: string): NormalisedTrace {
  try {
    return parseGolden(text);
  } catch (e) {
    throw new GoldenFileError(`${file}: ${(e as Error).message}`);
  }
}

/** Reads and parses a golden file; a GoldenFileError names the file (and the line) on any problem. */
export async function readGoldenFile(file: string): Promise<NormalisedTrace> {
  let text: string;
  try {
    const handle = await open(file, 'r');
    try {
      const { size, isFile } = await handle.stat().then((s) => ({ size: s.size, isFile: s.isFile() }));
      if (!isFile) throw new GoldenFileError(`${file}: not a regular file`);
      if (size > MAX_GOLDEN_BYTES) throw tooLarge(file, size);
      // One byte more than it was: a file that grew meanwhile is still read in bounded memory.
      const buf = Buffer.alloc(size + 1);
      const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
      if (bytesRead > MAX_GOLDEN_BYTES) throw tooLarge(file, bytesRead);
      text = buf.toString('utf8', 0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (e) {
    if (e instanceof GoldenFileError) throw e;
    throw cannotRead(file, e);
  }
  return parsed(file, text);
}

/** readGoldenFile, synchronously (for matchers, which a test may not await); null when there is no file. */
export function readGoldenFileSync(file: string): NormalisedTrace | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw cannotRead(file, e);
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new GoldenFileError(`${file}: not a regular file`);
    if (st.size > MAX_GOLDEN_BYTES) throw tooLarge(file, st.size);
    const buf = Buffer.alloc(st.size + 1);
    let read = 0;
    for (let n; read < buf.length && (n = readSync(fd, buf, read, buf.length - read, read)) > 0;) read += n;
    if (read > MAX_GOLDEN_BYTES) throw tooLarge(file, read);
    text = buf.toString('utf8', 0, read);
  } catch (e) {
    if (e instanceof GoldenFileError) throw e;
    throw cannotRead(file, e);
  } finally {
    closeSync(fd);
  }
  return parsed(file, text);
}

function tmpName(file: string): string {
  return `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

export async function writeGoldenFile(file: string, trace: NormalisedTrace): Promise<void> {
  const tmp = tmpName(file);
  try {
    await writeFile(tmp, formatGolden(trace), 'utf8');
    await rename(tmp, file);
  } catch (e) {
    await removeTemporary(tmp);
    throw cannotWrite(file, e);
  }
}

/** writeGoldenFile, synchronously. */
export function writeGoldenFileSync(file: string, trace: NormalisedTrace): void {
  const tmp = tmpName(file);
  try {
    writeFileSync(tmp, formatGolden(trace), 'utf8');
    renameSync(tmp, file);
  } catch (e) {
    removeTemporarySync(tmp);
    throw cannotWrite(file, e);
  }
}
