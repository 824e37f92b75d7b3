// `lqsim diff <a> <b>`: two traces (scenario runs with @profile, golden files, ndjson files, or any
// registered source), normalised and shown step-aligned. Exit 0 identical, 1 different, 2 bad input.
import { colourLevel, makeChalk } from '../output/colour.ts';
import { diffTraces, isIdentical } from '../trace/diff.ts';
import { renderDiff } from '../trace/render-diff.ts';
import '../scenarios/trace-source.ts'; // registers scenario: and scenario operands without a prefix
import '../conformance/compare.ts'; // registers laravel: (a scenario played by real Laravel 8.83)
import { resolveTrace } from '../trace/source.ts';
import { out } from './args.ts';
import { asUsage, withLazyRedis } from './shared.ts';

export async function diffCommand(a: string, b: string, o: { all?: boolean; exactDb?: boolean }): Promise<number> {
  const [left, right] = await withLazyRedis(async (lazy) => {
    // A scenario run on a shared server is compared in its scenario's db unless --exact-db.
    const ctx = { ...lazy, exactDb: o.exactDb ?? false };
    return [await asUsage(resolveTrace(a, ctx)), await asUsage(resolveTrace(b, ctx))];
  });
  const d = diffTraces(left.trace, right.trace);
  const chalk = makeChalk(colourLevel(process.stdout, process.env));
  out(renderDiff(d, { chalk, labels: [left.label, right.label], all: o.all ?? false }));
  return isIdentical(d) ? 0 : 1;
}
