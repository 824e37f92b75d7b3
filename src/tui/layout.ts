// How the screen is divided, from the terminal's size. 80×24 is the smallest we design for: the
// trace and the state side by side, the narration under them. Larger terminals get a wider state
// pane, more narration, and trace lines that repeat the time and actor on every row. Pure.

export interface Layout {
  columns: number;
  /** Rows we draw: one less than the terminal, so Ink updates in place instead of clearing. */
  height: number;
  headerRows: number;
  footerRows: number;
  /** Narration text rows (under a one-row rule). */
  narrationRows: number;
  /** Trace and state panes: outer height (title row + body + bottom border). */
  mainRows: number;
  traceWidth: number;
  stateWidth: number;
  /** Every trace row shows its time and actor (else only step headers do, rows get a coloured bar). */
  rowPrefix: boolean;
}

export const MIN_COLUMNS = 60;
export const MIN_ROWS = 16;

export function layoutFor(columns: number, rows: number): Layout {
  const cols = Math.max(MIN_COLUMNS, columns);
  const height = Math.max(MIN_ROWS, rows) - 1;
  const stateWidth =
    cols < 100 ? Math.max(30, Math.floor(cols * 0.42)) : cols < 140 ? 46 : Math.min(64, Math.floor(cols * 0.34));
  const traceWidth = cols - stateWidth;
  const narrationRows = Math.max(rows < 24 ? 4 : 5, Math.min(10, Math.round(rows * 0.25)));
  const headerRows = 1;
  const footerRows = 1;
  const mainRows = height - headerRows - footerRows - (narrationRows + 1);
  return {
    columns: cols,
    height,
    headerRows,
    footerRows,
    narrationRows,
    mainRows,
    traceWidth,
    stateWidth,
    rowPrefix: traceWidth - 4 >= 64,
  };
}

/** Content rows and columns inside a pane of this outer size (title row, border, one space padding). */
export function paneBody(width: number, height: number): { width: number; rows: number } {
  return { width: Math.max(1, width - 4), rows: Math.max(1, height - 2) };
}
