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
//   npm run bench -- --one-job-only     sections 1 and 2 (start-up, and one job end to end)
//   npm run bench -- --explain-base fcec9bc   section 7's 200 MB figures beside that commit's
//
// The tool is run as a person runs it (node bin/lqsim.js, a bundle when `npm install` built one)
// and starts its own redis-server; real Laravel gets a server started here, with no MONITOR client
// ("bare") and with one (`redis-cli monitor`, "traced"), since the tool always traces.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { nodeCjsBundle } from '../scripts/bundle-options.mjs';
import { bundleIsFresh } from '../bin/freshness.js';
import { acquireRedis, type RedisServer } from '../src/redis/server.ts';
import { runScenario } from '../src/scenarios/runner.ts';
import { bigScenario, bigScenarioYaml } from './big-scenario.ts';
import type { Goal } from './measure.ts';
import { explainBench } from './explain-bench.ts';
import { floorUs, redisStartToPongMs, ReplayRecorder, replayWallUs, roundTripUs } from './floor.ts';
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
/** Section 5's timed engine runs (after the process's first) and replays: the rows are their medians. */
const SECTION5_RUNS = quick ? 3 : 5;
const toolEnv = { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '', FORCE_COLOR: '0' };
const scratch = mkdtempSync(join(tmpdir(), 'lqsim-bench-'));
// Removed however the bench ends: a section that throws, Ctrl-C (the tool's own signal handlers exit).
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
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

/** `lqsim run <file> --format ndjson`, through `via` (bin/lqsim.js of this clone, or of another layout). */
const runOf = (file: string, via = bin): string[] => [via, 'run', file, '--format', 'ndjson'];
const lqsimRun = (jobs: number): string[] => runOf(scenarioFile(jobs));

/**
 * The CLI laid out as a package installs it (bin/, dist/cli/ without its caches, scenarios/,
 * schema/, package.json; the clone's node_modules): what bin/lqsim.js takes for a published package.
 */
function installedLayout(): string {
  const dir = join(scratch, 'installed');
  mkdirSync(dir);
  for (const part of ['bin', 'scenarios', 'schema', 'package.json'])
    cpSync(join(root, part), join(dir, part), { recursive: true });
  cpSync(join(root, 'dist', 'cli'), join(dir, 'dist', 'cli'), {
    recursive: true,
    filter: (from) => !/[/\\](code|spec)-cache$/.test(from),
  });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

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

  // 2 and 3. The same flow, the tool against real Laravel. `toolMs`: the tool's time measured already.
  const sameFlow = (
    jobs: number,
    runs: number,
    toolMs?: number,
  ): { tool: number; bare: number | null; traced: number | null } => {
    const tool = toolMs ?? median(Array.from({ length: runs }, () => wall(process.execPath, lqsimRun(jobs))));
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
      line(`   ratio ${(tool / bare).toFixed(2)}x bare, ${(tool / traced).toFixed(2)}x traced`);
    }
    return { tool, bare, traced };
  };
  line();
  line(
    '2. one job dispatched and worked, end to end, against node -e 0 + a bare redis-server to its first PONG (target ≤ 2x)',
  );
  // The least any tool on node-redis (the tool's one Redis client, a fixed point) pays: Node's
  // start and node-redis loaded (the server's start can overlap it), bundled and loaded as the CLI
  // is (scripts/bundle-options.mjs: CommonJS, through bin/load-bundle.js with its code cache, warm)
  // and a client made of its base class, as the tool makes its own. Until the ninth session this
  // was node-redis loaded from node_modules, file by file, and its command class built
  // (RedisClient.factory): 340 ms here, where the tool loads it bundled and builds no such class;
  // in the ninth, bundled as an ES module, as the CLI then was (no code cache). Since the eleventh,
  // node-redis' client without the Redis Stack modules, as the CLI bundles it (redisClientOnly).
  const nodeRedisBundle = join(scratch, 'node-redis-floor.cjs');
  await build({
    ...nodeCjsBundle,
    stdin: { contents: "import { RedisClient } from 'redis'; new RedisClient({ RESP: 2 });", resolveDir: root },
    outfile: nodeRedisBundle,
  });
  // Started as bin/lqsim.js starts the CLI: a CommonJS entry (an ES module one starts ~15 ms slower).
  const nodeRedisRunner = join(scratch, 'node-redis-floor-run.cjs');
  writeFileSync(
    nodeRedisRunner,
    `require(${JSON.stringify(join(root, 'bin', 'load-bundle.js'))}).runBundle(${JSON.stringify(nodeRedisBundle)});\n`,
  );
  // A command's first run compiles what the next ones read from its code cache (bin/load-bundle.js),
  // and keeps the spec its scenario validated to (src/scenarios/spec-cache.ts): one run of each
  // first, not timed, as section 1 runs each command once. An edited scenario's run is below.
  wall(process.execPath, lqsimRun(1));
  wall(process.execPath, [nodeRedisRunner]);
  // The CLI as a package installs it: no src/, so bin/lqsim.js runs the bundle without checking a
  // clone's sources (bin/freshness.js' walk of src/), as every run from a clone does.
  const installed = installedLayout();
  const installedRun = runOf(scenarioFile(1), join(installed, 'bin', 'lqsim.js'));
  wall(process.execPath, installedRun);
  // The tool, its reference (node -e 0, a bare redis-server's start to its first PONG) and its
  // floor measured in turn, each once per round in a rotating order: a ratio of figures taken
  // minutes apart on a shared machine is the machine's (until the eleventh session the reference
  // was section 1's, and one run's node -e 0 took 89 ms against 62-66 ms minutes later).
  const rounds = 3 * reps;
  const taken: Record<'node' | 'pong' | 'tool' | 'floor' | 'installed', number[]> = {
    node: [],
    pong: [],
    tool: [],
    floor: [],
    installed: [],
  };
  const measures: Array<[keyof typeof taken, () => Promise<number> | number]> = [
    ['node', () => wall(process.execPath, ['-e', '0'])],
    ['pong', () => redisStartToPongMs()],
    ['tool', () => wall(process.execPath, lqsimRun(1))],
    ['floor', () => wall(process.execPath, [nodeRedisRunner])],
    ['installed', () => wall(process.execPath, installedRun)],
  ];
  for (let round = 0; round < rounds; round++)
    for (let k = 0; k < measures.length; k++) {
      const [what, measure] = measures[(round + k) % measures.length]!;
      taken[what].push(await measure());
    }
  const nodeAlone = median(taken.node);
  const startFloor = nodeAlone + median(taken.pong);
  const nodeRedisMs = median(taken.floor);
  line(
    `   (${rounds} rounds, each of the five in turn: node -e 0 alone ${ms(nodeAlone)}; a bare redis-server from spawn to its first PONG ${ms(median(taken.pong))})`,
  );
  const one = sameFlow(1, reps, median(taken.tool));
  const oneRatio = one.tool / startFloor;
  const uncached = median(
    Array.from({ length: reps }, () => wall(process.execPath, lqsimRun(1), { ...toolEnv, LQSIM_CODE_CACHE: '0' })),
  );
  line(`   (without its caches, as a command's first run: ${ms(uncached)})`);
  // A text the CLI has not run before (an edited scenario): its code cache read, its YAML parsed and
  // validated (src/scenarios/spec-cache.ts keeps the spec for the next run of that text).
  const edited = median(
    Array.from({ length: reps }, (_, i) => {
      const file = join(scratch, `bench-1-edited-${i}.yaml`);
      writeFileSync(file, `${bigScenarioYaml(1)}\n# edit ${i} of ${process.pid}\n`);
      return wall(process.execPath, runOf(file));
    }),
  );
  line(`   (a scenario text it has not run before, an edited file: ${ms(edited)})`);
  const installedMs = median(taken.installed);
  line(
    `   (as a package installs it, with no src/ to check for edits since the build: ${ms(installedMs)}, ${(installedMs / startFloor).toFixed(2)}x; the row is a clone's, which checks)`,
  );
  const oneFloor = nodeRedisMs / startFloor;
  line(`   ${s(one.tool)} against ${ms(startFloor)}: ${oneRatio.toFixed(2)}x (${verdict(oneRatio <= 2)})`);
  line(
    `   floor: node loading node-redis (bundled and code-cached, as the CLI is) and making a client, ${ms(nodeRedisMs)}: ${oneFloor.toFixed(2)}x${oneFloor > 2 ? ': the target is below it' : ''}`,
  );
  goals.push({
    ...ratioGoal(
      'one job, end to end, vs `node -e 0` + redis-server start to first PONG',
      ms(one.tool),
      ms(startFloor),
      oneRatio,
      2,
    ),
    floor: `${oneFloor.toFixed(2)}x`,
    belowFloor: oneFloor > 2,
  });
  if (args.includes('--one-job-only')) {
    await server.stop();
    return finish();
  }
  line();
  line(
    `3. ${small.toLocaleString('en')} jobs dispatched, then worked by one worker, against real Laravel traced by redis-cli monitor (target ≤ 0.7x)`,
  );
  const flow = sameFlow(small, 1);
  const smallMs = flow.tool;
  const smallGoal = ratioGoal(
    `${small.toLocaleString('en')} jobs, vs Laravel traced by MONITOR`,
    s(flow.tool),
    flow.traced === null ? '' : s(flow.traced),
    flow.traced === null ? null : flow.tool / flow.traced,
    0.7,
  );
  goals.push(smallGoal);
  line(`   (${verdict(smallGoal.met)}; its floor is printed with section 5, which measures it)`);

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
  line(
    "5. per traced Laravel command, the engine in process, against Redis' own time for the same commands under MONITOR (target ≤ 1.5x)",
  );
  const pingUs = pingFloorUs(server);
  // The timed runs hand each command to a caller that keeps nothing, as a stream written out does;
  // a run more, not timed, records the same flow's commands for the replays (holding 50,000 of
  // them in a timed run cost it 7-12% in GC, measured). The process's first run of the engine also
  // pays V8's compiling of its paths (44-47 µs a command where the runs after it took 37-42 µs,
  // measured): it is shown, and the row is the median of the runs after it.
  const engineRun = async (): Promise<{ ms: number; counted: number }> => {
    let counted = 0;
    const e0 = performance.now();
    const timeline = await runScenario(bigScenario(small), {
      redis: server,
      keepSteps: false,
      snapshots: 'sizes',
      onCommand: (c) => void (c.source === 'client' && counted++),
    });
    const wall = performance.now() - e0;
    if (timeline.error) throw new Error(`engine run: ${timeline.error}`);
    return { ms: wall, counted };
  };
  const first = await engineRun();
  const engineRuns: number[] = [];
  for (let i = 0; i < SECTION5_RUNS; i++) {
    const r = await engineRun();
    if (r.counted !== first.counted)
      throw new Error(`engine runs traced ${first.counted} and ${r.counted} commands: the flow is not the same`);
    engineRuns.push(r.ms);
  }
  const engineMs = median(engineRuns);
  const counted = first.counted;
  const recorder = new ReplayRecorder();
  const recorded = await runScenario(bigScenario(small), {
    redis: server,
    keepSteps: false,
    snapshots: 'sizes',
    onCommand: (c) => recorder.add(c),
  });
  if (recorded.error) throw new Error(`engine run: ${recorded.error}`);
  const commands = recorder.commands;
  if (commands.length !== counted)
    throw new Error(`the recorded run traced ${commands.length} commands, the timed ones ${counted}`);
  const traced = commands.length;
  const perTraced = (engineMs * 1000) / traced;
  const rttUs = await roundTripUs(server);
  const { redisUs, trips } = await floorUs(server, commands, rttUs);
  const ownUs = redisUs / traced;
  const sumFloor = (ownUs + (trips * rttUs) / traced) / ownUs;
  const replays: number[] = [];
  for (let i = 0; i < SECTION5_RUNS; i++) replays.push(await replayWallUs(server, commands));
  const replayUs = median(replays);
  const floorRatio = replayUs / traced / ownUs;
  line(
    `   ${traced.toLocaleString('en')} traced commands in ${s(engineMs)} (the median of ${SECTION5_RUNS} runs; the process's first took ${s(first.ms)}, ${((first.ms * 1000) / traced).toFixed(1)} µs a command): ${perTraced.toFixed(1)} µs each; Redis' own time for them under MONITOR ${ownUs.toFixed(1)} µs each: ${(perTraced / ownUs).toFixed(2)}x (${verdict(perTraced / ownUs <= 1.5)})`,
  );
  line(
    `   floor: the ${trips.toLocaleString('en')} round trips its trace cannot do without (${rttUs.toFixed(1)} µs each, PING over a bare node:net socket; Laravel takes one per command) + Redis' own time = ${(ownUs + (trips * rttUs) / traced).toFixed(1)} µs a command, ${sumFloor.toFixed(2)}x`,
  );
  line(
    `   the same commands replayed through node-redis with only those round trips, MONITOR attached and read (floor.ts' replayWallUs, the median of ${SECTION5_RUNS}): ${s(replayUs / 1000)}, ${(replayUs / traced).toFixed(1)} µs a command, ${floorRatio.toFixed(2)}x${floorRatio > 1.5 ? ': the target is below it' : ''}; the engine took ${(perTraced / (replayUs / traced)).toFixed(2)}x the replay's time`,
  );
  const admin = (await import('redis')).createClient({ socket: { host: server.host, port: server.port }, RESP: 2 });
  await admin.connect();
  const pings = 2000;
  const p0 = performance.now();
  for (let i = 0; i < pings; i++) await admin.ping();
  const clientUs = ((performance.now() - p0) * 1000) / pings;
  admin.destroy();
  line(
    `   (redis-benchmark -c 1 -P 1 -t ping: ${pingUs.toFixed(1)} µs; one PING through node-redis: ${clientUs.toFixed(1)} µs)`,
  );
  goals.push({
    ...ratioGoal(
      "per traced command (engine, in process), vs Redis' own time under MONITOR",
      `${perTraced.toFixed(0)} µs`,
      `${ownUs.toFixed(0)} µs`,
      perTraced / ownUs,
      1.5,
    ),
    floor: `${floorRatio.toFixed(2)}x`,
    belowFloor: floorRatio > 1.5,
  });
  // Section 3's floor: the same flow replayed with only its unavoidable round trips (which holds
  // Redis' own time for its traced commands), plus what starting node and a redis-server costs
  // (section 1).
  if (flow.traced !== null) {
    const flowFloorMs = startFloor + replayUs / 1000;
    const ratio = flowFloorMs / flow.traced;
    smallGoal.floor = `${ratio.toFixed(2)}x`;
    smallGoal.belowFloor = ratio > 0.7;
    line(
      `   section 3's floor: ${ms(startFloor)} start + the replay's ${s(replayUs / 1000)} (${s(redisUs / 1000)} of it in Redis' own time) = ${s(flowFloorMs)}, ${ratio.toFixed(2)}x Laravel traced${ratio > 0.7 ? ': the target is below it' : ''}`,
    );
  }

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
    '8. the package: npm pack (target ≤ 2 MB packed; test/integration/package.test.ts bounds it at 2.5 MB), then npm install of it',
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
