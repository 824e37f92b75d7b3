// A kept run that nothing holds (runScenario without onStep, as a test suite runs it) ends a step
// without a round trip of its own (step-collector.ts' StreamingSteps with `kept`): the step's mark,
// the queues' snapshot and the cache's read-back go ahead of the next traced command, on its
// connection. The reference is the same run with a view (onStep), whose every step ends at a
// barrier on the observer: the trace and every step's state must be the same, and the checks must
// still stop a run that Redis and the model disagree on.
import { createClient } from 'redis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listScenarios } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { READ_QUEUES } from '../../src/scenarios/snapshot.ts';
import { ToolScript } from '../../src/redis/tool-script.ts';
import { NodeRedisPort } from '../../src/redis/port.ts';
import { MonitorCapture } from '../../src/redis/monitor.ts';
import { useServerWithAdmin } from '../helpers/admin.ts';

const { server, admin } = useServerWithAdmin();

/** Everything a run shows but the wall-clock times MONITOR stamps on its lines. */
const shown = (t: Timeline) => ({
  error: t.error,
  warnings: t.warnings,
  steps: t.steps.map((s) => ({
    ...s,
    commands: s.commands.map(({ time: _time, ...c }) => c),
  })),
});

/** The addresses that sent the queues' snapshot script during `run`. */
async function snapshotSenders(run: () => Promise<Timeline>): Promise<{ t: Timeline; senders: Set<string> }> {
  const monitor = admin().duplicate();
  await monitor.connect();
  const senders = new Set<string>();
  await monitor.monitor((line: string) => {
    const m = /^\S+ \[\d+ (\S+)\] "EVALSHA" "([0-9a-f]{40})"/.exec(line);
    if (m && m[2] === READ_QUEUES.sha) senders.add(m[1]!);
  });
  try {
    const t = await run();
    await admin().sendCommand(['PING']);
    await new Promise((r) => setTimeout(r, 50));
    return { t, senders };
  } finally {
    monitor.destroy();
  }
}

describe('a step that ends ahead of the next command', () => {
  it('gives every shipped scenario the trace and the states of the run whose steps end at a barrier', async () => {
    const scenarios = (await listScenarios()).filter((e) => !e.name.startsWith('cluster-'));
    expect(scenarios.length).toBeGreaterThanOrEqual(20);
    for (const e of scenarios) {
      const { spec } = await loadScenarioFile(e.file);
      const atBarriers = await runScenario(spec, { redis: server(), file: e.file, onStep: () => undefined });
      expect([e.name, atBarriers.error]).toEqual([e.name, undefined]);
      const ahead = await runScenario(spec, { redis: server(), file: e.file });
      expect({ name: e.name, ...shown(ahead) }).toEqual({ name: e.name, ...shown(atBarriers) });
    }
  });

  it("is read on the next command's connection, not the observer's", async () => {
    const { spec, file } = await loadChain();
    const atBarriers = await snapshotSenders(() =>
      runScenario(spec, { redis: server(), file, onStep: () => undefined }),
    );
    expect(atBarriers.senders.size).toBe(1); // the observer
    const ahead = await snapshotSenders(() => runScenario(spec, { redis: server(), file }));
    expect(ahead.t.error).toBeUndefined();
    // The observer (the run's last step reads the queues at a barrier) and an actor's connection.
    expect(ahead.senders.size).toBeGreaterThanOrEqual(2);
  });

  it("still stops, naming the key, when another client changes the run's queue", async () => {
    const { spec, file } = await loadChain();
    const monitor = admin().duplicate();
    await monitor.connect();
    const intruder = admin().duplicate();
    await intruder.connect();
    await intruder.sendCommand(['SELECT', '0']);
    let pushed = false;
    // As soon as the run's first job is pushed: a job of someone else's, due in the year 2286, in
    // the run's delayed set. No pop reaches it and no migrate moves it: only the step's end, whose
    // ZCARD is read ahead of the next command and checked against the model of that moment, sees
    // it. The server is the run's own (no claim, no watch).
    await monitor.monitor((line: string) => {
      if (pushed || !/"rpush" "laravel_database_queues:default"/i.test(line)) return;
      pushed = true;
      const job = { uuid: 'intruder', displayName: 'App\\Jobs\\Intruder', attempts: 0, data: {} };
      void intruder.sendCommand(['ZADD', 'laravel_database_queues:default:delayed', '9999999999', JSON.stringify(job)]);
    });
    try {
      const t = await runScenario(spec, { redis: server(), file });
      expect(pushed).toBe(true);
      expect(t.error).toMatch(
        /^at the end of step \d+ \(t\+\d+s\), ZCARD laravel_database_queues:default:delayed returned 1, but laravel_database_queues:default:delayed should hold 0 jobs: another client added a job to it; the trace is no longer Laravel's alone, so the run stops$/,
      );
    } finally {
      monitor.destroy();
      intruder.destroy();
    }
  });

  it('ends the run, saying why, when Redis lost a script sent ahead (SCRIPT FLUSH)', async () => {
    const script = new ToolScript("return redis.call('ping')", 'a test script');
    const observer = admin().duplicate();
    await observer.connect();
    // A sender whose commands go ahead of later ones, as ConnectionHub.beforeNext's do.
    const ahead = { ahead: true, sendCommand: (args: string[]) => observer.sendCommand(args) };
    try {
      expect(await script.load(observer)).toBe(true);
      expect(await script.run(ahead, ['0'])).toBe('PONG');
      await admin().sendCommand(['SCRIPT', 'FLUSH']);
      await expect(script.run(ahead, ['0'])).rejects.toThrow(
        /^Redis lost lqsim's script for a test script during the run \(its script cache was emptied: another client's SCRIPT FLUSH, or a restart\), so a step's end could not be read; the run stops$/,
      );
    } finally {
      observer.destroy();
    }
  });
});

describe("another client's command after a kept step's end went ahead (the claim's watch, REDIS_URL)", () => {
  afterEach(() => void vi.restoreAllMocks());
  /** The server as REDIS_URL gives it: someone else's, so the run claims a db and watches it. */
  const shared = () => ({ ...server(), owned: false, describe: () => 'REDIS_URL (test)', stop: async () => undefined });
  /** A client named `name` that SELECTs each db but the admin's, sending `args` in it until `until` says stop. */
  async function roamer(name: string) {
    const c = createClient({ url: server().url, RESP: 2, name });
    c.on('error', () => undefined);
    await c.connect();
    return {
      client: c,
      async inEachDb(args: string[], until: (reply: unknown) => boolean): Promise<unknown> {
        for (let db = 0; db < 15; db++) {
          await c.sendCommand(['SELECT', String(db)]);
          const reply = await c.sendCommand(args);
          if (until(reply)) return reply;
        }
        return null;
      },
    };
  }
  type Call = (this: unknown, args: string[], blocking: boolean) => Promise<unknown>;
  const portCall = () => (NodeRedisPort.prototype as unknown as { call: Call }).call;

  it('names the client that took the job between the mark and the pop that found nothing', async () => {
    const { spec, file } = await load('failure-release');
    const thief = await roamer('thief');
    let stolen: unknown = null;
    const call = portCall();
    // Just before worker-1's first pop goes out (the step's mark and reads went ahead of that
    // step's first command): the job taken. Its lines come after the mark, so only the barrier
    // that ends the cut-short step reads them.
    vi.spyOn(NodeRedisPort.prototype as unknown as { call: Call }, 'call').mockImplementation(async function (
      this: unknown,
      args,
      blocking,
    ) {
      if (
        stolen === null &&
        args[0] === 'EVAL' &&
        args[3] === 'queues:default' &&
        args[4] === 'queues:default:reserved'
      ) {
        await new Promise((r) => setTimeout(r, 20));
        stolen = await thief.inEachDb(['LPOP', 'queues:default'], (r) => r !== null);
      }
      return call.call(this, args, blocking);
    });
    try {
      const t = await runScenario(spec, { redis: shared(), file });
      expect(stolen, 'the thief took the job').not.toBeNull();
      expect(t.error).toMatch(
        /^another client used this run's db (\d+) \(127\.0\.0\.1:\d+ "thief": SELECT \1; 127\.0\.0\.1:\d+ "thief": LPOP queues:default\): the run saw it when worker-1's pop \(EVAL ‹pop› 2 queues:default queues:default:reserved \d+\) returned nothing, but queues:default should hold ChargeCard#1 \(attempts 0\) first/,
      );
    } finally {
      thief.client.destroy();
    }
  });

  it("ends the run naming a client that used its db after the last step's mark", async () => {
    const { spec, file } = await load('chain');
    const barrier = MonitorCapture.prototype.barrier;
    const calls: number[] = [];
    // The run's barriers, counted: the last is the one that drains the run.
    const count = vi.spyOn(MonitorCapture.prototype, 'barrier').mockImplementation(function (
      this: MonitorCapture,
      ...a
    ) {
      calls.push(1);
      return barrier.apply(this, a);
    });
    expect((await runScenario(spec, { redis: shared(), file })).error).toBeUndefined();
    const last = calls.length;
    count.mockRestore();
    const visitor = await roamer('visitor');
    let n = 0;
    vi.spyOn(MonitorCapture.prototype, 'barrier').mockImplementation(async function (this: MonitorCapture, ...a) {
      // The drain's barrier: the last step's mark sent (as the barrier sends it) and answered, then
      // a look into every db, the run's among them, then the barrier's ECHO.
      if (++n === last) {
        for (const mark of this.takeMarks()) await a[0].sendCommand(['ECHO', mark]);
        await visitor.inEachDb(['EXISTS', 'queues:default'], () => false);
      }
      return barrier.apply(this, a);
    });
    try {
      const t = await runScenario(spec, { redis: shared(), file });
      expect(n).toBeGreaterThanOrEqual(last);
      expect(t.error).toMatch(
        /^another client used this run's db (\d+) \(127\.0\.0\.1:\d+ "visitor": SELECT \1; 127\.0\.0\.1:\d+ "visitor": EXISTS queues:default\): the trace would no longer be Laravel's alone/,
      );
    } finally {
      visitor.client.destroy();
    }
  });
});

async function load(name: string) {
  const e = (await listScenarios()).find((x) => x.name === name)!;
  return { spec: (await loadScenarioFile(e.file)).spec, file: e.file };
}

const loadChain = () => load('chain');
