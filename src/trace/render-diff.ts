// The step-aligned diff as text: `=` same, `-` only in a, `+` only in b, `~` a step in both that
// changed (its commands then marked = - +). Scripts and payloads are abbreviated as in the text
// view (‹pop›, ‹SendEmail#ID1 attempts:1›); a payload that changed gets a line of the fields that
// did (attempts 1→2, +createdAt T+0). Colour only through the chalk instance given; every piece of
// trace data passes through terminalSafe.
import { CACHE_SCRIPTS } from '../sim/cache-scripts.ts';
import type { ChalkInstance } from 'chalk';
import { summarizeArgs } from '../output/describe.ts';
import { quoteArg, terminalSafe } from '../output/terminal-safe.ts';
import { PROFILES, scriptsOf } from '../sim/profiles/index.ts';
import type { TraceCommand } from '../scenarios/timeline.ts';
import type { CommandDiff, StepDiff, TraceDiff } from './diff.ts';
import { diffSummary } from './diff.ts';
import type { NormalisedCommand, NormalisedStep } from './normalise.ts';
import { excerptPair, parsePayload, payloadChanges } from './payload-changes.ts';

export interface DiffRenderOptions {
  chalk: ChalkInstance;
  /** Labels of the two sides (`dispatch@5.7`). */
  labels: [string, string];
  /** Print the commands of steps that are the same too (default: one line per such step). */
  all?: boolean;
}

let scriptNames: Map<string, string> | undefined;
/** Script text → its name in any profile, so goldens and raw captures show ‹pop› too. */
function scriptName(text: string): string | undefined {
  if (!scriptNames) {
    scriptNames = new Map();
    for (const profile of Object.values(PROFILES))
      for (const s of [...scriptsOf(profile), ...CACHE_SCRIPTS]) scriptNames.set(s.source, s.name);
  }
  return scriptNames.get(text);
}

const NO_LABELS = new Map<string, string>();

/** A command as the text view shows it (`EVAL ‹pop› 2 ...`, `[lua] zadd ... ‹X#ID1 attempts:1›`). */
export function commandLine(c: NormalisedCommand): string {
  const isEval = c.source === 'client' && c.args[0]?.toUpperCase() === 'EVAL';
  const script = c.script ?? (isEval && c.args[1] !== undefined ? scriptName(c.args[1]) : undefined);
  const cmd: TraceCommand = {
    step: 0,
    t: 0,
    actor: '',
    process: 1,
    source: c.source,
    db: c.db,
    args: c.args,
    time: '',
    ...(script ? { script } : {}),
  };
  const text = summarizeArgs(cmd, NO_LABELS).join(' ');
  const db = c.db !== 0 ? `[db ${c.db}] ` : '';
  return c.source === 'lua' ? `  [lua] ${db}${text}` : `${db}${text}`;
}

function stepHead(s: NormalisedStep): string {
  return `#${s.index} ${s.t ?? ''} ${terminalSafe(s.actor)}`.replace(/ {2,}/g, ' ');
}

/** Detail lines explaining an added command against the removed one it replaces, if any. */
function changeDetails(removed: NormalisedCommand, added: NormalisedCommand): string[] {
  const out: string[] = [];
  // The same command in another db (a run that moved to an empty db on REDIS_URL): say that, and only that.
  if (removed.db !== added.db && JSON.stringify(removed.args) === JSON.stringify(added.args))
    return [`db ${removed.db} → ${added.db}, the command itself the same`];
  const payloadsA = removed.args.map(parsePayload);
  added.args.forEach((arg, i) => {
    const pb = parsePayload(arg);
    if (pb) {
      const j = payloadsA.findIndex((pa) => pa !== null && pa.id === pb.id && pa.id !== undefined);
      if (j >= 0 && removed.args[j] !== arg) {
        const changes = payloadChanges(payloadsA[j]!, pb);
        const id = typeof pb.id === 'string' ? terminalSafe(pb.id) : '?';
        out.push(
          changes.length > 0
            ? `${id}: ${changes.join(', ')}`
            : `${id}: same fields, other bytes (key order or escaping)`,
        );
      }
      return;
    }
    const before = removed.args[i];
    if (
      before === undefined ||
      before === arg ||
      removed.args.length !== added.args.length ||
      removed.args[0] !== added.args[0]
    )
      return;
    if (i === 1 && added.args[0]?.toUpperCase() === 'EVAL') out.push('script text differs');
    else if (arg.length > 40 || before.length > 40) {
      const [x, y] = excerptPair(before, arg);
      out.push(`arg ${i}: ${x} → ${y}`);
    }
  });
  return out;
}

function renderCommands(diffs: readonly CommandDiff[], o: DiffRenderOptions, lines: string[]): void {
  const { chalk } = o;
  const removed = diffs.filter((d) => d.kind === 'removed').map((d) => d.command);
  // The removed command an added one replaces: the one carrying the same job, else the same command.
  const byJob = new Map<string, NormalisedCommand>();
  for (const r of removed) for (const id of payloadIds(r)) if (!byJob.has(id)) byJob.set(id, r);
  // A change is told once per step (ids aside): the push script's [lua] rpush, or 250 delayed jobs, repeat it.
  const shown = new Set<string>();
  for (const d of diffs) {
    const text = commandLine(d.command);
    if (d.kind === 'same') lines.push(chalk.dim(`    = ${text}`));
    else if (d.kind === 'removed') lines.push(chalk.red(`    - ${text}`));
    else {
      lines.push(chalk.green(`    + ${text}`));
      const c = d.command;
      const partner =
        payloadIds(c)
          .map((id) => byJob.get(id))
          .find((r) => r !== undefined) ??
        removed.find((r) => r.source === c.source && r.args[0] === c.args[0] && r.args.length === c.args.length);
      for (const detail of partner ? changeDetails(partner, c) : []) {
        const key = detail
          .replace(/^[^:]*: /, '')
          .replace(/\b(UUID|ID)\d+\b/g, '$1')
          .split(', ')
          .sort()
          .join(', ');
        if (shown.has(key)) continue;
        shown.add(key);
        lines.push(chalk.cyan(`        ${detail}`));
      }
    }
  }
}

function payloadIds(c: NormalisedCommand): string[] {
  const ids: string[] = [];
  for (const a of c.args) {
    const p = parsePayload(a);
    if (p && typeof p.id === 'string') ids.push(p.id);
  }
  return ids;
}

function titleLine(prefix: string, s: NormalisedStep): string {
  return s.title !== undefined ? `  ${prefix}${terminalSafe(s.title)}` : '';
}

function renderStep(d: StepDiff, o: DiffRenderOptions, lines: string[]): void {
  const { chalk } = o;
  switch (d.kind) {
    case 'same':
      lines.push(
        chalk.dim(`= ${stepHead(d.a)} | ${stepHead(d.b)}${titleLine('', d.b)}  (${d.b.commands.length} same)`),
      );
      if (o.all)
        renderCommands(
          d.b.commands.map((command) => ({ kind: 'same', command })),
          o,
          lines,
        );
      return;
    case 'removed':
      lines.push(chalk.red.bold(`- ${stepHead(d.a)} | (none)${titleLine('', d.a)}`));
      renderCommands(
        d.a.commands.map((command) => ({ kind: 'removed', command })),
        o,
        lines,
      );
      return;
    case 'added':
      lines.push(chalk.green.bold(`+ (none) | ${stepHead(d.b)}${titleLine('', d.b)}`));
      renderCommands(
        d.b.commands.map((command) => ({ kind: 'added', command })),
        o,
        lines,
      );
      return;
    case 'changed':
      lines.push(chalk.yellow.bold(`~ ${stepHead(d.a)} | ${stepHead(d.b)}`));
      if (d.a.title !== undefined && d.a.title === d.b.title) lines.push(chalk.yellow(`   ${terminalSafe(d.a.title)}`));
      else {
        if (d.a.title !== undefined) lines.push(chalk.red(`   a: ${terminalSafe(d.a.title)}`));
        if (d.b.title !== undefined) lines.push(chalk.green(`   b: ${terminalSafe(d.b.title)}`));
      }
      renderCommands(d.commands, o, lines);
  }
}

/** The diff (headers, steps, and the summary line), newline-terminated. */
export function renderDiff(d: TraceDiff, o: DiffRenderOptions): string {
  const { chalk } = o;
  const lines = [chalk.red(`--- a: ${terminalSafe(o.labels[0])}`), chalk.green(`+++ b: ${terminalSafe(o.labels[1])}`)];
  if (d.prefix) {
    const show = (p: string) => (p === '' ? '(none)' : quoteArg(p));
    lines.push(
      chalk.yellow(`~ key prefix: ${show(d.prefix[0])} → ${show(d.prefix[1])} (stripped from the keys below)`),
    );
  }
  for (const note of d.notes ?? []) lines.push(chalk.yellow(`~ ${terminalSafe(note)}`));
  for (const s of d.steps) renderStep(s, o, lines);
  lines.push(diffSummary(d));
  return lines.join('\n') + '\n';
}
