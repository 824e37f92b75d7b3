// Which lines of a list a pane shows. Following (no selection): the newest at the bottom. With a
// selection (the first and last line of the selected item): the window moves as little as it can
// to show all of it. Pure.

export function windowTop(
  count: number,
  height: number,
  selected: [number, number] | null,
  previousTop: number,
): number {
  const maxTop = Math.max(0, count - height);
  if (selected === null) return maxTop;
  const [first, last] = selected;
  const top = Math.min(Math.max(previousTop, last - height + 1), first);
  return Math.max(0, Math.min(top, maxTop));
}
