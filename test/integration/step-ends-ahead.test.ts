// A kept run that nothing holds (runScenario without onStep, as a test suite runs it) ends a step
// without a round trip of its own (step-collector.ts' StreamingSteps with `kept`): the step's mark,
// the queues' snapshot and the cache's read-back go ahead of the next traced command, on its
// connection. The reference is the same run with a view (onStep), whose every step ends at a
// barrier on the observer: the trace and every step's state must be the same, and the checks must
// still stop a run that Redis and the model disagree on.
import { describe, expect, it } from 'vitest';
import { listScenarios } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { READ_QUEUES } from '../../src/scenarios/snapshot.ts';
import { ToolScript } from '../../src/redis/tool-script.ts';
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

async function loadChain() {
  const e = (await listScenarios()).find((x) => x.name === 'chain')!;
  return { spec: (await loadScenarioFile(e.file)).spec, file: e.file };
}
