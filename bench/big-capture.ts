// A large MONITOR capture for `lqsim explain`'s bench: real Laravel 8.83's three-job capture
// (test/fixtures/explain/laravel8-three-jobs.txt) repeated until the file has the size asked for,
// each copy two seconds later than the one before, with fresh uuids, and the seconds in the
// scripts' ARGV moved with it, so every copy reads as three more jobs of the same app.
//
// `connectionPerJob`: as a real app's capture, where each web request that dispatches is a
// connection of its own and so is each `--once` worker: every push gets a fresh address (its
// request), and the worker's connection is a fresh one after each delete (the next `--once`
// process), so the capture has more connections than jobs.
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';

const FIXTURE = new URL('../test/fixtures/explain/laravel8-three-jobs.txt', import.meta.url);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** A MONITOR line: time, then `[db client]`, then the command. */
const CLIENT = /^(\S+ \[\d+ )(\S+)(\] "(\w+)")/;

export interface BigCapture {
  lines: number;
  /** Client connections (addresses) in the file. */
  connections: number;
}

/** Writes a capture of at least `bytes` bytes to `file`. */
export function writeBigCapture(file: string, bytes: number, o: { connectionPerJob?: boolean } = {}): BigCapture {
  const lines = readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && l !== 'OK');
  const first = Math.floor(Number(lines[0]!.slice(0, lines[0]!.indexOf(' '))));
  // A whole second in an argument within a day of the capture: the scripts' now and until.
  const seconds = /"(\d{10})"/g;
  const near = (n: number): boolean => Math.abs(n - first) < 86_400;
  const addresses = o.connectionPerJob === true ? new Readdress() : undefined;
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, 'OK\n');
    let size = 3;
    let count = 0;
    for (let copy = 0; size < bytes; copy++) {
      const ids = new Map<string, string>();
      const shift = copy * 2;
      let chunk = '';
      for (const l of lines) {
        const space = l.indexOf(' ');
        const time = (Number(l.slice(0, space)) + shift).toFixed(6);
        let rest = l
          .slice(space)
          .replace(UUID, (u) => ids.get(u) ?? (ids.set(u, randomUUID()), ids.get(u)!))
          .replace(seconds, (m, s: string) => (near(Number(s)) ? `"${Number(s) + shift}"` : m));
        if (addresses !== undefined) rest = addresses.line(`${time}${rest}`).slice(time.length);
        chunk += `${time}${rest}\n`;
        count++;
      }
      writeSync(fd, chunk);
      size += Buffer.byteLength(chunk);
    }
    return { lines: count, connections: addresses?.count ?? 2 };
  } finally {
    closeSync(fd);
  }
}

/** The fixture's two connections turned into one per request and one per `--once` worker. */
class Readdress {
  count = 0;
  /** The address each of the fixture's connections has now. */
  private readonly now = new Map<string, string>();
  /** The command each of the fixture's connections sent last. */
  private readonly last = new Map<string, string>();

  line(l: string): string {
    const m = CLIENT.exec(l);
    if (m === null || m[2] === 'lua') return l;
    const [, head, client, , command] = m as unknown as [string, string, string, string, string];
    const before = this.last.get(client);
    this.last.set(client, command);
    // A request connects (SELECT) and pushes; a push without its own SELECT is the next request.
    // A `--once` worker exits after its delete: what follows is the next worker's.
    const push = command === 'EVAL' && l.includes('-- Push the job onto the queue');
    if (!this.now.has(client) || command === 'SELECT' || (push && before !== 'SELECT') || before === 'ZREM')
      this.now.set(client, address(++this.count));
    return `${head}${this.now.get(client)!}${l.slice(head.length + client.length)}`;
  }
}

/** The n-th client's address: 10.x.y.z:port, distinct for the first 16 million. */
function address(n: number): string {
  return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}:${1024 + (n % 60_000)}`;
}
