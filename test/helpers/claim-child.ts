// A process that claims dbs as a run does (claimDatabases), writes keys in them as its run would,
// says `held` on stdout and waits to be killed: what a SIGKILLed run leaves behind, made by the
// claim's own code. argv[2]: JSON { url, wanted: WantedDb[], write: { db (scenario's), key }[] }.
import { claimDatabases } from '../../src/redis/claim.ts';
import { newClient } from '../../src/redis/connections.ts';

const o = JSON.parse(process.argv[2]!) as {
  url: string;
  ttlMs: number;
  wanted: Array<{ db: number; keys: string[]; prefixes?: string[] }>;
  write: Array<{ db: number; key: string }>;
};
const observer = newClient(o.url);
await observer.connect();
const own = new Set([String(await observer.sendCommand(['CLIENT', 'ID']))]);
const held = await claimDatabases(observer, o.wanted, 'deadbeef', { own, ttlMs: o.ttlMs });
for (const w of o.write)
  await observer.sendCommand([
    'EVAL',
    "redis.call('select', ARGV[1]) return redis.call('set', ARGV[2], 'x')",
    '0',
    String(held.usedDb(w.db)),
    w.key,
  ]);
process.stdout.write(`held ${JSON.stringify(held.claims.map((c) => c.db))}\n`);
setInterval(() => undefined, 1000);
