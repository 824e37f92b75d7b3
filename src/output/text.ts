// The plain text view of a timeline: what `lqsim run` prints when it is not interactive, and what
// a learner pastes into an issue. Colour only through the chalk it is given (level 0: none), and
// every string that came from Redis or the scenario goes through terminalSafe/quoteArg.
import type { ChalkInstance } from 'chalk';
import { actorColour as actorColourName } from './actor-colour.ts';
import { nodeColour, nodeTag } from './node-label.ts';
import type { JobInstance, Step, Timeline, TraceCommand } from '../scenarios/timeline.ts';
import { fullArgs, jobLabels, outcomeCounts, profileLabel, relTime, summarizeArgs, utcTime } from './describe.ts';
import { terminalSafe } from './terminal-safe.ts';
import { displayWidth, wrap } from './wrap.ts';

export interface TextOptions {
  chalk: ChalkInstance;
  /** Every argument verbatim (scripts, payloads), no ‹abbreviations›. */
  full?: boolean;
  /** Columns to wrap notes and messages to (default 80). Command lines are never wrapped. */
  width?: number;
  /**
   * Each step's wall-clock time too (UTC, to the millisecond) before its t+: a capture's steps
   * happened at real times (lqsim explain); a scenario's are virtual and show t+ only.
   */
  clock?: boolean;
}

const DEFAULT_WIDTH = 80;
const MIN_TEXT_WIDTH = 20;
/** Indent of everything under a step header; lua lines get two more. */
const BODY = '    ';
const LUA = BODY + '  ';
const INDEX_COLUMN = 4;
const TIME_COLUMN = 8;
const ACTOR_COLUMN = 12;
/** Jobs and failed jobs listed one by one in the footer; beyond this, counts only. */
const FOOTER_LIST_LIMIT = 20;

const FAILURE_KINDS: ReadonlySet<Step['kind']> = new Set(['fail', 'kill']);

/** The whole timeline: header, every step, footer. */
export function renderText(timeline: Timeline, opts: TextOptions): string {
  let out = renderTextHeader(timeline, opts);
  for (const step of timeline.steps) out += renderStepText(step, timeline, opts);
  return out + renderTextFooter(timeline, opts);
}

/** Scenario name and title, profile, server, then the description and a blank line. */
export function renderTextHeader(timeline: Timeline, opts: TextOptions): string {
  const { chalk } = opts;
  const { scenario, server } = timeline;
  let out = `${chalk.bold(terminalSafe(scenario.name))}: ${terminalSafe(scenario.title)}\n`;
  out += `${profileLabel(timeline.profile)}, ${terminalSafe(server.describe)}\n`;
  if (scenario.description !== undefined && scenario.description.trim() !== '') {
    for (const line of paragraphs(scenario.description, textWidth(opts))) out += `${chalk.dim(line)}\n`;
  }
  return out + '\n';
}

/**
 * One step: the header line (`#3  t+60s   worker-1    <title>`), its Laravel methods, the model's
 * explanation, the scenario note, then its commands (lua lines indented under their EVAL). Made
 * for streaming: column widths depend only on the step, so steps printed one by one line up.
 */
export function renderStepText(step: Step, timeline: Timeline, opts: TextOptions): string {
  const { chalk } = opts;
  const width = textWidth(opts);
  const actorColumn = Math.max(ACTOR_COLUMN, ...knownActors(step).map((a) => displayWidth(terminalSafe(a)) + 2));
  const title = terminalSafe(step.title);
  let out =
    chalk.dim(column(`#${step.index}`, INDEX_COLUMN)) +
    (opts.clock === true ? chalk.dim(`${clockTime(step.t)} `) : '') +
    chalk.dim(column(relTime(step.t, timeline.start), TIME_COLUMN)) +
    actorColour(chalk, step.actor, step)(column(terminalSafe(step.actor), actorColumn)) +
    (FAILURE_KINDS.has(step.kind) ? chalk.red(title) : title) +
    '\n';
  if (step.methods.length > 0) out += `${BODY}${step.methods.map(terminalSafe).join(' → ')}\n`;
  if (step.explain !== undefined) out += labelled('why: ', step.explain, width, (s) => s);
  if (step.note !== undefined) out += labelled('note: ', step.note, width, (s) => chalk.italic.yellow(s));
  const labels = labelsOf(timeline);
  for (const cmd of step.commands) out += commandLine(cmd, step, labels, opts);
  return out;
}

/** Jobs (outcome, executions), failed jobs (exception and message), warnings, and the error if any. */
export function renderTextFooter(timeline: Timeline, opts: TextOptions): string {
  const { chalk } = opts;
  const width = textWidth(opts);
  let out =
    '\n' +
    chalk.bold('jobs: ') +
    (timeline.jobs.length === 0 ? 'none' : `${timeline.jobs.length} (${outcomeCounts(timeline.jobs)})`) +
    '\n';
  const shown = timeline.jobs.slice(0, FOOTER_LIST_LIMIT);
  const labelWidth = Math.max(0, ...shown.map((j) => displayWidth(terminalSafe(j.label))));
  for (const job of shown) {
    const outcome = column(job.outcome, 'succeeded'.length + 2);
    const executions = column(`${job.executions} execution${job.executions === 1 ? '' : 's'}`, 14);
    out +=
      `  ${column(terminalSafe(job.label), labelWidth + 2)}` +
      `${outcomeColour(chalk, job.outcome)(outcome)}${executions}` +
      `${terminalSafe(job.class)} on ${terminalSafe(job.connection)}/${terminalSafe(job.queue)}\n`;
  }
  if (timeline.jobs.length > shown.length) out += chalk.dim(`  ... and ${timeline.jobs.length - shown.length} more\n`);

  if (timeline.failed.length > 0) {
    out += chalk.bold.red(`failed jobs: ${timeline.failed.length}`) + '\n';
    for (const f of timeline.failed.slice(0, FOOTER_LIST_LIMIT)) {
      out += `  ${chalk.red(terminalSafe(f.job))} at ${relTime(f.failedAt, timeline.start)} on ${terminalSafe(f.connection)}/${terminalSafe(f.queue)}\n`;
      for (const line of paragraphs(`${f.exception}: ${f.message}`, width - BODY.length))
        out += `${BODY}${chalk.red(line)}\n`;
    }
    if (timeline.failed.length > FOOTER_LIST_LIMIT) {
      out += chalk.dim(`  ... and ${timeline.failed.length - FOOTER_LIST_LIMIT} more\n`);
    }
  }
  if (timeline.warnings.length > 0) {
    out += chalk.bold.yellow('warnings:') + '\n';
    for (const w of timeline.warnings) {
      const [first = '', ...rest] = paragraphs(w, width - 4);
      out += `  - ${chalk.yellow(first)}\n` + rest.map((l) => `    ${chalk.yellow(l)}\n`).join('');
    }
  }
  if (timeline.error !== undefined) {
    const [first = '', ...rest] = paragraphs(timeline.error, width - 'error: '.length);
    out += chalk.bold.red('error: ') + chalk.red(first) + '\n' + rest.map((l) => `       ${chalk.red(l)}\n`).join('');
  }
  return out;
}

/** "01:37:59.166" (UTC), or the seconds as given where they name no date. */
function clockTime(t: number): string {
  return utcTime(t)?.slice(11) ?? String(t);
}

function commandLine(cmd: TraceCommand, step: Step, labels: Map<string, string>, opts: TextOptions): string {
  const { chalk } = opts;
  const args = opts.full === true ? fullArgs(cmd) : summarizeArgs(cmd, labels);
  const name = args[0] ?? '';
  // The args after the name, each after a space.
  let rest = '';
  for (let i = 1; i < args.length; i++) rest += ` ${args[i]}`;
  // A command from another actor than the step's (rare: a concurrent connection) says whose it is.
  const who = cmd.actor === step.actor ? '' : actorColour(chalk, cmd.actor, step)(`(${terminalSafe(cmd.actor)}) `);
  // A capture's command says which of Laravel's operations it is (lqsim explain).
  const op = cmd.operation === undefined ? '' : `${terminalSafe(cmd.operation)}: `;
  // On a Redis Cluster: the node whose MONITOR saw it (`n2`), before the command, lua lines
  // indented under their EVAL after it.
  const node = cmd.node === undefined ? '' : `${chalk[nodeColour(cmd.node)](terminalSafe(nodeTag(cmd.node)))} `;
  if (cmd.source === 'lua')
    return `${node === '' ? LUA : BODY + node + '  '}${who}${chalk.dim(`[lua] ${op}${name}${rest}`)}\n`;
  return `${BODY}${node}${who}${op === '' ? '' : chalk.dim(op)}${chalk.bold(name)}${rest}\n`;
}

/** `prefix` + text wrapped to the width, continuation lines aligned under the text. */
function labelled(prefix: string, text: string, width: number, style: (s: string) => string): string {
  const indent = BODY + ' '.repeat(prefix.length);
  return paragraphs(text, width - indent.length)
    .map((line, i) => `${i === 0 ? BODY + prefix : indent}${style(line)}\n`)
    .join('');
}

/** Terminal-safe, wrapped lines of a text that may hold several lines of its own. */
function paragraphs(text: string, width: number): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .trimEnd()
    .split('\n')
    .flatMap((p) => wrap(terminalSafe(p), Math.max(MIN_TEXT_WIDTH, width)));
}

function textWidth(opts: TextOptions): number {
  return opts.width !== undefined && opts.width > 0 ? opts.width : DEFAULT_WIDTH;
}

/** `s` padded to `width` columns, with at least one space after it. */
function column(s: string, width: number): string {
  return s + ' '.repeat(Math.max(1, width - displayWidth(s)));
}

function knownActors(step: Step): string[] {
  return ['dispatcher', step.actor, ...step.state.workers.map((w) => w.name)];
}

/**
 * A colour per actor that stays put for a whole run: the dispatcher's own, workers by their order
 * in the scenario (the state snapshot lists them all), anything else by a hash of its name.
 */
function actorColour(chalk: ChalkInstance, actor: string, step: Step): (s: string) => string {
  return chalk[
    actorColourName(
      actor,
      step.state.workers.map((w) => w.name),
    )
  ];
}

function outcomeColour(chalk: ChalkInstance, outcome: JobInstance['outcome']): (s: string) => string {
  switch (outcome) {
    case 'succeeded':
      return chalk.green;
    case 'failed':
      return chalk.red;
    case 'deleted':
      return chalk.dim;
    case 'pending':
      return chalk.yellow;
    case 'not-queued':
      return chalk.red;
  }
}

/** `2 (1 succeeded, 1 failed)`, `none`. */

/**
 * id -> label for the timeline's jobs, cached per jobs array: renderStepText runs once per step,
 * and a streaming run appends to the same array, so a longer array extends the cached map.
 */
const labelCache = new WeakMap<JobInstance[], { length: number; labels: Map<string, string> }>();
function labelsOf(timeline: Timeline): Map<string, string> {
  const cached = labelCache.get(timeline.jobs);
  if (cached === undefined || cached.length > timeline.jobs.length) {
    const labels = jobLabels(timeline);
    labelCache.set(timeline.jobs, { length: timeline.jobs.length, labels });
    return labels;
  }
  for (let i = cached.length; i < timeline.jobs.length; i++)
    cached.labels.set(timeline.jobs[i]!.id, timeline.jobs[i]!.label);
  cached.length = timeline.jobs.length;
  return cached.labels;
}
