// The key bindings, as many as fit, from the same table the keys are handled by.
import { Box, Text } from 'ink';
import type { Binding } from './keymap.ts';
import { useTheme } from './theme-context.ts';

export interface FooterProps {
  bindings: readonly Binding[];
  width: number;
  /** Shown first, e.g. "focus: state". */
  extra?: string;
}

/**
 * The bindings that fit in `width`, in table order: help and quit always, then by rank (next and
 * prev, details and info, skip idle, raw, pane...) while they fit, each with its shortest keys.
 * When some are left out, help reads "more": it lists them all.
 */
export function footerItems(bindings: readonly Binding[], width: number): Array<[string, string]> {
  const labelled = bindings.filter((b) => b.label !== '');
  // "keys label " on screen.
  const cost = (b: Binding): number => (b.footer ?? b.keys).length + b.label.length + 2;
  const essential = (b: Binding): boolean => b.label === 'help' || b.label === 'quit';
  const chosen = new Set(labelled.filter(essential));
  let used = [...chosen].reduce((n, b) => n + cost(b), 0);
  const byRank = labelled
    .filter((b) => !essential(b))
    .map((b, i) => ({ b, i }))
    .sort((x, y) => (x.b.rank ?? 99) - (y.b.rank ?? 99) || x.i - y.i);
  for (const { b } of byRank) {
    if (used + cost(b) > width) continue;
    chosen.add(b);
    used += cost(b);
  }
  const all = chosen.size === labelled.length;
  return labelled
    .filter((b) => chosen.has(b))
    .map((b): [string, string] => [b.footer ?? b.keys, b.label === 'help' && !all ? 'more' : b.label]);
}

export function Footer({ bindings, width, extra }: FooterProps) {
  const theme = useTheme();
  return (
    <Box width={width} height={1} flexShrink={0}>
      <Text wrap="truncate-end">
        {extra === undefined ? null : <Text dimColor>{extra} </Text>}
        {footerItems(bindings, width - (extra === undefined ? 0 : extra.length + 1)).map(([keys, label]) => (
          <Text key={keys + label}>
            <Text bold color={theme.colour ? 'cyan' : undefined}>
              {keys}
            </Text>
            <Text> {label} </Text>
          </Text>
        ))}
      </Text>
    </Box>
  );
}
