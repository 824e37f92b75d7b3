// What the command line itself needs before any command runs: the output streams, the usage-error
// type (exit 2), the argument validators, the --format choices and whether CI is set. Imported by
// src/cli.ts to declare every command, so it stays light: no Redis, no YAML, no UI (a command's
// own modules are imported only when it runs; docs/performance.md).
import { InvalidArgumentError } from 'commander';
import { EXPORT_FORMATS } from '../output/formats.ts';

/** Bad input: exit 2, one `lqsim: ...` line. */
export class UsageError extends Error {}

export function oneOf<T extends string>(values: readonly T[], what: string) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value))
      throw new InvalidArgumentError(`${what} must be one of ${values.join(', ')}`);
    return value as T;
  };
}

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number >= 0');
  return n;
}

export { ciIsSet } from '../ci.ts';

export const out = (s: string): void => void process.stdout.write(s);

/**
 * Once what `out` wrote has gone out, when it is still held (a pipe to a slower reader: `| less`,
 * `| gzip`); else undefined. A long output awaits it as it goes, or the process holds all of it.
 * A reader that goes away ends the process (EPIPE: cleanup.ts), so the wait never hangs.
 */
export function stdoutDrained(): Promise<void> | undefined {
  if (!process.stdout.writableNeedDrain) return undefined;
  return new Promise((resolve) => process.stdout.once('drain', () => resolve()));
}
export const err = (s: string): void => void process.stderr.write(s);

// The export formats are the output layer's (the lab's `export` takes them too); re-exported for the CLI.
export { EXPORT_FORMATS, isExportFormat } from '../output/formats.ts';
export type { ExportFormat } from '../output/formats.ts';

/** Every `lqsim run --format`: text and ndjson stream step by step, the rest are exports. */
export const FORMATS = ['text', 'ndjson', ...EXPORT_FORMATS] as const;
export type Format = (typeof FORMATS)[number];
