// `lqsim`: the command-line edge. Parses arguments (commander), gets a Redis server, runs a
// scenario and prints it. Typed errors become one-line messages here and nowhere else:
// exit 2 for bad input, 1 for a failed run.
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Command, CommanderError } from 'commander';
import { ciIsSet, err, nonNegativeInt, oneOf, out, UsageError, withRedis } from './cli/shared.ts';
import { registerCheck, writeRunGolden } from './cli/check.ts';
import { registerConformance } from './cli/conformance.ts';
import { registerDiff } from './cli/diff.ts';
import { checkExportTarget, EXPORT_FORMATS, isExportFormat, writeExport } from './cli/export-formats.ts';
import { registerNew } from './cli/new.ts';
import { registerSchema } from './cli/schema.ts';
import { registerValidate } from './cli/validate.ts';
import { commandToJson, renderNdjson } from './output/ndjson.ts';
import { terminalSafe } from './output/terminal-safe.ts';
import { colourLevel, makeChalk } from './output/colour.ts';
import { renderStepText, renderTextFooter, renderTextHeader } from './output/text.ts';
import { RedisUnavailableError } from './redis/errors.ts';
import { installCleanupHandlers, isShuttingDown, runCleanups } from './cleanup.ts';
import { listScenarios, resolveScenario } from './scenarios/catalog.ts';
import { ScenarioError } from './scenarios/errors.ts';
import { loadScenarioFile } from './scenarios/load.ts';
import { runScenario } from './scenarios/runner.ts';
import { packageVersion } from './package-root.ts';
import { PROFILE_NAMES } from './sim/profiles/index.ts';
import type { Timeline, TraceCommand } from './scenarios/timeline.ts';

const FORMATS = ['text', 'ndjson', ...EXPORT_FORMATS] as const;
type Format = (typeof FORMATS)[number];

async function runCommand(
  scenario: string,
  o: { format: Format; full?: boolean; laravel?: string; pace?: number; golden?: string },
): Promise<number> {
  checkExportTarget(o.format);
  if (o.golden !== undefined) checkGoldenTarget(o.golden);
  const file = await resolveScenario(scenario);
  const loaded = await loadScenarioFile(file);
  const chalk = makeChalk(o.format === 'text' ? colourLevel(process.stdout, process.env) : 0);
  const textOpts = { chalk, full: o.full ?? false, width: process.stdout.columns || 100 };
  // Text and ndjson print each step as it comes and show no queue entries: the run keeps no step
  // and reads back only the queues' sizes, so its memory does not grow with its length. An export
  // or a golden file is written from the whole timeline at the end.
  const streaming = !isExportFormat(o.format) && o.golden === undefined;
  // What a streaming run keeps is small and flat (40 MB at 30,000 jobs), but by V8's default heap
  // growth the garbage of one long step (a request dispatching 100,000 jobs) lifted peak RSS to
  // 265 MB at 30,000 jobs; growing the heap in 10% steps keeps it at ~160 MB, at no measurable
  // cost in time. A growth rate, not a cap: a run that keeps more still gets the heap it needs.
  if (streaming) setFlagsFromString('--heap-growing-percent=10');
  let steps = 0;
  // ndjson streams command by command (a step may hold 100,000 of them), written in batches.
  let batch = '';
  const flush = (): void => {
    if (batch !== '') out(batch);
    batch = '';
  };
  const onCommand =
    streaming && o.format === 'ndjson'
      ? (cmd: TraceCommand): void => {
          batch += commandToJson(cmd) + '\n';
          if (batch.length >= 1 << 16) flush();
        }
      : undefined;
  const timeline: Timeline = await withRedis(async (server) => {
    let headerShown = false;
    return runScenario(loaded.spec, {
      redis: server,
      laravel: o.laravel,
      file,
      paceMs: o.pace,
      keepSteps: !streaming,
      snapshots: streaming ? 'sizes' : 'full',
      onCommand,
      onStep: (step, sofar) => {
        steps++;
        if (isExportFormat(o.format)) return; // rendered whole once the run has ended
        if (o.format === 'ndjson') {
          if (onCommand === undefined) out(renderNdjson({ steps: [step] }));
          else flush();
          return;
        }
        if (!headerShown) {
          out(renderTextHeader(sofar, textOpts));
          headerShown = true;
        }
        out(renderStepText(step, sofar, textOpts));
      },
    });
  });
  flush(); // the commands of a step the run ended in
  // After Ctrl-C the server is stopped under the run; its errors are ours, not the user's.
  if (isShuttingDown()) return 1;
  // Where it ran, not what Laravel did: on stderr, beside "Using REDIS_URL ...", never in the trace.
  for (const n of timeline.notices ?? []) err(`lqsim: note: ${terminalSafe(n)}\n`);
  if (o.format === 'text') out(renderTextFooter(timeline, textOpts));
  else if (isExportFormat(o.format)) writeExport(o.format, timeline);
  if (timeline.error) {
    err(`lqsim: run ended early after ${steps} steps: ${terminalSafe(timeline.error)}\n`);
    return 1;
  }
  if (o.golden !== undefined) await writeRunGolden(o.golden, timeline);
  return 0;
}

/** `--golden` is checked before the run: a file that cannot be written is bad input (exit 2), found at once. */
function checkGoldenTarget(file: string): void {
  const dir = dirname(resolve(file));
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(`--golden ${terminalSafe(file)}: no directory ${terminalSafe(dir)} to write it in`);
}

/** Why the full-screen UI cannot run here, or null when it can: it needs a terminal both ways. */
function tuiUnavailable(env: NodeJS.ProcessEnv): string | null {
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) return 'not a terminal';
  // Ink draws only the last frame when CI is set (is-in-ci), so a CI job with a TTY gets text too.
  if (ciIsSet(env)) return 'CI is set';
  return null;
}

async function tuiCommand(scenario: string | undefined, o: { laravel?: string }): Promise<number> {
  const unavailable = tuiUnavailable(process.env);
  if (unavailable !== null) {
    if (scenario === undefined)
      throw new UsageError(`tui: ${unavailable}, so no scenario picker; name one (lqsim list shows them)`);
    err(`lqsim: ${unavailable}: printing the text trace instead of the terminal UI (same as lqsim run)\n`);
    return runCommand(scenario, { format: 'text', laravel: o.laravel });
  }
  const { runTui } = await import('./tui/run-tui.ts');
  return runTui({ scenario, laravel: o.laravel, withRedis });
}

async function labCommand(scenario: string | undefined, o: { laravel?: string }): Promise<number> {
  // A scenario that does not load is the first thing to say, terminal or not.
  if (scenario !== undefined) await loadScenarioFile(await resolveScenario(scenario));
  const unavailable = tuiUnavailable(process.env);
  if (unavailable !== null)
    throw new UsageError(`lab: ${unavailable}: the lab is interactive; lqsim run prints a scenario's trace`);
  const { runTui } = await import('./tui/run-tui.ts');
  return runTui({ scenario, laravel: o.laravel, withRedis, lab: true });
}

async function listCommand(): Promise<number> {
  const entries = await listScenarios();
  const width = Math.max(...entries.map((e) => e.name.length));
  for (const e of entries) out(`${e.name.padEnd(width)}  [${e.laravel}]  ${e.title}\n`);
  return 0;
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
    .action(async () => setExit(await listCommand()));

  cmd
    .command('run')
    .description('replay a scenario (a name from `lqsim list`, or a path to a YAML file) and print its trace')
    .argument('<scenario>', 'scenario name or path')
    .option('-f, --format <format>', `output: ${FORMATS.join(' | ')}`, oneOf(FORMATS, '--format'), 'text')
    .option('--full', 'text: print every argument verbatim (scripts and payloads included)')
    .option(
      '--laravel <version>',
      `Laravel profile (${PROFILE_NAMES.join(', ')}), overriding the scenario's`,
      oneOf(PROFILE_NAMES, '--laravel'),
    )
    .option('--pace <ms>', 'wait this many real milliseconds after each step', nonNegativeInt)
    .option('--golden <file>', 'also write the normalised trace to this golden file (for lqsim check)')
    .action(
      async (
        scenario: string,
        o: { format: Format; full?: boolean; laravel?: string; pace?: number; golden?: string },
      ) => setExit(await runCommand(scenario, o)),
    );
  cmd
    .command('tui')
    .description('step through a scenario in a full-terminal UI (the trace beside the live queue and worker state)')
    .argument('[scenario]', 'scenario name or path (none: choose one)')
    .option(
      '--laravel <version>',
      `Laravel profile (${PROFILE_NAMES.join(', ')}), overriding the scenario's`,
      oneOf(PROFILE_NAMES, '--laravel'),
    )
    .action(async (scenario: string | undefined, o: { laravel?: string }) => setExit(await tuiCommand(scenario, o)));
  cmd
    .command('lab')
    .description(
      'change the queue while you watch: dispatch, start and kill workers, move the clock, undo, save as a scenario',
    )
    .argument('[scenario]', 'start from where this scenario has played out (none: an empty queue and one worker)')
    .option(
      '--laravel <version>',
      `Laravel profile (${PROFILE_NAMES.join(', ')}), overriding the scenario's`,
      oneOf(PROFILE_NAMES, '--laravel'),
    )
    .action(async (scenario: string | undefined, o: { laravel?: string }) => setExit(await labCommand(scenario, o)));
  registerSchema(cmd, setExit);
  registerNew(cmd, setExit);
  registerValidate(cmd, setExit);
  registerDiff(cmd, setExit);
  registerCheck(cmd, setExit);
  registerConformance(cmd, setExit);
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
  }
  return code;
}

/** The only place an error becomes text: one line, never a stack trace. */
function report(e: unknown): number {
  if (isShuttingDown()) return 1;
  if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
  // Messages can carry user data (paths, names, payload bytes): never raw to the terminal.
  if (e instanceof ScenarioError || e instanceof UsageError) {
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

main(process.argv.slice(2)).then(exitWhenFlushed);
