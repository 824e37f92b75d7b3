// Each job's life in a capture, as `lqsim explain` prints it after the trace: every job when there
// are few, else the eventful ones (reserved more than once, released, failed, a ZREM that removed
// nothing, never finished: JobLife.eventful), so a capture of 40,000 quiet jobs prints what matters.
import type { ChalkInstance } from 'chalk';
import { relTime } from '../output/describe.ts';
import { escapeMarkdown } from '../output/markdown.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import type { JobLife } from './timeline.ts';

/** Up to this many jobs, every life is printed; beyond, only the eventful ones, this many at most. */
export const LIVES_SHOWN = 20;

/** The lives to print, and how many are left out (`counted`: quiet lives not kept at all). */
export function livesShown(lives: readonly JobLife[], counted = 0): { shown: JobLife[]; quiet: number; more: number } {
  if (lives.length + counted <= LIVES_SHOWN) return { shown: [...lives], quiet: 0, more: 0 };
  const loud = lives.filter((l) => l.eventful);
  const shown = loud.slice(0, LIVES_SHOWN);
  return { shown, quiet: counted + lives.length - loud.length, more: loud.length - shown.length };
}

export function renderLivesText(lives: readonly JobLife[], start: number, chalk: ChalkInstance, counted = 0): string {
  if (lives.length + counted === 0) return '';
  const { shown, quiet, more } = livesShown(lives, counted);
  let out = `\n${chalk.bold("jobs' lives:")}\n`;
  for (const life of shown) {
    out += `  ${terminalSafe(life.job)}\n`;
    for (const e of life.events)
      out += `    ${chalk.dim(`${relTime(e.t, start).padEnd(10)} line ${String(e.line).padEnd(6)}`)} ${terminalSafe(e.what)}\n`;
    out += `    ${chalk.dim('ends:')} ${terminalSafe(lifeEndText(life))}\n`;
  }
  if (quiet > 0)
    out += chalk.dim(`  ${quiet}${shown.length === 0 ? ' jobs' : ' more'} pushed, reserved once and deleted\n`);
  if (more > 0) out += chalk.dim(`  ... and ${more} more with more to say (--format json has every life)\n`);
  return out;
}

export function renderLivesMarkdown(lives: readonly JobLife[], start: number, counted = 0): string {
  if (lives.length + counted === 0) return '';
  const { shown, quiet, more } = livesShown(lives, counted);
  let out = `\n## Jobs\n`;
  for (const life of shown) {
    out += `\n### ${escapeMarkdown(life.job)}\n\n`;
    for (const e of life.events) out += `- ${relTime(e.t, start)}, line ${e.line}: ${escapeMarkdown(e.what)}\n`;
    out += `- ends: ${escapeMarkdown(lifeEndText(life))}\n`;
  }
  if (quiet > 0) out += `\n${quiet}${shown.length === 0 ? ' jobs' : ' more'} pushed, reserved once and deleted.\n`;
  if (more > 0) out += `\n... and ${more} more with more to say (\`--format json\` has every life).\n`;
  return out;
}

/** "succeeded or failed (failed if ...); began before the capture": how the life ends, in words. */
export function lifeEndText(life: JobLife): string {
  const marks = life.marks.map((m) =>
    m === 'began-before-capture' ? 'began before the capture' : 'continues after the capture',
  );
  const outcome = life.outcome.replace(/-/g, ' ');
  return [`${outcome}${life.when === undefined ? '' : ` (${life.when})`}`, ...marks].join('; ');
}
