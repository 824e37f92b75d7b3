// `lqsim diff <a> <b>`: two traces (scenario runs with @profile, golden files, ndjson files, or any
// registered source), normalised and shown step-aligned. Exit 0 identical, 1 different, 2 bad input.
import type { Command } from 'commander';
import { colourLevel, makeChalk } from '../output/colour.ts';
import { diffTraces, isIdentical } from '../trace/diff.ts';
import { renderDiff } from '../trace/render-diff.ts';
import '../scenarios/trace-source.ts'; // registers scenario: and scenario operands without a prefix
import { resolveTrace } from '../trace/source.ts';
import { asUsage, out, withLazyRedis } from './shared.ts';

export async function diffCommand(a: string, b: string, o: { all?: boolean }): Promise<number> {
  const [left, right] = await withLazyRedis(async (ctx) => [
    await asUsage(resolveTrace(a, ctx)),
    await asUsage(resolveTrace(b, ctx)),
  ]);
  const d = diffTraces(left.trace, right.trace);
  const chalk = makeChalk(colourLevel(process.stdout, process.env));
  out(renderDiff(d, { chalk, labels: [left.label, right.label], all: o.all ?? false }));
  return isIdentical(d) ? 0 : 1;
}

export function registerDiff(cmd: Command, setExit: (code: number) => void): void {
  cmd
    .command('diff')
    .description(
      'compare two traces step by step: scenario[@profile], a golden file, or ndjson from run --format ndjson (exit 0 same, 1 different)',
    )
    .argument('<a>', 'scenario[@profile] | golden file | ndjson file')
    .argument('<b>', 'scenario[@profile] | golden file | ndjson file')
    .option('--all', 'also print the commands of steps that are the same')
    .action(async (a: string, b: string, o: { all?: boolean }) => setExit(await diffCommand(a, b, o)));
}
