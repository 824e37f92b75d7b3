// A run on a server the tool started hands its actors' connections on to the next run there
// (src/redis/connection-pool.ts) instead of closing them; the next run's trace must not show it.
// Watched from outside: CLIENT LIST from a client of the test's own, and a MONITOR of its own.
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { PARKED_DB, takeWaiting } from '../../src/redis/connection-pool.ts';
import { ConnectionHub, parseClientList } from '../../src/redis/connections.ts';
import { NodeRedisPort } from '../../src/redis/port.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { scenario } from '../../src/scenarios/builder.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';

const servers: RedisServer[] = [];
const clients: Array<{ destroy(): void }> = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  for (const s of servers.splice(0)) await s.stop();
});

async function ownServer(): Promise<RedisServer> {
  const server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
  servers.push(server);
  return server;
}

async function adminOf(server: RedisServer) {
  const c = createClient({ socket: { host: server.host, port: server.port } });
  c.on('error', () => undefined);
  await c.connect();
  clients.push(c);
  return c;
}

/** Every client but `admin`, as CLIENT LIST shows it. */
async function othersOf(admin: Awaited<ReturnType<typeof adminOf>>): Promise<Array<Record<string, string>>> {
  const self = String(await admin.sendCommand(['CLIENT', 'ID']));
  return parseClientList(String(await admin.sendCommand(['CLIENT', 'LIST']))).filter((c) => c.id !== self);
}

/** A worker with its cache on Redis (a queue connection and a cache connection) and one request's dispatch. */
const withCache = () =>
  scenario('pool', 'a worker with its cache on Redis, one job')
    .laravel('8')
    .cache({ store: 'redis' })
    .worker('worker-1', { sleep: 3 })
    .job('SendInvoice', { class: 'App\\Jobs\\SendInvoice', attempts: [{ run: 1 }] })
    .dispatch('SendInvoice', { at: 1 })
    .until(5)
    .build();

/** Each traced client command, as "actor NAME first-key" (EVALs by their script's name). */
const traced = (t: Timeline) =>
  t.steps.flatMap((s) =>
    s.commands
      .filter((c) => c.source === 'client')
      .map((c) => `${c.actor} ${c.args[0] === 'EVAL' ? `EVAL ${c.script ?? '?'}` : `${c.args[0]} ${c.args[1] ?? ''}`}`),
  );

describe("a run's connections", () => {
  it('go to the next run on a server the tool started: the same connections, back in db 0, named anew, and the trace is the same', async () => {
    const server = await ownServer();
    const admin = await adminOf(server);
    const first = await runScenario(withCache(), { redis: server });
    expect(first.error).toBeUndefined();
    // worker-1's two (its queue's, its cache's), the request's, the observer's and MONITOR's (out
    // of MONITOR mode): idle in db 15, out of the way of other processes' claims, their last
    // command the SELECT that put them there.
    const between = await othersOf(admin);
    expect(between).toHaveLength(5);
    for (const c of between)
      expect({ db: c.db, cmd: c.cmd, flags: c.flags }).toEqual({ db: String(PARKED_DB), cmd: 'select', flags: 'N' });

    const lines: string[] = [];
    const monitor = createClient({ socket: { host: server.host, port: server.port } });
    clients.push(monitor);
    await monitor.connect();
    await monitor.monitor((line) => lines.push(String(line)));
    const second = await runScenario(withCache(), { redis: server });
    expect(second.error).toBeUndefined();
    expect(traced(second)).toEqual(traced(first));
    expect(traced(second)).toContain('worker-1 SELECT 1');
    const after = (await othersOf(admin)).filter((c) => c.flags !== 'O'); // not the test's MONITOR
    const ids = (cs: typeof between) => cs.map((c) => c.id).sort();
    expect(ids(after.filter((c) => c.cmd === 'select' && c.db === String(PARKED_DB)))).toEqual(ids(between));
    // The second run took them all again: one as its observer, one for MONITOR, and the actors'
    // three, each back in db 0 and named for the second run before it sent anything; each was
    // parked again after its last command. None of it is in the trace (above).
    const ownLines = (addr: string) =>
      lines.filter((l) => l.includes(` ${addr}]`)).map((l) => l.slice(l.indexOf(']') + 2));
    const firsts = between.map((c) => ownLines(c.addr!).slice(0, 2).join(' '));
    expect(firsts.filter((f) => /^"SELECT" "0" "CLIENT" "SETNAME" "lqsim:/.test(f))).toHaveLength(3);
    // The observer: back in db 0 first, then the checks; its address is known from its parking,
    // so the only CLIENT INFO it sends is its parking's again.
    const observer = between
      .map((c) => ownLines(c.addr!))
      .filter((own) => own[0] === '"SELECT" "0"' && !own[1]!.startsWith('"CLIENT" "SETNAME"'));
    expect(observer).toHaveLength(1);
    expect(observer[0]!.filter((l) => l === '"CLIENT" "INFO"')).toHaveLength(1);
    expect(observer[0]).toContain('"FLUSHALL"');
    // MONITOR's connection shows nothing of its own until the run's end: RESET (out of MONITOR
    // mode), then its parking.
    expect(between.map((c) => ownLines(c.addr!))).toContainEqual([
      '"RESET"',
      '"CLIENT" "INFO"',
      `"SELECT" "${PARKED_DB}"`,
    ]);
    for (const c of between)
      expect(ownLines(c.addr!).slice(-2)).toEqual(['"CLIENT" "INFO"', `"SELECT" "${PARKED_DB}"`]);
  });

  it('are closed, not handed on, when one is blocked (a BLPOP still waiting) or has a reply to come', async () => {
    const server = await ownServer();
    const admin = await adminOf(server);
    const hub = new ConnectionHub(server.url, 'poolblk');
    hub.handConnectionsOn();
    await hub.start();
    const idle = new NodeRedisPort(await hub.connect('dispatcher'), hub, null);
    expect(await idle.get('pool:nothing')).toBeNull();
    const blocked = new NodeRedisPort(await hub.connect('worker-1'), hub, null);
    await blocked.blpop('pool:empty', 0); // returns once the server holds it blocked
    const busy = new NodeRedisPort(await hub.connect('worker-2'), hub, null);
    await busy.rpush('pool:list', 'x'); // sent ahead: its reply still to come when the hub closes
    await hub.close({ handOn: true });
    // The dispatcher's alone waits for the next run (worker-2's may have had its reply by the
    // time its turn came: then it waits too); worker-1's BLPOP ended with its connection.
    const left = await othersOf(admin);
    expect(left.every((c) => c.db === String(PARKED_DB) && c.cmd === 'select' && c.flags === 'N')).toBe(true);
    expect(left.map((c) => c.name)).toContain('lqsim:poolblk:dispatcher:1');
    expect(left.map((c) => c.name)).not.toContain('lqsim:poolblk:worker-1:1');
  });

  it("are closed on someone else's server (REDIS_URL), and after a run that failed", async () => {
    const server = await ownServer();
    const admin = await adminOf(server);
    const shared = { ...server, owned: false, describe: () => 'REDIS_URL', stop: async () => undefined };
    expect((await runScenario(withCache(), { redis: shared })).error).toBeUndefined();
    expect(await othersOf(admin)).toEqual([]);

    // Another client sets the restart signal while worker-1 polls: the run stops (the model
    // check), and nothing of it is handed on.
    let set = false;
    const failed = await runScenario(withCache(), {
      redis: server,
      onStep: async (step) => {
        if (set || !step.commands.some((c) => c.actor === 'worker-1')) return;
        set = true;
        await admin.sendCommand(['SELECT', '1']);
        await admin.sendCommand(['SET', 'laravel_database_laravel_cache:illuminate:queue:restart', '1700000001']);
        await admin.sendCommand(['SELECT', '0']);
      },
    });
    expect(failed.error).toMatch(/another client on this server changed the key/);
    expect(await othersOf(admin)).toEqual([]);
  });

  it('are taken by the next run only as many as it likely opens; the others wait on, untouched', async () => {
    const server = await ownServer();
    const admin = await adminOf(server);
    // Eight web requests, each a process with a connection of its own: ten parked with the
    // observer's and MONITOR's.
    let many = scenario('many', 'eight requests').laravel('8');
    many = many.job('SendInvoice', { class: 'App\\Jobs\\SendInvoice', attempts: [{ run: 1 }] });
    for (let i = 0; i < 8; i++) many = many.dispatch('SendInvoice', { at: i });
    expect((await runScenario(many.build(), { redis: server })).error).toBeUndefined();
    const parked = await othersOf(admin);
    expect(parked).toHaveLength(10);
    // One request, no worker: 4 at most (one entry, one job; the observer and MONITOR).
    const one = scenario('one', 'one request')
      .laravel('8')
      .job('SendInvoice', { class: 'App\\Jobs\\SendInvoice', attempts: [{ run: 1 }] })
      .dispatch('SendInvoice', { at: 0 })
      .build();
    const lines: string[] = [];
    const monitor = createClient({ socket: { host: server.host, port: server.port } });
    clients.push(monitor);
    await monitor.connect();
    await monitor.monitor((line) => lines.push(String(line)));
    const t = await runScenario(one, { redis: server });
    expect(t.error).toBeUndefined();
    expect(t.steps.flatMap((s) => s.commands.filter((c) => c.source === 'client').map((c) => c.args[0]))).toEqual([
      'SELECT',
      'EVAL',
    ]);
    await admin.sendCommand(['PING']);
    const addrs = new Set(parked.map((c) => c.addr!));
    const touched = [...addrs].filter((a) => lines.some((l) => l.includes(` ${a}]`)));
    expect(touched.length).toBeLessThanOrEqual(4);
    expect(touched.length).toBeGreaterThanOrEqual(3); // the observer, MONITOR's and the request's
    // All ten still there, parked: the untouched ones as they were, the others parked again.
    const after = (await othersOf(admin)).filter((c) => c.flags !== 'O'); // not the test's MONITOR
    expect(after.filter((c) => c.id !== undefined && c.cmd === 'select' && c.db === String(PARKED_DB))).toHaveLength(
      10,
    );
    expect(after.map((c) => c.id).sort()).toEqual(parked.map((c) => c.id).sort());
  });

  it('are closed when the server the tool started stops', async () => {
    const server = await ownServer();
    expect((await runScenario(withCache(), { redis: server })).error).toBeUndefined();
    await server.stop();
    servers.splice(servers.indexOf(server), 1);
    expect(takeWaiting(server.url)).toEqual([]);
  });
});
