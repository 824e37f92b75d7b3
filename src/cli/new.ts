// `lqsim new <name>`: writes <name>.yaml, a commented scenario that validates and runs as it is,
// with the `# yaml-language-server: $schema=...` modeline pointing at the shipped JSON Schema
// (relative to the new file, so it works from a clone and from node_modules). Never overwrites.
import { writeFile } from 'node:fs/promises';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { terminalSafe } from '../output/terminal-safe.ts';
import { DEFAULT_PROFILE, joinNames, PROFILE_NAMES } from '../sim/profiles/index.ts';
import { SCHEMA_FILE } from '../package-root.ts';
import { out, UsageError } from './args.ts';

const NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/** The scaffold for scenario `name` whose modeline points at `schemaRef`. */
export function scaffold(name: string, schemaRef: string): string {
  return `# yaml-language-server: $schema=${schemaRef}
# A Laravel Redis queue flow for lqsim. Editors with YAML support (the yaml-language-server)
# complete and check every field through the modeline above.
#   npx lqsim validate ${name}.yaml     check it without running it
#   npx lqsim run ${name}.yaml          replay it against a real Redis and print the trace
#   npx lqsim tui ${name}.yaml          step through it
name: ${name}                  # how lqsim names it in its output and golden files
title: SendInvoice throws once, is released for --delay, and succeeds on its retry
laravel: "5.7"                 # Laravel version profile: ${joinNames(PROFILE_NAMES, 'or')} (default ${DEFAULT_PROFILE})
start: 1700000000              # virtual unix time of t+0s; every time below is seconds after it
connections:                   # config/queue.php redis connections; the first one is the default
  redis: { queue: default, retry_after: 90, block_for: null }
workers:                       # php artisan queue:work processes
  - { name: worker-1, tries: 3, timeout: 60, sleep: 3, delay: 10 }
  # 8.x also takes backoff: [1, 5, 10] (instead of delay), max_jobs: 100, max_time: 3600 (then
  # supervisord starts a new process), rest: 1 (seconds after each job) and stop_when_empty: true
jobs:
  SendInvoice:
    class: App\\Jobs\\SendInvoice  # unquoted or single-quoted: backslashes are escapes in double quotes
    # public $tries / $timeout would go here (tries: 5); 8.x also backoff: [10, 30]
    # properties: { invoiceId: 0 }  # its own public properties; a dispatch sets them per instance:
    #   - { at: 0, dispatch: SendInvoice, count: 3, properties: { invoiceId: { from: 1001 } } }
    attempts:                  # attempt N does entry N; the last entry repeats
      - { run: 2, throw: Mail server down, exception: RuntimeException }  # throws after 2 s: released for --delay 10
      - { run: 2 }                            # the retry returns normally: the job is deleted
timeline:
  - { at: 0, dispatch: SendInvoice, note: The application dispatches one invoice job }
  # - { at: 30, stop: worker-1 }                 # SIGTERM: it quits after its current job
  # - { at: 40, kill: worker-1 }                 # SIGKILL from outside (OOM killer): supervisord restarts it
  # - { at: 50, size: default }                  # the application calls Queue::size('default')
  # - { at: 60, request: [{ dispatch: SendInvoice, queue: high }, { size: high }] }   # one web request, one connection
  # - { at: 70, dispatch: SendInvoice, count: 5, every: 1 }   # one request a second, one job each
  # - { at: 80, dispatch: SendInvoice, chain: [SendInvoice] }  # ->chain(): the worker pushes the next job after a success
  # - { at: 90, chain: [SendInvoice, SendInvoice], queue: invoices }  # Bus::chain()->onQueue() (laravel "8" or "13")
  # - { at: 95, config: redis, retry_after: 120 }  # config/queue.php changes: processes started later read it
  # - { at: 60.5, dispatch: SendInvoice }        # times take up to 3 decimals: order within a second
  #                                              # (Laravel still sends the whole second, time())
`;
}

/** Writes the scaffold; returns the file written. */
export async function newScenario(target: string): Promise<string> {
  const file = resolve(target.endsWith('.yaml') ? target : `${target}.yaml`);
  const name = basename(file, '.yaml');
  if (!NAME.test(name)) {
    throw new UsageError(
      `new: "${name}" is not a scenario name: use letters, digits, "_", "-" or "." and start with a letter`,
    );
  }
  let ref = relative(dirname(file), SCHEMA_FILE).split(sep).join('/');
  if (!ref.startsWith('.')) ref = `./${ref}`;
  try {
    await writeFile(file, scaffold(name, ref), { flag: 'wx' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`new: ${file} already exists; not overwriting it`);
    // Never creates folders: a mistyped path should not leave a tree behind.
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new UsageError(`new: no directory ${dirname(file)} to write ${basename(file)} in; create it first`);
    throw new UsageError(`new: cannot write ${file} (${code ?? (e instanceof Error ? e.message : String(e))})`);
  }
  return file;
}

/** `lqsim new <name>`: writes the file and says how to run it. */
export async function newCommand(target: string): Promise<number> {
  const file = await newScenario(target);
  out(`wrote ${terminalSafe(file)}; try: lqsim run ${terminalSafe(file)}\n`);
  return 0;
}
