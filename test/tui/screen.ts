// Reading a rendered frame by pane: the trace, state and narration regions of the layout the App
// used, as plain text (the tests render without colour), and with wrapped lines joined so an
// assertion does not depend on where a line broke.
import { layoutFor } from '../../src/tui/layout.ts';

export type Region = 'header' | 'trace' | 'state' | 'narration' | 'footer';

export function region(frame: string, which: Region, columns: number, rows: number): string {
  const l = layoutFor(columns, rows);
  const lines = frame.split('\n');
  const main = lines.slice(l.headerRows, l.headerRows + l.mainRows);
  switch (which) {
    case 'header':
      return lines[0] ?? '';
    case 'trace':
      return main.map((line) => [...line].slice(0, l.traceWidth).join('')).join('\n');
    case 'state':
      return main.map((line) => [...line].slice(l.traceWidth).join('')).join('\n');
    case 'narration':
      return lines.slice(l.headerRows + l.mainRows, l.headerRows + l.mainRows + l.narrationRows + 1).join('\n');
    case 'footer':
      return lines[l.height - 1] ?? '';
  }
}

/** The text with borders removed and every run of whitespace (line breaks included) as one space. */
export function flat(text: string): string {
  return text
    .replace(/[│╭╮╰╯─▏]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
