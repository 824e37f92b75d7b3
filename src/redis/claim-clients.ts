// Who else is in a logical db: CLIENT LIST's `db=` field is the db each connection has selected,
// blocked ones included (an app's `queue:work` waiting in BLPOP on an empty db holds no key, but
// is in it, and would be handed the first job pushed there). A db is free only if nobody is in it.
import { parseClientList } from './connections.ts';

/** Something that sends a command and returns its reply (a node-redis client, ConnectionHub.afterAhead). */
export interface Sender {
  sendCommand(args: string[]): Promise<unknown>;
}

export interface OtherClient {
  addr: string;
  /** CLIENT SETNAME's name, '' when it has none. */
  name: string;
  /** The last command it ran (`blpop`, `client|list`...). */
  cmd: string;
}

/**
 * The clients of CLIENT LIST `text` that have `db` selected, but the `own` ones (this run's, by
 * CLIENT ID: over a unix socket every client has one address) and MONITOR clients (flag O): a
 * monitor runs no command in any db, and every run of lqsim keeps one, sitting in db 0 where it
 * connected.
 */
export function othersInDb(text: string, db: number, own: ReadonlySet<string>): OtherClient[] {
  return parseClientList(text)
    .filter((c) => c.db === String(db) && !own.has(c.id ?? '') && !(c.flags ?? '').includes('O'))
    .map((c) => ({ addr: c.addr ?? '?', name: c.name ?? '', cmd: c.cmd ?? '' }));
}

/** The clients of CLIENT LIST `text` at these addresses (those still connected). */
export function clientsAt(text: string, addrs: readonly string[]): OtherClient[] {
  return parseClientList(text)
    .filter((c) => addrs.includes(c.addr ?? ''))
    .map((c) => ({ addr: c.addr ?? '?', name: c.name ?? '', cmd: c.cmd ?? '' }));
}

/** `127.0.0.1:5555 "worker", last command blpop`: a client as a message names it. */
export function describeClient(c: OtherClient): string {
  const name = c.name === '' ? '' : ` "${c.name}"`;
  const cmd = c.cmd === '' || c.cmd === 'NULL' ? '' : `, last command ${c.cmd}`;
  return `${c.addr}${name}${cmd}`;
}

/** The other clients in `db` now. */
export async function clientsInDb(observer: Sender, db: number, own: ReadonlySet<string>): Promise<OtherClient[]> {
  return othersInDb(String(await observer.sendCommand(['CLIENT', 'LIST'])), db, own);
}
