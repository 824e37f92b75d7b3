// The lab's bottom row (the command line, a question, what the last action did, or the keys with
// the lab's clock) and the panel the narration gives way to while a command is typed. Lines pure.
import { useSyncExternalStore } from 'react';
import { Box, Text } from 'ink';
import { formatSeconds } from '../sim/clock.ts';
import { DEFAULT_PROFILE } from '../sim/profiles/index.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import type { CommandLine } from './command-line.ts';
import { footerItems } from './Footer.tsx';
import type { LabSession, LabStatus } from './lab-session.ts';
import type { Line } from './segments.ts';
import { seg, wrapLine } from './segments.ts';
import { useTheme } from './theme-context.ts';

const noLab = (): (() => void) => () => {};

/** The lab's status, re-rendering when it changes; null outside the lab. */
export function useLabStatus(lab: LabSession | undefined): LabStatus | null {
  return useSyncExternalStore(
    lab?.subscribe ?? noLab,
    () => lab?.getStatus() ?? null,
    () => lab?.getStatus() ?? null,
  );
}

export interface LabLineProps {
  status: LabStatus;
  command: CommandLine | null;
  /** Said by the screen itself until the next key (Ctrl-C closed the command line). */
  notice?: string | null;
  /** The last action's message, until a key is pressed. */
  message: LabStatus['message'];
  /** The lab's clock, seconds after the start. */
  now: number;
  bindings: readonly { keys: string; label: string }[];
  width: number;
}

export function LabLine({ status, command, notice = null, message, now, bindings, width }: LabLineProps) {
  const theme = useTheme();
  const colour = (c: string) => (theme.colour ? c : undefined);
  let body;
  if (command !== null) {
    const before = command.text.slice(0, command.at);
    const under = command.text.slice(command.at, command.at + 1) || ' ';
    const after = command.text.slice(command.at + 1);
    // The end of a long line stays in view.
    const room = Math.max(10, width - 3);
    const shown = (before + under + after).length > room ? before.slice(-(room - 1 - after.length)) : before;
    body = (
      <Text wrap="truncate-start">
        <Text bold color={colour('cyan')}>
          :
        </Text>
        {terminalSafe(shown)}
        <Text inverse>{terminalSafe(under)}</Text>
        {terminalSafe(after)}
      </Text>
    );
  } else if (status.confirm !== null) {
    body = (
      <Text wrap="truncate-end" color={colour('yellow')} bold>
        {terminalSafe(status.confirm)}
      </Text>
    );
  } else if (status.busy !== null) {
    body = (
      <Text wrap="truncate-end" color={colour('yellow')}>
        ◌ {status.busy}
      </Text>
    );
  } else if (notice !== null) {
    body = (
      <Text wrap="truncate-end" color={colour('yellow')} bold>
        {notice}
      </Text>
    );
  } else if (message !== null) {
    body = (
      <Text wrap="truncate-end" color={colour(message.error ? 'red' : 'green')}>
        {message.error ? '✗ ' : '✓ '}
        {terminalSafe(message.text)}
      </Text>
    );
  } else {
    const clock = `lab t+${formatSeconds(now)}s`;
    body = (
      <Text wrap="truncate-end">
        <Text dimColor>{clock} </Text>
        {footerItems(bindings as Parameters<typeof footerItems>[0], width - clock.length - 1).map(([keys, label]) => (
          <Text key={keys + label}>
            <Text bold color={colour('cyan')}>
              {keys}
            </Text>
            <Text> {label} </Text>
          </Text>
        ))}
      </Text>
    );
  }
  return (
    <Box width={width} height={1} flexShrink={0}>
      {body}
    </Box>
  );
}

/**
 * The lab's commands as the panel shows them (LabSession's: the commands, with the entry kinds'
 * schemas, load with the lab, after the first frame).
 */
export interface LabCommandTexts {
  /** The usage and help of the command `line` starts with, as a session of `laravel` shows them; null for none. */
  usageOf(line: string, laravel: string): { usage: string; help: string } | null;
  /** The commands' names. */
  commandNames(): readonly string[];
}

/** What the narration area shows while a command is typed (its usage, Tab's choices) or after help. */
export function labPanelLines(
  command: CommandLine | null,
  status: LabStatus,
  width: number,
  commands: LabCommandTexts,
): Line[] {
  const out: Line[] = [];
  if (command !== null) {
    // The usage names the retry delay of the session's version (--delay 5.x, --backoff 8+).
    const spec = commands.usageOf(command.text, String(status.input.laravel ?? DEFAULT_PROFILE));
    if (spec === null) {
      out.push(...wrapLine([seg('commands: ', 'dim'), seg(commands.commandNames().join(' · '))], width, 2));
      out.push(
        ...wrapLine(
          [seg('Tab completes · ↑ ↓ history · Enter runs · Esc or Ctrl-C closes · help <command>', 'dim')],
          width,
          0,
        ),
      );
    } else {
      out.push(...wrapLine([seg(spec.usage, 'key')], width, 2));
      out.push(...wrapLine([seg(spec.help, 'dim')], width, 2));
    }
    if (command.choices.length > 0)
      out.push(
        ...wrapLine(
          [seg('Tab: ', 'dim'), seg(command.choices.map((c) => c.trim().split(' ').pop()).join('  '))],
          width,
          5,
        ),
      );
    if (status.message?.error === true) out.push(...wrapLine([seg(`✗ ${status.message.text}`, 'bad')], width, 2));
    return out;
  }
  const m = status.message;
  // After an error the bottom row says it: the panel gives what explains it.
  if (m?.more !== undefined)
    for (const text of m.error ? m.more : [m.text, ...m.more]) out.push(...wrapLine([seg(text)], width, 2));
  return out;
}
