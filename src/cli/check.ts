// `lqsim check <scenario> --golden <file> [--update]`: runs the scenario and compares its
// normalised trace with the golden file; exit 1 with the step-aligned diff when it changed.
// `--update` rewrites the file (atomically), and is refused when CI is set: CI only checks.
// A run on a shared server is compared in its scenario's db unless `--exact-db` (trace/database.ts).
import './zod-jitless.ts';
import { stat } from 'node:fs/promises';
import { colourLevel, makeChalk } from '../output/colour.ts';
import { diffSummary } from '../trace/diff.ts';
import { GoldenFileError, writeGoldenFile } from '../trace/golden-file.ts';
import { compareGolden, renderGoldenDiff } from '../trace/golden-check.ts';
import { goldenTrace } from '../trace/source.ts';
import { runScenarioTrace } from '../scenarios/trace-source.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import type { Timeline } from '../scenarios/timeline.ts';
import type { NormalisedTrace } from '../trace/normalise.ts';
import { normaliseTrace } from '../trace/normalise.ts';
import { fromTimeline } from '../trace/trace-like.ts';
import { ciIsSet, err, out, UsageError } from './args.ts';
import { asUsage, checkGoldenTarget, withLazyRedis } from './shared.ts';

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

export async function checkCommand(
  scenario: string,
  o: { golden: string; update?: boolean; laravel?: string; exactDb?: boolean },
): Promise<number> {
  if (o.update && ciIsSet(process.env))
    throw new UsageError(
      'check --update: refusing to rewrite a golden file in CI (CI is set); update it locally and commit it',
    );
  if (o.update) checkGoldenTarget(o.golden);
  const present = await exists(o.golden);
  if (!present && !o.update) {
    throw new UsageError(
      `${o.golden}: no such golden file (write it with: lqsim run ${scenario} --golden ${o.golden})`,
    );
  }
  const golden = present ? await asUsage(goldenTrace(o.golden)) : undefined;
  const run = await withLazyRedis((ctx) =>
    runScenarioTrace(scenario, o.laravel, { ...ctx, exactDb: o.exactDb ?? false }),
  );
  if (golden === undefined) {
    await writeGolden(o.golden, run.trace);
    out(`${terminalSafe(o.golden)}: written (${run.trace.steps.length} steps)\n`);
    return 0;
  }
  const c = compareGolden(golden.trace, run.trace);
  if (c.identical) {
    out(`${terminalSafe(o.golden)}: matches ${run.label} (${c.diff.same} steps)\n`);
    return 0;
  }
  // Why they may differ, before the diff: another scenario, another profile (--laravel).
  for (const note of c.notes) err(`lqsim: note: ${terminalSafe(o.golden)}: ${terminalSafe(note)}\n`);
  if (o.update) {
    await writeGolden(o.golden, run.trace);
    out(`${terminalSafe(o.golden)}: updated from ${run.label}: ${diffSummary(c.diff)}\n`);
    return 0;
  }
  const chalk = makeChalk(colourLevel(process.stdout, process.env));
  out(renderGoldenDiff({ ...c, notes: [] }, [`${o.golden} (golden)`, `${run.label} (this run)`], chalk));
  return 1;
}

/** `lqsim run <s> --golden <file>`: the run's normalised trace (in the scenario's db), written atomically. */
export async function writeRunGolden(file: string, timeline: Timeline): Promise<void> {
  const trace = normaliseTrace(fromTimeline(timeline));
  await writeGolden(file, trace);
  err(`lqsim: golden trace written to ${terminalSafe(file)} (${trace.steps.length} steps with commands)\n`);
}

/**
 * A golden file written (atomically: golden-file.ts); one that cannot be, though its folder was
 * there before the run (a full disk, a permission), is bad input too, named by its own path.
 */
async function writeGolden(file: string, trace: NormalisedTrace): Promise<void> {
  try {
    await writeGoldenFile(file, trace);
  } catch (e) {
    throw e instanceof GoldenFileError ? new UsageError(e.message) : e;
  }
}
