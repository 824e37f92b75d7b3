// Small file-system questions several layers ask (the scenario catalog, trace sources), and the
// removal of the temporary file an atomic write leaves when it fails (lab saves, golden files).
import { rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';

/**
 * Whether `path` is an existing regular file. One stat, asked synchronously: made on libuv's
 * threads, its round trip through the event loop cost a command more than the stat itself
 * (docs/performance.md).
 */
export async function isFile(path: string): Promise<boolean> {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/**
 * Removes `path`, the temporary file an atomic write that failed may have left. `force` passes
 * over one that is not there; under a path through a file (ENOTDIR) none can be, and that error
 * would take the place of the write's own, naming the temporary file instead of the one asked for.
 */
export async function removeTemporary(path: string): Promise<void> {
  await rm(path, { force: true }).catch(nothingThere);
}

/** removeTemporary, synchronously (for writers a test matcher calls, which may not await). */
export function removeTemporarySync(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch (e) {
    nothingThere(e);
  }
}

function nothingThere(e: unknown): void {
  if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR') throw e;
}
