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
async function snapshotSenders(
  run: () => Promise<Timeline>,
): Promise<{ t: Timeline; senders: Set<string>; reads: number; actors: Set<string> }> {
  const monitor = admin().duplicate();
  await monitor.connect();
  const senders = new Set<string>();
  // The connections that sent Laravel's scripts (EVAL with its text, not the checks' `return 1`): the actors'.
  const actors = new Set<string>();
  let reads = 0;
  await monitor.monitor((line: string) => {
    const m = /^\S+ \[\d+ (\S+)\] "EVALSHA" "([0-9a-f]{40})"/.exec(line);
    if (m && m[2] === READ_QUEUES.sha) {
      senders.add(m[1]!);
      reads++;
    }
    const e = /^\S+ \[\d+ (\d\S+)\] "EVAL" "(?!return 1")/.exec(line);
    if (e) actors.add(e[1]!);
  });
  try {
    const t = await run();
    await admin().sendCommand(['PING']);
    await new Promise((r) => setTimeout(r, 50));
    return { t, senders, reads, actors };
  } finally {
    monitor.destroy();
  }
}

/** The roamers a test opened: closed after it, with the spies put back. */
const roamers: Array<{ destroy(): void }> = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const c of roamers.splice(0)) c.destroy();
});

/**
 * A client named `name` (closed after the test) that SELECTs each db but the admin's, sending
 * `args` in it until `until` says stop.
 */
async function roamer(name: string) {
  const c = createClient({ url: server().url, RESP: 2, name });
  c.on('error', () => undefined);
  await c.connect();
  roamers.push(c);
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

/** NodeRedisPort's private call (every traced command goes out through it), to run something just before one. */
type Call = (this: unknown, args: string[], blocking: boolean) => Promise<unknown>;
const portCall = () => (NodeRedisPort.prototype as unknown as { call: Call }).call;
/**
 * Runs `before` ahead of the `n`-th traced command that `is` picks (counted from 1), whether the
 * actor awaits its reply (NodeRedisPort's call) or sends it ahead (a reply Laravel does not read,
 * or one the model foresees: NodeRedisPort's sendAhead, which may leave it waiting in the hub).
 */
function beforeCommand(
  is: (args: string[]) => boolean,
  n: number,
  before: () => Promise<void>,
): { reached: () => boolean } {
  const call = portCall();
  type SendAhead = (this: unknown, args: string[], ...rest: unknown[]) => Promise<void>;
  const proto = NodeRedisPort.prototype as unknown as { call: Call; sendAhead: SendAhead };
  const sendAhead = proto.sendAhead;
  let seen = 0;
  vi.spyOn(proto, 'call').mockImplementation(async function (this: unknown, args, blocking) {
    if (is(args) && ++seen === n) await before();
    return call.call(this, args, blocking);
  });
  vi.spyOn(proto, 'sendAhead').mockImplementation(async function (this: unknown, args, ...rest) {
    if (is(args) && ++seen === n) await before();
    return sendAhead.call(this, args, ...rest);
  });
  return { reached: () => seen >= n };
}

/** The barrier that ends a run (its `n`-th, counted in a run of the same scenario first): `before` just ahead of its ECHO, after the last mark. */
function beforeClosingBarrier(n: number, before: () => Promise<void>): void {
  const barrier = MonitorCapture.prototype.barrier;
  let seen = 0;
  vi.spyOn(MonitorCapture.prototype, 'barrier').mockImplementation(async function (this: MonitorCapture, ...a) {
    if (++seen === n) {
      for (const mark of this.takeMarks()) await a[0].sendCommand(['ECHO', mark]);
      await before();
    }
    return barrier.apply(this, a);
  });
}

/** How many barriers a run of `spec` takes (the last is the one that ends it). */
/** Who sent each TTL sweep of a run (VirtualExpiry's SWEEP, by its arguments): 'observer' or an actor's connection. */
async function sweepSenders(run: () => Promise<Timeline>): Promise<string[]> {
  const monitor = admin().duplicate();
  await monitor.connect();
  const lines: string[] = [];
  await monitor.monitor((line: string) => lines.push(line));
  try {
    const t = await run();
    expect(t.error).toBeUndefined();
    await admin().sendCommand(['ECHO', 'sweep-senders-end']);
    await vi.waitFor(() => expect(lines.some((l) => l.includes('sweep-senders-end'))).toBe(true));
  } finally {
    monitor.destroy();
  }
  // The observer sent the run's last barrier (its end's: marks go on actors' connections).
  const client = (l: string) => /\[\d+ ([^\]]+)\]/.exec(l)![1]!;
  const observer = client(lines.filter((l) => /"ECHO" "lqsim-barrier-/.test(l)).at(-1)!);
  return lines
    .filter((l) => /"EVALSHA" "[0-9a-f]{40}" "0" "lqsim:claim" "lqsim:run"/.test(l))
    .map((l) => (client(l) === observer ? 'observer' : 'actor'));
}

async function barriersOf(run: () => Promise<Timeline>): Promise<number> {
  const barrier = MonitorCapture.prototype.barrier;
  let n = 0;
  const spy = vi.spyOn(MonitorCapture.prototype, 'barrier').mockImplementation(function (this: MonitorCapture, ...a) {
    n++;
    return barrier.apply(this, a);
  });
  const t = await run();
  spy.mockRestore();
  expect(t.error).toBeUndefined();
  return n;
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

  it('takes no barrier at a step that may give a TTL: its sweep goes ahead of the next command', async () => {
    const { spec, file } = await load('rate-limited-release');
    // Six steps run the limiter's add script (a SETEX inside: foreseen to give a TTL), and the
    // first hit of each window gives one. Each sweep goes with the next step's first command, and
    // by the time a window's keys are due (t+63, t+126) their sweeps' lines are long read: the
    // run's only barrier is its end's.
    const kept = () => runScenario(spec, { redis: server(), file });
    expect(await barriersOf(kept)).toBe(1);
    const sweeps = await sweepSenders(kept);
    expect(sweeps.length).toBe(6);
    expect(new Set(sweeps).has('observer')).toBe(false);
  });

  it("is read on the next command's connection, not the observer's", async () => {
    const { spec, file } = await load('chain');
    const atBarriers = await snapshotSenders(() =>
      runScenario(spec, { redis: server(), file, onStep: () => undefined }),
    );
    expect(atBarriers.senders.size).toBe(1); // the observer
    expect([...atBarriers.senders].filter((a) => atBarriers.actors.has(a))).toEqual([]);
    const ahead = await snapshotSenders(() => runScenario(spec, { redis: server(), file }));
    expect(ahead.t.error).toBeUndefined();
    // Actors' connections, each behind its own command (the run's last step's read too, where
    // its last command is still unanswered at the end; else on the observer).
    expect([...ahead.senders].filter((a) => ahead.actors.has(a)).length).toBeGreaterThanOrEqual(1);
    expect([...ahead.senders].filter((a) => !ahead.actors.has(a)).length).toBeLessThanOrEqual(1);
  });

  it("still stops, naming the key, when another client changes the run's queue", async () => {
    const { spec, file } = await load('chain');
    const intruder = admin().duplicate();
    await intruder.connect();
    await intruder.sendCommand(['SELECT', '0']);
    // Before the run's first script (after its FLUSHALL; the script waits for it): a job of
    // someone else's, due in the year 2286, in the run's delayed set. No pop reaches it and no
    // migrate moves it: only a step's end, whose ZCARD is read ahead of the next command and
    // checked against the model of that moment, sees it. The server is the run's own (no claim,
    // no watch). Made to land before the run goes on, so that a run that ends sooner than another
    // client reacts cannot pass for one that missed it.
    let intruded = false;
    const job = { uuid: 'intruder', displayName: 'App\\Jobs\\Intruder', attempts: 0, data: {} };
    const evalOf = NodeRedisPort.prototype.eval;
    vi.spyOn(NodeRedisPort.prototype, 'eval').mockImplementation(async function (this: NodeRedisPort, ...args) {
      if (!intruded) {
        intruded = true;
        await intruder.sendCommand([
          'ZADD',
          'laravel_database_queues:default:delayed',
          '9999999999',
          JSON.stringify(job),
        ]);
      }
      return evalOf.apply(this, args);
    });
    try {
      const t = await runScenario(spec, { redis: server(), file });
      expect(intruded).toBe(true);
      expect(t.error).toMatch(
        /^at the end of step \d+ \(t\+\d+s\), ZCARD laravel_database_queues:default:delayed returned 1, but laravel_database_queues:default:delayed should hold 0 jobs: another client added a job to it; the trace is no longer Laravel's alone, so the run stops$/,
      );
    } finally {
      intruder.destroy();
    }
  });

  it("reports its last command's failure, sent ahead and still unanswered at the run's end, as that command's", async () => {
    const { spec, file } = await load('success');
    const intruder = admin().duplicate();
    await intruder.connect();
    await intruder.sendCommand(['SELECT', '0']);
    // Just before the worker's ZREM (the run's last command, sent ahead): its :reserved made a
    // string by another client, so Redis answers it WRONGTYPE. The run's last barrier goes behind
    // it on its connection (ConnectionHub.barrierConnection) and passes before its reply is read;
    // the failure is still the run's error, as the ZREM's (not the step's read after it, which
    // fails on the same key).
    const proto = NodeRedisPort.prototype as unknown as { sendAhead: (...a: unknown[]) => Promise<void> };
    const sendAhead = proto.sendAhead;
    let changed = false;
    vi.spyOn(proto, 'sendAhead').mockImplementation(async function (this: NodeRedisPort, ...args: unknown[]) {
      const command = args[0] as string[];
      if (command[0] === 'ZREM') {
        changed = true;
        await intruder.sendCommand(['DEL', command[1]!]);
        await intruder.sendCommand(['SET', command[1]!, 'not a sorted set']);
      }
      return sendAhead.apply(this, args);
    });
    try {
      const t = await runScenario(spec, { redis: server(), file });
      console.log(
        'DBG',
        t.error,
        t.steps.length,
        t.steps.at(-1)?.commands.map((c) => c.args[0]),
      );
      expect(changed).toBe(true);
      expect(t.error).toBe('WRONGTYPE Operation against a key holding the wrong kind of value');
    } finally {
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
  /** The server as REDIS_URL gives it: someone else's, so the run claims a db and watches it. */
  const shared = () => ({ ...server(), owned: false, describe: () => 'REDIS_URL (test)', stop: async () => undefined });

  it('names the client that took the job between the mark and the pop that found nothing', async () => {
    const { spec, file } = await load('failure-release');
    const thief = await roamer('thief');
    let stolen: unknown = null;
    // Just before worker-1's first pop goes out (the step's mark and reads went ahead of that
    // step's first command): the job taken. Its lines come after the mark, so only the barrier
    // that ends the cut-short step reads them.
    const isPop = (args: string[]) =>
      args[0] === 'EVAL' && args[3] === 'queues:default' && args[4] === 'queues:default:reserved';
    beforeCommand(isPop, 1, async () => {
      await new Promise((r) => setTimeout(r, 20));
      stolen = await thief.inEachDb(['LPOP', 'queues:default'], (r) => r !== null);
    });
    const t = await runScenario(spec, { redis: shared(), file });
    expect(stolen, 'the thief took the job').not.toBeNull();
    expect(t.error).toMatch(
      /^another client used this run's db (\d+) \(127\.0\.0\.1:\d+ "thief": SELECT \1; 127\.0\.0\.1:\d+ "thief": LPOP queues:default\): the run saw it when worker-1's pop \(EVAL ‹pop› 2 queues:default queues:default:reserved \d+\) returned nothing, but queues:default should hold ChargeCard#1 \(attempts 0\) first/,
    );
  });

  it("ends the run naming a client that used its db after the last step's mark", async () => {
    const { spec, file } = await load('chain');
    const last = await barriersOf(() => runScenario(spec, { redis: shared(), file }));
    const visitor = await roamer('visitor');
    // A look into every db, the run's among them, after the last step's mark.
    beforeClosingBarrier(last, async () => void (await visitor.inEachDb(['EXISTS', 'queues:default'], () => false)));
    const t = await runScenario(spec, { redis: shared(), file });
    expect(t.error).toMatch(
      /^another client used this run's db (\d+) \(127\.0\.0\.1:\d+ "visitor": SELECT \1; 127\.0\.0\.1:\d+ "visitor": EXISTS queues:default\): the trace would no longer be Laravel's alone/,
    );
  });
});

describe("a kept step the model says changed nothing shows the last step's end that was read", () => {
  const isRestartCheck = (args: string[]) => args[0] === 'GET' && /illuminate:queue:restart$/.test(args[1] ?? '');

  it('reads the queues only after a step that changed them, and the states are those of a run read at every step', async () => {
    const { spec, file } = await load('throttled-exceptions');
    const atBarriers = await runScenario(spec, { redis: server(), file, onStep: () => undefined });
    const ahead = await snapshotSenders(() => runScenario(spec, { redis: server(), file }));
    expect(shown(ahead.t)).toEqual(shown(atBarriers));
    // Steps whose queues or cache differ from the step before's, the first among them: the
    // states a run read at every step saw change.
    const changed = atBarriers.steps.filter(
      (s, i) =>
        i === 0 ||
        JSON.stringify([s.state.queues, s.state.cache]) !==
          JSON.stringify([atBarriers.steps[i - 1]!.state.queues, atBarriers.steps[i - 1]!.state.cache]),
    ).length;
    expect(changed).toBeLessThan(atBarriers.steps.length / 4);
    // Each changed step read once, a few more where a step took a barrier (a sweep's), and the
    // run's end; never every step.
    expect(ahead.reads).toBeGreaterThanOrEqual(changed);
    expect(ahead.reads).toBeLessThanOrEqual(changed + 5);
  });

  it('ends the run naming another client that wrote in its db during such a step', async () => {
    const { spec, file } = await load('throttled-exceptions');
    const visitor = await roamer('visitor');
    // Before worker-1's 20th poll (it polls an empty queue every 3 s: nothing changes), a key of
    // the visitor's own in the run's db: no read would see it; the step's lines do.
    const at = beforeCommand(isRestartCheck, 20, async () => {
      await visitor.client.sendCommand(['SELECT', '0']);
      await visitor.client.sendCommand(['SET', 'visitor:note', 'hello']);
    });
    const t = await runScenario(spec, { redis: server(), file });
    expect(at.reached()).toBe(true);
    expect(t.error).toMatch(
      /^another client wrote in this run's db 0 during step \d+ \(127\.0\.0\.1:\d+ "visitor": SET visitor:note\), a step whose queues and cache the run did not read again \(nothing of the run's changed them, the model says\) but showed as it read them after the step before: that state is no longer vouched for, so the run stops/,
    );
  });

  it('lets another client read its keys then (redis-cli looking at the queue changes nothing)', async () => {
    const { spec, file } = await load('throttled-exceptions');
    const alone = await runScenario(spec, { redis: server(), file });
    const visitor = await roamer('visitor');
    const at = beforeCommand(isRestartCheck, 20, async () => {
      await visitor.client.sendCommand(['SELECT', '0']);
      await visitor.client.sendCommand(['LRANGE', 'laravel_database_queues:default', '0', '-1']);
      await visitor.client.sendCommand(['ZRANGE', 'laravel_database_queues:default:delayed', '0', '-1']);
    });
    const t = await runScenario(spec, { redis: server(), file });
    expect(at.reached()).toBe(true);
    expect(shown(t)).toEqual(shown(alone));
  });

  it("reads the run's last state again at its end, and stops where Redis holds another", async () => {
    const { spec, file } = await load('throttled-exceptions');
    const last = await barriersOf(() => runScenario(spec, { redis: server(), file }));
    const visitor = await roamer('visitor');
    // After the last step's mark (its state was the one before's), a job of someone else's.
    beforeClosingBarrier(last, async () => {
      await visitor.client.sendCommand(['SELECT', '0']);
      await visitor.client.sendCommand(['RPUSH', 'laravel_database_queues:default', '{"job":"Intruder"}']);
    });
    const t = await runScenario(spec, { redis: server(), file });
    expect(t.error).toMatch(
      /^at the end of step 117, the run's last \(t\+\d+s\), LLEN laravel_database_queues:default returned 1, but laravel_database_queues:default should hold 0 jobs: another client added a job to it; the trace is no longer Laravel's alone, so the run stops$/,
    );
  });
});

async function load(name: string) {
  const e = (await listScenarios()).find((x) => x.name === name)!;
  return { spec: (await loadScenarioFile(e.file)).spec, file: e.file };
}
