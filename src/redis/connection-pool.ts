// Actor connections a run on a server the tool started hands on to the next run on that server,
// instead of closing them: a node-redis client's making, connect and close cost a run ~0.2 ms of
// CPU each (the TCP handshake and close, the client's construction, node-redis' random id), and a
// run opens one per actor process (a request per dispatch: burst-and-priorities opens 22).
//
// Only between runs, never within one: a run's MONITOR lines are attributed to connections by
// address after the commands have gone out, so an address handed to another actor of the same
// run could take the first one's last lines. And only on a server the tool started: on anyone
// else's, a connection waiting in db 0 is a client in that db to other runs' claims (claim.ts).
//
// A connection is handed on only with nothing of its own under way (every command answered, no
// BLPOP). Between runs it waits in db 15 (SELECT 15, answered before the run that used it
// returns), where it keeps no one out of the dbs runs take (claim.ts: a client in a db keeps
// another process' runs on this server out of it; the tests' own clients sit in db 15 too). The
// next run takes every waiting connection at its start and puts each back in db 0 before its
// MONITOR starts (readyConnections), so that no trace shows either SELECT; it names each before
// the connection sends anything (a line isHandshake knows).
import type { Client } from './connections.ts';

/** A connection between runs: its address and CLIENT ID are those CLIENT INFO gave when it opened. */
export interface PooledConnection {
  client: Client;
  addr: string;
  id: string;
}

/** Connections kept per server at most; more are closed. */
export const POOL_MAX = 16;

const idle = new Map<string, PooledConnection[]>();

/** The db connections wait in between runs. */
export const PARKED_DB = 15;

/**
 * Every connection waiting for a run on `url`, each put back in db 0: resolves once Redis has run
 * each SELECT 0 (a run takes them before its MONITOR starts). One that is closed, or whose SELECT
 * fails, is closed and left out.
 */
export async function readyConnections(url: string): Promise<PooledConnection[]> {
  const waiting = idle.get(url) ?? [];
  idle.delete(url);
  const ready = await Promise.all(
    waiting.map(async (c) => {
      if (!c.client.isReady) {
        c.client.destroy();
        return null;
      }
      c.client.ref();
      const reply = await c.client.sendCommand(['SELECT', '0']).catch(() => null);
      if (String(reply) === 'OK') return c;
      c.client.destroy();
      return null;
    }),
  );
  return ready.filter((c) => c !== null);
}

/** Whether connections wait for a run on `url` (readyConnections has some to ready). */
export function hasWaiting(url: string): boolean {
  return (idle.get(url)?.length ?? 0) > 0;
}

/**
 * Hands connections on to the next run on `url`: each is moved to PARKED_DB and kept, or closed
 * when that fails, when POOL_MAX are kept already, or when `isIdle(client)` says it has something
 * under way. Resolves once each is kept or closed. A kept connection does not hold the process
 * open (unref).
 */
export async function handOn(
  url: string,
  connections: readonly PooledConnection[],
  isIdle: (client: Client) => boolean,
): Promise<void> {
  const ready = connections.filter((c) => {
    if (c.client.isReady && isIdle(c.client)) return true;
    c.client.destroy();
    return false;
  });
  const reset = await Promise.all(
    ready.map((c) =>
      c.client.sendCommand(['SELECT', String(PARKED_DB)]).then(
        (reply) => String(reply) === 'OK',
        () => false,
      ),
    ),
  );
  const kept = idle.get(url) ?? [];
  ready.forEach((c, i) => {
    if (reset[i] && kept.length < POOL_MAX && c.client.isReady) {
      c.client.unref();
      kept.push(c);
    } else c.client.destroy();
  });
  if (kept.length > 0) idle.set(url, kept);
}

/** Closes every connection kept for `url` (its server is stopping). */
export function closePool(url: string): void {
  for (const c of idle.get(url) ?? []) c.client.destroy();
  idle.delete(url);
}
