// One trace line in full (or one step's whole narration), scrollable.
import { Box } from 'ink';
import type { Line } from './segments.ts';
import { Pane } from './Pane.tsx';
import { paneBody } from './layout.ts';
import { StyledLine } from './StyledLine.tsx';

export interface DetailViewProps {
  title: string;
  lines: readonly Line[];
  top: number;
  width: number;
  height: number;
}

export function DetailView({ title, lines, top, width, height }: DetailViewProps) {
  const body = paneBody(width, height);
  const from = Math.max(0, Math.min(top, lines.length - body.rows));
  const visible = lines.slice(from, from + body.rows);
  const below = lines.length - from - visible.length;
  const info = from > 0 || below > 0 ? `${from > 0 ? `↑${from} ` : ''}${below > 0 ? `↓${below}` : ''}`.trim() : '';
  return (
    <Pane title={title} info={info} width={width} height={height} focused>
      <Box flexDirection="column">
        {visible.map((line, i) => (
          <StyledLine key={from + i} line={line} />
        ))}
      </Box>
    </Pane>
  );
}
