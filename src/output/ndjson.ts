// Machine-readable trace: one JSON object per captured command, in order, one per line. Keys in a
// fixed order (step, t, actor, source, db, args[, script][, binaryArgs]) so golden files diff
// cleanly; MONITOR's wall-clock `time` is left out because it changes on every run.
import type { Timeline, TraceCommand } from '../scenarios/timeline.ts';

/**
 * Characters JSON.stringify leaves raw that a terminal may act on, or that hide text, when someone
 * `cat`s the file: DEL, C1 controls, bidi controls, invisible format characters, line/paragraph
 * separators, tag characters (the same set as terminal-safe.ts). Outside JSON's ASCII syntax they
 * can only occur inside strings, so escaping them as \uXXXX keeps every value identical.
 */
const JSON_UNSAFE =
  /[\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\ufff9-\ufffb\uffa0]|\udb40[\udc00-\udc7f]/g;

function escapeUnits(m: string): string {
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
    source: cmd.source,
    db: cmd.db,
    args: cmd.args,
  };
  if (cmd.script !== undefined) obj.script = cmd.script;
  if (cmd.binaryArgs !== undefined) obj.binaryArgs = cmd.binaryArgs;
  return JSON.stringify(obj).replace(JSON_UNSAFE, escapeUnits);
}

/** Every command of the timeline, one JSON object per line, each line newline-terminated. */
export function renderNdjson(timeline: Pick<Timeline, 'steps'>): string {
  let out = '';
  for (const step of timeline.steps) for (const cmd of step.commands) out += commandToJson(cmd) + '\n';
  return out;
}
