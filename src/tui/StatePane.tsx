// The queues, workers and failed jobs as the step left them (its stored snapshot). A pure view:
// the lines come from state-lines.ts; this picks the window and says when there is more.
import { Box } from 'ink';
import type { Line } from './segments.ts';
import { Pane } from './Pane.tsx';
import { paneBody } from './layout.ts';
import { StyledLine } from './StyledLine.tsx';

export interface StatePaneProps {
  title: string;
  /** Shown above the lines, whatever the scroll (the running-twice alert). */
  pinned?: readonly Line[];
  lines: readonly Line[];
  top: number;
  width: number;
  height: number;
  focused: boolean;
}

export function StatePane({ title, pinned = [], lines, top, width, height, focused }: StatePaneProps) {
  const body = paneBody(width, height);
  const rows = Math.max(1, body.rows - pinned.length);
  const from = Math.max(0, Math.min(top, lines.length - rows));
  const visible = lines.slice(from, from + rows);
  const below = lines.length - from - visible.length;
  const info = from > 0 || below > 0 ? `${from > 0 ? `↑${from} ` : ''}${below > 0 ? `↓${below} ` : ''}tab` : '';
  return (
    <Pane title={title} info={info} width={width} height={height} focused={focused}>
      <Box flexDirection="column">
        {pinned.map((line, i) => (
          <StyledLine key={`pinned ${i}`} line={line} />
        ))}
        {visible.map((line, i) => (
          <StyledLine key={from + i} line={line} />
        ))}
      </Box>
    </Pane>
  );
}
