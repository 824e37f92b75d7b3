// The `lqsim run --format` choices rendered from the whole timeline once the run has ended
// (text and ndjson stream step by step in src/cli.ts). resp is raw bytes for a pipe or a file:
// like gzip, it refuses to write them to a terminal, which would act on a payload's control bytes.
import { renderJson } from '../output/json.ts';
import { renderMarkdown } from '../output/markdown.ts';
import { renderMermaid } from '../output/mermaid.ts';
import { renderResp } from '../output/resp.ts';
import type { Timeline } from '../scenarios/timeline.ts';
import type { ExportFormat } from './args.ts';
import { UsageError } from './args.ts';

/** Throws a UsageError before the run when the output cannot go where stdout points. */
export function checkExportTarget(format: string, stdout: { isTTY?: boolean } = process.stdout): void {
  if (format === 'resp' && stdout.isTTY === true) {
    throw new UsageError(
      '--format resp writes raw protocol bytes; redirect it to a file or a pipe (lqsim run x -f resp > x.resp)',
    );
  }
}

export function renderExport(format: ExportFormat, timeline: Timeline): string | Buffer {
  switch (format) {
    case 'json':
      return renderJson(timeline);
    case 'markdown':
      return renderMarkdown(timeline);
    case 'mermaid':
      return renderMermaid(timeline);
    case 'resp':
      return renderResp(timeline);
  }
}

export function writeExport(format: ExportFormat, timeline: Timeline): void {
  process.stdout.write(renderExport(format, timeline));
}
