// What Laravel is doing at the current step, for a learner without the articles open: the step's
// title, the Laravel methods in call order, the model's explanation (why) and the scenario's note,
// wrapped to the pane. Pure.
import { outcomeCounts, relTime } from '../output/describe.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import { wrap } from '../output/wrap.ts';
import type { JobInstance, Step } from '../scenarios/timeline.ts';
import type { Line, Tone } from './segments.ts';
import { runningTwice, runningTwiceText } from './running-twice.ts';
import { actorSeg, clip, seg } from './segments.ts';

export interface NarrationContext {
  start: number;
  /** The run is over and this is its last step. */
  atEnd: boolean;
  jobs: readonly JobInstance[];
  error?: string;
  /** The run's warnings (unmatched notes, a run that diverged): shown with the end summary. */
  warnings?: readonly string[];
}

/** `label` then `text` wrapped to `width`, continuation lines indented under the text. */
function labelled(label: string, text: string, width: number, tone: Tone, labelTone: Tone = 'dim'): Line[] {
  const body = text.replace(/\r\n?/g, '\n').trim().split('\n').map(terminalSafe);
  const indent = ' '.repeat(label.length);
  const lines = body.flatMap((p) => wrap(p, Math.max(10, width - label.length)));
  return lines.map((l, i): Line => [seg(i === 0 ? label : indent, i === 0 ? labelTone : 'dim'), seg(l, tone)]);
}

/** `#3 · t+60s · worker-1 · kill`: the rule above the narration. */
export function narrationHeading(step: Step, start: number): string {
  return `#${step.index} · ${relTime(step.t, start)} · ${terminalSafe(step.actor)} · ${step.kind}`;
}

/**
 * The title (after the actor), the Laravel methods, why, the note, and the end of the run. Given
 * `rows`, and when all does not fit: the title and the methods on one line each (clipped with an
 * ellipsis), so the step still says what it is, in words, and the note survives in 80×24; `i`
 * shows the rest.
 */
export function fittedNarration(step: Step, ctx: NarrationContext, width: number, rows: number): Line[] {
  const all = narrationLines(step, ctx, width);
  if (all.length <= rows) return all;
  const tight = narrationLines(step, ctx, width, { oneLine: true });
  return fitLines(tight, rows, 'i shows all of it');
}

export function narrationLines(step: Step, ctx: NarrationContext, width: number, o = { oneLine: false }): Line[] {
  const kindTone: Tone = step.kind === 'kill' || step.kind === 'fail' ? 'bad' : 'heading';
  const actor = terminalSafe(step.actor);
  const titleWidth = Math.max(10, width - actor.length - 1);
  const title = o.oneLine ? [clip(terminalSafe(step.title), titleWidth)] : wrap(terminalSafe(step.title), titleWidth);
  const out: Line[] = title.map((l, i): Line => [
    i === 0 ? actorSeg(actor) : seg(' '.repeat(actor.length)),
    seg(' '),
    seg(l, kindTone),
  ]);
  // A job in handle() twice at once, an error and the end of the run come right after the title:
  // they must survive a short narration.
  for (const r of runningTwice(step.state.workers))
    out.push(...labelled('!! ', runningTwiceText(r), width, 'alert', 'alert'));
  if (ctx.error !== undefined) out.push(...labelled('error: ', ctx.error, width, 'bad'));
  if (ctx.atEnd) {
    out.push(...labelled('end: ', endSummary(ctx.jobs), width, 'good'));
    for (const w of ctx.warnings ?? []) out.push(...labelled('warning: ', w, width, 'warn'));
  }
  if (step.methods.length > 0) {
    const methods = terminalSafe(step.methods.join(' → '));
    out.push(
      ...(o.oneLine
        ? [[seg('Laravel: ', 'dim'), seg(clip(methods, width - 9))]]
        : labelled('Laravel: ', methods, width, 'plain')),
    );
  }
  if (step.explain !== undefined) out.push(...labelled('why: ', step.explain, width, 'plain'));
  if (step.note !== undefined) out.push(...labelled('note: ', step.note, width, 'note'));
  return out;
}

/** `the run is over: 1 job (1 failed)`. */
export function endSummary(jobs: readonly JobInstance[]): string {
  if (jobs.length === 0) return 'the run is over; no jobs were dispatched.';
  return `the run is over: ${jobs.length} job${jobs.length === 1 ? '' : 's'} (${outcomeCounts(jobs)}).`;
}

/** At most `rows` lines; when cut, the last one says how to read the rest. */
export function fitLines(lines: Line[], rows: number, hint: string): Line[] {
  if (lines.length <= rows) return lines;
  if (rows <= 0) return [];
  return [...lines.slice(0, rows - 1), [seg(`… ${lines.length - rows + 1} more lines: ${hint}`, 'dim')]];
}
