// The terminal's size, updated on resize (Ink 6.8 has no useWindowSize; this is the hook Ink 7
// ships). A stream that does not know its size (a test's fake stdout, a pipe) reads as 80×24.
import { useEffect, useState } from 'react';
import { useStdout } from 'ink';

export interface TerminalSize {
  columns: number;
  rows: number;
}

export const DEFAULT_SIZE: TerminalSize = { columns: 80, rows: 24 };

export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState<TerminalSize>(() => read(stdout));
  useEffect(() => {
    const onResize = (): void => setSize(read(stdout));
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}

function read(stdout: NodeJS.WriteStream): TerminalSize {
  return { columns: stdout.columns || DEFAULT_SIZE.columns, rows: stdout.rows || DEFAULT_SIZE.rows };
}
