// `lqsim`: the command-line edge. Declares the commands (commander) and turns typed errors into
// one-line messages, here and nowhere else: exit 2 for bad input, 1 for a failed run. What a
// command does lives in src/cli/<command>.ts and is imported only when that command runs, so
// `lqsim --version`, `--help` and `list` load no Redis client, no UI and no scenario schema they do
// not use (docs/performance.md).
import { Command, CommanderError, Option } from 'commander';
import type { Format } from './cli/args.ts';
import { err, FORMATS, nonNegativeInt, oneOf, out, UsageError } from './cli/args.ts';
import { RedisUnavailableError, RedisSettingError } from './redis/errors.ts';
import { installCleanupHandlers, isShuttingDown, runCleanups } from './cleanup.ts';
import { forgetEarlyLocalRedis, startLocalRedisEarly } from './redis/early-server.ts';
import { ScenarioError } from './scenarios/errors.ts';
import { terminalSafe } from './output/terminal-safe.ts';
import { packageVersion } from './package-root.ts';
import { PROFILE_NAMES } from './sim/profiles/names.ts';

/** `--laravel <version>`, as run, tui, lab and check take it: the profile overriding the scenario's. */
function laravelOption(): Option {
  return new Option(
    '--laravel <version>',
    `Laravel profile (${PROFILE_NAMES.join(', ')}), overriding the scenario's`,
  ).argParser(oneOf(PROFILE_NAMES, '--laravel'));
}

function program(setExit: (code: number) => void): Command {
  const cmd = new Command('lqsim')
    .description("Replays Laravel's Redis queue against a real Redis and shows the MONITOR trace.")
    .version(packageVersion(), '-V, --version')
    .exitOverride()
    // Usage errors read like every other error: one `lqsim: ...` line.
    .configureOutput({
      writeErr: err,
      writeOut: out,
      outputError: (s, write) => write(`lqsim: ${s.replace(/^error: /, '')}`),
    });

  cmd
    .command('list')
    .description('list the shipped scenarios')
    .action(async () => setExit(await (await import('./cli/list.ts')).listCommand()));

  cmd
    .command('run')
    .description('replay a scenario (a name from `lqsim list`, or a path to a YAML file) and print its trace')
    .argument('<scenario>', 'scenario name or path')
    .option('-f, --format <format>', `output: ${FORMATS.join(' | ')}`, oneOf(FORMATS, '--format'), 'text')
    .option('--full', 'text: print every argument verbatim (scripts and payloads included)')
    .addOption(laravelOption())
    .option('--pace <ms>', 'wait this many real milliseconds after each step', nonNegativeInt)
    .option('--golden <file>', 'also write the normalised trace to this golden file (for lqsim check)')
    .action(
      async (
        scenario: string,
        o: { format: Format; full?: boolean; laravel?: string; pace?: number; golden?: string },
      ) => {
        // The server starts while the engine's modules load (early-server.ts).
        await startLocalRedisEarly();
        setExit(await (await import('./cli/run.ts')).runCommand(scenario, o));
      },
    );
  cmd
    .command('tui')
    .description('step through a scenario in a full-terminal UI (the trace beside the live queue and worker state)')
    .argument('[scenario]', 'scenario name or path (none: choose one)')
    .addOption(laravelOption())
    .action(async (scenario: string | undefined, o: { laravel?: string }) => {
      // Not awaited: the UI draws its first frame before it needs Redis (src/tui/run-tui.ts).
      void startLocalRedisEarly();
      setExit(await (await import('./cli/tui.ts')).tuiCommand(scenario, o));
    });
  cmd
    .command('lab')
    .description(
      'change the queue while you watch: dispatch, start and kill workers, move the clock, undo, save as a scenario',
    )
    .argument('[scenario]', 'start from where this scenario has played out (none: an empty queue and one worker)')
    .addOption(laravelOption())
    .action(async (scenario: string | undefined, o: { laravel?: string }) => {
      // Not awaited: the UI draws its first frame before it needs Redis (src/tui/run-tui.ts).
      void startLocalRedisEarly();
      setExit(await (await import('./cli/tui.ts')).labCommand(scenario, o));
    });
  cmd
    .command('schema')
    .description('print the JSON Schema of scenario files (for editors: see `lqsim new`)')
    .action(async () => setExit(await (await import('./cli/schema.ts')).schemaCommand()));
  cmd
    .command('new')
    .description('write <name>.yaml: a commented scenario to start from (never overwrites)')
    .argument('<name>', 'scenario name, or a path without or with .yaml')
    .action(async (target: string) => setExit(await (await import('./cli/new.ts')).newCommand(target)));
  cmd
    .command('validate')
    .description(
      'check scenario files (or shipped names) without running them: `ok` or each error with its line and column',
    )
    .argument('<file...>', 'scenario files or names')
    .action(async (files: string[]) => setExit(await (await import('./cli/validate.ts')).validateFiles(files)));
  cmd
    .command('diff')
    .description(
      'compare two traces step by step: scenario[@profile], a golden file, or ndjson from run --format ndjson (exit 0 same, 1 different)',
    )
    .argument('<a>', 'scenario[@profile] | golden file | ndjson file')
    .argument('<b>', 'scenario[@profile] | golden file | ndjson file')
    .option('--all', 'also print the commands of steps that are the same')
    .option('--exact-db', "compare the db a run claimed on a shared server as it is, not as the scenario's")
    .action(async (a: string, b: string, o: { all?: boolean; exactDb?: boolean }) =>
      setExit(await (await import('./cli/diff.ts')).diffCommand(a, b, o)),
    );
  cmd
    .command('check')
    .description(
      'run a scenario and compare it with a golden file (from run --golden); exit 1 with the diff when it changed',
    )
    .argument('<scenario>', 'scenario name or path')
    .requiredOption('--golden <file>', 'the golden trace to compare with')
    .option('--update', 'rewrite the golden file with this run (refused when CI is set)')
    .option('--exact-db', "compare the db the run claimed on a shared server as it is, not as the scenario's")
    .addOption(laravelOption())
    .action(async (scenario: string, o: { golden: string; update?: boolean; laravel?: string; exactDb?: boolean }) =>
      setExit(await (await import('./cli/check.ts')).checkCommand(scenario, o)),
    );
  cmd
    .command('explain')
    .description(
      "read a redis-cli monitor capture of your own app (a file, or - for stdin) and print it as lqsim's trace: versions, prefix, retry_after, each Laravel call by actor, each job's life, and findings (a job run twice, a killed worker, timeout >= retry_after, ...)",
    )
    .argument(
      '<capture...>',
      "the capture file, or - for standard input; a Redis Cluster's: one file per node (LABEL=FILE names a node; else the file's name)",
    )
    .option(
      '-f, --format <format>',
      'output: text | ndjson | json | markdown',
      oneOf(['text', 'ndjson', 'json', 'markdown'] as const, '--format'),
      'text',
    )
    .option(
      '--tui',
      'step through the capture in the terminal UI, the state pane replayed on a private redis-server (text where there is no terminal)',
    )
    .action(async (captures: string[], o: { format: 'text' | 'ndjson' | 'json' | 'markdown'; tui?: boolean }) =>
      setExit(await (await import('./cli/explain.ts')).explainCommand(captures, o)),
    );
  cmd
    .command('conformance')
    .description(
      "replay scenarios through the tool (profile 8) and through real Laravel 8.83 (Debian's php-laravel-framework), and compare",
    )
    .argument('[scenario...]', 'scenario names or files (default: every shipped scenario)')
    .option('--full', 'print the whole step-aligned diff of a scenario that differs, not just its first difference')
    .action(async (names: string[], o: { full?: boolean }) =>
      setExit(await (await import('./cli/conformance.ts')).conformanceCommand(names, o)),
    );
  return cmd;
}

export async function main(argv: string[]): Promise<number> {
  installCleanupHandlers();
  let code = 0;
  try {
    await program((c) => (code = c)).parseAsync(argv, { from: 'user' });
  } catch (e) {
    code = report(e);
  } finally {
    await runCleanups();
    forgetEarlyLocalRedis();
  }
  return code;
}

/** The only place an error becomes text: one line, never a stack trace. */
function report(e: unknown): number {
  if (isShuttingDown()) return 1;
  if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
  // Messages can carry user data (paths, names, payload bytes): never raw to the terminal.
  if (e instanceof ScenarioError || e instanceof UsageError || e instanceof RedisSettingError) {
    err(`lqsim: ${terminalSafe(e.message)}\n`);
    // Every problem of the file, one line each.
    if (e instanceof ScenarioError) for (const more of e.also) err(`lqsim: ${terminalSafe(more.message)}\n`);
    return 2;
  }
  if (e instanceof RedisUnavailableError) {
    err(`lqsim: ${terminalSafe(e.message.split('\n').join(' '))}\n`);
    return 1;
  }
  const message = e instanceof Error ? e.message : String(e);
  err(`lqsim: ${terminalSafe(message.split('\n')[0] ?? '')}\n`);
  if (process.env.LQSIM_DEBUG && e instanceof Error) err(`${e.stack}\n`);
  return 1;
}

/**
 * Exits once stdout and stderr have taken everything written to them. A pipe is asynchronous in
 * Node: process.exit() right after a large write (a json export) would cut the output at the pipe's
 * 64 KiB. A write's callback runs after every earlier write has been handed over.
 */
function exitWhenFlushed(code: number): void {
  let pending = 2;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

// main reports its own errors; a rejection (a cleanup that threw) is reported the same way.
main(process.argv.slice(2)).then(exitWhenFlushed, (e: unknown) => exitWhenFlushed(report(e)));
