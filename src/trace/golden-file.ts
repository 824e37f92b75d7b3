// Golden files on disk: written atomically (a temporary file beside it, then rename), so a failed
// or interrupted write never leaves half a golden behind.
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { formatGolden } from './golden-text.ts';
import type { NormalisedTrace } from './normalise.ts';

export async function writeGoldenFile(file: string, trace: NormalisedTrace): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, formatGolden(trace), 'utf8');
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
