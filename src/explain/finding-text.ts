// A finding in words, for text, markdown and the TUI's notes: its certainty first (with its
// evidence, when it has some), the story, the lines it rests on, then each other story the same
// traffic may tell with what decides it. json and ndjson carry the same as fields.
import type { Finding } from './findings.ts';

/** "likely (evidence): title (lines 13, 25)", without the alternatives. */
export function findingHead(f: Finding): string {
  const how = f.because !== undefined ? `${f.certainty} (${f.because})` : f.certainty;
  return `${how}: ${f.title} (line${f.lines.length === 1 ? '' : 's'} ${f.lines.join(', ')})`;
}

/** "or: ran-twice, if ...", one per alternative. */
export function findingAlternatives(f: Finding): string[] {
  return f.alternatives.map((a) => `or: ${a.kind}, if ${a.when}`);
}

/** The whole finding on one line (the TUI's notes). */
export function findingLine(f: Finding): string {
  return [findingHead(f), ...findingAlternatives(f)].join('; ');
}
