// The TTL service (src/redis/virtual-expiry.ts) wired into whole runs (RunOptions.virtualTtl, as
// a scenario with its cache store on Redis turns it on): its sweep after every step and its DELs
// before the clock moves are the observer's, so the shipped scenarios' traces are exactly those of
// the same runs without it, kept or streamed, on a server of the run's own or on a claimed db of
// someone else's, whose watch does not take the sweep for another client.
import { beforeAll, describe, expect, it } from 'vitest';
import type { RedisServer } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile, parseScenario } from '../../src/scenarios/load.ts';
import type { RunOptions } from '../../src/scenarios/runner.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline, TraceCommand } from '../../src/scenarios/timeline.ts';
import { useServerWithAdmin } from '../helpers/admin.ts';
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

  it("on someone else's server, two runs at once (each in the dbs it claimed) take only their own sweeps' lines", async () => {
    // A test suite's files in parallel on REDIS_URL: each run's TTL sweeps go ahead of its next
    // command, on its actors' connections, and MONITOR shows every run's to each.
    const external = { ...redis(), owned: false, describe: () => 'REDIS_URL' };
    // Each in the dbs it claimed: the same run but for their numbers.
    const dbless = (t: Timeline) => ({
      error: t.error,
      steps: t.steps.map((s) => [s.index, s.t, s.actor, s.title]),
      commands: t.steps.flatMap((s) =>
        s.commands.map((c) => [
          c.step,
          c.actor,
          c.process,
          c.source,
          ...(c.args[0] === 'SELECT' ? ['SELECT'] : c.args),
        ]),
      ),
    });
    const alone = dbless(await run('rate-limited-release', { redis: external }));
    expect(alone.error).toBeUndefined();
    const both = await Promise.all([1, 2].map(() => run('rate-limited-release', { redis: external })));
    for (const t of both) expect(dbless(t)).toEqual(alone);
  });
});

// WithoutOverlapping with expireAfter 5 (Queue/Middleware/WithoutOverlapping.php@v8.83: the lock
// is `SET <key> <owner> EX 5 NX`): worker-1 takes it at t+0 and runs 30 s, worker-2 is refused at
// t+1 and t+4 and takes it at t+7 (see the first test below).
const OVERLAP_YAML = `
name: inline
title: inline
laravel: 8
cache: { store: redis }
until: 9
workers:
  - { name: worker-1, sleep: 5 }
  - { name: worker-2, sleep: 1, start: 1 }
jobs:
  Sync:
    class: App\\Jobs\\Sync
    tries: 5
    middleware: [{ without_overlapping: { key: order-1, release_after: 3, expire_after: 5 } }]
    attempts: [{ run: 30 }, { run: 1 }, { run: 1 }]
timeline:
  - { at: 0, dispatch: Sync, count: 2 }
`;
const overlapSpec = () => parseScenario(OVERLAP_YAML, 'inline.yaml').spec;

describe('a scenario with its cache store on Redis', () => {
  // WithoutOverlapping with expireAfter 5 (Queue/Middleware/WithoutOverlapping.php@v8.83: the lock
  // is `SET <key> <owner> EX 5 NX`): worker-1 takes it at t+0 and runs 30 s, so in virtual time it
  // expires at t+5. worker-2's copies are refused while it is held (t+1 and t+4, each released for
  // 3 s) and the one it pops at t+7 gets it. Redis agrees only if the lock was kept past real time
  // and deleted between t+5 and t+7; else the model (which says OK) and Redis (nil) part.
  it('has the lock run out at its virtual expiry, not in real time and not never', async () => {
    const t = await runScenario(overlapSpec(), { redis: redis() });
    expect(t.error).toBeUndefined();
    expect(t.warnings).toEqual([]);
    const lock = 'laravel_database_laravel_cache:laravel-queue-overlap:App\\Jobs\\Sync:order-1';
    const sets = t.steps.flatMap((s) =>
      s.commands
        .filter((c) => c.args[0] === 'SET')
        .map((c) => [s.t - t.start, s.actor, s.kind, c.args[1], ...c.args.slice(3)]),
    );
    expect(sets).toEqual([
      [0, 'worker-1', 'process', lock, 'EX', '5', 'NX'],
      [1, 'worker-2', 'release', lock, 'EX', '5', 'NX'],
      [4, 'worker-2', 'release', lock, 'EX', '5', 'NX'],
      [7, 'worker-2', 'process', lock, 'EX', '5', 'NX'],
    ]);
  });
});

// One more server, watched from outside by an admin in db 15, with ACL users that lack a command.
const outside = useServerWithAdmin();
beforeAll(async () => {
  const user = (name: string, ...rules: string[]) =>
    outside.admin().sendCommand(['ACL', 'SETUSER', name, 'on', '>pw', '&*', '+@all', '~*', ...rules]);
  await user('nopersist', '-persist');
  await user('nokeys', '-keys');
  await user('noevalsha', '-evalsha', '-script');
});

describe("a run with TTLs in virtual time, as an ACL user on someone else's server", () => {
  const as = (user: string) => ({
    url: `redis://${user}:pw@127.0.0.1:${outside.server().port}`,
    owned: false,
    kind: 'external',
    version: outside.server().version,
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
    const keyspace = String(await outside.admin().sendCommand(['INFO', 'keyspace']));
    expect(keyspace.split('\n').filter((l) => /^db\d+:/.test(l) && !l.startsWith('db15:'))).toEqual([]);
  });
});

describe('the TTL sweep, on a server watched from outside', () => {
  const target = (user?: string): RedisServer =>
    user === undefined
      ? outside.server()
      : { ...outside.server(), url: `redis://${user}:pw@127.0.0.1:${outside.server().port}` };

  /** Runs the scenario with MONITOR on from outside: the timeline, and each sweep line's command and number. */
  async function watched(user?: string, o: Partial<RunOptions> = {}) {
    const monitor = outside.admin().duplicate();
    await monitor.connect();
    const sweeps: string[] = [];
    // The sweep's arguments: the claim and mark keys, expired_keys, its number (virtual-expiry.ts' SWEEP).
    await monitor.monitor((line: string) => {
      const m = /"(EVALSHA|EVAL)" "[^"]*" "0" "lqsim:claim" "lqsim:run" "\d*" "(\d+)"/.exec(line);
      if (m) sweeps.push(`${m[1]} ${m[2]}`);
    });
    try {
      const t = await runScenario(overlapSpec(), { redis: target(user), ...o });
      await outside.admin().sendCommand(['PING']);
      await new Promise((r) => setTimeout(r, 50));
      return { t, sweeps };
    } finally {
      monitor.destroy();
    }
  }

  // The lock's four `SET ... EX 5 NX` (t+0, t+1, t+4, t+7: the refused ones may give a TTL as far
  // as the lines can tell) are the run's only commands that give a TTL: its other steps (the pops,
  // the restart signal's GET, the lock's release script) leave none to take off.
  it('is sent by EVALSHA, only after the steps whose lines may have given a TTL', async () => {
    await outside.admin().sendCommand(['SCRIPT', 'FLUSH']);
    const { t, sweeps } = await watched();
    expect(t.error).toBeUndefined();
    const ttlSteps = t.steps.filter((s) => s.commands.some((c) => c.args[0] === 'SET' && c.args.includes('EX')));
    expect(ttlSteps.map((s) => s.t - t.start)).toEqual([0, 1, 4, 7]);
    expect(t.steps.length).toBeGreaterThan(ttlSteps.length);
    // Nothing holds this run: each sweep goes ahead of the next traced command, the script loaded
    // with the run's first commands, so even on a server that never ran it: once each.
    expect(sweeps).toEqual(['EVALSHA 1', 'EVALSHA 2', 'EVALSHA 3', 'EVALSHA 4']);
    // A run a view holds sweeps at its barriers, on the observer, loaded the same way: once each.
    await outside.admin().sendCommand(['SCRIPT', 'FLUSH']);
    const held = await watched(undefined, { onStep: () => undefined });
    expect(held.t.error).toBeUndefined();
    expect(held.sweeps).toEqual(['EVALSHA 1', 'EVALSHA 2', 'EVALSHA 3', 'EVALSHA 4']);
    // Emptied while the view holds the run after the first step that gave a TTL (t+0, swept
    // before it is shown): the next sweep is refused (NOSCRIPT), loaded and sent again.
    let flushed = false;
    const refused = await watched(undefined, {
      onStep: async (step) => {
        if (flushed || !step.commands.some((c) => c.args[0] === 'SET' && c.args.includes('EX'))) return;
        flushed = true;
        await outside.admin().sendCommand(['SCRIPT', 'FLUSH']);
      },
    });
    expect(refused.t.error).toBeUndefined();
    expect(refused.sweeps).toEqual(['EVALSHA 1', 'EVALSHA 2', 'EVALSHA 2', 'EVALSHA 3', 'EVALSHA 4']);
  });

  it('goes on the same when another client empties the script cache mid-run (SCRIPT FLUSH), kept and streamed', async () => {
    const plain = essence((await watched()).t);
    expect(plain.error).toBeUndefined();
    // After the first sweep (the step that took the lock, shown after its sweep): the next sweep
    // is refused (NOSCRIPT), loaded and sent again.
    let flushedKept = false;
    const kept = await watched(undefined, {
      onStep: async (s) => {
        if (flushedKept || !s.commands.some((c) => c.args[0] === 'SET')) return;
        flushedKept = true;
        await outside.admin().sendCommand(['SCRIPT', 'FLUSH']);
      },
    });
    expect(essence(kept.t)).toEqual(plain);
    expect(kept.sweeps).toEqual(['EVALSHA 1', 'EVALSHA 2', 'EVALSHA 2', 'EVALSHA 3', 'EVALSHA 4']);
    let flushed = false;
    const streamed: TraceCommand[] = [];
    const s = await watched(undefined, {
      keepSteps: false,
      onCommand: (c) => {
        streamed.push(c);
        if (!flushed && c.args[0] === 'SET') {
          flushed = true;
          void outside.admin().sendCommand(['SCRIPT', 'FLUSH']);
        }
      },
    });
    expect(s.t.error).toBeUndefined();
    expect(streamed.map(shown)).toEqual(plain.commands);
  });

  it('falls back to EVAL for a user that may not run EVALSHA or SCRIPT', async () => {
    const plain = essence((await watched()).t);
    const { t, sweeps } = await watched('noevalsha');
    expect(essence(t)).toEqual(plain);
    expect(sweeps).toEqual(['EVAL 1', 'EVAL 2', 'EVAL 3', 'EVAL 4']);
  });
});
