// `npm run bench`: the four figures of the performance budget (README "Performance"), measured
// against a local redis-server started here. Machines are noisy: this prints, it does not assert.
//   1. wall time to replay every shipped scenario, redis-server start included   (target < 2 s)
//   2. the tool's time per Redis command against redis-benchmark's round trip on the same server,
//      in the same run                                                            (target <= 1.5x)
//   3. time and memory for a 10,000-job and a 100,000-job scenario                (target: linear)
//   4. the TUI's first frame after Redis is up                                    (target < 300 ms)
// Options: --jobs 10000,100000 (the sizes of 3), --skip-tui.
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { acquireRedis, type RedisServer } from '../src/redis/server.ts';
import { listScenarios } from '../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../src/scenarios/load.ts';
import { runScenario } from '../src/scenarios/runner.ts';
import type { Timeline } from '../src/scenarios/timeline.ts';
import { bigScenario } from './big-scenario.ts';
import { firstFrameMs } from './first-frame.ts';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const sizes = (opt('--jobs') ?? '10000,100000').split(',').map(Number);
const localOnly = { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' };

// A full GC before and after each big run, so the heap figure is what the timeline keeps.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ms = (x: number): string => `${x.toFixed(0)} ms`;
const verdict = (ok: boolean): string => (ok ? 'within target' : 'OVER TARGET');
const line = (s: string): void => void process.stdout.write(`${s}\n`);

/** Commands the server executed (INFO stats), to count the tool's own ones too. */
async function commandsProcessed(
  server: RedisServer,
  observer: { sendCommand(a: string[]): Promise<unknown> },
): Promise<number> {
  void server;
  return Number(/total_commands_processed:(\d+)/.exec(String(await observer.sendCommand(['INFO', 'stats'])))?.[1]);
}

function tracedCommands(t: Timeline): number {
  return t.steps.reduce((n, s) => n + s.commands.filter((c) => c.source === 'client').length, 0);
}

/** redis-benchmark: one client, no pipelining, PING: the floor of one round trip, in µs. */
function roundTripFloorUs(server: RedisServer): number {
  const csv = execFileSync(
    'redis-benchmark',
    ['-h', server.host, '-p', String(server.port), '-c', '1', '-P', '1', '-n', '20000', '-t', 'ping', '--csv'],
    {
      encoding: 'utf8',
    },
  );
  // "PING_INLINE","45454.55",... then "PING_MBULK",...: take the MBULK (RESP) one, as node-redis sends.
  const rows = csv
    .trim()
    .split('\n')
    .slice(1)
    .map((r) => r.split(',').map((f) => f.replaceAll('"', '')));
  const mbulk = rows.find((r) => r[0] === 'PING_MBULK') ?? rows.at(-1)!;
  return 1e6 / Number(mbulk[1]);
}

/** PING over a bare TCP socket from Node, awaiting each reply: Node's own floor per command, in µs. */
async function rawSocketRoundTripUs(server: RedisServer, n: number): Promise<number> {
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
  for (let i = 0; i < 200; i++) await ping(); // warm up
  const t = performance.now();
  for (let i = 0; i < n; i++) await ping();
  const us = ((performance.now() - t) * 1000) / n;
  socket.destroy();
  return us;
}

async function main(): Promise<void> {
  line(`lqsim bench (node ${process.version}, ${new Date().toISOString()})`);

  // 1. Every shipped scenario, server start included.
  const t0 = performance.now();
  const server = await acquireRedis({ env: localOnly });
  const started = performance.now();
  const scenarios = await listScenarios();
  let traced = 0;
  let steps = 0;
  const { createClient } = await import('redis');
  const admin = createClient({ socket: { host: server.host, port: server.port }, RESP: 2 });
  await admin.connect();
  const before = await commandsProcessed(server, admin);
  const runStart = performance.now();
  for (const entry of scenarios) {
    const { spec } = await loadScenarioFile(entry.file);
    const t = await runScenario(spec, { redis: server, file: entry.file });
    if (t.error) throw new Error(`${entry.name}: ${t.error}`);
    traced += tracedCommands(t);
    steps += t.steps.length;
  }
  const runMs = performance.now() - runStart;
  const sent = (await commandsProcessed(server, admin)) - before - 1;
  const allMs = performance.now() - t0;
  line('');
  line(
    `1. all ${scenarios.length} shipped scenarios, redis-server start included: ${ms(allMs)} (target < 2000 ms: ${verdict(allMs < 2000)})`,
  );
  line(`   redis-server start ${ms(started - t0)}, replay ${ms(runMs)}: ${steps} steps, ${traced} traced commands`);

  // 2. Per command, against the round-trip floor on the same server.
  const floorUs = roundTripFloorUs(server);
  const perTracedUs = (runMs * 1000) / traced;
  const perSentUs = (runMs * 1000) / sent;
  line('');
  line(`2. round-trip floor (redis-benchmark -c 1 -P 1 -t ping, same server): ${floorUs.toFixed(1)} µs`);
  line(
    `   per command the server executed for the tool (${sent}: Laravel's, barriers, snapshots, connects): ${perSentUs.toFixed(1)} µs = ${(perSentUs / floorUs).toFixed(2)}x the floor (target <= 1.5x: ${verdict(perSentUs / floorUs <= 1.5)})`,
  );
  line(
    `   per traced Laravel command (${traced}): ${perTracedUs.toFixed(1)} µs = ${(perTracedUs / floorUs).toFixed(2)}x the floor`,
  );
  // For scale: the same round trip through node-redis, which every command of the tool pays.
  const pings = 2000;
  const p0 = performance.now();
  for (let i = 0; i < pings; i++) await admin.ping();
  const clientUs = ((performance.now() - p0) * 1000) / pings;
  line(
    `   (one PING round trip through node-redis itself: ${clientUs.toFixed(1)} µs = ${(clientUs / floorUs).toFixed(2)}x the floor)`,
  );
  // And with no client library at all: Node's own socket, one PING, await the reply. What any
  // Node program pays per awaited command, so the lowest ratio this design could reach.
  const rawUs = await rawSocketRoundTripUs(server, pings);
  line(
    `   (one PING round trip over a bare node:net socket, no client library: ${rawUs.toFixed(1)} µs = ${(rawUs / floorUs).toFixed(2)}x the floor)`,
  );
  admin.destroy();

  // 3. Big scenarios: time and memory, and how they grow.
  line('');
  line('3. N-job scenarios (dispatch N, one worker runs them all):');
  const results: Array<{ n: number; ms: number; steps: number; heapMb: number; rssMb: number }> = [];
  for (const n of sizes) {
    const spec = bigScenario(n);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
    const s = performance.now();
    const t = await runScenario(spec, { redis: server });
    const took = performance.now() - s;
    clearInterval(sampler);
    if (t.error) throw new Error(`${n} jobs: ${t.error}`);
    gc();
    const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    results.push({ n, ms: took, steps: t.steps.length, heapMb, rssMb: peakRss / 2 ** 20 });
    line(
      `   ${String(n).padStart(7)} jobs: ${ms(took).padStart(9)}, ${t.steps.length} steps, ${((took * 1000) / t.steps.length).toFixed(0)} µs/step, timeline heap ${heapMb.toFixed(0)} MB, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB`,
    );
  }
  if (results.length >= 2) {
    const [a, b] = [results[0]!, results.at(-1)!];
    const scale = b.n / a.n;
    const timeRatio = b.ms / a.ms / scale;
    const memRatio = b.heapMb / a.heapMb / scale;
    line(
      `   growth ${a.n} → ${b.n} (×${scale}): time ×${(b.ms / a.ms).toFixed(1)} (${timeRatio.toFixed(2)} of linear), memory ×${(b.heapMb / a.heapMb).toFixed(1)} (${memRatio.toFixed(2)} of linear) (target: linear, ~1.0: ${verdict(timeRatio < 1.3 && memRatio < 1.3)})`,
    );
  }

  // 4. The TUI's first frame.
  if (!args.includes('--skip-tui')) {
    const { importMs, frameMs } = await firstFrameMs(server);
    line('');
    line(
      `4. TUI first frame (step #0 drawn) after Redis is up: ${ms(frameMs)} (target < 300 ms: ${verdict(frameMs < 300)})`,
    );
    line(`   (before that, importing the UI took ${ms(importMs)}; the CLI does it before it starts Redis)`);
  }
  await server.stop();
}

await main();
