// `?`: every key, and how to read the trace (help-lines.ts), scrollable in small terminals.
import { DetailView } from './DetailView.tsx';
import type { Line } from './segments.ts';

export interface HelpProps {
  lines: readonly Line[];
  top: number;
  width: number;
  height: number;
}

export function Help({ lines, top, width, height }: HelpProps) {
  return <DetailView title="Help · esc closes" lines={lines} top={top} width={width} height={height} />;
}
