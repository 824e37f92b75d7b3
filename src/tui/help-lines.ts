// The help screen's lines: every key of the main screen (from the keymap, so they cannot drift
// apart) and how to read the trace. Pure.
import { bindingsFor } from './keymap.ts';
import type { Line } from './segments.ts';
import { pad, seg, wrapLine } from './segments.ts';

const LEGEND: Array<[string, string]> = [
  [
    '‹pop›',
    "an EVAL of one of Laravel's Lua scripts, by name (migrate, pop, release); enter shows its KEYS, ARGV and source",
  ],
  ['[lua] …', 'a command the script ran inside Redis, indented under its EVAL'],
  [
    '‹Job#1 attempts:1›',
    'a job payload, by job and attempts; a marked 0→1 is a field that changed since the trace last showed that job',
  ],
  [
    't+90s',
    'virtual time: seconds after the scenario start (unix times in arguments are shown this way too; r shows them raw)',
  ],
  ['colours', 'one per actor: the dispatcher (web requests) and each worker, as in lqsim run'],
];

/** `lab`: the lab's keys, listed first when the screen is a lab. */
export function helpLines(width: number, lab: readonly { keys: string; help: string }[] = []): Line[] {
  const keyWidth = 12;
  const legendWidth = 21;
  const keys = [...lab, ...bindingsFor('main')]
    .filter((b) => b.help !== '')
    .flatMap((b) => wrapLine([seg(pad(b.keys, keyWidth), 'key'), seg(b.help)], width, keyWidth));
  const legend = LEGEND.flatMap(([sample, meaning]) =>
    wrapLine([seg(pad(sample, legendWidth), 'bold'), seg(meaning, 'dim')], width, legendWidth),
  );
  return [...keys, [], [seg('Reading the trace', 'heading')], ...legend];
}
