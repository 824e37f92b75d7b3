// The floors issue 29's targets are held against: what any client that sends a run's traced
// commands to Redis as the tool must (the same commands in the same order, so the trace is the
// same) cannot go below, measured on the same server in the same bench run:
//
//   Redis' own time  the traced commands sent again, pipelined per connection, with MONITOR
//                    attached (redis-cli monitor, as the tool always traces): the sum of INFO
//                    commandstats' usec over that replay, which is what Redis spends executing
//                    them and feeding MONITOR, with no round trip in it;
//   round trips      PING over a bare node:net socket awaiting each reply, times the round trips
//                    the trace cannot do without (unavoidableRoundTrips): a client that knows
//                    every reply that can be known before it comes (the tool's model: a push's,
//                    a migrate's, a pop's, the cache's) still waits for a reply nobody can
//                    foresee (a BLPOP's; the first pop of a payload's shape, whose copy shows
//                    cjson's key order), and before a command on another connection than the one
//                    before it (sent at once, it could overtake that one in Redis, and the trace
//                    would differ).
//
// A floor is their sum. A blocking pop (BLPOP) is left out of the replay (it would wait for its
// timeout with nothing pushed behind it): its own time in Redis is a list lookup. Laravel itself
// (phpredis) waits for every reply: one round trip per command, which the floor before issue 29's
// fourth session counted, and which the tool was already below.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Client } from '../src/redis/connections.ts';
import { newClient } from '../src/redis/connections.ts';
import { freePort } from '../src/redis/local-server.ts';
import type { RedisServer } from '../src/redis/server.ts';

/**
 * A traced command as the replay needs it: which connection sent it (actor, process and db: a
 * worker's cache store and its queue are two connections, in their own dbs; two in one db count as
 * one, which can only lower the floor) and what.
 */
export interface ReplayedCommand {
  connection: string;
  args: readonly string[];
  /** Its reply cannot be known before it comes (a BLPOP, a pop that showed a new shape): a round trip ends with it. */
  awaited: boolean;
}

/** What ReplayRecorder reads of a traced command (TraceCommand fits). */
interface Traced {
  source: 'client' | 'lua';
  actor: string;
  process: number;
  db: number;
  args: readonly string[];
  script?: string;
}

/**
 * Collects a run's traced commands, in order, for the replay and the round trips: a client
 * command each, marked awaited where nobody could foresee its reply: a BLPOP, and a pop whose
 * script then put a copy on :reserved (its ZADD, which MONITOR shows after the EVAL) with keys
 * no earlier copy of the run had (cjson's order for that shape is not known before). Shapes are
 * told by the copy's keys, not the payload's as the tool tells them (reserved-copies.ts), and
 * every copy counts as one the tool could write: both can only lower the floor.
 */
export class ReplayRecorder {
  readonly commands: ReplayedCommand[] = [];
  private lastPop: ReplayedCommand | null = null;
  private readonly shapes = new Set<string>();

  add(c: Traced): void {
    if (c.source === 'lua') {
      if (this.lastPop !== null && c.args[0]?.toLowerCase() === 'zadd') {
        const shape = keysOf(c.args[3] ?? '');
        if (!this.shapes.has(shape)) {
          this.shapes.add(shape);
          this.lastPop.awaited = true;
        }
      }
      return;
    }
    const name = (c.args[0] ?? '').toUpperCase();
    // MONITOR shows a SELECT in the db it leaves: it belongs with the commands after it.
    const db = name === 'SELECT' ? c.args[1] : String(c.db);
    const command: ReplayedCommand = {
      connection: `${c.actor}:${c.process}:${db}`,
      args: c.args,
      awaited: name === 'BLPOP',
    };
    this.commands.push(command);
    this.lastPop = name === 'EVAL' && c.script === 'pop' ? command : null;
  }
}

/** A JSON object's keys at every level, in order ("" for what is not one). */
function keysOf(json: string): string {
  const walk = (v: unknown): string =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? `{${Object.entries(v)
          .map(([k, x]) => `${JSON.stringify(k)}${walk(x)}`)
          .join(',')}}`
      : '';
  try {
    return walk(JSON.parse(json));
  } catch {
    return '';
  }
}

/**
 * The round trips no client can do without to send `commands` with the same trace: one ends at each
 * awaited command, before a command on another connection than the one before it (whose replies it
 * must wait for), and at the end.
 */
export function unavoidableRoundTrips(commands: readonly ReplayedCommand[]): number {
  let trips = 0;
  let open: string | null = null;
  for (const c of commands) {
    if (open !== null && open !== c.connection) trips++;
    open = c.connection;
    if (c.awaited) {
      trips++;
      open = null;
    }
  }
  return open === null ? trips : trips + 1;
}

/** PING over a bare node:net socket, awaiting each reply: one round trip, in µs (the mean of `n`, after 200 unmeasured). */
export async function roundTripUs(server: Pick<RedisServer, 'host' | 'port'>, n = 2000): Promise<number> {
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
  try {
    for (let i = 0; i < 200; i++) await ping();
    const t = performance.now();
    for (let i = 0; i < n; i++) await ping();
    return ((performance.now() - t) * 1000) / n;
  } finally {
    socket.destroy();
  }
}

/**
 * The commands a replay sends (a BLPOP left out: it would wait for its timeout with nothing pushed
 * behind it; its own time in Redis is a list lookup), with a connected client per connection of
 * theirs put in `clients` (the caller closes them, whatever happens).
 */
async function connectReplay(
  server: RedisServer,
  commands: readonly ReplayedCommand[],
  clients: Map<string, Client>,
): Promise<ReplayedCommand[]> {
  const replayed = commands.filter((c) => (c.args[0] ?? '').toUpperCase() !== 'BLPOP');
  for (const name of new Set(replayed.map((c) => c.connection))) {
    const client = newClient(server.url);
    clients.set(name, client);
    await client.connect();
  }
  return replayed;
}

/**
 * Redis' own time (µs) for `commands` with MONITOR attached: each connection's commands pipelined
 * on a connection of its own, after FLUSHALL and CONFIG RESETSTAT; the sum of INFO commandstats'
 * usec over the replay (CONFIG RESETSTAT and INFO themselves left out).
 */
export async function redisOwnUs(server: RedisServer, commands: readonly ReplayedCommand[]): Promise<number> {
  const admin = newClient(server.url);
  await admin.connect();
  const monitor = spawn('redis-cli', ['-h', server.host, '-p', String(server.port), 'monitor'], { stdio: 'ignore' });
  const clients = new Map<string, Client>();
  try {
    spawnSync('sleep', ['0.2']); // let it attach
    await admin.sendCommand(['FLUSHALL']);
    const replayed = await connectReplay(server, commands, clients);
    await admin.sendCommand(['CONFIG', 'RESETSTAT']);
    // Issued in the run's order, each connection's pipelined: no round trip is in Redis' time.
    await Promise.all(
      replayed.map((c) =>
        clients
          .get(c.connection)!
          .sendCommand([...c.args])
          .catch(() => undefined),
      ),
    );
    const stats = String(await admin.sendCommand(['INFO', 'commandstats']));
    let usec = 0;
    for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=\d+,usec=(\d+)/gm))
      if (m[1] !== 'config|resetstat' && m[1] !== 'info') usec += Number(m[2]);
    return usec;
  } finally {
    for (const c of clients.values()) c.destroy();
    monitor.kill();
    await admin.sendCommand(['FLUSHALL']).catch(() => undefined);
    admin.destroy();
  }
}

/**
 * A replay's wall time (µs): `commands` sent again by the leanest client the product could be, and
 * timed whole. Each connection is a node-redis client of its own (the tool's one client class) and
 * MONITOR is attached on another, whose lines are decoded and dropped; every command goes out at
 * once, pipelined, except that the replay waits for the replies before a command on another
 * connection than the one before it and after each awaited command (unavoidableRoundTrips' round
 * trips, no others); the time ends when an ECHO after the last command has come through MONITOR.
 * It pays what any tracing client pays and the sum above leaves out: each round trip's writes and
 * wake-ups with Redis' real work in them, Redis writing MONITOR's lines, and reading them. What
 * it leaves out is the tool's own work: the model, the actors, attribution and the timeline.
 * After FLUSHALL, as redisOwnUs; BLPOPs are left out.
 */
export async function replayWallUs(server: RedisServer, commands: readonly ReplayedCommand[]): Promise<number> {
  const admin = newClient(server.url);
  await admin.connect();
  const monitor = newClient(server.url);
  const clients = new Map<string, Client>();
  try {
    await admin.sendCommand(['FLUSHALL']);
    const replayed = await connectReplay(server, commands, clients);
    // The round trips: a run of commands on one connection, up to an awaited one, goes out in one write.
    const runs: Array<{ client: Client; args: string[][] }> = [];
    let open: { client: Client; args: string[][]; connection: string } | null = null;
    for (const c of replayed) {
      if (open === null || open.connection !== c.connection) {
        open = { client: clients.get(c.connection)!, args: [], connection: c.connection };
        runs.push(open);
      }
      open.args.push([...c.args]);
      if (c.awaited) open = null;
    }
    const token = `lqsim-bench-floor-${process.pid}-${performance.now()}`;
    let passed: () => void = () => undefined;
    const end = new Promise<void>((resolve) => (passed = resolve));
    await monitor.connect();
    await monitor.monitor((line) => {
      if (String(line).endsWith(`"ECHO" "${token}"`)) passed();
    });
    const t = performance.now();
    for (const run of runs) {
      // A reply that is an error (a command the replay cannot repeat exactly) is Redis' work all the same.
      const replies = run.args.map((args) => run.client.sendCommand(args).catch(() => undefined));
      await replies.at(-1);
    }
    await admin.sendCommand(['ECHO', token]);
    await end;
    return (performance.now() - t) * 1000;
  } finally {
    for (const c of clients.values()) c.destroy();
    monitor.destroy();
    await admin.sendCommand(['FLUSHALL']).catch(() => undefined);
    admin.destroy();
  }
}

/** The floor for `commands`, in µs: Redis' own time for them plus their unavoidable round trips. */
export async function floorUs(
  server: RedisServer,
  commands: readonly ReplayedCommand[],
  rttUs: number,
): Promise<{ floorUs: number; redisUs: number; trips: number }> {
  const redisUs = await redisOwnUs(server, commands);
  const trips = unavoidableRoundTrips(commands);
  return { floorUs: redisUs + trips * rttUs, redisUs, trips };
}

/**
 * A bare redis-server's start: from spawning it (no persistence, a free port, as the tool starts
 * its own) to its first PONG over a node:net socket, in ms. Part of the reference for one job end
 * to end: what running anything against a private Redis costs before the tool does any work.
 */
export async function redisStartToPongMs(binary = 'redis-server'): Promise<number> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'lqsim-bench-start-'));
  const t = performance.now();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  try {
    for (;;) {
      if (await pongFrom(port)) return performance.now() - t;
      if (performance.now() - t > 5000) throw new Error(`${binary} gave no PONG within 5 s`);
      await new Promise((r) => setTimeout(r, 1));
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One PING on a new connection: whether PONG came back (false while the server is not up). */
function pongFrom(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString('latin1').startsWith('+PONG'));
    });
  });
}
