// `lqsim run`: replays a scenario and prints its trace (text, ndjson or an export). Also what
// `lqsim tui` prints where there is no terminal.
// Imported by src/cli.ts only when one of them runs.
import './zod-jitless.ts';
import type { Format } from './args.ts';
import { err, isExportFormat, out } from './args.ts';
import { checkExportTarget, writeExport } from './export-formats.ts';
import { checkGoldenTarget, withRedisFor } from './shared.ts';
import { HEAP_GROWTH_10_PERCENT, withV8Flag } from './v8-flags.ts';
import { commandToJson, renderNdjson } from '../output/ndjson.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import { colourLevel, makeChalk } from '../output/colour.ts';
import { renderStepText, renderTextFooter, renderTextHeader } from '../output/text.ts';
import { isShuttingDown } from '../cleanup.ts';
import { resolveScenario } from '../scenarios/catalog.ts';
import { checkProfileOverride } from '../scenarios/load.ts';
import { cliSpecCache, loadScenarioFileCached } from '../scenarios/spec-cache.ts';
import { runScenario } from '../scenarios/runner.ts';
import type { Timeline, TraceCommand } from '../scenarios/timeline.ts';
import { plural } from '../output/describe.ts';

/** How long after a step's end its streamed ndjson commands wait for more before they are written. */
const FLUSH_MS = 20;

export async function runCommand(
  scenario: string,
  o: { format: Format; full?: boolean; laravel?: string; pace?: number; golden?: string },
): Promise<number> {
  checkExportTarget(o.format);
  if (o.golden !== undefined) checkGoldenTarget(o.golden);
  const file = await resolveScenario(scenario);
  const loaded = await loadScenarioFileCached(file, cliSpecCache());
  checkProfileOverride(loaded, o.laravel); // before a Redis is started for nothing
  const chalk = makeChalk(o.format === 'text' ? colourLevel(process.stdout, process.env) : 0);
  const textOpts = { chalk, full: o.full ?? false, width: process.stdout.columns || 100 };
  // Text and ndjson print each step as it comes and show no queue entries: the run keeps no step
  // and reads back only the queues' sizes, so its memory does not grow with its length. An export
  // or a golden file is written from the whole timeline at the end.
  const streaming = !isExportFormat(o.format) && o.golden === undefined;
  let steps = 0;
  // ndjson streams command by command (a step may hold 100,000 of them), written in batches: when
  // 64 KB have gathered, and FLUSH_MS after a step ends, so a reader sees each step at once but a
  // run of short steps is not a write per step (30,000 of them were 6% of a 10,000-job run's time).
  let batch = '';
  let flushTimer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    if (flushTimer !== null) clearTimeout(flushTimer);
    flushTimer = null;
    if (batch !== '') out(batch);
    batch = '';
  };
  const flushSoon = (): void => {
    if (flushTimer === null && batch !== '') flushTimer = setTimeout(flush, FLUSH_MS);
  };
  // The runner streams commands only when unpaced (a paced step waits for its lines, and then its
  // commands come with the step): a paced ndjson run prints each step's commands from onStep.
  const onCommand =
    streaming && o.format === 'ndjson' && o.pace === undefined
      ? (cmd: TraceCommand): void => {
          batch += commandToJson(cmd) + '\n';
          if (batch.length >= 1 << 16) flush();
        }
      : undefined;
  // A streaming run's heap grows in small steps (./v8-flags.ts).
  const timeline: Timeline = await withV8Flag(streaming ? HEAP_GROWTH_10_PERCENT : null, () =>
    withRedisFor(loaded.spec, async (server) => {
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
            else flushSoon();
            return;
          }
          if (!headerShown) {
            out(renderTextHeader(sofar, textOpts));
            headerShown = true;
          }
          out(renderStepText(step, sofar, textOpts));
        },
      });
    }),
  );
  flush(); // the commands of a step the run ended in (and no timer left)
  // After Ctrl-C the server is stopped under the run; its errors are ours, not the user's.
  if (isShuttingDown()) return 1;
  // Where it ran, not what Laravel did: on stderr, beside "using REDIS_URL ...", never in the trace.
  for (const n of timeline.notices ?? []) err(`lqsim: note: ${terminalSafe(n)}\n`);
  if (o.format === 'text') out(renderTextFooter(timeline, textOpts));
  else if (isExportFormat(o.format)) writeExport(o.format, timeline);
  if (timeline.error) {
    err(`lqsim: run ended early after ${plural(steps, 'step')}: ${terminalSafe(timeline.error)}\n`);
    return 1;
  }
  // Its modules (the golden trace's normaliser and writer) only when asked for: ~2 ms of every run's start.
  if (o.golden !== undefined) await (await import('./check.ts')).writeRunGolden(o.golden, timeline);
  return 0;
}
