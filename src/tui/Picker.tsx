// `lqsim tui` with no scenario named: choose one of the shipped scenarios.
import { useRef, useState } from 'react';
import { Box, Text, useInput, useStdin } from 'ink';
import { terminalSafe } from '../output/terminal-safe.ts';
import { wrap } from '../output/wrap.ts';
import type { CatalogEntry } from '../scenarios/catalog.ts';
import { layoutFor } from './layout.ts';
import { Pane } from './Pane.tsx';
import { useWindowTop } from './use-window-top.ts';
import { useTerminalSize } from './use-terminal-size.ts';

export interface PickerProps {
  entries: readonly CatalogEntry[];
  colour: boolean;
  onPick: (entry: CatalogEntry) => void;
  onQuit: () => void;
  /** The entry chosen at first (back from a scenario: the one it was). */
  initial?: number;
}

export function Picker({ entries, colour, onPick, onQuit, initial = 0 }: PickerProps) {
  const { isRawModeSupported } = useStdin();
  const { columns, rows } = useTerminalSize();
  const [selected, setSelected] = useState(initial);
  // Keys can arrive together ("↓↓⏎"): enter must see the moves before it, not the last render.
  const selectedRef = useRef(initial);
  const layout = layoutFor(columns, rows);
  const move = (by: number): void => {
    selectedRef.current = Math.max(0, Math.min(entries.length - 1, selectedRef.current + by));
    setSelected(selectedRef.current);
  };
  useInput(
    (input, key) => {
      if (key.upArrow || input === 'k') move(-1);
      else if (key.downArrow || input === 'j') move(1);
      else if (key.pageUp) move(-5);
      else if (key.pageDown) move(5);
      else if (key.return || input === ' ' || key.rightArrow) {
        const entry = entries[selectedRef.current];
        if (entry !== undefined) onPick(entry);
      } else if (input === 'q' || key.escape || (key.ctrl && input === 'c')) onQuit();
    },
    { isActive: isRawModeSupported === true },
  );
  const current = entries[selected];
  const descriptionRows = 4;
  const listRows = Math.max(3, layout.height - 2 - 2 - descriptionRows - 1);
  const top = useWindowTop(entries.length, listRows, [selected, selected]);
  const nameWidth = Math.max(0, ...entries.map((e) => e.name.length));
  const description =
    current === undefined ? [] : wrap(terminalSafe(current.title), layout.columns - 4).slice(0, descriptionRows);
  return (
    <Box flexDirection="column" width={layout.columns} height={layout.height}>
      <Text bold>
        lqsim <Text dimColor>· choose a scenario to step through against a real Redis</Text>
      </Text>
      <Pane
        title="Scenarios"
        info={`${selected + 1}/${entries.length}`}
        width={layout.columns}
        height={listRows + 2}
        focused
      >
        {entries.slice(top, top + listRows).map((e, i) => (
          <Text key={e.name} wrap="truncate-end" inverse={top + i === selected}>
            <Text bold color={colour ? 'cyan' : undefined}>
              {terminalSafe(e.name).padEnd(nameWidth + 2)}
            </Text>
            <Text dimColor>[{terminalSafe(e.laravel)}] </Text>
            <Text>{terminalSafe(e.title)}</Text>
          </Text>
        ))}
      </Pane>
      <Box flexDirection="column" paddingX={1} height={descriptionRows}>
        {description.map((l, i) => (
          <Text key={i}>{l}</Text>
        ))}
      </Box>
      <Text wrap="truncate-end">
        <Text bold color={colour ? 'cyan' : undefined}>
          ↑ ↓
        </Text>{' '}
        choose{' '}
        <Text bold color={colour ? 'cyan' : undefined}>
          enter
        </Text>{' '}
        open{'  '}
        <Text bold color={colour ? 'cyan' : undefined}>
          q
        </Text>{' '}
        quit
      </Text>
    </Box>
  );
}
