// The TTL service (src/redis/virtual-expiry.ts) wired into whole runs (RunOptions.virtualTtl, as
// a scenario with its cache store on Redis turns it on): its sweep after every step and its DELs
// before the clock moves are the observer's, so the shipped scenarios' traces are exactly those of
// the same runs without it, kept or streamed, on a server of the run's own or on a claimed db of
// someone else's, whose watch does not take the sweep for another client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisServer } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import type { RunOptions } from '../../src/scenarios/runner.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline, TraceCommand } from '../../src/scenarios/timeline.ts';
import { serverWithAdmin, type AdminClient } from '../helpers/admin.ts';
import { useRedis } from '../helpers/run.ts';

const redis = useRedis();
const spec = async (name: string) => (await loadScenarioFile(await resolveScenario(name))).spec;
const shown = (c: TraceCommand) => [c.step, c.actor, c.process, c.source, c.db, ...c.args];
const essence = (t: Timeline) => ({
  error: t.error,
  warnings: t.warnings,
  steps: t.steps.map((s) => [s.index, s.t, s.actor, s.title]),
  commands: t.steps.flatMap((s) => s.commands.map(shown)),
});

async function run(name: string, o: Partial<RunOptions> = {}) {
  return runScenario(await spec(name), { redis: redis(), ...o });
}

describe('a run with TTLs in virtual time', () => {
  // A BLPOP across steps, a worker killed mid-job, a release and a delayed job: every path of the runner's steps.
  for (const name of ['block-for-wakeup', 'killed-mid-job', 'failure-release', 'dispatch-later']) {
    it(`${name}: the trace is the one of the run without it, kept and streamed`, async () => {
      const plain = essence(await run(name));
      expect(plain.error).toBeUndefined();
      expect(essence(await run(name, { virtualTtl: true }))).toEqual(plain);
      // Streamed (lqsim run's text and ndjson): each command handed on as MONITOR delivers it.
      const streamed: TraceCommand[] = [];
      const t = await run(name, { virtualTtl: true, keepSteps: false, onCommand: (c) => streamed.push(c) });
      expect(t.error).toBeUndefined();
      expect(streamed.map(shown)).toEqual(plain.commands);
    });
  }

  it("on someone else's server: the claimed db's watch does not take the sweep for another client", async () => {
    const external = { ...redis(), owned: false, describe: () => 'REDIS_URL' };
    const plain = essence(await run('failure-release', { redis: external }));
    expect(plain.error).toBeUndefined();
    expect(essence(await run('failure-release', { redis: external, virtualTtl: true }))).toEqual(plain);
  });
});

describe("a run with TTLs in virtual time, as an ACL user on someone else's server", () => {
  let server: RedisServer;
  let admin: AdminClient;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, admin, stop } = await serverWithAdmin());
    const user = (name: string, ...rules: string[]) =>
      admin.sendCommand(['ACL', 'SETUSER', name, 'on', '>pw', '&*', '+@all', '~*', ...rules]);
    await user('nopersist', '-persist');
    await user('nokeys', '-keys');
  });
  afterAll(() => stop());
  const as = (user: string) => ({
    url: `redis://${user}:pw@127.0.0.1:${server.port}`,
    owned: false,
    kind: 'external',
    version: server.version,
    describe: () => `REDIS_URL as ${user}`,
  });

  it.each([
    ['nopersist', 'PERSIST'],
    ['nokeys', 'KEYS'],
  ])('%s is refused before the first write, naming %s, and nothing is left', async (user, command) => {
    const t = await runScenario(await spec('success'), { redis: as(user), virtualTtl: true });
    expect(t.error).toMatch(
      new RegExp(
        `^refusing to run: this server's user may not run ${command} in db 0, which the run sends to keep Laravel's TTLs in virtual time \\(.*\\); nothing was written$`,
      ),
    );
    expect(t.steps).toEqual([]);
    const keyspace = String(await admin.sendCommand(['INFO', 'keyspace']));
    expect(keyspace.split('\n').filter((l) => /^db\d+:/.test(l) && !l.startsWith('db15:'))).toEqual([]);
  });
});
