// `lqsim explain --format ndjson`, after the commands: one record each for the settings, each job's
// life, each failed job the capture proves (json's `failed`, as failed_jobs would hold it) and each
// finding, told from a command by their `record` field (readers of lqsim's ndjson, explain's own
// and `lqsim diff`'s, skip them: isNdjsonRecord in output/ndjson.ts). Lives as text prints them:
// every eventful one, the quiet ones (pushed, reserved once, deleted) counted in one record, so the
// output stays bounded.
import { escapeUnits } from '../output/ndjson.ts';
import { replaceUnsafe } from '../output/terminal-safe.ts';
import type { CaptureSettings } from './settings.ts';
import type { Explained } from './timeline.ts';

/** JSON on one line, with the terminal-unsafe characters escaped as the command rows have them. */
function line(obj: object): string {
  return `${replaceUnsafe(JSON.stringify(obj), escapeUnits)}\n`;
}

export function renderExplainedRecords(
  { timeline, lives, quietLives, findings }: Explained,
  settings: CaptureSettings,
): string {
  let out = line({ record: 'settings', ...settings });
  for (const life of lives) out += line({ record: 'life', ...life });
  if (quietLives > 0) out += line({ record: 'quiet-lives', count: quietLives });
  for (const failed of timeline.failed) out += line({ record: 'failed', ...failed });
  for (const f of findings) out += line({ record: 'finding', ...f });
  return out;
}
