// Small file-system questions several layers ask (the scenario catalog, trace sources).
import { statSync } from 'node:fs';

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
