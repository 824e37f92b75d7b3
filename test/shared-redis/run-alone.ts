// What each file of this directory checks: on the one redis-server that globalSetup started for the
// whole test run (laravel-queue-sim/vitest-global-setup, handed over as REDIS_URL), with the files
// running in parallel, two runs of a scenario at once give the trace of that scenario run alone on
// a server of its own: the same steps, titles, commands and state, once each run is read in its
// scenario's db by the library's own rule (the db it claimed compared as the scenario's).
import { expect } from 'vitest';
import { acquireRedis } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { dbRule } from '../../src/trace/database.ts';

function essence(t: Timeline) {
  const rule = dbRule(t.database);
  return t.steps.map((s) => ({
    actor: s.actor,
    kind: s.kind,
    title: s.title,
    commands: s.commands
      .map((c) => (rule === null ? c : rule.map(c)))
      .filter((c) => c !== null)
      .map((c) => [c.actor, c.process, c.source, c.db, ...c.args]),
    queues: s.state.queues,
    workers: s.state.workers,
  }));
}

export async function sharedRunsMatchAlone(name: string): Promise<void> {
  expect(process.env.REDIS_URL, 'globalSetup hands its server over as REDIS_URL').toMatch(/^redis:\/\//);
  const shared = await acquireRedis();
  expect(shared.owned).toBe(false);
  const { spec } = await loadScenarioFile(await resolveScenario(name));
  const runs = await Promise.all([runScenario(spec, { redis: shared }), runScenario(spec, { redis: shared })]);
  const own = await acquireRedis({ env: { ...process.env, REDIS_URL: '', LQSIM_REDIS: 'local' } });
  try {
    const alone = await runScenario(spec, { redis: own });
    expect(alone.error).toBeUndefined();
    for (const t of runs) {
      expect(t.error).toBeUndefined();
      expect(essence(t)).toEqual(essence(alone));
    }
  } finally {
    await own.stop();
  }
}
