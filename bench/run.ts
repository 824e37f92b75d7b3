// `npm run bench`: the performance goals (docs/performance.md), each as a figure measured in this
// run against a reference measured in the same run: real Laravel 8.83 on the same flow
// (bench/laravel.php on Debian's packages), redis-benchmark's round trip on the same server, or an
// absolute budget. Machines are noisy: this prints, it asserts nothing.
//
//   npm run bench                       every goal; 10,000 and 100,000 jobs
//   npm run bench -- --quick            1,000 and 10,000 jobs, fewer repetitions
//   npm run bench -- --jobs 5000,50000  other sizes (the second is the memory and linearity run)
//   npm run bench -- --skip-tui         no TUI figure (needs util-linux `script`)
//   npm run bench -- --explain-only     section 7 alone (lqsim explain on large captures)
//   npm run bench -- --lab-only         section 9 alone (the TUI's → and the lab's actions, in a pty)
//   npm run bench -- --warm-only        section 10 alone (each shipped scenario on a warm server)
//   npm run bench -- --explain-base fcec9bc   section 7's 200 MB figures beside that commit's
//
// The tool is run as a person runs it (node bin/lqsim.js, a bundle when `npm install` built one)
// and starts its own redis-server; real Laravel gets a server started here, with no MONITOR client
// ("bare") and with one (`redis-cli monitor`, "traced"), since the tool always traces.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { bundleIsFresh } from '../bin/freshness.js';
import { acquireRedis, type RedisServer } from '../src/redis/server.ts';
import { runScenario } from '../src/scenarios/runner.ts';
import { bigScenario, bigScenarioYaml } from './big-scenario.ts';
import type { Goal } from './measure.ts';
import { explainBench } from './explain-bench.ts';
import { labBench } from './lab-bench.ts';
import { packageFigures } from './package-size.ts';
import { benchmarkPingUs, goalTable, median, parseJobSizes, peakRssMb, ratioGoal, verdict } from './measure.ts';
import { tuiFirstFrameMs } from './tui-first-frame.ts';
import { warmRuns } from './warm-runs.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'lqsim.js');
const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const quick = args.includes('--quick');
let small: number;
let big: number;
try {
  // `--jobs` with nothing after it is a usage error too, not the default sizes.
  const jobs = args.includes('--jobs') ? (opt('--jobs') ?? '') : quick ? '1000,10000' : '10000,100000';
  [small, big] = parseJobSizes(jobs);
} catch (e) {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
}
const reps = quick ? 3 : 7;
const toolEnv = { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '', FORCE_COLOR: '0' };
const scratch = mkdtempSync(join(tmpdir(), 'lqsim-bench-'));
const goals: Goal[] = [];

const line = (s = ''): void => void process.stdout.write(`${s}\n`);
const ms = (x: number): string => `${x.toFixed(0)} ms`;
const s = (x: number): string => `${(x / 1000).toFixed(2)} s`;

/** Wall time of a child process, in ms; throws when it fails. */
function wall(command: string, argv: string[], env: NodeJS.ProcessEnv = toolEnv): number {
  const t = performance.now();
  const r = spawnSync(command, argv, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const took = performance.now() - t;
  if (r.status !== 0) throw new Error(`${command} ${argv.join(' ')} failed (${r.status}): ${r.stderr.slice(-300)}`);
  return took;
}

/** The bench scenario with N jobs, as a file the CLI can run. */
function scenarioFile(jobs: number): string {
  const file = join(scratch, `bench-${jobs}.yaml`);
  if (!existsSync(file)) writeFileSync(file, bigScenarioYaml(jobs));
  return file;
}

const lqsimRun = (jobs: number): string[] => [bin, 'run', scenarioFile(jobs), '--format', 'ndjson'];

/** Why real Laravel cannot run here, or null. */
function laravelUnavailable(): string | null {
  if (spawnSync('php', ['-r', 'exit(extension_loaded("redis") ? 0 : 3);']).status !== 0)
    return 'php with phpredis not found (Debian: apt-get install php-cli php-redis)';
  if (!existsSync('/usr/share/php/Illuminate/autoload.php'))
    return 'Laravel 8.83 not found (Debian: apt-get install php-laravel-framework; or scripts/setup.mjs --laravel)';
  return null;
}

/** µs per EVAL inside Redis since the last CONFIG RESETSTAT (INFO commandstats). */
function evalUsInRedis(server: RedisServer): number {
  const stats = execFileSync('redis-cli', ['-h', server.host, '-p', String(server.port), 'INFO', 'commandstats'], {
    encoding: 'utf8',
  });
  return Number(/cmdstat_eval:calls=\d+,usec=\d+,usec_per_call=([\d.]+)/.exec(stats)?.[1] ?? NaN);
}

/** EVAL's cost inside Redis in the last real-Laravel run, bare and traced (what MONITOR adds). */
const laravelEvalUs = { bare: NaN, traced: NaN };

/** Real Laravel's wall time for N jobs: one process dispatches them, then one worker works them all. */
function laravelMs(server: RedisServer, jobs: number, traced: boolean): number {
  const env = { ...process.env, PROBE_LOG: '/dev/null' };
  const php = (what: string[]): number =>
    wall(
      'php',
      [join(root, 'bench', 'laravel.php'), what[0]!, server.host, String(server.port), ...what.slice(1)],
      env,
    );
  execFileSync('redis-cli', ['-h', server.host, '-p', String(server.port), 'FLUSHALL']);
  execFileSync('redis-cli', ['-h', server.host, '-p', String(server.port), 'CONFIG', 'RESETSTAT']);
  const monitor = traced
    ? spawn('redis-cli', ['-h', server.host, '-p', String(server.port), 'monitor'], { stdio: 'ignore' })
    : null;
  try {
    if (monitor !== null) spawnSync('sleep', ['0.2']); // let it attach
    const took = php(['dispatch', String(jobs)]) + php(['work', '0']);
    laravelEvalUs[traced ? 'traced' : 'bare'] = evalUsInRedis(server);
    return took;
  } finally {
    monitor?.kill();
  }
}

/** redis-benchmark, one client, no pipelining, PING: one round trip on this server, in µs. */
function pingFloorUs(server: RedisServer): number {
  const csv = execFileSync(
    'redis-benchmark',
    ['-h', server.host, '-p', String(server.port), '-c', '1', '-P', '1', '-n', '20000', '-t', 'ping', '--csv'],
    { encoding: 'utf8' },
  );
  return benchmarkPingUs(csv);
}

/** PING over a bare node:net socket, awaiting each reply: what any Node client pays, in µs. */
async function rawSocketPingUs(server: RedisServer, n: number): Promise<number> {
  const socket = connect(server.port, server.host);
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let replied: () => void = () => undefined;
  socket.on('data', () => replied());
  const ping = () =>
    new Promise<void>((resolve) => {
      replied = resolve;
      socket.write('*1\r\n$4\r\nPING\r\n');
    });
  for (let i = 0; i < 200; i++) await ping();
  const t = performance.now();
  for (let i = 0; i < n; i++) await ping();
  const us = ((performance.now() - t) * 1000) / n;
  socket.destroy();
  return us;
}

async function main(): Promise<void> {
  line(`lqsim bench: node ${process.version}, ${new Date().toISOString()}, ${reps} runs per short figure (median)`);
  const fresh = bundleIsFresh(root);
  line(
    fresh
      ? 'bin/lqsim.js runs the bundle (dist/cli, built from src/ as it is)'
      : 'bin/lqsim.js runs the sources through tsx: the bundle is missing or older than src/ (npm run build:cli)',
  );
  if (args.includes('--lab-only')) {
    line();
    goals.push(...(await labBench({ bin, env: toolEnv, cwd: scratch, line })));
    return finish();
  }
  if (args.includes('--explain-only')) {
    line();
    goals.push(...explainBench({ root, bin, scratch, env: toolEnv, base: opt('--explain-base'), line }));
    return finish();
  }
  const server = await acquireRedis({ env: toolEnv });
  if (args.includes('--warm-only')) {
    line();
    goals.push(...(await warmRuns({ server, env: toolEnv, reps, line })));
    await server.stop();
    return finish();
  }
  const noLaravel = laravelUnavailable();
  if (noLaravel !== null) line(`real Laravel: not available (${noLaravel}); its column stays empty`);

  // 1. Start-up of the commands that need no Redis.
  line();
  line('1. start-up, from spawn to exit (target ≤ 150 ms each)');
  for (const cmd of [['--version'], ['list'], ['--help']]) {
    wall(process.execPath, [bin, ...cmd]); // warm the page cache
    const t = median(Array.from({ length: reps }, () => wall(process.execPath, [bin, ...cmd])));
    line(`   lqsim ${cmd.join(' ').padEnd(9)} ${ms(t).padStart(7)}  ${verdict(t <= 150)}`);
    goals.push({
      goal: `\`lqsim ${cmd.join(' ')}\``,
      tool: ms(t),
      reference: '',
      value: t,
      target: '≤ 150 ms',
      met: t <= 150,
    });
  }
  const nodeAlone = median(Array.from({ length: reps }, () => wall(process.execPath, ['-e', '0'])));
  line(`   (node -e 0 alone: ${ms(nodeAlone)})`);

  // 2 and 3. The same flow, the tool against real Laravel.
  const sameFlow = (label: string, jobs: number, runs: number, max: number): number => {
    const tool = median(Array.from({ length: runs }, () => wall(process.execPath, lqsimRun(jobs))));
    let bare: number | null = null;
    let traced: number | null = null;
    if (noLaravel === null) {
      bare = median(Array.from({ length: runs }, () => laravelMs(server, jobs, false)));
      traced = median(Array.from({ length: runs }, () => laravelMs(server, jobs, true)));
    }
    line(`   lqsim run --format ndjson (its own redis-server started and stopped): ${s(tool)}`);
    if (bare !== null && traced !== null) {
      line(`   real Laravel 8.83, bare: ${s(bare)}; traced by redis-cli monitor: ${s(traced)}`);
      line(
        `   (inside Redis, one of Laravel's EVALs took ${laravelEvalUs.bare.toFixed(1)} µs bare, ${laravelEvalUs.traced.toFixed(1)} µs with MONITOR attached)`,
      );
      line(
        `   ratio ${(tool / bare).toFixed(2)}x bare, ${(tool / traced).toFixed(2)}x traced (target ≤ ${max}x: ${verdict(tool / bare <= max)} against bare)`,
      );
      goals.push(ratioGoal(`${label}, vs Laravel bare`, s(tool), s(bare), tool / bare, max));
      goals.push(ratioGoal(`${label}, vs Laravel traced by MONITOR`, s(tool), s(traced), tool / traced, max));
    } else goals.push(ratioGoal(label, s(tool), '', null, max));
    return tool;
  };
  line();
  line('2. one job dispatched and worked, end to end (target ≤ 0.6x real Laravel)');
  sameFlow('one job, end to end', 1, reps, 0.6);
  line();
  line(`3. ${small.toLocaleString('en')} jobs dispatched, then worked by one worker (target ≤ 0.5x real Laravel)`);
  const smallMs = sameFlow(`${small.toLocaleString('en')} jobs`, small, 1, 0.5);

  // 4. The big run: peak memory and linearity.
  line();
  line(`4. ${big.toLocaleString('en')} jobs with lqsim run --format ndjson (target ≤ 300 MB peak RSS, time linear)`);
  const t = performance.now();
  const timed = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...lqsimRun(big)], {
    env: toolEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const bigMs = performance.now() - t;
  if (timed.status !== 0) throw new Error(`the ${big}-job run failed: ${timed.stderr.slice(-300)}`);
  const rss = peakRssMb(timed.stderr);
  const linear = bigMs / smallMs / (big / small);
  line(`   ${s(bigMs)}, peak RSS ${rss.toFixed(0)} MB (${verdict(rss <= 300)})`);
  line(
    `   ×${(big / small).toFixed(0)} jobs took ×${(bigMs / smallMs).toFixed(1)} the time: ${linear.toFixed(2)} of linear (${verdict(linear <= 1.3)} at ≤ 1.3)`,
  );
  goals.push({
    goal: `${big.toLocaleString('en')} jobs, peak RSS`,
    tool: `${rss.toFixed(0)} MB`,
    reference: '',
    value: rss,
    target: '≤ 300 MB',
    met: rss <= 300,
  });
  goals.push({
    goal: `${big.toLocaleString('en')} jobs, time against ${small.toLocaleString('en')} jobs × ${big / small}`,
    tool: s(bigMs),
    reference: s(smallMs * (big / small)),
    value: linear,
    target: '≤ 1.3x',
    met: linear <= 1.3,
  });

  // 5. Per traced command, in process (no start-up): against redis-benchmark on the same server.
  line();
  line('5. per traced Laravel command, the engine in process, against one redis-benchmark round trip (target ≤ 3x)');
  const floor = pingFloorUs(server);
  const admin = (await import('redis')).createClient({ socket: { host: server.host, port: server.port }, RESP: 2 });
  await admin.connect();
  await admin.sendCommand(['CONFIG', 'RESETSTAT']);
  let traced = 0;
  const e0 = performance.now();
  const timeline = await runScenario(bigScenario(small), {
    redis: server,
    keepSteps: false,
    snapshots: 'sizes',
    onCommand: (c) => void (c.source === 'client' && traced++),
  });
  const engineMs = performance.now() - e0;
  if (timeline.error) throw new Error(`engine run: ${timeline.error}`);
  const stats = String(await admin.sendCommand(['INFO', 'commandstats']));
  const evalUs = Number(/cmdstat_eval:calls=\d+,usec=\d+,usec_per_call=([\d.]+)/.exec(stats)?.[1]);
  const perTraced = (engineMs * 1000) / traced;
  line(`   redis-benchmark -c 1 -P 1 -t ping: ${floor.toFixed(1)} µs`);
  line(
    `   ${traced.toLocaleString('en')} traced commands in ${s(engineMs)}: ${perTraced.toFixed(1)} µs each = ${(perTraced / floor).toFixed(2)}x (${verdict(perTraced / floor <= 3)})`,
  );
  line(`   (inside Redis, an EVAL with MONITOR attached took ${evalUs.toFixed(1)} µs: INFO commandstats of that run)`);
  const pings = 2000;
  const p0 = performance.now();
  for (let i = 0; i < pings; i++) await admin.ping();
  const clientUs = ((performance.now() - p0) * 1000) / pings;
  const rawUs = await rawSocketPingUs(server, pings);
  line(
    `   (one PING through node-redis: ${clientUs.toFixed(1)} µs = ${(clientUs / floor).toFixed(2)}x; over a bare node:net socket: ${rawUs.toFixed(1)} µs = ${(rawUs / floor).toFixed(2)}x)`,
  );
  admin.destroy();
  goals.push(
    ratioGoal(
      'per traced command (engine, in process)',
      `${perTraced.toFixed(0)} µs`,
      `${floor.toFixed(0)} µs PING`,
      perTraced / floor,
      3,
    ),
  );

  // 6. The TUI's first frame, from the command's start.
  if (!args.includes('--skip-tui')) {
    line();
    line('6. lqsim tui: first frame (the premise) after the command starts, 80×24 pty (target ≤ 300 ms)');
    try {
      const frames: number[] = [];
      for (let i = 0; i < reps; i++) frames.push(await tuiFirstFrameMs(bin, 'timeout-max-attempts', { env: toolEnv }));
      const f = median(frames);
      line(`   ${ms(f)} (${verdict(f <= 300)})`);
      goals.push({
        goal: '`lqsim tui` first frame',
        tool: ms(f),
        reference: '',
        value: f,
        target: '≤ 300 ms',
        met: f <= 300,
      });
    } catch (e) {
      line(`   skipped: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  // 7. lqsim explain on large captures (bench/explain-bench.ts).
  line();
  goals.push(...explainBench({ root, bin, scratch, env: toolEnv, base: opt('--explain-base'), line }));

  // 8. The package a user installs: npm pack of a copy of this clone, installed into a fresh project.
  line();
  line(
    '8. the package: npm pack (target ≤ 2 MB packed, the bound test/integration/package.test.ts checks), then npm install of it',
  );
  const pack = packageFigures(root, join(scratch, 'pack'));
  for (const l of pack.lines) line(`   ${l}`);
  if (pack.goal !== null) goals.push(pack.goal);

  // 9. The TUI's → and the lab's actions, as a presenter drives them (bench/lab-bench.ts).
  if (!args.includes('--skip-tui')) {
    line();
    try {
      goals.push(...(await labBench({ bin, env: toolEnv, cwd: scratch, line })));
    } catch (e) {
      line(`   skipped: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  // 10. A warm server: each shipped scenario through runScenario in this process (bench/warm-runs.ts).
  line();
  goals.push(...(await warmRuns({ server, env: toolEnv, reps, line })));
  await server.stop();
  finish();
}

/** The end of a bench run, whole or one section: its scratch dir removed, the goals' table. */
function finish(): void {
  rmSync(scratch, { recursive: true, force: true });
  line();
  line(goalTable(goals));
}

await main();
