// Colours of the TUI. Actors keep the colours the text view gives them (src/output/text.ts:
// the dispatcher cyan, workers by their order in the scenario, anything else by a hash of its
// name), so a learner who saw `lqsim run` recognises them. With colour off (NO_COLOR, or
// FORCE_COLOR=0) only bold, dim and inverse remain.
import type { ChalkInstance, ForegroundColorName } from 'chalk';
import { actorColour } from '../output/actor-colour.ts';
import { nodeColour } from '../output/node-label.ts';
import type { Segment, Tone } from './segments.ts';

/** The props of an Ink <Text> that style one segment. */
export interface TextStyle {
  color?: string;
  backgroundColor?: string;
  bold?: boolean;
  dimColor?: boolean;
  italic?: boolean;
  inverse?: boolean;
}

const TONES: Record<Tone, TextStyle> = {
  plain: {},
  dim: { dimColor: true },
  bold: { bold: true },
  command: { bold: true },
  lua: { dimColor: true },
  time: { color: 'yellow' },
  payload: { color: 'white' },
  changed: { color: 'black', backgroundColor: 'yellow', bold: true },
  script: { color: 'cyanBright' },
  heading: { bold: true },
  good: { color: 'green' },
  warn: { color: 'yellow' },
  bad: { color: 'red' },
  note: { color: 'yellow', italic: true },
  key: { color: 'cyan', bold: true },
  alert: { color: 'white', backgroundColor: 'red', bold: true },
};

/** Without colour: what still tells tones apart. */
const MONO: Partial<Record<Tone, TextStyle>> = {
  changed: { inverse: true, bold: true },
  bad: { bold: true },
  note: { italic: true },
  key: { bold: true },
  command: { bold: true },
  alert: { inverse: true, bold: true },
};

export interface Theme {
  colour: boolean;
  /** Paints segments: level 0 prints plain text (tests, FORCE_COLOR=0). */
  chalk: ChalkInstance;
  /** Workers in scenario order: their index picks the palette colour. */
  workers: readonly string[];
}

export function styleOf(segment: Segment, theme: Theme): TextStyle {
  if (segment.actor !== undefined)
    return theme.colour ? { color: actorColour(segment.actor, theme.workers), bold: true } : { bold: true };
  // Without colour the label itself (n1, n2) tells the nodes apart.
  if (segment.node !== undefined) return theme.colour ? { color: nodeColour(segment.node) } : {};
  const tone = segment.tone ?? 'plain';
  if (!theme.colour) return MONO[tone] ?? (tone === 'dim' || tone === 'lua' ? { dimColor: true } : {});
  return TONES[tone];
}

/**
 * One segment as a string with its SGR codes. Lines are painted into one string each (one Ink
 * <Text> per line instead of one per segment: Ink lays out every node, and a 120×40 screen of
 * segments took 60 ms to draw). The text is terminal-safe already; only chalk adds escapes.
 */
export function paint(segment: Segment, theme: Theme): string {
  const style = styleOf(segment, theme);
  let c = theme.chalk;
  if (style.color !== undefined) c = c[style.color as ForegroundColorName] ?? c;
  if (style.backgroundColor !== undefined)
    c = c[`bg${style.backgroundColor[0]!.toUpperCase()}${style.backgroundColor.slice(1)}` as ForegroundColorName] ?? c;
  if (style.bold === true) c = c.bold;
  if (style.dimColor === true) c = c.dim;
  if (style.italic === true) c = c.italic;
  if (style.inverse === true) c = c.inverse;
  return c === theme.chalk ? segment.text : c(segment.text);
}
