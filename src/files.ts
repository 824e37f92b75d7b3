// Small file-system questions several layers ask (the scenario catalog, trace sources).
import { stat } from 'node:fs/promises';

/** Whether `path` is an existing regular file. */
export async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
