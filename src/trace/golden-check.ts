// A run's normalised trace against a golden: the diff, and what the reader should know first (the
// golden was written for another scenario or Laravel profile, the run's db was read as the
// scenario's, the golden looks truncated). Shared by `lqsim check` and checkGolden()/toMatchGolden.
import type { ChalkInstance } from 'chalk';
import { makeChalk } from '../output/colour.ts';
import type { TraceDiff } from './diff.ts';
import { diffTraces, isIdentical } from './diff.ts';
import type { NormalisedTrace } from './normalise.ts';
import { renderDiff } from './render-diff.ts';

export interface GoldenComparison {
  diff: TraceDiff;
  identical: boolean;
  /** Where golden and run were made differently: `this golden was written for scenario x, ...`. */
  notes: string[];
}

/** The golden's scenario and profile (its header) against the run's, when they differ. */
export function goldenNotes(golden: NormalisedTrace, run: NormalisedTrace): string[] {
  const notes: string[] = [];
  const differs = (k: string) =>
    golden.meta[k] !== undefined && run.meta[k] !== undefined && golden.meta[k] !== run.meta[k];
  if (differs('scenario'))
    notes.push(`this golden was written for scenario ${golden.meta.scenario}, this run is ${run.meta.scenario}`);
  if (differs('profile'))
    notes.push(`this golden was written for Laravel ${golden.meta.profile}, this run is Laravel ${run.meta.profile}`);
  return notes;
}

export function compareGolden(golden: NormalisedTrace, run: NormalisedTrace): GoldenComparison {
  const diff = diffTraces(golden, run);
  return { diff, identical: isIdentical(diff), notes: goldenNotes(golden, run) };
}

/** The diff as text (no colour unless a chalk instance is given), its notes first. */
export function renderGoldenDiff(
  c: GoldenComparison,
  labels: [golden: string, run: string],
  chalk: ChalkInstance = makeChalk(0),
): string {
  const notes = c.notes.map((n) => chalk.yellow(`note: ${n}\n`)).join('');
  return notes + renderDiff(c.diff, { chalk, labels });
}
