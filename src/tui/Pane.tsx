// A bordered pane with its title in the top border (a box title would cost a row; at 80×24
// every row counts). The focused pane's border is brighter.
import type { ReactNode } from 'react';
import { Box, Text } from 'ink';
import { displayWidth } from '../output/wrap.ts';
import { useTheme } from './theme-context.ts';

export interface PaneProps {
  title: string;
  /** Shown at the right of the top border (e.g. "12/40"). */
  info?: string;
  width: number;
  height: number;
  focused?: boolean;
  children: ReactNode;
}

export function Pane({ title, info = '', width, height, focused = false, children }: PaneProps) {
  const theme = useTheme();
  const borderColor = focused && theme.colour ? 'cyan' : theme.colour ? 'gray' : undefined;
  const left = `╭─ ${title} `;
  const right = info === '' ? '╮' : ` ${info} ─╮`;
  const fill = Math.max(0, width - displayWidth(left) - displayWidth(right));
  return (
    <Box flexDirection="column" width={width} height={height} flexShrink={0}>
      <Text wrap="truncate-end" color={borderColor} bold={focused}>
        {left + '─'.repeat(fill) + right}
      </Text>
      <Box
        flexDirection="column"
        borderStyle="round"
        borderTop={false}
        borderColor={borderColor}
        paddingX={1}
        width={width}
        height={height - 1}
        overflow="hidden"
      >
        {children}
      </Box>
    </Box>
  );
}
