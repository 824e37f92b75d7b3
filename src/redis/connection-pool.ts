// The connections a run on a server the tool started hands on to the next run on that server,
// instead of closing them: a node-redis client's making, connect and close cost ~0.2 ms of CPU
// each (the TCP handshake and close, the client's construction, node-redis' random id), a run
// opens one per actor process (a request per dispatch: burst-and-priorities opens 22), and its
// observer's and MONITOR's connects were the first thing every run waited for.
//
// Only between runs, never within one: a run's MONITOR lines are attributed to connections by
// address after the commands have gone out, so an address handed to another actor of the same
// run could take the first one's last lines. Only after a run that ended well, and only on a
// server the tool started: on anyone else's, a connection waiting in a db is a client in that db
// to other runs' claims (claim.ts).
//
// A connection is handed on only with nothing of its own under way (every command answered, no
// BLPOP), MONITOR's once out of MONITOR mode (its RESET goes out in the same write as the parking
// below, and CLIENT INFO must show it out). Between runs it waits in db 15 (SELECT 15,
// answered before the run that used it returns), where it keeps no one out of the dbs runs take
// (another process may point REDIS_URL at this server; the tests' own clients sit in db 15 too).
// The next run takes every waiting connection at its start: one is its observer (SELECT 0 and
// CLIENT INFO are its first commands), one takes MONITOR, and the rest are put back in db 0
// before MONITOR starts (readyConnections), so that no trace shows either SELECT; an actor's is
// named before it sends anything (a line isHandshake knows).
import { parseClientList } from './client-list.ts';
import type { Client } from './connections.ts';

/** A connection between runs, with the address and CLIENT ID CLIENT INFO gave when it was parked. */
export interface PooledConnection {
  client: Client;
  addr: string;
  id: string;
}

/** Connections kept per server at most; more are closed. */
export const POOL_MAX = 32;

/** The db connections wait in between runs. */
export const PARKED_DB = 15;

const idle = new Map<string, PooledConnection[]>();

/**
 * The connections waiting for a run on `url`, up to `max` (the last parked first), taken for it
 * (still in PARKED_DB): a closed one is closed for good and left out. The run uses one as its
 * observer, one for MONITOR, and readies the rest for its actors (readyConnections). Those past
 * `max` wait on, untouched: each taken costs the run a SELECT 0 at its start and its parking at
 * its end, used or not (a `dispatch` after `burst-and-priorities` had parked its 24 took 4.6 ms
 * instead of 2.7).
 */
export function takeWaiting(url: string, max = Infinity): PooledConnection[] {
  const all = idle.get(url) ?? [];
  const waiting = all.splice(Math.max(0, all.length - max));
  if (all.length === 0) idle.delete(url);
  return waiting.filter((c) => {
    if (c.client.isReady) {
      c.client.ref();
      return true;
    }
    c.client.destroy();
    return false;
  });
}

/**
 * `connections` put back in db 0: resolves once Redis has run each SELECT 0 (before the run's
 * MONITOR starts). One whose SELECT fails is closed and left out.
 */
export async function readyConnections(connections: readonly PooledConnection[]): Promise<PooledConnection[]> {
  const ready = await Promise.all(
    connections.map(async (c) => {
      const reply = await c.client.sendCommand(['SELECT', '0']).catch(() => null);
      if (String(reply) === 'OK') return c;
      c.client.destroy();
      return null;
    }),
  );
  return ready.filter((c) => c !== null);
}

/**
 * Hands connections on to the next run on `url`: each one `isIdle` says has nothing under way is
 * moved to PARKED_DB, its address and id read again (CLIENT INFO, in the same round trip), and
 * kept; the others, one whose commands fail, one CLIENT INFO shows in MONITOR mode, and any past
 * POOL_MAX are closed. Resolves once each
 * is kept or closed. A kept connection does not hold the process open (unref).
 */
export async function handOn(
  url: string,
  clients: readonly Client[],
  isIdle: (client: Client) => boolean,
): Promise<void> {
  const ready = clients.filter((c) => {
    if (c.isReady && isIdle(c)) return true;
    c.destroy();
    return false;
  });
  const parked = await Promise.all(
    ready.map(async (client): Promise<PooledConnection | null> => {
      const info = client.sendCommand(['CLIENT', 'INFO']);
      info.catch(() => undefined); // the SELECT's failure is the one that counts
      const selected = await client.sendCommand(['SELECT', String(PARKED_DB)]).catch(() => null);
      const entry = parseClientList(String(await info.catch(() => '')))[0];
      // MONITOR's connection is handed on with its RESET still to be answered (MonitorCapture.handOff):
      // still a monitor (flag O) is never kept.
      if (String(selected) !== 'OK' || !entry?.addr || !entry.id || !entry.flags || entry.flags.includes('O'))
        return null;
      return { client, addr: entry.addr, id: entry.id };
    }),
  );
  const kept = idle.get(url) ?? [];
  ready.forEach((client, i) => {
    const p = parked[i];
    if (p && kept.length < POOL_MAX && client.isReady) {
      client.unref();
      kept.push(p);
    } else client.destroy();
  });
  if (kept.length > 0) idle.set(url, kept);
}

/** Closes every connection kept for `url` (its server is stopping). */
export function closePool(url: string): void {
  for (const c of idle.get(url) ?? []) c.client.destroy();
  idle.delete(url);
}
