// The lab's keys: each opens the command line with a command begun (the person completes it with
// Tab and runs it with Enter) or runs one at once. One table for the keys, the footer and the help.
import type { Key } from 'ink';

export interface LabBinding {
  keys: string;
  label: string;
  help: string;
  match: (input: string, key: Key) => boolean;
  /** Which the footer keeps first when not all fit (lower first), as in keymap.ts. */
  rank?: number;
  /** Shorter keys for the footer. */
  footer?: string;
  /** Opens the command line with this text; or */
  prefill?: string;
  /** runs this command at once. */
  run?: string;
}

const is = (c: string) => (input: string, key: Key) => !key.ctrl && !key.meta && input === c;

export const LAB_BINDINGS: readonly LabBinding[] = [
  {
    keys: ':',
    rank: 0,
    label: 'command',
    help: 'the lab command line: Tab completes, ↑ ↓ history, "help" lists the commands',
    match: is(':'),
    prefill: '',
  },
  {
    keys: 'D',
    rank: 1,
    label: 'dispatch',
    help: 'dispatch a job: dispatch <Job> [queue=] [delay=] [count=] [run=N] [throw|fail|release=N]',
    match: is('D'),
    prefill: 'dispatch ',
  },
  {
    keys: 'W',
    rank: 3,
    label: 'worker',
    help: 'start a worker: worker [queue=] [tries=] [timeout=] [sleep=] [delay= (5.x) | backoff= (8+)] [once] [block_for=]',
    match: is('W'),
    prefill: 'worker ',
  },
  {
    keys: 'T',
    rank: 4,
    label: 'SIGTERM',
    help: 'SIGTERM a worker: it finishes its job and exits',
    match: is('T'),
    prefill: 'stop ',
  },
  {
    keys: 'K',
    rank: 2,
    label: 'SIGKILL',
    help: 'SIGKILL a worker from outside (supervisord restarts it unless restart=no)',
    match: is('K'),
    prefill: 'kill ',
  },
  {
    keys: 'S',
    rank: 4,
    label: 'set',
    help: "change a connection's retry_after/block_for, or a worker's options (it restarts)",
    match: is('S'),
    prefill: 'set ',
  },
  {
    keys: '.',
    rank: 0,
    label: 'event',
    help: 'run to the next event: a poll, the alarm, a job due, a reservation expiring',
    match: is('.'),
    run: 'next',
  },
  { keys: '>', rank: 3, label: 'wait', help: 'move the clock on N seconds', match: is('>'), prefill: 'wait ' },
  {
    keys: 'L',
    rank: 5,
    label: 'laravel',
    help: 'switch the Laravel version (the session is replayed under it)',
    match: is('L'),
    prefill: 'laravel ',
  },
  {
    keys: 'u U',
    rank: 2,
    footer: 'u',
    label: 'undo',
    help: 'undo the last action / redo it',
    match: is('u'),
    run: 'undo',
  },
  { keys: 'U', label: '', help: '', match: is('U'), run: 'redo' },
  {
    keys: 'w',
    rank: 2,
    label: 'save',
    help: 'save the session as a scenario YAML (never overwrites without asking)',
    match: is('w'),
    prefill: 'save ',
  },
];

export function labBindingFor(input: string, key: Key): LabBinding | null {
  return LAB_BINDINGS.find((b) => b.match(input, key)) ?? null;
}
