// Errors in scenario files. Each carries the file and the 1-based line and column of the
// offending text (0:0 when there is none, e.g. the file cannot be read); the CLI prints the
// message as is, so it is always one line.

export class ScenarioError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    /** Dotted path of the offending field (`timeline.2.dispatch`); '' for syntax and file errors. */
    readonly field: string,
    readonly detail: string,
    /** The file's other problems, in file order (each its own line; `message` is this one's). */
    readonly also: readonly ScenarioError[] = [],
  ) {
    // A file-level error (unreadable, no such scenario) has no position to show.
    const where = line > 0 ? `${file}:${line}:${column}` : file;
    super(oneLine(field === '' ? `${where}: ${detail}` : `${where}: ${field}: ${detail}`));
    this.name = 'ScenarioError';
  }
}

/** Collapses newlines and runs of blanks so a message never spans lines. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** The candidates closest to `word` by edit distance (close enough to be a plausible typo), best first. */
export function closestNames(word: string, candidates: Iterable<string>, max = 3): string[] {
  const lower = word.toLowerCase();
  const scored: { name: string; d: number }[] = [];
  for (const name of new Set(candidates)) {
    const d = editDistance(lower, name.toLowerCase());
    // One edit turns any one-letter name into any other: suggest only for longer names.
    const shorter = Math.min(word.length, name.length);
    const near = d <= (shorter < 2 ? 0 : Math.max(1, Math.floor(Math.max(word.length, name.length) / 3)));
    if (near || (lower.length >= 3 && name.toLowerCase().includes(lower))) scored.push({ name, d });
  }
  scored.sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, max).map((s) => s.name);
}

/** ` (did you mean "x"?)`, ` (did you mean "x" or "y"?)`, or '' when nothing is close. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const close = closestNames(word, candidates, 2).map((n) => JSON.stringify(n));
  return close.length === 0 ? '' : ` (did you mean ${close.join(' or ')}?)`;
}

/** Levenshtein distance with adjacent transpositions counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const prev = rows[i - 1]!;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}
