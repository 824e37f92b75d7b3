// The first line a scrolling pane shows, which depends on where it was at the last frame
// (scroll-window.ts moves it as little as it can). Kept as state and adjusted during render, as
// React documents for "information from previous renders": a ref written during render is not.
import { useState } from 'react';
import { windowTop } from './scroll-window.ts';

export function useWindowTop(count: number, height: number, selected: [number, number] | null): number {
  const [previous, setPrevious] = useState(0);
  const top = windowTop(count, height, selected, previous);
  if (top !== previous) setPrevious(top);
  return top;
}
