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

/** The bindings that fit in `width`, in table order; help and quit are always kept. */
export function footerItems(bindings: readonly Binding[], width: number): Array<[string, string]> {
  const items = bindings.filter((b) => b.label !== '').map((b): [string, string] => [b.keys, b.label]);
  const cost = ([keys, label]: [string, string]): number => keys.length + label.length + 3;
  const essential = new Set(items.filter(([, l]) => l === 'help' || l === 'quit'));
  let used = [...essential].reduce((n, item) => n + cost(item), 0);
  return items.filter((item) => {
    if (essential.has(item)) return true;
    if (used + cost(item) > width) return false;
    used += cost(item);
    return true;
  });
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
