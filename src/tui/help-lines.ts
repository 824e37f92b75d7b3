// The help screen's lines: every key of the screen (from the keymap and the lab's table, so they
// cannot drift apart), each key once with the one thing it does there, then how to read the trace
// and the state pane. Pure.
import type { Line } from './segments.ts';
import { pad, seg, wrapLine } from './segments.ts';
import { GLYPH } from './time-strip.ts';

/** A row of the key list: the keys as shown, and what they do. */
export interface HelpBinding {
  keys: string;
  help: string;
}

const TRACE_LEGEND: Array<[string, string]> = [
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
  [
    'laravel_…queues',
    'a name too long for its pane, elided in the middle; long keys wrap before a `:` part (:default:reserved)',
  ],
];

const STATE_LEGEND: Array<[string, string]> = [
  [
    '!! Job#1 running twice',
    "the same job in handle() on two workers at once (retry_after ran out before the job's end)",
  ],
  ['↻ process 2', "the worker's second process: the first exited or was killed, and supervisord started it again"],
  [
    `▕${GLYPH.ran}${GLYPH.toRun}${GLYPH.reserved} ${GLYPH.expiry} ${GLYPH.alarm}▏`,
    'a time strip, one per job a worker holds: every strip of a step shares one time axis, so which comes first reads at a glance',
  ],
  [`  ${GLYPH.ran}`, 'handle() has run so far'],
  [`  ${GLYPH.toRun}`, 'handle() still to run, to its expected end (end t+45s)'],
  [`  ${GLYPH.reserved}`, 'reserved in :reserved, handle() not running'],
  [`  ${GLYPH.expiry} t+30s`, 'the reservation expires (retry_after): another worker may pop the job again'],
  [`  ${GLYPH.alarm} t+60s`, 'the alarm (--timeout) kills the worker; ✕ none: no alarm is armed'],
];

/**
 * The key list: the lab's keys first, then the screen's. A lab key takes the key from the screen's
 * table (the lab reads keys first: L switches the Laravel version there, it does not branch), so
 * a key is listed once, with what it does. `main`: the screen's bindings as offered (b only when
 * the picker opened the scenario, L only when it can branch).
 */
export function helpBindings(main: readonly HelpBinding[], lab: readonly HelpBinding[] = []): HelpBinding[] {
  const taken = new Set(lab.flatMap((b) => b.keys.split(' ')));
  const rest = main.flatMap((b): HelpBinding[] => {
    const keys = b.keys.split(' ').filter((k) => !taken.has(k));
    return keys.length === 0 ? [] : [{ keys: keys.join(' '), help: b.help }];
  });
  return [...lab, ...rest].filter((b) => b.help !== '');
}

/** The help screen: `keys` from helpBindings(), then the legends. */
export function helpLines(width: number, keys: readonly HelpBinding[]): Line[] {
  const keyWidth = 12;
  const legendWidth = 24;
  const listed = keys.flatMap((b) => wrapLine([seg(pad(b.keys, keyWidth), 'key'), seg(b.help)], width, keyWidth));
  const legend = (rows: Array<[string, string]>): Line[] =>
    rows.flatMap(([sample, meaning]) =>
      wrapLine([seg(pad(sample, legendWidth), 'bold'), seg(meaning, 'dim')], width, legendWidth),
    );
  return [
    ...listed,
    [],
    [seg('Reading the trace', 'heading')],
    ...legend(TRACE_LEGEND),
    [],
    [seg('Reading the state pane', 'heading')],
    ...legend(STATE_LEGEND),
  ];
}
