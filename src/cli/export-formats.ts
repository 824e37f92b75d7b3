// The `lqsim run --format` choices rendered from the whole timeline once the run has ended
// (text and ndjson stream step by step in src/cli.ts). resp is raw bytes for a pipe or a file:
// like gzip, it refuses to write them to a terminal, which would act on a payload's control bytes.
import { renderExport } from '../output/export.ts';
import type { ExportFormat } from '../output/formats.ts';
import type { Timeline } from '../scenarios/timeline.ts';
import { UsageError } from './args.ts';

/** Throws a UsageError before the run when the output cannot go where stdout points. */
export function checkExportTarget(format: string, stdout: { isTTY?: boolean } = process.stdout): void {
  if (format === 'resp' && stdout.isTTY === true) {
    throw new UsageError(
      '--format resp writes raw protocol bytes; redirect it to a file or a pipe (lqsim run x -f resp > x.resp)',
    );
  }
}

export function writeExport(format: ExportFormat, timeline: Timeline): void {
  process.stdout.write(renderExport(format, timeline));
}
