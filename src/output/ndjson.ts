// Machine-readable trace: one JSON object per captured command, in order, one per line. Keys in a
// fixed order (step, t, actor, process, source, db, args[, script][, operation][, binaryArgs][, node][, slot]) so golden files diff
// cleanly; MONITOR's wall-clock `time` is left out because it changes on every run.
import type { Timeline, TraceCommand } from '../scenarios/timeline.ts';
import { replaceUnsafe } from './terminal-safe.ts';

/**
 * The characters a terminal may act on, or that hide text, when someone `cat`s the file (the
 * terminal-safe set) are written as \uXXXX escapes: the values stay identical.
 */
export function escapeUnits(m: string): string {
  let out = '';
  for (let i = 0; i < m.length; i++) out += `\\u${m.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** One command as a single-line JSON object (no trailing newline). */
export function commandToJson(cmd: TraceCommand): string {
  const obj: Record<string, unknown> = {
    step: cmd.step,
    t: cmd.t,
    actor: cmd.actor,
    process: cmd.process,
    source: cmd.source,
    db: cmd.db,
    args: cmd.args,
  };
  if (cmd.script !== undefined) obj.script = cmd.script;
  if (cmd.operation !== undefined) obj.operation = cmd.operation;
  if (cmd.binaryArgs !== undefined) obj.binaryArgs = cmd.binaryArgs;
  if (cmd.node !== undefined) obj.node = cmd.node;
  if (cmd.slot !== undefined) obj.slot = cmd.slot;
  // JSON.stringify already escapes C0 controls and lone surrogates; the rest of the set is
  // escaped here (outside strings JSON is plain ASCII, so only string contents change).
  return replaceUnsafe(JSON.stringify(obj), escapeUnits);
}

/** Every command of the timeline, one JSON object per line, each line newline-terminated. */
export function renderNdjson(timeline: Pick<Timeline, 'steps'>): string {
  let out = '';
  for (const step of timeline.steps) for (const cmd of step.commands) out += commandToJson(cmd) + '\n';
  return out;
}

/**
 * Whether a parsed row of lqsim's ndjson is a record rather than a command: `lqsim explain
 * --format ndjson` ends with its settings, lives and findings, each told by a `record` field
 * (src/explain/records.ts). Every reader of lqsim's ndjson skips them.
 */
export function isNdjsonRecord(row: unknown): boolean {
  return typeof row === 'object' && row !== null && typeof (row as Record<string, unknown>).record === 'string';
}
