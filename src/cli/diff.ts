// `lqsim diff <a> <b>`: two traces (scenario runs with @profile, golden files, ndjson files, or any
// registered source), normalised and shown step-aligned. Exit 0 identical, 1 different, 2 bad input.
import type { Command } from 'commander';
import { colourLevel, makeChalk } from '../output/colour.ts';
import type { RedisServer } from '../redis/server.ts';
import { acquireRedis } from '../redis/server.ts';
import { diffTraces, isIdentical } from '../trace/diff.ts';
import { renderDiff } from '../trace/render-diff.ts';
import type { SourceContext } from '../trace/source.ts';
import { resolveTrace, TraceSourceError } from '../trace/source.ts';
import { err, out, UsageError } from './shared.ts';

/** A Redis started only if some operand needs a run, shared by both, stopped on the way out. */
export async function withLazyRedis<T>(fn: (ctx: SourceContext) => Promise<T>): Promise<T> {
  let server: Promise<RedisServer> | undefined;
  try {
    return await fn({ redis: () => (server ??= acquireRedis({ log: (m) => err(`lqsim: ${m}\n`) })) });
  } finally {
    const started = await server?.catch(() => undefined);
    await started?.stop();
  }
}

/** Bad operands are usage errors (exit 2). */
export async function asUsage<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof TraceSourceError) throw new UsageError(e.message);
    throw e;
  }
}

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
