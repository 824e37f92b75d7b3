// What Laravel is doing at this step and why, under a rule that names the step.
import { Box, Text } from 'ink';
import type { Line } from './segments.ts';
import { StyledLine } from './StyledLine.tsx';
import { useTheme } from './theme-context.ts';

export interface NarrationProps {
  heading: string;
  lines: readonly Line[];
  width: number;
  rows: number;
}

export function Narration({ heading, lines, width, rows }: NarrationProps) {
  const theme = useTheme();
  const rule = `── ${heading} `;
  return (
    <Box flexDirection="column" width={width} height={rows + 1} flexShrink={0} paddingX={0}>
      <Text wrap="truncate-end" color={theme.colour ? 'gray' : undefined}>
        {rule + '─'.repeat(Math.max(0, width - rule.length))}
      </Text>
      <Box flexDirection="column" paddingX={1}>
        {lines.slice(0, rows).map((line, i) => (
          <StyledLine key={i} line={line} />
        ))}
      </Box>
    </Box>
  );
}
