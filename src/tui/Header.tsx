// The top bar (see header-line.ts).
import { Box } from 'ink';
import type { HeaderInfo } from './header-line.ts';
import { headerLine } from './header-line.ts';
import { StyledLine } from './StyledLine.tsx';

export interface HeaderProps extends HeaderInfo {
  width: number;
}

export function Header({ width, ...info }: HeaderProps) {
  return (
    <Box width={width} height={1} flexShrink={0}>
      <StyledLine line={headerLine(info, width)} />
    </Box>
  );
}
