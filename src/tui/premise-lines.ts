// The scenario's premise, read before step #0 (and again on P): its title and description, wrapped
// to the screen, and how to start. Pure.
import { profileLabel } from '../output/describe.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import { wrap } from '../output/wrap.ts';
import type { Timeline } from '../scenarios/timeline.ts';
import type { Line } from './segments.ts';
import { seg } from './segments.ts';

export function premiseLines(scenario: Timeline['scenario'], profile: string, width: number): Line[] {
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
  out.push([], [seg('→', 'key'), seg(' to start'), seg('  ·  P shows this again  ·  ? every key', 'dim')]);
  return out;
}
