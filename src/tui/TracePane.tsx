// The MONITOR trace so far, grouped by step, newest at the bottom. A pure view of the lines in
// view (trace-window.ts builds them from the steps they belong to); the selected row is shown
// inverse and kept in view.
import { useState } from 'react';
import { Box } from 'ink';
import type { Step } from '../scenarios/timeline.ts';
import { Pane } from './Pane.tsx';
import { paneBody } from './layout.ts';
import { StyledLine } from './StyledLine.tsx';
import type { TraceContext } from './trace-rows.ts';
import { traceWindow } from './trace-window.ts';

export interface TracePaneProps {
  steps: readonly Step[];
  /** The step shown: the trace runs to it, and its rows are wrapped, never cut. */
  step: number;
  ctx: TraceContext;
  /** The selected row, numbered over the whole trace; null follows the newest. */
  selected: number | null;
  width: number;
  height: number;
  rowPrefix: boolean;
  raw: boolean;
  focused: boolean;
}

export function TracePane({ steps, step, ctx, selected, width, height, rowPrefix, raw, focused }: TracePaneProps) {
  const body = paneBody(width, height);
  // Where the window was at the last frame: it moves as little as it can (scroll-window.ts). Kept
  // as state and adjusted during render, as React documents for "information from previous renders".
  const [previousTop, setPreviousTop] = useState(0);
  const { lines, top, rows } = traceWindow({
    steps,
    cursor: step,
    ctx,
    raw,
    selected,
    width: body.width,
    height: body.rows,
    rowPrefix,
    previousTop,
  });
  if (top !== previousTop) setPreviousTop(top);
  const info = `${selected === null ? 'newest' : `line ${selected + 1}/${rows}`}${raw ? ' · raw' : ''}`;
  return (
    <Pane title="Redis MONITOR" info={info} width={width} height={height} focused={focused}>
      <Box flexDirection="column">
        {lines.map((l, i) => (
          <StyledLine key={top + i} line={l.line} inverse={selected !== null && l.row === selected} />
        ))}
      </Box>
    </Pane>
  );
}
