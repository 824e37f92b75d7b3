// `lqsim conformance [scenario...]`: each scenario through the tool (profile 8) and through real
// Laravel 8.83 (Debian's packages, conformance/laravel/harness.php), normalised and compared.
// One line per scenario: identical, not comparable (why), or the first difference, step-aligned.
// Exit 0 when nothing differs, 1 when something does or a run failed, 2 for bad input.
import './zod-jitless.ts';
import { colourLevel, makeChalk } from '../output/colour.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import type { ConformanceResult } from '../conformance/compare.ts';
import { conformScenario, targetFor } from '../conformance/compare.ts';
import { laravel8Installation, LaravelUnavailableError } from '../conformance/installation.ts';
import { listScenarios, resolveScenario } from '../scenarios/catalog.ts';
import { loadScenarioFile } from '../scenarios/load.ts';
import type { StepDiff, TraceDiff } from '../trace/diff.ts';
import { isIdentical } from '../trace/diff.ts';
import { renderDiff } from '../trace/render-diff.ts';
import { out, UsageError } from './args.ts';
import { withLazyRedis } from './shared.ts';

/** The diff cut down to its first differing step and a little context before it. */
export function firstDifference(d: TraceDiff, context = 2): TraceDiff {
  const i = d.steps.findIndex((s) => s.kind !== 'same');
  if (i < 0) return d; // only the key prefix differs: the whole (empty) diff says so
  const steps: StepDiff[] = d.steps.slice(Math.max(0, i - context), i + 1);
  const count = (k: StepDiff['kind']) => steps.filter((s) => s.kind === k).length;
  return {
    ...d,
    steps,
    same: count('same'),
    changed: count('changed'),
    removed: count('removed'),
    added: count('added'),
  };
}

export async function conformanceCommand(names: string[], o: { full?: boolean }): Promise<number> {
  let version: string;
  try {
    version = laravel8Installation().version;
  } catch (e) {
    if (e instanceof LaravelUnavailableError) throw new UsageError(`conformance: ${e.message}`);
    throw e;
  }
  const files =
    names.length > 0
      ? await Promise.all(names.map((n) => resolveScenario(n)))
      : (await listScenarios()).map((e) => e.file);
  const specs = await Promise.all(files.map(async (f) => ({ file: f, spec: (await loadScenarioFile(f)).spec })));
  const chalk = makeChalk(colourLevel(process.stdout, process.env));
  const width = Math.max(...specs.map((s) => s.spec.name.length));
  out(`tool (profile 8) vs real Laravel ${version}, after normalisation:\n`);
  // A single server and a cluster, each started when a scenario first needs it.
  const results: ConformanceResult[] = await withLazyRedis(async (ctx) => {
    const all: ConformanceResult[] = [];
    for (const { file, spec } of specs) {
      const r = await conformScenario(spec, await targetFor(spec, ctx), { file });
      all.push(r);
      out(line(r, width, chalk, o.full ?? false));
    }
    return all;
  });
  const count = (s: ConformanceResult['status']) => results.filter((r) => r.status === s).length;
  out(
    `${count('identical')} identical, ${count('different')} different, ${count('not-comparable')} not comparable, ${count('error')} failed\n`,
  );
  return count('different') + count('error') > 0 ? 1 : 0;
}

function line(r: ConformanceResult, width: number, chalk: ReturnType<typeof makeChalk>, full: boolean): string {
  const name = terminalSafe(r.scenario.padEnd(width));
  switch (r.status) {
    case 'identical':
      return `${chalk.green('identical     ')} ${name}  ${r.steps} steps, ${r.commands} commands\n`;
    case 'not-comparable':
      return `${chalk.yellow('not comparable')} ${name}  ${terminalSafe(r.reason)}\n`;
    case 'error':
      return `${chalk.red('failed        ')} ${name}  ${terminalSafe(r.message.split('\n')[0] ?? '')}\n`;
    case 'different': {
      const outcomes = r.outcomes.map((o) => `    ${terminalSafe(o)}\n`).join('');
      if (isIdentical(r.diff))
        return `${chalk.red('different     ')} ${name}  same trace, other outcomes:\n${outcomes}`;
      const shown = full ? r.diff : firstDifference(r.diff);
      const body = renderDiff(shown, { chalk, labels: [`${r.scenario}@8`, `laravel:${r.scenario}`] });
      return `${chalk.red('different     ')} ${name}  ${full ? 'the whole diff' : 'first difference'}:\n${indent(body)}${outcomes}`;
    }
  }
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => (l === '' ? l : `    ${l}`))
    .join('\n');
}
