// Golden files from a test: checkGolden(timeline, file) in any framework, and the toMatchGolden
// matcher on top of it. A golden is `lqsim run --golden`'s normalised trace; the run is compared in
// its scenario's db (a shared server's claimed db read as the scenario's) unless exactDb. Files are
// read and written synchronously, so a matcher nobody awaits still checks. CI never writes one.
import { ciIsSet } from '../ci.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import type { Timeline } from '../scenarios/timeline.ts';
import type { DbOptions } from '../trace/database.ts';
import { diffSummary } from '../trace/diff.ts';
import { readGoldenFileSync, writeGoldenFileSync } from '../trace/golden-file.ts';
import { compareGolden, renderGoldenDiff } from '../trace/golden-check.ts';
import { normaliseTrace } from '../trace/normalise.ts';
import { fromTimeline } from '../trace/trace-like.ts';

/**
 * When a golden file is written, as Vitest's snapshot update modes: 'all' rewrites one that
 * differs (`vitest -u`), 'new' writes only a missing one, 'none' never writes.
 */
export type GoldenUpdate = 'all' | 'new' | 'none';

export interface GoldenOptions extends DbOptions {
  /** true is 'all', false is 'none'. Default 'new'. With `CI` set it is always 'none'. */
  update?: boolean | GoldenUpdate;
  /** Where CI is looked up (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** What checking a golden did: matched, wrote it, or why it fails (the message). */
export type GoldenOutcome =
  | { status: 'matches' | 'written' | 'updated'; summary: string }
  | { status: 'differs' | 'missing' | 'error'; message: string };

function mode(o: GoldenOptions): GoldenUpdate {
  if (ciIsSet(o.env ?? process.env)) return 'none';
  if (o.update === true) return 'all';
  if (o.update === false) return 'none';
  return o.update ?? 'new';
}

/** The golden check with what it did; checkGolden() and toMatchGolden read this. */
export function goldenOutcome(timeline: Timeline, file: string, options: GoldenOptions = {}): GoldenOutcome {
  const shown = terminalSafe(file);
  if (timeline.error !== undefined)
    return {
      status: 'error',
      message: `${shown}: not compared, the run ended with an error: ${terminalSafe(timeline.error)}`,
    };
  const update = mode(options);
  const run = normaliseTrace(fromTimeline(timeline), options);
  const label = `${timeline.scenario.name}@${timeline.profile}`;
  const golden = readGoldenFileSync(file);
  if (golden === null) {
    if (update === 'none')
      return {
        status: 'missing',
        message: `${shown}: no such golden file; it is written by a run outside CI (${ciIsSet(options.env ?? process.env) ? 'CI is set, so nothing is written' : 'update is off'}), or with lqsim run ${timeline.scenario.name} --golden ${shown}`,
      };
    writeGoldenFileSync(file, run);
    return { status: 'written', summary: `${shown}: written (${run.steps.length} steps)` };
  }
  const c = compareGolden(golden, run);
  if (c.identical) return { status: 'matches', summary: `${shown}: matches ${label} (${c.diff.same} steps)` };
  if (update === 'all') {
    writeGoldenFileSync(file, run);
    return { status: 'updated', summary: `${shown}: updated from ${label}: ${diffSummary(c.diff)}` };
  }
  return {
    status: 'differs',
    message: renderGoldenDiff(c, [`${file} (golden)`, `${label} (this run)`]).trimEnd(),
  };
}

/**
 * Compares the run with the golden file: null when it matches (or was written: a missing file is
 * written unless `update` is 'none' or CI is set; one that differs is rewritten only with
 * `update: true`), else the message to fail with: the step-aligned diff, its notes first.
 */
export function checkGolden(timeline: Timeline, file: string, options: GoldenOptions = {}): string | null {
  const o = goldenOutcome(timeline, file, options);
  return 'message' in o ? o.message : null;
}
