// The lab's command line: what a person types after `:` (or a key prefills), parsed into a
// command, with completion and a usage line per command. Pure: the words a command may complete
// come from `LabVocabulary`, which the session derives from its scenario and the current step.
// A timeline entry kind's command (dispatch, stop, kill) is its module's (ENTRY_KINDS[k].lab):
// its syntax, its parsing and the entry it writes live beside its schema. Here are the lab's own
// commands, those that are not one entry: worker, set, laravel, and the clock's and files'.
import { extname } from 'node:path';
import type { ExportFormat } from '../output/formats.ts';
import { EXPORT_FORMATS, isExportFormat } from '../output/formats.ts';
import { didYouMean } from '../scenarios/errors.ts';
import type { EntryLabCommand } from '../scenarios/entries/lab.ts';
import { ENTRY_COMMANDS } from '../scenarios/entries/lab.ts';
import type { LabCommandSpec, LabGroup, LabVocabulary } from '../scenarios/entries/lab-args.ts';
import { Args, CommandError, theNames, tokens, typoOf } from '../scenarios/entries/lab-args.ts';
import { findProfile, PROFILE_NAMES } from '../sim/profiles/index.ts';

export type { LabVocabulary } from '../scenarios/entries/lab-args.ts';
export { CommandError } from '../scenarios/entries/lab-args.ts';

/** A command as parsed: an entry kind's (what its module parses into) or one of the lab's own. */
export type LabCommand =
  | EntryLabCommand
  | { kind: 'worker'; options: WorkerChoice }
  | { kind: 'config'; connection: string; retryAfter?: number | null; blockFor?: number | null }
  | { kind: 'options'; worker: string; options: WorkerChoice }
  | { kind: 'laravel'; profile: string }
  | { kind: 'wait'; seconds: number }
  | { kind: 'next' }
  | { kind: 'play' }
  | { kind: 'undo' }
  | { kind: 'redo' }
  | { kind: 'save'; file?: string }
  | { kind: 'export'; file: string; format: ExportFormat }
  | { kind: 'help'; topic?: string };

/** queue:work options a person can give a worker in the lab (and block_for via its connection). */
export interface WorkerChoice {
  name?: string;
  queue?: string;
  connection?: string;
  tries?: number;
  timeout?: number;
  sleep?: number;
  /** --delay (5.x): seconds before a job that threw is retried. */
  delay?: number;
  /** --backoff (8.0+): seconds, or one per attempt. */
  backoff?: number[];
  once?: boolean;
  blockFor?: number;
}

const WORKER_KEYS = [
  'queue=',
  'tries=',
  'timeout=',
  'sleep=',
  'delay=',
  'backoff=',
  'once',
  'connection=',
  'block_for=',
];

/**
 * The option queue:work takes for the seconds before a job that threw is retried: 5.x's
 * `--delay=N` (WorkCommand.php@v5.7.29, one number), 8.0's `--backoff=1,5,10`, where --delay is
 * deprecated (WorkCommand.php@v8.0.0:30). The scenario's worker keys say the same: `delay`, `backoff`.
 */
export type RetryDelayKey = 'delay' | 'backoff';

/** Which retry delay the profile's queue:work has, or null for a profile this build does not know. */
export function retryDelayKey(laravel: string | undefined): RetryDelayKey | null {
  const profile = findProfile(laravel);
  if (profile === undefined) return null;
  return profile.worker.backoff === 'list' ? 'backoff' : 'delay';
}

/** The usage text of each retry delay, as the worker and set usage lines show it. */
const RETRY_DELAY_USAGE: Record<RetryDelayKey, string> = { delay: 'delay=N', backoff: 'backoff=N,N' };
const BOTH_RETRY_DELAYS = '[delay=N (5.x) | backoff=N,N (8+)]';

/** The lab's own commands: those that are not one timeline entry of a kind. */
const LAB_COMMANDS: readonly LabCommandSpec[] = [
  {
    name: 'worker',
    group: 'workers',
    usage: `worker [queue=a,b] [tries=N] [timeout=N] [sleep=N] ${BOTH_RETRY_DELAYS} [once] [connection=C] [block_for=N]`,
    help: 'start a queue:work process now (block_for: on a copy of its connection with that block_for)',
    keys: ['name=', ...WORKER_KEYS],
  },
  {
    name: 'set',
    group: 'config',
    usage: `set <connection> retry_after=N|null block_for=N|null   ·   set <worker> tries=N timeout=N sleep=N ${BOTH_RETRY_DELAYS} queue=Q`,
    help: 'change config/queue.php (workers on it restart to read it) or restart a worker with other options',
    keys: ['retry_after=', 'block_for=', 'tries=', 'timeout=', 'sleep=', 'delay=', 'backoff=', 'queue='],
    first: (v) => [...v.connections, ...v.workers],
  },
  {
    name: 'laravel',
    group: 'config',
    usage: `laravel <${PROFILE_NAMES.join('|')}>`,
    help: 'switch the Laravel version: the session is replayed from its start under it',
    keys: [],
    first: () => PROFILE_NAMES,
  },
  ...[
    { name: 'wait', usage: 'wait <seconds>', help: 'move the clock on: every step before then runs' },
    {
      name: 'next',
      usage: 'next',
      help: 'run to the next event (a poll, the alarm, a job due, a reservation expiring)',
    },
    { name: 'play', usage: 'play', help: 'run until nothing is left to happen but idle polls' },
    { name: 'undo', usage: 'undo', help: 'take back the last action (the session before it is replayed)' },
    { name: 'redo', usage: 'redo', help: 'do again what undo took back' },
    { name: 'save', usage: 'save [file.yaml]', help: 'write the session as a scenario (never overwrites)' },
  ].map((c) => ({ ...c, group: 'session' as const, keys: [] })),
  {
    name: 'export',
    group: 'session',
    usage: 'export <file.json|.md|.mmd|.resp> [format=json|markdown|mermaid|resp]',
    help: "write the trace shown as lqsim run --format writes it (the format from the file's name)",
    keys: ['format='],
  },
  { name: 'help', group: 'session', usage: 'help [command]', help: 'the commands, or one in full', keys: [] },
];

/**
 * Every command, as the help lists them: by group, and in a group the lab's own first (`worker`
 * starts one before `stop` and `kill` act on it), then the kinds' in the order of ENTRY_KINDS.
 */
const GROUPS: readonly LabGroup[] = ['jobs', 'workers', 'config', 'session'];
export const COMMANDS: readonly LabCommandSpec[] = GROUPS.flatMap((g) =>
  [...LAB_COMMANDS, ...ENTRY_COMMANDS].filter((c) => c.group === g),
);

/** What `export` writes, by a file's name: the formats `lqsim run --format` renders from a whole timeline. */
const EXPORT_BY_EXTENSION: Record<string, ExportFormat> = {
  '.json': 'json',
  '.md': 'markdown',
  '.mmd': 'mermaid',
  '.mermaid': 'mermaid',
  '.resp': 'resp',
};

const byName = new Map(COMMANDS.map((c) => [c.name, c]));

/**
 * The command a line starts with (for the usage line while typing), or null. Given the session's
 * Laravel profile, its usage and keys name only the retry delay that version's queue:work has.
 */
export function commandOf(line: string, laravel?: string): LabCommandSpec | null {
  const word = line.trimStart().split(/\s+/)[0] ?? '';
  const spec = byName.get(word);
  return spec === undefined ? null : forVersion(spec, laravel);
}

/** The spec as a session of that version shows it: the other version's retry delay left out. */
function forVersion(spec: LabCommandSpec, laravel: string | undefined): LabCommandSpec {
  const key = retryDelayKey(laravel);
  if (key === null || !spec.keys.includes('delay=') || !spec.keys.includes('backoff=')) return spec;
  const other = key === 'delay' ? 'backoff=' : 'delay=';
  return {
    ...spec,
    usage: spec.usage.replace(
      BOTH_RETRY_DELAYS,
      spec.name === 'set' ? RETRY_DELAY_USAGE[key] : `[${RETRY_DELAY_USAGE[key]}]`,
    ),
    keys: spec.keys.filter((k) => k !== other),
  };
}

/** Completions of the line's last word: the whole line as it would read after each. */
export function complete(line: string, v: LabVocabulary): string[] {
  const words = line.split(/\s+/);
  const last = words.pop() ?? '';
  const head = words.length > 0 ? `${words.join(' ')} ` : '';
  const lead = words.filter((w) => w !== '');
  let candidates: readonly string[];
  if (lead.length === 0) candidates = COMMANDS.map((c) => `${c.name} `);
  else {
    const spec = commandOf(lead[0]!, v.laravel);
    if (spec === null) return [];
    if (lead.length === 1 && spec.first !== undefined) candidates = spec.first(v).map((w) => `${w} `);
    else if (last.includes('=')) {
      const [key, value] = [last.slice(0, last.indexOf('=')), last.slice(last.indexOf('=') + 1)];
      // A connection names one of the session's; other values are those the keys spell (restart=yes).
      const values =
        key === 'connection'
          ? v.connections
          : spec.keys
              .filter((k) => k.startsWith(`${key}=`) && k.length > key.length + 1)
              .map((k) => k.slice(key.length + 1));
      return values.filter((x) => x.startsWith(value)).map((x) => `${head}${key}=${x} `);
    } else {
      const used = new Set(lead.slice(1).map((w) => w.split('=')[0]));
      candidates = spec.keys.filter((k) => !used.has(k.replace(/=.*$/, '')));
    }
  }
  return candidates.filter((c) => c.startsWith(last)).map((c) => `${head}${c}`);
}

/** Parses one line; throws CommandError with a one-line message that names the field. */
export function parseCommand(line: string, v: LabVocabulary): LabCommand {
  const words = tokens(line);
  const name = words.shift();
  if (name === undefined) throw new CommandError('type a command (help lists them)');
  const spec = byName.get(name);
  if (spec === undefined)
    throw new CommandError(
      `unknown command "${name}"${didYouMean(
        name,
        COMMANDS.map((c) => c.name),
      )}; help lists the commands`,
    );
  const args = new Args(forVersion(spec, v.laravel), words);
  const entry = ENTRY_COMMANDS.find((c) => c.name === name);
  if (entry !== undefined) {
    const cmd = entry.parse(args, v);
    args.done();
    return cmd;
  }
  switch (name) {
    case 'worker': {
      const options = workerChoice(args, v, true);
      args.done();
      checkRetryDelay('worker', options, v.laravel);
      return { kind: 'worker', options };
    }
    case 'set': {
      const target = args.positional('a connection or a worker, e.g. set redis retry_after=30');
      if (v.connections.includes(target)) {
        const retryAfter = args.intOrNull('retry_after');
        const blockFor = args.intOrNull('block_for');
        args.done();
        if (retryAfter === undefined && blockFor === undefined)
          throw new CommandError(`set ${target}: give retry_after=N or block_for=N (null turns either off)`);
        return { kind: 'config', connection: target, retryAfter, blockFor };
      }
      if (v.workers.includes(target)) {
        const options = workerChoice(args, v, false);
        args.done();
        if (Object.keys(options).length === 0)
          throw new CommandError(`set ${target}: give an option to change, e.g. timeout=30`);
        checkRetryDelay(`set ${target}`, options, v.laravel);
        // supervisord restarts the same program: its connection and --once stay (a new worker may differ).
        const fixed = (['connection', 'blockFor', 'once'] as const).filter((k) => options[k] !== undefined);
        if (fixed.length > 0)
          throw new CommandError(
            `set ${target}: ${fixed.map((k) => (k === 'blockFor' ? 'block_for' : k)).join(', ')} cannot change in a restart; start another worker with worker`,
          );
        return { kind: 'options', worker: target, options };
      }
      throw new CommandError(
        `set: no connection or worker named ${target}${typoOf(target, [...v.connections, ...v.workers])}; ${theNames('connection', v.connections)}, ${theNames('worker', v.workers)}`,
      );
    }
    case 'laravel': {
      const profile = args.positional(`a version: ${PROFILE_NAMES.join(', ')}`);
      if (!(PROFILE_NAMES as readonly string[]).includes(profile))
        throw new CommandError(`laravel: no profile "${profile}"; use ${PROFILE_NAMES.join(', ')}`);
      args.done();
      return { kind: 'laravel', profile };
    }
    case 'wait': {
      const raw = args.positional('seconds, e.g. wait 10');
      const seconds = Number(raw);
      if (!/^\d+(\.\d{1,3})?$/.test(raw) || seconds <= 0 || seconds > 86400)
        throw new CommandError(`wait: "${raw}" is not a number of seconds (0.001 to 86400, at most 3 decimals)`);
      args.done();
      return { kind: 'wait', seconds };
    }
    case 'save': {
      const file = args.optionalPositional();
      args.done();
      if (file !== undefined && !file.endsWith('.yaml') && !file.endsWith('.yml'))
        throw new CommandError(`save: "${file}" should end in .yaml`);
      return { kind: 'save', file };
    }
    case 'export': {
      const file = args.optionalPositional();
      const given = args.text('format');
      args.done();
      if (file === undefined)
        throw new CommandError('export: name the file (trace.json, trace.md, trace.mmd, trace.resp)');
      const format = given ?? EXPORT_BY_EXTENSION[extname(file)];
      if (format === undefined)
        throw new CommandError(
          `export: say format=json|markdown|mermaid|resp for "${file}" (or name it .json, .md, .mmd, .resp)`,
        );
      if (!isExportFormat(format))
        throw new CommandError(`export: format=${format}: one of ${EXPORT_FORMATS.join(', ')}`);
      return { kind: 'export', file, format };
    }
    case 'help': {
      const topic = args.optionalPositional();
      args.done();
      return { kind: 'help', topic };
    }
    default: {
      args.done();
      return { kind: name } as LabCommand;
    }
  }
}

/** The full help of one command, or of all in a few lines (as a session of `laravel` shows them). */
export function helpText(topic?: string, laravel?: string): string[] {
  if (topic !== undefined) {
    const c = commandOf(topic, laravel);
    if (c === null)
      return [
        `no command "${topic}"${didYouMean(
          topic,
          COMMANDS.map((x) => x.name),
        )}`,
      ];
    return [c.usage, c.help];
  }
  return COMMANDS.map((c) => forVersion(c, laravel)).map((c) => `${c.usage} — ${c.help}`);
}

function workerChoice(args: Args, v: LabVocabulary, named: boolean): WorkerChoice {
  const choice: WorkerChoice = {};
  const set = <K extends keyof WorkerChoice>(key: K, value: WorkerChoice[K] | undefined) => {
    if (value !== undefined) choice[key] = value;
  };
  if (named) {
    const name = args.text('name');
    if (name !== undefined && !/^[A-Za-z][A-Za-z0-9_.-]*$/.test(name))
      throw new CommandError(`worker: name=${name}: use letters, digits, "_", "-" or "."`);
    if (name !== undefined && v.workers.includes(name))
      throw new CommandError(`worker: ${name} exists already; leave name= out for a new one`);
    set('name', name);
  }
  const queue = args.text('queue');
  if (queue !== undefined && !/^[^,\s]+(,[^,\s]+)*$/.test(queue))
    throw new CommandError(`${args.command}: queue=${queue}: queue names separated by commas, e.g. queue=high,default`);
  set('queue', queue);
  set('connection', args.name('connection', v.connections, 'connection'));
  set('tries', args.int('tries'));
  set('timeout', args.int('timeout'));
  set('sleep', args.int('sleep'));
  set('delay', args.int('delay'));
  const backoff = args.text('backoff');
  if (backoff !== undefined) {
    if (!/^\d+(,\d+)*$/.test(backoff))
      throw new CommandError(`${args.command}: backoff=${backoff}: seconds, or a list such as backoff=1,5,10`);
    choice.backoff = backoff.split(',').map(Number);
  }
  if (args.flag('once')) choice.once = true;
  set('blockFor', args.int('block_for'));
  if (choice.delay !== undefined && choice.backoff !== undefined)
    throw new CommandError(`${args.command}: give delay= or backoff=, not both (one retry delay per version)`);
  return choice;
}

/**
 * Refuses the retry delay the session's version does not have, naming the one it has: 5.x's
 * queue:work has no --backoff; 8.0 deprecated --delay in favour of --backoff. Unknown version: no check.
 */
export function checkRetryDelay(command: string, choice: WorkerChoice, laravel: string | undefined): void {
  const key = retryDelayKey(laravel);
  if (key === 'delay' && choice.backoff !== undefined) {
    const [first] = choice.backoff;
    const instead =
      choice.backoff.length === 1 ? `use delay=${first}` : `one number for every retry, e.g. delay=${first}`;
    throw new CommandError(`${command}: Laravel ${laravel} has --delay, not --backoff (8.0+): ${instead}`);
  }
  if (key === 'backoff' && choice.delay !== undefined)
    throw new CommandError(
      `${command}: Laravel ${laravel} has --backoff (--delay is deprecated since 8.0): use backoff=${choice.delay}`,
    );
}
