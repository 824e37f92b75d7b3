// The queues, workers and failed jobs as the step left them (its stored snapshot). A pure view:
// the lines come from state-lines.ts; this picks the window and says when there is more.
import { Box } from 'ink';
import type { Line } from './segments.ts';
import { Pane } from './Pane.tsx';
import { paneBody } from './layout.ts';
import { StyledLine } from './StyledLine.tsx';

export interface StatePaneProps {
  title: string;
  lines: readonly Line[];
  top: number;
  width: number;
  height: number;
  focused: boolean;
}

export function StatePane({ title, lines, top, width, height, focused }: StatePaneProps) {
  const body = paneBody(width, height);
  const from = Math.max(0, Math.min(top, lines.length - body.rows));
  const visible = lines.slice(from, from + body.rows);
  const below = lines.length - from - visible.length;
  const info = from > 0 || below > 0 ? `${from > 0 ? `↑${from} ` : ''}${below > 0 ? `↓${below} ` : ''}tab` : '';
  return (
    <Pane title={title} info={info} width={width} height={height} focused={focused}>
      <Box flexDirection="column">
        {visible.map((line, i) => (
          <StyledLine key={from + i} line={line} />
        ))}
      </Box>
    </Pane>
  );
}
