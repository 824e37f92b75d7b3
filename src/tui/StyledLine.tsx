// One line of styled segments, cut at the pane's edge (never wrapped: panes are grids of rows).
// The segments are painted into one string (see paint() in theme.ts).
import { Text } from 'ink';
import type { Line } from './segments.ts';
import { paint } from './theme.ts';
import { useTheme } from './theme-context.ts';

export interface StyledLineProps {
  line: Line;
  inverse?: boolean;
}

export function StyledLine({ line, inverse = false }: StyledLineProps) {
  const theme = useTheme();
  const text = line.map((s) => paint(s, theme)).join('');
  return (
    <Text wrap="truncate-end" inverse={inverse}>
      {text === '' ? ' ' : text}
    </Text>
  );
}
