// `lqsim explain <capture>`: a `redis-cli monitor` capture of someone's own app (a file, or - for
// standard input) printed as lqsim's trace: what the app's setup is (versions, prefix, queues,
// retry_after, block_for, each figure citing its lines), then its commands grouped into Laravel's
// calls, by actor, each titled with the operation and the job it moved, then the findings.
//
// Two passes over the file, each one line at a time, so a capture of any size is explained in
// bounded memory: the first reads the configuration (the header, and which connection is a
// dispatcher or a worker), the second prints each step as it ends. Standard input is first
// spilled to a temporary file, unlinked as soon as it is open and read through its descriptor, so
// it is gone with the process however that ends (SIGKILL too). On a terminal a progress bar shows
// on stderr while nothing else is being printed there. Lines that are not MONITOR's are reported
// by number on stderr and skipped.
import { randomBytes } from 'node:crypto';
import { closeSync, createWriteStream, existsSync, fstatSync, openSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { registerCleanup } from '../cleanup.ts';
import type { CaptureProblem } from '../explain/capture.ts';
import type { CaptureConfiguration } from '../explain/configuration.ts';
import type { Finding } from '../explain/findings.ts';
import { findingAlternatives, findingHead } from '../explain/finding-text.ts';
import type { Progress } from '../explain/progress.ts';
import type { Timeline } from '../scenarios/timeline.ts';
import { CONFIGURATION_ARGS, isProblem } from '../explain/capture.ts';
import type { CaptureInput, NodeCapture } from '../explain/cluster-capture.ts';
import { captureSize, forEachCaptureEntry, nodeCaptures } from '../explain/cluster-capture.ts';
import { ConfigurationReader } from '../explain/configuration.ts';
import { NotOneClusterError } from '../explain/cluster-configuration.ts';
import { renderLivesMarkdown, renderLivesText } from '../explain/lives.ts';
import { startProgress } from '../explain/progress.ts';
import { ExplainedJsonWriter } from '../explain/json-writer.ts';
import { CaptureExplainer } from '../explain/timeline.ts';
import { colourLevel, makeChalk } from '../output/colour.ts';
import { escapeMarkdown, renderMarkdown } from '../output/markdown.ts';
import { renderNdjson } from '../output/ndjson.ts';
import { captureSettings } from '../explain/settings.ts';
import { renderExplainedRecords } from '../explain/records.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import { renderStepText, renderTextFooter, renderTextHeader } from '../output/text.ts';
import { ciIsSet, err, stdoutDrained, UsageError } from './args.ts';
import { ByteOut } from './byte-out.ts';
import { withV8Flag, YOUNG_GENERATION_FIXED } from './v8-flags.ts';
import { importUi, tuiUnavailable } from './tui.ts';

export const EXPLAIN_FORMATS = ['text', 'ndjson', 'json', 'markdown'] as const;

/** How many lines that are not MONITOR's are named one by one (the rest are counted). */
const NAMED_PROBLEMS = 20;

export async function explainCommand(
  captures: string | readonly string[],
  o: { format: (typeof EXPLAIN_FORMATS)[number]; tui?: boolean },
): Promise<number> {
  return withV8Flag(YOUNG_GENERATION_FIXED, () => explainCaptures(captures, o));
}

async function explainCaptures(
  captures: string | readonly string[],
  o: { format: (typeof EXPLAIN_FORMATS)[number]; tui?: boolean },
): Promise<number> {
  if (typeof captures !== 'string' && captures.length > 1) return explainCluster(captures, o);
  const capture = typeof captures === 'string' ? captures : captures[0]!;
  mustBeFile(capture);
  if (o.tui === true && capture === '-')
    throw new UsageError('explain --tui: the keyboard is standard input; give the capture as a file');
  let format = o.format;
  let tui = o.tui === true;
  if (tui) {
    const unavailable = tuiUnavailable(process.env);
    if (unavailable !== null) {
      err(`lqsim: ${unavailable}: printing the text trace instead of the terminal UI\n`);
      tui = false;
      format = 'text';
    }
  }
  const source = capture === '-' ? 'stdin' : capture;
  let spill: Spill | undefined;
  const unregister = registerCleanup(
    () => removeSpill(spill),
    () => removeSpill(spill),
  );
  try {
    if (tui) return await explainInTui(capture, source); // a file: standard input is the keyboard
    let file: CaptureFile = capture;
    if (capture === '-') {
      spill = openSpill();
      file = spill.fd;
      await pipeline(process.stdin, createWriteStream('', { fd: spill.fd, autoClose: false }));
    }
    return await explainFile(file, source, format);
  } finally {
    removeSpill(spill);
    unregister();
  }
}

/**
 * `lqsim explain node1.txt node2.txt node3.txt`: a Redis Cluster's capture, one file per node
 * (`LABEL=FILE` names a node), merged by time (explain/cluster-capture.ts). Files only: standard
 * input is one stream.
 */
async function explainCluster(
  args: readonly string[],
  o: { format: (typeof EXPLAIN_FORMATS)[number]; tui?: boolean },
): Promise<number> {
  if (args.includes('-'))
    throw new UsageError("explain: - (stdin) is one capture: give a cluster's node captures as files");
  let nodes: NodeCapture[];
  try {
    nodes = nodeCaptures(args, (path) => existsSync(path));
  } catch (e) {
    throw new UsageError(`explain: ${terminalSafe(e instanceof Error ? e.message : String(e))}`);
  }
  for (const n of nodes) mustBeFile(n.file);
  const source = nodes.map((n) => basename(n.file)).join(' + ');
  let tui = o.tui === true;
  let format = o.format;
  if (tui) {
    const unavailable = tuiUnavailable(process.env);
    if (unavailable !== null) {
      err(`lqsim: ${unavailable}: printing the text trace instead of the terminal UI\n`);
      [tui, format] = [false, 'text'];
    }
  }
  return tui ? explainInTui(nodes, source) : explainFile(nodes, source, format);
}

/** A capture named on the command line is a file (or - for standard input), or a usage error naming it. */
function mustBeFile(capture: string): void {
  if (capture !== '-' && !(existsSync(capture) && statSync(capture).isFile()))
    throw new UsageError(
      `explain: ${existsSync(capture) ? 'not a file' : 'no such file'}: ${terminalSafe(capture)} (a redis-cli monitor capture, or - for stdin)`,
    );
}

/** A capture to read twice: a file's path, the descriptor of standard input's spill, or a file per node. */
type CaptureFile = CaptureInput;

/** The node names of a capture read from a file per node (none for one file). */
function nodesOf(file: CaptureFile): string[] {
  return typeof file === 'string' || typeof file === 'number' ? [] : file.map((n) => n.label);
}

/** Where a problem line is: the file and its line there (a node's file, in a cluster capture). */
function whereIs(file: CaptureFile, source: string, p: CaptureProblem): string {
  const node = typeof file === 'object' ? file.find((n) => n.label === p.node) : undefined;
  return node === undefined ? `${terminalSafe(source)}:${p.lineNo}` : `${terminalSafe(node.file)}:${p.nodeLineNo}`;
}

/** Standard input's copy: its descriptor, and its path where the system could not unlink it open. */
interface Spill {
  fd: number;
  path: string | undefined;
}

/**
 * A new file in TMPDIR for standard input, removed from the directory at once: read through its
 * descriptor, its bytes are freed when the process ends, however it ends (a SIGKILL runs no
 * cleanup). Where an open file cannot be unlinked (Windows), it is removed on exit instead.
 */
function openSpill(): Spill {
  const path = join(tmpdir(), `lqsim-explain-${process.pid}-${randomBytes(6).toString('hex')}.txt`);
  const fd = openSync(path, 'wx+', 0o600);
  try {
    unlinkSync(path);
    return { fd, path: undefined };
  } catch {
    return { fd, path };
  }
}

function removeSpill(spill: Spill | undefined): void {
  if (spill === undefined) return;
  try {
    closeSync(spill.fd);
  } catch {
    // closed already (a second exit path)
  }
  if (spill.path !== undefined) rmSync(spill.path, { force: true });
}

/** Pass 1: the configuration, with the lines that are not MONITOR's named on stderr. */
async function readConfiguration(
  file: CaptureFile,
  source: string,
  progress: Progress,
): Promise<{ config: CaptureConfiguration; problems: CaptureProblem[]; problemCount: number }> {
  const reader = new ConfigurationReader({ nodes: nodesOf(file) });
  const problems: CaptureProblem[] = [];
  let problemCount = 0;
  await forEachCaptureEntry(
    file,
    (entry) => {
      if (!isProblem(entry)) reader.add(entry);
      else if (problemCount++ < NAMED_PROBLEMS) problems.push(entry);
    },
    (bytes) => progress.update(1, bytes),
    CONFIGURATION_ARGS,
  );
  progress.update(1, Infinity); // the whole file
  if (progress.passes === 1) progress.stop();
  for (const p of problems) err(`lqsim: ${whereIs(file, source, p)}: ${terminalSafe(p.problem)}\n`);
  if (problemCount > problems.length)
    err(`lqsim: ${problemCount - problems.length} more lines that are not MONITOR's\n`);
  let config: CaptureConfiguration;
  try {
    config = reader.result();
  } catch (e) {
    // Files given as a cluster's nodes that their lines say are not: bad input.
    if (e instanceof NotOneClusterError) throw new UsageError(`explain: ${terminalSafe(e.message)}`);
    throw e;
  }
  if (config.commands === 0) throw new UsageError(`explain: ${terminalSafe(source)} holds no MONITOR line`);
  return { config, problems, problemCount };
}

/**
 * Pass 2: the capture's commands into the explainer. A line whose args past those pass 1 read
 * are not MONITOR's is told now: on stderr (within the names pass 1 left) and in the warnings.
 */
async function feed(
  file: CaptureFile,
  source: string,
  explainer: CaptureExplainer,
  progress: Progress,
  named: number,
  /** Where the trace goes, flushed before late problems are told (none when nothing is printed: the TUI). */
  sink?: ByteOut,
): Promise<void> {
  const late: CaptureProblem[] = [];
  let lateCount = 0;
  await forEachCaptureEntry(
    file,
    (entry) => {
      if (!isProblem(entry)) explainer.add(entry);
      else if (entry.pastFirstPass === true && lateCount++ < NAMED_PROBLEMS) late.push(entry);
      // The steps printed so far out first: a pipe to a slower reader holds no more than its buffer.
      return stdoutDrained();
    },
    (bytes) => progress.update(2, bytes),
  );
  if (lateCount === 0) return;
  sink?.flush(); // the steps before, where stdout and stderr are one file
  const { warnings } = explainer.timeline;
  let told = 0;
  for (const p of late) {
    if (named + told < NAMED_PROBLEMS) {
      err(`lqsim: ${whereIs(file, source, p)}: ${terminalSafe(p.problem)}\n`);
      told++;
    }
    warnings.push(`line ${p.lineNo}: ${p.problem}`);
  }
  // Every one is told: by its line, or in a count.
  if (lateCount > told) err(`lqsim: ${lateCount - told} more lines that are not MONITOR's\n`);
  if (lateCount > late.length) warnings.push(`${lateCount - late.length} more lines that are not MONITOR's`);
}

/** The progress bar, on a terminal's stderr, over one pass when the trace goes to that terminal. */
function progressFor(source: string, file: CaptureFile, passes: number): Progress {
  return startProgress(
    source,
    captureSize(file, (fd) => fstatSync(fd).size),
    {
      enabled: process.stderr.isTTY === true && !ciIsSet(process.env),
      passes,
    },
  );
}

async function explainFile(
  file: CaptureFile,
  source: string,
  format: (typeof EXPLAIN_FORMATS)[number],
): Promise<number> {
  // The bar shares the terminal with the trace only while the trace is not being printed to it.
  const progress = progressFor(source, file, process.stdout.isTTY === true ? 1 : 2);
  // The trace in 64 KB writes, unless a person reads it as it comes.
  const sink = new ByteOut(process.stdout, process.stdout.isTTY === true ? 0 : undefined);
  try {
    // The configuration is let go once the explainer has named the actors: it holds a record per
    // connection, and a real capture has one per request and per `--once` worker.
    let read: Awaited<ReturnType<typeof readConfiguration>> | undefined = await readConfiguration(
      file,
      source,
      progress,
    );

    // Pass 2: the steps, printed as they end (text, ndjson, json) or kept for a whole document (markdown).
    const chalk = makeChalk(format === 'text' ? colourLevel(process.stdout, process.env) : 0);
    const opts = { chalk, full: false, width: process.stdout.columns || 100, clock: true };
    // json: the timeline as `lqsim run --format json` writes one, with each job's life and the
    // findings beside its steps, written as it goes.
    const json =
      format === 'json'
        ? new ExplainedJsonWriter(
            (text) => sink.write(text),
            (raw) => sink.writeJson(raw),
          )
        : undefined;
    const explainer = new CaptureExplainer(read.config, {
      file: source,
      problems: read.problems,
      problemCount: read.problemCount,
      keepSteps: format === 'markdown',
      allLives: format === 'json',
      onStep: (step) => {
        if (format === 'ndjson') sink.write(renderNdjson({ steps: [step] }));
        else if (format === 'text') sink.write(renderStepText(step, explainer.timeline, opts));
        else json?.step(step);
      },
    });
    // The settings as data (json, ndjson): bounded, unlike the configuration's record per connection.
    const settings = format === 'json' || format === 'ndjson' ? captureSettings(read.config) : undefined;
    const named = read.problems.length;
    read = undefined;
    if (format === 'text') sink.write(renderTextHeader(explainer.timeline, opts));
    json?.begin(explainer.timeline);
    await feed(file, source, explainer, progress, named, sink);
    const explained = explainer.finish();
    const { timeline, findings, lives, quietLives } = explained;
    progress.stop();
    if (json !== undefined) json.end(explained, settings!);
    else if (format === 'ndjson') sink.write(renderExplainedRecords(explained, settings!));
    else if (format === 'markdown') {
      sink.write(renderMarkdown(timeline));
      sink.write(renderLivesMarkdown(lives, timeline.start, quietLives));
      sink.write(`\n## Findings\n\n`);
      if (findings.length === 0) sink.write('None.\n');
      for (const f of findings) {
        sink.write(`- ${escapeMarkdown(findingHead(f))}\n`);
        for (const alt of findingAlternatives(f)) sink.write(`  - ${escapeMarkdown(alt)}\n`);
      }
    } else if (format === 'text') {
      sink.write(renderTextFooter(timeline, opts));
      sink.write(renderLivesText(lives, timeline.start, chalk, quietLives));
      sink.write(`\n${chalk.bold('findings:')}${findings.length === 0 ? ' none' : ''}\n`);
      for (const f of findings) {
        sink.write(`  - ${terminalSafe(findingHead(f))}\n`);
        for (const alt of findingAlternatives(f)) sink.write(`      ${terminalSafe(alt)}\n`);
      }
    }
    return 0;
  } finally {
    sink.flush();
    progress.stop();
  }
}

/**
 * `--tui`: the findings first (a pass that prints nothing), then the terminal UI stepping
 * through the capture, each step's commands replayed on a private redis-server for its state.
 */
async function explainInTui(file: CaptureFile, source: string): Promise<number> {
  const progress = progressFor(source, file, 2);
  let prepared: Awaited<ReturnType<typeof readConfiguration>> & { findings: Finding[]; timeline: Timeline };
  try {
    const read = await readConfiguration(file, source, progress);
    const explainer = new CaptureExplainer(read.config, { file: source });
    await feed(file, source, explainer, progress, read.problems.length);
    const { timeline, findings } = explainer.finish();
    prepared = { ...read, findings, timeline };
  } finally {
    progress.stop();
  }
  const { replayCapture } = await import('../explain/replay.ts');
  const { runTui } = await importUi();
  const { timeline } = prepared;
  return runTui({
    replay: {
      name: source,
      premise: { scenario: timeline.scenario, profile: timeline.profile },
      run: (server, onStep) => replayCapture({ ...prepared, file, source, url: server.url, onStep }),
    },
    // A private redis-server whatever REDIS_URL says: the replay writes the capture's keys.
    withRedis: async (fn, log) =>
      (await import('./shared.ts')).withRedis(fn, log, { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' }),
  });
}
