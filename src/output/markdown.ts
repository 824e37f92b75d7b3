// The timeline as Markdown for docs: a heading and a table of commands per step. Commands are
// code spans (abbreviated as in the text view: ‹pop›, ‹ImportCsv#1 attempts:1›); titles, notes
// and names are escaped so no character of a payload or scenario can start Markdown or HTML
// (`|` would split a table cell, `<` open a tag, `#` `*` `_` `[` format text). Everything is
// terminal-safe too: controls and bidi characters are shown as escapes.
import type { Step, Timeline, TraceCommand } from '../scenarios/timeline.ts';
import { jobLabels, outcomeCounts, relTime, senderLabel, summarizeArgs } from './describe.ts';
import { nodeAndSlot } from './node-label.ts';
import { terminalSafe } from './terminal-safe.ts';

/** Text with every Markdown/HTML metacharacter made literal; one line. */
export function escapeMarkdown(s: string): string {
  return terminalSafe(s)
    .replace(/[\\`*_[\]#|~>]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;');
}

/** A code span for a table cell: `|` escaped (GFM splits cells on it even in code), fenced with enough backticks. */
export function codeCell(s: string): string {
  const text = terminalSafe(s).replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || text.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

export function renderMarkdown(timeline: Timeline): string {
  const labels = jobLabels(timeline);
  const { scenario } = timeline;
  const out: string[] = [`# ${escapeMarkdown(scenario.name)}: ${escapeMarkdown(scenario.title)}`, ''];
  out.push(`Laravel ${escapeMarkdown(timeline.profile)} profile, ${escapeMarkdown(timeline.server.describe)}.`, '');
  // Its paragraphs kept (a capture's configuration is one per figure), each one line.
  if (scenario.description?.trim())
    for (const p of scenario.description.trim().split(/\n\s*\n/))
      out.push(escapeMarkdown(p.trim().replace(/\s*\n\s*/g, ' ')), '');
  for (const step of timeline.steps) out.push(...stepSection(step, timeline.start, labels));
  out.push('## Result', '');
  out.push(
    `Jobs: ${timeline.jobs.length === 0 ? 'none' : `${timeline.jobs.length} (${outcomeCounts(timeline.jobs)})`}.`,
    '',
  );
  if (timeline.jobs.length > 0) {
    out.push('| job | class | outcome | executions |', '|---|---|---|---|');
    for (const j of timeline.jobs)
      out.push(`| ${escapeMarkdown(j.label)} | ${codeCell(j.class)} | ${j.outcome} | ${j.executions} |`);
    out.push('');
  }
  for (const f of timeline.failed) {
    out.push(
      `- Failed: ${escapeMarkdown(f.job)} at ${relTime(f.failedAt, timeline.start)}: ${codeCell(f.exception)}: ${escapeMarkdown(f.message)}`,
    );
  }
  if (timeline.failed.length > 0) out.push('');
  for (const w of timeline.warnings) out.push(`> Warning: ${escapeMarkdown(w)}`, '');
  if (timeline.error !== undefined) out.push(`> The run ended early: ${escapeMarkdown(timeline.error)}`, '');
  return out.join('\n');
}

function stepSection(step: Step, start: number, labels: Map<string, string>): string[] {
  const out = [
    `### #${step.index} ${relTime(step.t, start)} ${escapeMarkdown(step.actor)}: ${escapeMarkdown(step.title)}`,
    '',
  ];
  if (step.methods.length > 0) out.push(step.methods.map(codeCell).join(' → '), '');
  if (step.explain !== undefined) out.push(`Why: ${escapeMarkdown(step.explain)}`, '');
  if (step.note !== undefined) out.push(`> ${escapeMarkdown(step.note)}`, '');
  if (step.commands.length === 0) {
    out.push('No Redis command.', '');
    return out;
  }
  // On a Redis Cluster a column says which node's MONITOR saw each command, and its keys' slot.
  const cluster = step.commands.some((c) => c.node !== undefined);
  out.push(
    cluster ? '| # | sent by | node | command |' : '| # | sent by | command |',
    cluster ? '|---:|---|---|---|' : '|---:|---|---|',
  );
  step.commands.forEach((cmd, i) =>
    out.push(
      `| ${i + 1} | ${sender(cmd)} |${cluster ? ` ${escapeMarkdown(nodeAndSlot(cmd))} |` : ''} ${codeCell(summarizeArgs(cmd, labels).join(' '))} |`,
    ),
  );
  out.push('');
  return out;
}

function sender(cmd: TraceCommand): string {
  return cmd.source === 'lua' ? 'Lua script' : escapeMarkdown(senderLabel(cmd));
}
