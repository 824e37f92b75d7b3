// `lqsim diff <a> <b>`: two traces (scenario runs with @profile, golden files, ndjson files, or any
// registered source), normalised and shown step-aligned. Exit 0 identical, 1 different, 2 bad input.
import { colourLevel, makeChalk } from '../output/colour.ts';
import { diffTraces, isIdentical } from '../trace/diff.ts';
import { renderDiff } from '../trace/render-diff.ts';
import '../scenarios/trace-source.ts'; // registers scenario: and scenario operands without a prefix
import '../conformance/compare.ts'; // registers laravel: (a scenario played by real Laravel 8.83)
import { resolveTrace, type ResolvedTrace } from '../trace/source.ts';
import { out } from './args.ts';
import { asUsage, withLazyRedis } from './shared.ts';

/** What a resolver asking for Redis throws in the first pass: its operand is fine so far. */
const NEEDS_REDIS = Symbol('needs Redis');

export async function diffCommand(a: string, b: string, o: { all?: boolean; exactDb?: boolean }): Promise<number> {
  // A scenario run on a shared server is compared in its scenario's db unless --exact-db.
  const exactDb = o.exactDb ?? false;
  // First both operands without a Redis: each is read and checked up to the point it would run,
  // so a bad second operand is refused before a server is started for the first. Files are
  // resolved whole here; only runs are left for the second pass.
  const dry = { redis: () => Promise.reject(NEEDS_REDIS), cluster: () => Promise.reject(NEEDS_REDIS), exactDb };
  const first: Array<ResolvedTrace | null> = [];
  for (const operand of [a, b])
    first.push(
      await asUsage(resolveTrace(operand, dry)).catch((e: unknown) => (e === NEEDS_REDIS ? null : Promise.reject(e))),
    );
  const [left, right] = await withLazyRedis(async (lazy) => {
    const ctx = { ...lazy, exactDb };
    return [first[0] ?? (await asUsage(resolveTrace(a, ctx))), first[1] ?? (await asUsage(resolveTrace(b, ctx)))];
  });
  const d = diffTraces(left.trace, right.trace);
  const chalk = makeChalk(colourLevel(process.stdout, process.env));
  out(renderDiff(d, { chalk, labels: [left.label, right.label], all: o.all ?? false }));
  return isIdentical(d) ? 0 : 1;
}
