// The scenario's premise, read before step #0 (and again on P): its title and description, wrapped
// to the screen, and how to start. Pure.
import { profileLabel } from '../output/describe.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import { wrap } from '../output/wrap.ts';
import type { Timeline } from '../scenarios/timeline.ts';
import type { Line } from './segments.ts';
import { seg } from './segments.ts';

/** What → does on the premise: start at step #0, or go back to the step P was pressed on. */
function closes(at: number): string {
  return at > 0 ? `back to step #${at}` : 'starts';
}

/** The premise overlay's title: `chain · the premise · → starts` (or `→ back to step #12`). */
export function premiseTitle(name: string, at = 0): string {
  return `${terminalSafe(name)} · the premise · → ${closes(at)}`;
}

/** `at`: the step shown under the premise (P pressed there); 0 before the run has started. */
export function premiseLines(scenario: Timeline['scenario'], profile: string, width: number, at = 0): Line[] {
  const w = Math.max(10, width);
  const out: Line[] = wrap(terminalSafe(scenario.title), w).map((l): Line => [seg(l, 'heading')]);
  if (profile !== '') out.push([seg(profileLabel(profile), 'dim')]);
  // The YAML's line breaks are the author's wrapping; blank lines are paragraphs.
  const paragraphs = (scenario.description ?? '')
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => p !== '');
  for (const p of paragraphs) {
    out.push([]);
    out.push(...wrap(terminalSafe(p), w).map((l): Line => [seg(l)]));
  }
  out.push(
    [],
    [
      seg('→', 'key'),
      seg(at > 0 ? ` back to step #${at}` : ' to start'),
      seg('  ·  P shows this again  ·  ? every key', 'dim'),
    ],
  );
  return out;
}
