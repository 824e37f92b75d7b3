// The heap in use after full collections, for tests that measure what something keeps alive.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Bytes of heap in use once everything unreachable is collected. */
export function heapBytes(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** heapBytes in MB. */
export function heapMb(): number {
  return heapBytes() / 1e6;
}
