// Bench section 7: `lqsim explain` on large captures. (a) memory must not grow with the capture,
// time linear: a 10 MB and a 100 MB capture of real Laravel 8.83's three jobs repeated. (b) a
// 200 MB capture with a connection per request and per `--once` worker (as real captures have,
// issue 24), text and json: peak RSS (target ≤ 150 MB) and throughput (target ≥ 100 MB/s), beside
// the same figures of a base commit (`--explain-base <git ref>`: archived, its bundle built and run
// on the same file in the same run).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeBigCapture } from './big-capture.ts';
import type { Goal } from './measure.ts';
import { peakRssMb, ratioGoal, verdict } from './measure.ts';

export interface ExplainBench {
  /** The clone being measured, and its bin/lqsim.js. */
  root: string;
  bin: string;
  scratch: string;
  env: NodeJS.ProcessEnv;
  /** A git ref to measure beside it (today's figure), or undefined. */
  base: string | undefined;
  line: (s?: string) => void;
}

const s = (x: number): string => `${(x / 1000).toFixed(2)} s`;

/**
 * `runs` runs of `lqsim explain` of `file`: the fastest wall time (a shared machine's other load
 * only ever adds time) and the highest peak RSS of them.
 */
function explainBest(
  bin: string,
  file: string,
  format: string,
  env: NodeJS.ProcessEnv,
  runs = 3,
): { took: number; mb: number } {
  const all = Array.from({ length: runs }, () => explainOnce(bin, file, format, env));
  return { took: Math.min(...all.map((r) => r.took)), mb: Math.max(...all.map((r) => r.mb)) };
}

/** One `lqsim explain` of `file`: wall time (ms) and peak RSS (MB), its output thrown away. */
function explainOnce(bin: string, file: string, format: string, env: NodeJS.ProcessEnv): { took: number; mb: number } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, bin, 'explain', file, '--format', format], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const took = performance.now() - t0;
  if (r.status !== 0) throw new Error(`explain ${file} --format ${format} failed: ${r.stderr.slice(-300)}`);
  return { took, mb: peakRssMb(r.stderr) };
}

/** The base ref's tree beside the scratch files, with the clone's node_modules and its own bundle. */
function baseBin(o: ExplainBench, ref: string): string {
  const dir = join(o.scratch, 'base');
  mkdirSync(dir);
  const archive = execFileSync('git', ['-C', o.root, 'archive', ref], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(realpathSync(join(o.root, 'node_modules')), join(dir, 'node_modules'));
  execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: dir, stdio: 'ignore' });
  return join(dir, 'bin', 'lqsim.js');
}

export function explainBench(o: ExplainBench): Goal[] {
  const { line } = o;
  const goals: Goal[] = [];
  line(
    '7. lqsim explain on a 10 MB and a 100 MB capture of real Laravel 8.83 (target: peak RSS ≤ 1.5x, time ≤ 1.3 of linear)',
  );
  const explained = [10e6, 100e6].map((bytes) => {
    const file = join(o.scratch, `capture-${bytes}.txt`);
    const { lines } = writeBigCapture(file, bytes);
    const { took, mb } = explainOnce(o.bin, file, 'text', o.env);
    line(
      `   ${(bytes / 1e6).toFixed(0)} MB, ${lines.toLocaleString('en')} lines: ${s(took)}, peak RSS ${mb.toFixed(0)} MB`,
    );
    return { took, mb };
  });
  const [ten, hundred] = explained as [{ took: number; mb: number }, { took: number; mb: number }];
  const rssRatio = hundred.mb / ten.mb;
  const explainLinear = hundred.took / ten.took / 10;
  goals.push(
    ratioGoal(
      '`lqsim explain` 100 MB capture, peak RSS against 10 MB',
      `${hundred.mb.toFixed(0)} MB`,
      `${ten.mb.toFixed(0)} MB`,
      rssRatio,
      1.5,
    ),
  );
  goals.push({
    goal: '`lqsim explain` 100 MB capture, time against 10 MB × 10',
    tool: s(hundred.took),
    reference: s(ten.took * 10),
    value: explainLinear,
    target: '≤ 1.3x',
    met: explainLinear <= 1.3,
  });

  // (b) A connection per request and per --once worker.
  const bytes = 200e6;
  const file = join(o.scratch, 'capture-per-job.txt');
  const big = writeBigCapture(file, bytes, { connectionPerJob: true });
  const base = o.base === undefined ? undefined : baseBin(o, o.base);
  line(
    `7b. lqsim explain on a 200 MB capture with a connection per request and per --once worker: ${big.lines.toLocaleString('en')} lines, ${big.connections.toLocaleString('en')} connections (target ≤ 150 MB peak RSS, ≥ 100 MB/s; the fastest of 3 runs, the highest peak)${o.base === undefined ? '' : `; beside ${o.base}`}`,
  );
  for (const format of ['text', 'json']) {
    const now = explainBest(o.bin, file, format, o.env);
    const then = base === undefined ? undefined : explainBest(base, file, format, o.env);
    const rate = (r: { took: number }): number => bytes / 1e6 / (r.took / 1000);
    line(
      `   --format ${format}: ${s(now.took)} (${rate(now).toFixed(0)} MB/s), peak RSS ${now.mb.toFixed(0)} MB` +
        (then === undefined
          ? ''
          : `; ${o.base}: ${s(then.took)} (${rate(then).toFixed(0)} MB/s), peak RSS ${then.mb.toFixed(0)} MB`) +
        `  ${verdict(now.mb <= 150 && rate(now) >= 100)}`,
    );
    goals.push({
      goal: `\`lqsim explain --format ${format}\` 200 MB, a connection per job, peak RSS`,
      tool: `${now.mb.toFixed(0)} MB`,
      reference: then === undefined ? '' : `${then.mb.toFixed(0)} MB (${o.base})`,
      value: now.mb,
      target: '≤ 150 MB',
      met: now.mb <= 150,
    });
    goals.push({
      goal: `\`lqsim explain --format ${format}\` 200 MB, a connection per job, throughput`,
      tool: `${rate(now).toFixed(0)} MB/s`,
      reference: then === undefined ? '' : `${rate(then).toFixed(0)} MB/s (${o.base})`,
      value: rate(now),
      target: '≥ 100 MB/s',
      met: rate(now) >= 100,
    });
  }
  return goals;
}
