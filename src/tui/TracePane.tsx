// The MONITOR trace so far, grouped by step, newest at the bottom. A pure view of its rows (laid
// out by trace-lines.ts); the selected row is shown inverse and kept in view.
import { Box } from 'ink';
import { Pane } from './Pane.tsx';
import { paneBody } from './layout.ts';
import { useWindowTop } from './use-window-top.ts';
import { StyledLine } from './StyledLine.tsx';
import { linesOfRow, traceLines } from './trace-lines.ts';
import type { TraceRow } from './trace-rows.ts';

export interface TracePaneProps {
  rows: readonly TraceRow[];
  selected: number | null;
  /** The step shown (its rows are wrapped, never cut). */
  step: number;
  width: number;
  height: number;
  start: number;
  rowPrefix: boolean;
  raw: boolean;
  focused: boolean;
}

export function TracePane({ rows, selected, step, width, height, start, rowPrefix, raw, focused }: TracePaneProps) {
  const body = paneBody(width, height);
  const lines = traceLines(rows, { width: body.width, start, rowPrefix, step, selected });
  const top = useWindowTop(lines.length, body.rows, selected === null ? null : linesOfRow(lines, selected));
  const visible = lines.slice(top, top + body.rows);
  const info = `${selected === null ? 'newest' : `line ${selected + 1}/${rows.length}`}${raw ? ' · raw' : ''}`;
  return (
    <Pane title="Redis MONITOR" info={info} width={width} height={height} focused={focused}>
      <Box flexDirection="column">
        {visible.map((l, i) => (
          <StyledLine key={top + i} line={l.line} inverse={selected !== null && l.row === selected} />
        ))}
      </Box>
    </Pane>
  );
}
