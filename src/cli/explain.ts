// `lqsim explain <capture>`: a `redis-cli monitor` capture of someone's own app (a file, or - for
// standard input) printed as lqsim's trace: what the app's setup is (versions, prefix, queues,
// retry_after, block_for, each figure citing its lines), then its commands grouped into Laravel's
// calls, by actor, each titled with the operation and the job it moved. Lines that are not
// MONITOR's are reported by number on stderr and skipped.
import { existsSync, statSync } from 'node:fs';
import { colourLevel, makeChalk } from '../output/colour.ts';
import { renderJson } from '../output/json.ts';
import { escapeMarkdown, renderMarkdown } from '../output/markdown.ts';
import { renderNdjson } from '../output/ndjson.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import { renderStepText, renderTextFooter, renderTextHeader } from '../output/text.ts';
import type { CaptureProblem, CapturedLine } from '../explain/capture.ts';
import { captureLines, isProblem, readCapture } from '../explain/capture.ts';
import { captureConfiguration } from '../explain/configuration.ts';
import { captureTimeline } from '../explain/timeline.ts';
import { err, out, UsageError } from './args.ts';

export const EXPLAIN_FORMATS = ['text', 'ndjson', 'json', 'markdown'] as const;

export async function explainCommand(
  capture: string,
  o: { format: (typeof EXPLAIN_FORMATS)[number] },
): Promise<number> {
  if (capture !== '-' && !(existsSync(capture) && statSync(capture).isFile()))
    throw new UsageError(
      `explain: no such file: ${terminalSafe(capture)} (a redis-cli monitor capture, or - for stdin)`,
    );
  const lines: CapturedLine[] = [];
  const problems: CaptureProblem[] = [];
  for await (const entry of readCapture(captureLines(capture))) {
    if (isProblem(entry)) problems.push(entry);
    else lines.push(entry);
  }
  const source = capture === '-' ? 'stdin' : capture;
  for (const p of problems.slice(0, 20))
    err(`lqsim: ${terminalSafe(source)}:${p.lineNo}: ${terminalSafe(p.problem)}\n`);
  if (problems.length > 20) err(`lqsim: ${problems.length - 20} more lines that are not MONITOR's\n`);
  if (lines.length === 0) throw new UsageError(`explain: ${terminalSafe(source)} holds no MONITOR line`);
  const config = captureConfiguration(lines);
  const { timeline, findings } = captureTimeline(lines, config, { file: source, problems });
  if (o.format === 'ndjson') {
    out(renderNdjson(timeline));
    return 0;
  }
  if (o.format === 'json') {
    // The timeline as `lqsim run --format json` writes one, with the findings beside its steps.
    out(renderJson(Object.assign({}, timeline, { findings })));
    return 0;
  }
  if (o.format === 'markdown') {
    out(renderMarkdown(timeline));
    out(`\n## Findings\n\n`);
    if (findings.length === 0) out('None.\n');
    for (const f of findings)
      out(`- ${escapeMarkdown(f.title)} (line${f.lines.length === 1 ? '' : 's'} ${f.lines.join(', ')})\n`);
    return 0;
  }
  const chalk = makeChalk(colourLevel(process.stdout, process.env));
  const opts = { chalk, full: false, width: process.stdout.columns || 100 };
  out(renderTextHeader(timeline, opts));
  for (const step of timeline.steps) out(renderStepText(step, timeline, opts));
  out(renderTextFooter(timeline, opts));
  out(`\n${chalk.bold('findings:')}${findings.length === 0 ? ' none' : ''}\n`);
  for (const f of findings)
    out(`  - ${terminalSafe(f.title)} (line${f.lines.length === 1 ? '' : 's'} ${f.lines.join(', ')})\n`);
  return 0;
}
