// A reply the model foresees whole (a GET of the cache, a ZREM, an empty queue's pop, a lock's SET)
// is not waited for: the actor goes on with the model's reply and Redis' is compared when it comes
// (check.ts' foresee). These check that the run still waits where the model cannot foresee (a pop
// that takes a job: the script re-encodes it), and that a foreseen reply Redis contradicts still
// stops the run, naming the command and what the actor had already under way on the model's word.
// Expected messages are written by hand from Laravel 8's worker loop and the scenarios below.
import { createClient } from 'redis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NodeRedisPort } from '../../src/redis/port.ts';
import { scenario } from '../../src/scenarios/builder.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { useServerWithAdmin } from '../helpers/admin.ts';

const { server } = useServerWithAdmin();

const appClient = (db: number) => createClient({ url: server().url, RESP: 2, database: db });
const others: Array<ReturnType<typeof appClient>> = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const c of others.splice(0)) c.destroy();
});

async function client(db: number) {
  const c = appClient(db);
  c.on('error', () => undefined);
  await c.connect();
  others.push(c);
  return c;
}

/** worker-1 (Laravel 8, the cache on Redis in db 1) polls every 3 s; one job, pushed at t+6. */
const polling = () =>
  scenario('foreseen', 'a worker polling an empty queue, then a job')
    .laravel('8')
    .cache({ store: 'redis' })
    .worker('worker-1', { sleep: 3 })
    .job('SendInvoice', { class: 'App\\Jobs\\SendInvoice', attempts: [{ run: 1 }] })
    .dispatch('SendInvoice', { at: 6 })
    .until(12)
    .build();

const RESTART = 'laravel_database_laravel_cache:illuminate:queue:restart';
const QUEUE = 'laravel_database_queues:default';

/** Each traced command of worker-1's, as "NAME first-key" (EVALs by their script's name). */
const sentBy = (t: Timeline, actor: string) =>
  t.steps.flatMap((s) =>
    s.commands
      .filter((c) => c.actor === actor && c.source === 'client')
      .map((c) => (c.args[0] === 'EVAL' ? `EVAL ${c.script ?? '?'}` : `${c.args[0]} ${c.args[1] ?? ''}`.trim())),
  );

/** Every command an actor awaits the reply of (NodeRedisPort's call; a command sent ahead does not go through it). */
function awaitedCommands(): string[][] {
  type Call = (this: unknown, ...a: unknown[]) => Promise<unknown>;
  const proto = NodeRedisPort.prototype as unknown as { call: Call };
  const call = proto.call;
  const awaited: string[][] = [];
  vi.spyOn(proto, 'call').mockImplementation(function (this: unknown, ...a: unknown[]) {
    awaited.push(a[0] as string[]);
    return call.apply(this, a);
  });
  return awaited;
}

/** `polling()` run with a view whose `act` runs once, after the first step of worker-1's (its t+0 poll). */
async function afterFirstPoll(act: () => Promise<unknown>): Promise<{ t: Timeline; acted: boolean }> {
  let acted = false;
  const t = await runScenario(polling(), {
    redis: server(),
    onStep: async (step) => {
      if (acted || !step.commands.some((c) => c.actor === 'worker-1')) return;
      acted = true;
      await act();
    },
  });
  return { t, acted };
}

const isPop = (args: readonly string[]) => args[0] === 'EVAL' && args[1]!.includes("redis.call('lpop', KEYS[1])");

describe('a reply the model foresees', () => {
  it('is not waited for: only the pop that takes the job is, on a server the tool started', async () => {
    const awaited = awaitedCommands();
    const t = await runScenario(polling(), { redis: server() });
    expect(t.error).toBeUndefined();
    // worker-1's pop at t+6 that takes SendInvoice#1. Its restart checks (GET), the empty pops,
    // the delete (ZREM), the push and migrates (never read), and each connection's SELECT (worker-1:
    // SELECT 1 for the cache, SELECT 0 for the queue; the dispatcher: SELECT 0) all go out ahead.
    expect(awaited).toHaveLength(1);
    expect(isPop(awaited[0]!)).toBe(true);
    // The trace is Laravel's all the same. Worker::daemon reads the restart signal once before its
    // loop, then after each pass (stopIfNecessary); a pass migrates twice and pops, and sleeps 3 s
    // only when the pop found nothing: passes at t+0, 3, 6 (SendInvoice#1, 1 s, then its delete),
    // 7 and 10; t+13 is past `until`.
    const worker = sentBy(t, 'worker-1').filter((c) => c !== 'SELECT 1' && c !== 'SELECT 0');
    const pass = ['EVAL migrateExpiredJobs', 'EVAL migrateExpiredJobs', 'EVAL pop'];
    const check = `GET ${RESTART}`;
    expect(worker).toEqual([
      ...[check, ...pass],
      ...[check, ...pass],
      ...[check, ...pass, `ZREM ${QUEUE}:reserved`],
      ...[check, ...pass],
      ...[check, ...pass],
    ]);
  });

  it("is not waited for on someone else's server either, but a connection's SELECT is (a SELECT that failed would leave the commands after it in db 0)", async () => {
    const awaited = awaitedCommands();
    const shared = { ...server(), owned: false, describe: () => 'REDIS_URL', stop: async () => undefined };
    const t = await runScenario(polling(), { redis: shared });
    expect(t.error).toBeUndefined();
    expect(awaited.map((args) => args[0]).sort()).toEqual(['EVAL', 'SELECT', 'SELECT', 'SELECT']);
    expect(isPop(awaited.find((args) => args[0] === 'EVAL')!)).toBe(true);
  });

  it("that Redis contradicts stops the run, naming it and the command the actor had issued since (another client's SET of the restart signal)", async () => {
    const app = await client(1);
    const monitor = await client(0);
    const lines: string[] = [];
    await monitor.monitor((line) => lines.push(line));
    // After worker-1's first poll (t+0): the restart signal, as `php artisan queue:restart` sets it.
    const { t, acted } = await afterFirstPoll(() => app.set(RESTART, '1700000001'));
    expect(acted).toBe(true);
    // The poll at t+3: its GET goes out on the model's word (nil), and worker-1 goes on to its two
    // migrates and its pop, on the queue's connection: they wait in the hub for the GET's reply,
    // which differs, so none of them goes out.
    expect(t.error).toBe(
      `worker-1's GET ${RESTART} returned "1700000001", but ${RESTART} should not exist: GET read another value (another client on this server changed the key?); the trace is no longer Laravel's alone, so the run stops (worker-1 had gone on with the reply the model foresaw: its next 3 commands had been issued before this reply came)`,
    );
    // The run's steps end before the one that failed: its t+0 poll is the last.
    expect(t.steps.map((s) => s.t - t.start)).toEqual([0]);
    // Everything before the sentinel's line has come through MONITOR.
    await app.sendCommand(['ECHO', 'foreseen-sentinel']);
    await vi.waitFor(() => expect(lines.some((l) => l.includes('foreseen-sentinel'))).toBe(true));
    const gets = lines.flatMap((l, i) => (l.includes(`"GET" "${RESTART}"`) ? [i] : []));
    expect(gets).toHaveLength(2); // t+0's (Worker::daemon's own first read is before the loop: the model's too) and t+3's
    const laravelScripts = (from: number) => lines.slice(from).filter((l) => /"EVAL" "-- /.test(l));
    expect(laravelScripts(gets[0]!)).toHaveLength(3);
    expect(laravelScripts(gets[1]!)).toEqual([]);
  });

  it("that Redis contradicts stops the run: an empty queue's pop that finds another client's job", async () => {
    const app = await client(0);
    const { t, acted } = await afterFirstPoll(() =>
      app.rPush(QUEUE, '{"uuid":"someone-else","displayName":"App\\\\Jobs\\\\Other","attempts":0}'),
    );
    expect(acted).toBe(true);
    // The pop at t+3 is foreseen empty; nothing of worker-1's follows it in that step (it sleeps).
    expect(t.error).toMatch(
      /^worker-1's pop \(EVAL ‹pop› 3 laravel_database_queues:default laravel_database_queues:default:reserved laravel_database_queues:default:notify \d+\) returned a payload this run did not dispatch \("\{\\"uuid\\":\\"someone-else\\",.*"\), but laravel_database_queues:default should be empty: another client pushed it onto laravel_database_queues:default; the trace is no longer Laravel's alone, so the run stops$/,
    );
  });

  describe("a pop's reserved copy (cjson's, attempts + 1)", () => {
    /** Three SendInvoice jobs pushed at t+0, worked one after the other by worker-1 (Laravel 8). */
    const three = () =>
      scenario('three', 'three jobs of one class')
        .laravel('8')
        .worker('worker-1', { sleep: 3 })
        .job('SendInvoice', { class: 'App\\Jobs\\SendInvoice', attempts: [{ run: 1 }] })
        .dispatch('SendInvoice', { at: 0, count: 3 })
        .build();

    it('is awaited for the first job only: the next copies are written as Redis writes them', async () => {
      const awaited = awaitedCommands();
      const t = await runScenario(three(), { redis: server() });
      expect(t.error).toBeUndefined();
      expect(awaited.filter(isPop)).toHaveLength(1);
      // What Redis' pop script put on :reserved (its ZADD inside the script, as MONITOR showed it)
      // is what worker-1 deleted each time: the two foreseen copies were Redis' own.
      const commands = t.steps.flatMap((s) => s.commands);
      const reserved = commands.filter((c) => c.source === 'lua' && c.args[0] === 'zadd').map((c) => c.args[3]);
      const deleted = commands.filter((c) => c.source === 'client' && c.args[0] === 'ZREM').map((c) => c.args[2]);
      expect(reserved).toHaveLength(3);
      expect(deleted).toEqual(reserved);
    });

    it('that another client took first stops the run naming the job (a foreseen pop)', async () => {
      const app = await client(0);
      let taken: string | null = null;
      // Just before worker-1 sends its second pop (its first, awaited, showed cjson's order, so
      // this one is sent ahead with SendInvoice#2's copy foreseen): SendInvoice#2, from under it.
      type SendAhead = (this: unknown, args: string[], ...rest: unknown[]) => Promise<void>;
      const proto = NodeRedisPort.prototype as unknown as { sendAhead: SendAhead };
      const sendAhead = proto.sendAhead;
      vi.spyOn(proto, 'sendAhead').mockImplementation(async function (this: unknown, args, ...rest) {
        if (taken === null && isPop(args)) taken = await app.lPop(QUEUE);
        return sendAhead.call(this, args, ...rest);
      });
      const t = await runScenario(three(), { redis: server() });
      expect(taken).toContain('"attempts":0');
      expect(t.error).toMatch(
        /^worker-1's pop \(EVAL ‹pop› 3 laravel_database_queues:default laravel_database_queues:default:reserved laravel_database_queues:default:notify \d+\) returned SendInvoice#3 \(attempts 0\), but laravel_database_queues:default should hold SendInvoice#2 \(attempts 0\) first \(pushed at t\+0s by dispatcher\): another client took SendInvoice#2 \(attempts 0\) first \(an app's queue:work on this server\?\); the trace is no longer Laravel's alone, so the run stops/,
      );
    });
  });
});
