// Section 10 of `npm run bench`: a warm server. Every shipped scenario run by `runScenario` in this
// one process, as a test suite runs them (the modules loaded, the server up, the scenario parsed):
// each run's wall time from runScenario's call to its timeline, after warm-up runs; the median over
// the scenarios and the slowest, against absolute budgets (median ≤ 10 ms, max ≤ 50 ms), with the
// slowest ones' steps and CPU share so where the time goes can be read off. The cluster scenarios
// run on a local cluster started once before (its start is not a run's). Each single-server
// scenario's floor (floor.ts) is its traced commands replayed through node-redis with only the
// round trips its trace cannot do without, MONITOR attached (replayWallUs); the sum of those round
// trips and Redis' own time for the commands is printed beside it.
import { performance } from 'node:perf_hooks';
import type { RedisServer } from '../src/redis/server.ts';
import { listScenarios } from '../src/scenarios/catalog.ts';
import { acquireClusterTarget } from '../src/scenarios/cluster-config.ts';
import { loadScenarioFile } from '../src/scenarios/load.ts';
import type { RedisTarget } from '../src/scenarios/runner.ts';
import type { Timeline } from '../src/scenarios/timeline.ts';
import { runScenario } from '../src/scenarios/runner.ts';
import type { ReplayedCommand } from './floor.ts';
import { floorUs, ReplayRecorder, replayWallUs, roundTripUs } from './floor.ts';
import type { Goal } from './measure.ts';
import { median, verdict } from './measure.ts';

const MEDIAN_TARGET_MS = 10;
const MAX_TARGET_MS = 50;
/** Runs before the slowest scenarios are timed again, once V8 has compiled what they run (shown, not held to a target). */
const SETTLE_RUNS = 20;

export async function warmRuns(o: {
  server: RedisServer;
  env: NodeJS.ProcessEnv;
  /** Measured runs per scenario (after two warm-up runs). */
  reps: number;
  line: (s?: string) => void;
}): Promise<Goal[]> {
  const { line } = o;
  line(
    `10. a warm server: runScenario of each shipped scenario in one process (targets: median ≤ ${MEDIAN_TARGET_MS} ms, max ≤ ${MAX_TARGET_MS} ms)`,
  );
  const scenarios = await Promise.all(
    (await listScenarios()).map(async (e) => ({
      name: e.name,
      file: e.file,
      spec: (await loadScenarioFile(e.file)).spec,
    })),
  );
  const cluster = scenarios.some((s) => s.spec.redis.cluster === true)
    ? await acquireClusterTarget({ env: o.env })
    : null;
  try {
    const rttUs = await roundTripUs(o.server);
    const rows: Array<{
      name: string;
      ms: number;
      cpuMs: number;
      steps: number;
      floorMs: number | null;
      /** The same commands replayed through node-redis with only the unavoidable round trips (replayWallUs), median. */
      replayMs: number | null;
      trips: number | null;
      run: () => Promise<Timeline>;
    }> = [];
    for (const s of scenarios) {
      const redis: RedisTarget = s.spec.redis.cluster === true ? cluster! : o.server;
      // The timed call is runScenario's alone: the trace the floor replays is taken from the last
      // run afterwards (it was in the timed runs until the ninth session: 0.01-0.6 ms a run).
      const run = async (): Promise<Timeline> => {
        const t = await runScenario(s.spec, { redis, file: s.file });
        if (t.error !== undefined) throw new Error(`${s.name}: ${t.error}`);
        return t;
      };
      await run();
      let last = await run();
      const times: number[] = [];
      const cpus: number[] = [];
      for (let i = 0; i < o.reps; i++) {
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        last = await run();
        times.push(performance.now() - t0);
        const cpu = process.cpuUsage(cpu0);
        cpus.push((cpu.user + cpu.system) / 1000);
      }
      const steps = last.steps.length;
      const recorder = new ReplayRecorder();
      for (const step of last.steps) for (const c of step.commands) recorder.add(c);
      const traced: ReplayedCommand[] = recorder.commands;
      const floor = s.spec.redis.cluster === true ? null : await floorUs(o.server, traced, rttUs);
      let replayMs: number | null = null;
      if (floor !== null) {
        const replays: number[] = [];
        for (let i = 0; i < o.reps; i++) replays.push((await replayWallUs(o.server, traced)) / 1000);
        replayMs = median(replays);
      }
      rows.push({
        name: s.name,
        ms: median(times),
        cpuMs: median(cpus),
        steps,
        floorMs: floor === null ? null : floor.floorUs / 1000,
        replayMs,
        trips: floor === null ? null : floor.trips,
        run,
      });
    }
    rows.sort((a, b) => a.ms - b.ms);
    line(
      `   (floor: the round trips no client can do without, ${rttUs.toFixed(1)} µs each, plus Redis' own time for the traced commands; replay: the same commands sent again through node-redis with only those round trips, MONITOR attached and read, the median of ${o.reps}, which is the floor held to)`,
    );
    for (const r of rows)
      line(
        `   ${r.name.padEnd(30)} ${r.ms.toFixed(1).padStart(6)} ms  ${String(r.steps).padStart(4)} steps  ${(r.ms / r.steps).toFixed(2)} ms/step  cpu ${Math.round((100 * r.cpuMs) / r.ms)}%  floor ${r.floorMs === null ? '–' : `${r.floorMs.toFixed(1)} ms (${r.trips} round trip${r.trips === 1 ? '' : 's'})`}  replay ${r.replayMs === null ? '–' : `${r.replayMs.toFixed(1)} ms (${(r.ms / r.replayMs).toFixed(1)}x)`}`,
      );
    const med = median(rows.map((r) => r.ms));
    const slowest = rows.at(-1)!;
    const floors = rows.flatMap((r) => (r.replayMs === null ? [] : [r.replayMs]));
    const medianFloor = median(floors);
    const maxFloor = Math.max(...floors);
    line(
      `   median ${med.toFixed(1)} ms (${verdict(med <= MEDIAN_TARGET_MS)}; the scenarios' replays' median ${medianFloor.toFixed(1)} ms), max ${slowest.ms.toFixed(1)} ms, ${slowest.name} (${verdict(slowest.ms <= MAX_TARGET_MS, maxFloor > MAX_TARGET_MS)}; the slowest replay ${maxFloor.toFixed(1)} ms)`,
    );
    // Where the slowest ones' time goes: a process's first runs of a scenario also pay V8's
    // compiling of the paths it takes (the figures above are runs 3 to 2+reps). Shown, not the target's.
    const settled = rows.slice(-3);
    const after: string[] = [];
    for (const r of settled) {
      for (let i = 0; i < SETTLE_RUNS; i++) await r.run();
      const times: number[] = [];
      for (let i = 0; i < o.reps; i++) {
        const t0 = performance.now();
        await r.run();
        times.push(performance.now() - t0);
      }
      after.push(`${r.name} ${median(times).toFixed(1)} ms`);
    }
    line(
      `   (the slowest three after ${SETTLE_RUNS} more runs each, V8 having compiled their paths: ${after.join(', ')})`,
    );
    return [
      {
        goal: 'a warm server: `runScenario` of each shipped scenario, median',
        tool: `${med.toFixed(1)} ms`,
        reference: '',
        value: med,
        target: `≤ ${MEDIAN_TARGET_MS} ms`,
        met: med <= MEDIAN_TARGET_MS,
        floor: `${medianFloor.toFixed(1)} ms`,
        belowFloor: medianFloor > MEDIAN_TARGET_MS,
      },
      {
        goal: 'a warm server: `runScenario` of each shipped scenario, max',
        tool: `${slowest.ms.toFixed(1)} ms (${slowest.name})`,
        reference: '',
        value: slowest.ms,
        target: `≤ ${MAX_TARGET_MS} ms`,
        met: slowest.ms <= MAX_TARGET_MS,
        floor: `${maxFloor.toFixed(1)} ms`,
        belowFloor: maxFloor > MAX_TARGET_MS,
      },
    ];
  } finally {
    await cluster?.stop();
  }
}
