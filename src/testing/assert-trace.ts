// assertTrace(actual, expected): does a run's Redis command sequence match what the test expects?
// Framework-neutral: it throws node's AssertionError, whose message is a diff aligned command by
// command (and step by step when the expectation is written per step), with the reason for each
// difference. Commands are paired on their name first (a longest common subsequence), so one
// missing or extra command shows as one line, not as every later command being "wrong".
import { AssertionError } from 'node:assert';
import { jobLabels, plural, relTime, summarizeArgs } from '../output/describe.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import type { Step, TraceCommand } from '../scenarios/timeline.ts';
import { exactInstant, secondsBetween } from '../sim/clock.ts';
import { findProfile } from '../sim/profiles/index.ts';
import { dbRule } from '../trace/database.ts';
import type { CommandSpec, ExpectedStep, ExpectedTrace, TraceOptions, TraceSubject } from './expected.ts';
import { commandProblems, isSkip, isStepwise, keep, sameKind, showSpec, toSpec } from './expected.ts';
import type { MatchContext } from './patterns.ts';

export type {
  CommandSpec,
  ExpectedCommand,
  ExpectedStep,
  ExpectedTrace,
  SkipSteps,
  TraceOptions,
  TraceSubject,
} from './expected.ts';

/** A compared command: matched, differing, in the trace only, or expected only. */
export type Row =
  | { kind: 'ok'; actual: TraceCommand }
  | { kind: 'differs'; actual: TraceCommand; expected: CommandSpec; problems: string[] }
  | { kind: 'unexpected'; actual: TraceCommand }
  | { kind: 'missing'; expected: CommandSpec };

/** Rows shown around each difference; runs of matching commands beyond them are folded. */
const CONTEXT = 2;
/** Above this many (captured × expected) pairs, commands are compared by position, not aligned. */
const MAX_ALIGN_CELLS = 4_000_000;

/** Throws an AssertionError with a readable diff unless `actual`'s commands match `expected`. */
export function assertTrace(actual: TraceSubject, expected: ExpectedTrace, options: TraceOptions = {}): void {
  const message = traceMismatch(actual, expected, options);
  if (message !== null) throw new AssertionError({ message, operator: 'assertTrace' });
}

/** The diff assertTrace() would throw, or null when the trace matches. */
export function traceMismatch(
  actual: TraceSubject,
  expected: ExpectedTrace,
  options: TraceOptions = {},
): string | null {
  const ctx: Omit<MatchContext, 'command'> = {
    start: actual.start,
    profile: findProfile(actual.profile),
    bound: new Map(),
  };
  const labels = jobLabels({ jobs: actual.jobs ?? [] });
  // On a shared server the claimed db is compared as the scenario's; the diff shows the real command.
  const rule = dbRule(actual.database, options);
  const real = new Map<TraceCommand, TraceCommand>();
  const compared = (commands: readonly TraceCommand[]): TraceCommand[] =>
    commands
      .filter((c) => keep(c, options))
      .flatMap((c) => {
        const m = rule === null ? c : rule.map(c);
        if (m !== null && m !== c) real.set(m, c);
        return m === null ? [] : [m];
      });
  const show = (compared: TraceCommand) => {
    const cmd = real.get(compared) ?? compared;
    return `${cmd.source === 'lua' ? '[lua] ' : ''}${summarizeArgs(cmd, labels).join(' ')}`;
  };
  const width = Math.max(10, ...actual.steps.map((s) => s.actor.length));
  const notes = rule === null ? [] : [rule.note];
  // A run that ended with an error says so first: that, not the diff under it, is why it fails.
  const heading = (differ: string): string =>
    actual.error === undefined
      ? `assertTrace: ${differ}`
      : `assertTrace: the run ended early: ${terminalSafe(actual.error)}\nwhat it sent before that, against the expectation: ${differ.replace(/^the \w+ differ from the expected ones: /, '')}`;

  if (!isStepwise(expected)) {
    const got = compared(actual.steps.flatMap((s) => s.commands));
    const rows = compareCommands(got, expected.map(toSpec), ctx);
    const differences = rows.filter((r) => r.kind !== 'ok').length;
    if (differences === 0 && actual.error === undefined) return null;
    const head = heading(
      `the Redis commands differ from the expected ones: ${plural(differences, 'difference')} (expected ${plural(expected.length, 'command')}, got ${got.length})`,
    );
    return [head, ...notes, '', ...renderRows(rows, show, width, actual.start), '', LEGEND].join('\n');
  }

  const lines: string[] = [];
  let differences = 0;
  const wanted = expected.steps;
  const last = wanted.length - 1;
  wanted.forEach((w, k) => {
    if (isSkip(w) && w.skip === 'rest' && k !== last)
      throw new TypeError(
        `assertTrace: skipSteps() with no count passes over every step left, so it must come last (entry ${k})`,
      );
  });
  const expectedCount = wanted.filter((w) => !isSkip(w)).length;
  let i = 0; // the trace's step
  for (const want of wanted) {
    if (isSkip(want)) {
      const n = want.skip === 'rest' ? Math.max(0, actual.steps.length - i) : want.skip;
      const skipped = actual.steps.slice(i, i + n);
      if (skipped.length > 0)
        lines.push(
          `· ${plural(skipped.length, 'step')} skipped (#${i}${skipped.length > 1 ? `–#${i + skipped.length - 1}` : ''})`,
        );
      if (skipped.length < n) {
        differences++;
        lines.push(`- skipSteps(${n}) expected ${plural(n - skipped.length, 'more step')}, not in the trace`);
      }
      i += n;
      continue;
    }
    const step = actual.steps[i];
    if (step === undefined) {
      differences++;
      lines.push(`- step #${i} expected, not in the trace: ${showStep(want)}`);
      i++;
      continue;
    }
    const title = stepTitle(step, i, actual.start);
    const stepProblems = stepHeaderProblems(step, want, actual.start);
    const rows = compareCommands(compared(step.commands), want.commands.map(toSpec), ctx);
    const bad = rows.filter((r) => r.kind !== 'ok').length + stepProblems.length;
    differences += bad;
    i++;
    if (bad === 0) {
      lines.push(`✓ ${title} (${plural(rows.length, 'command')})`);
      continue;
    }
    lines.push(
      `✗ ${title}`,
      ...stepProblems.map((p) => `     ${p}`),
      ...renderRows(rows, show, width, actual.start).map((l) => `  ${l}`),
    );
  }
  for (; i < actual.steps.length; i++) {
    differences++;
    lines.push(`+ ${stepTitle(actual.steps[i]!, i, actual.start)} (not expected)`);
  }
  if (differences === 0 && actual.error === undefined) return null;
  const head = heading(
    `the steps differ from the expected ones: ${plural(differences, 'difference')} (expected ${plural(expectedCount, 'step')}${expectedCount < wanted.length ? ' and skips' : ''}, got ${actual.steps.length})`,
  );
  return [head, ...notes, '', ...lines, '', LEGEND, STEP_RULE].join('\n');
}

function stepTitle(step: Step, i: number, start: number): string {
  return `step #${i} ${step.actor} ${relTime(step.t, start)} ${step.kind}: ${terminalSafe(step.title)}`;
}

/** The step-by-step form's rule, under its diff: why a step with no commands still shows. */
const STEP_RULE =
  'Step by step, each entry is one step of the trace, in order, steps that sent no command included ({ commands: [] }); skipSteps(n) passes over n steps, skipSteps() last over the rest.';

const LEGEND =
  '✓ matches   ✗ differs (expected form below it)   + in the trace, not expected   - expected, not in the trace';

function stepHeaderProblems(step: Step, want: ExpectedStep, start: number): string[] {
  const out: string[] = [];
  if (want.actor !== undefined && want.actor !== step.actor) out.push(`actor is ${step.actor}, expected ${want.actor}`);
  if (want.at !== undefined && exactInstant(want.at) !== secondsBetween(start, step.t))
    out.push(`time is ${relTime(step.t, start)}, expected t+${want.at}s`);
  if (want.kind !== undefined && want.kind !== step.kind) out.push(`kind is ${step.kind}, expected ${want.kind}`);
  return out;
}

function showStep(s: ExpectedStep): string {
  return [s.actor, s.at === undefined ? undefined : `t+${s.at}s`, s.kind, plural(s.commands.length, 'command')]
    .filter((x) => x !== undefined)
    .join(' ');
}

/**
 * Pairs captured and expected commands: positionally when the counts agree and every pair
 * matches; otherwise along a longest common subsequence of same-named commands.
 */
export function compareCommands(
  got: readonly TraceCommand[],
  want: readonly CommandSpec[],
  ctx: Omit<MatchContext, 'command'>,
): Row[] {
  if (got.length === want.length) {
    const trial = { ...ctx, bound: new Map(ctx.bound) };
    if (got.every((cmd, i) => commandProblems(cmd, want[i]!, trial).length === 0)) {
      for (const [k, v] of trial.bound) ctx.bound.set(k, v);
      return got.map((actual) => ({ kind: 'ok', actual }));
    }
  }
  if (got.length * want.length > MAX_ALIGN_CELLS) return positional(got, want, ctx);
  // lcs[i][j]: length of the longest common subsequence of got[i..] and want[j..].
  const lcs: number[][] = Array.from({ length: got.length + 1 }, () => new Array<number>(want.length + 1).fill(0));
  for (let i = got.length - 1; i >= 0; i--) {
    for (let j = want.length - 1; j >= 0; j--) {
      lcs[i]![j] = sameKind(got[i]!, want[j]!) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const rows: Row[] = [];
  let i = 0;
  let j = 0;
  while (i < got.length || j < want.length) {
    if (i < got.length && j < want.length && sameKind(got[i]!, want[j]!) && lcs[i]![j] === lcs[i + 1]![j + 1]! + 1) {
      const problems = commandProblems(got[i]!, want[j]!, ctx);
      rows.push(
        problems.length === 0
          ? { kind: 'ok', actual: got[i]! }
          : { kind: 'differs', actual: got[i]!, expected: want[j]!, problems },
      );
      i++;
      j++;
    } else if (j < want.length && (i >= got.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      rows.push({ kind: 'missing', expected: want[j++]! });
    } else {
      rows.push({ kind: 'unexpected', actual: got[i++]! });
    }
  }
  return rows;
}

/** Pairs by position only: for traces too long to align (the table would not fit in memory). */
function positional(
  got: readonly TraceCommand[],
  want: readonly CommandSpec[],
  ctx: Omit<MatchContext, 'command'>,
): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < Math.max(got.length, want.length); i++) {
    const actual = got[i];
    const expected = want[i];
    if (actual === undefined) rows.push({ kind: 'missing', expected: expected! });
    else if (expected === undefined) rows.push({ kind: 'unexpected', actual });
    else {
      const problems = commandProblems(actual, expected, ctx);
      rows.push(problems.length === 0 ? { kind: 'ok', actual } : { kind: 'differs', actual, expected, problems });
    }
  }
  return rows;
}

/** The rows as diff lines, runs of matches far from any difference folded into one line. */
function renderRows(rows: readonly Row[], show: (c: TraceCommand) => string, width: number, start: number): string[] {
  const near = rows.map((_, i) => rows.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((r) => r.kind !== 'ok'));
  const who = (c: TraceCommand) =>
    `#${c.step}`.padEnd(4) + ` ${relTime(c.t, start).padEnd(7)} ${terminalSafe(c.actor).padEnd(width)}`;
  const blank = ' '.repeat(13 + width);
  const out: string[] = [];
  let folded = 0;
  rows.forEach((row, i) => {
    if (row.kind === 'ok' && !near[i]) {
      folded++;
      return;
    }
    if (folded > 0) out.push(`  … ${plural(folded, 'matching command')}`);
    folded = 0;
    if (row.kind === 'ok') out.push(`✓ ${who(row.actual)}  ${show(row.actual)}`);
    else if (row.kind === 'unexpected') out.push(`+ ${who(row.actual)}  ${show(row.actual)}`);
    else if (row.kind === 'missing') out.push(`- ${blank}  ${terminalSafe(showSpec(row.expected))}`);
    else {
      out.push(`✗ ${who(row.actual)}  ${show(row.actual)}`);
      out.push(`  ${'expected'.padStart(13 + width)}  ${terminalSafe(showSpec(row.expected))}`);
      for (const p of row.problems) out.push(`  ${blank}    ${terminalSafe(p)}`);
    }
  });
  if (folded > 0) out.push(`  … ${plural(folded, 'matching command')}`);
  return out;
}
