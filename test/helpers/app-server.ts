// A Redis as a team's CI or staging has it: the app's own data in db 0, and the app's workers
// connected to other dbs that hold no keys at all: `queue:work` processes blocked in BLPOP on the
// queue (block_for) and one polling with LPOP the way a worker without block_for does. Everything
// these clients receive is recorded, so a test can prove that no simulated job ever reached them,
// and db 0 is DUMPed before and after, so a test can prove it is byte-identical.
import { createClient } from 'redis';

/** The queue keys an app's worker listens on: 5.7's and the 8.x skeleton's (prefixed) names. */
export const APP_QUEUE_KEYS = [
  'queues:default',
  'queues:high',
  'laravel_database_queues:default',
  'laravel_database_queues:high',
];

export interface AppOnServer {
  /** What the app's workers got from their BLPOPs and LPOPs: must stay empty. */
  delivered: Array<{ db: number; key: string; value: string }>;
  /** db 0's keys with their DUMP, as now. */
  dumpDb0(): Promise<Map<string, string>>;
  /** db 0 as it was seeded. */
  seeded: Map<string, string>;
  /** The dbs the app's workers sit in (no keys there). */
  workerDbs: number[];
  /** How many of the app's blocked workers are still blocked (CLIENT LIST's cmd=blpop). */
  stillBlocked(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Seeds db 0 with the app's data and connects the app's workers: BLPOP (timeout 0) on
 * `blockingDbs`, a polling LPOP every 20 ms on `pollingDbs`.
 */
export async function appOnServer(
  url: string,
  opts: { blockingDbs: number[]; pollingDbs?: number[] },
): Promise<AppOnServer> {
  const open = (db: number, name: string) => createClient({ url, database: db, RESP: 2, name });
  const clients: Array<ReturnType<typeof open>> = [];
  const connect = async (db: number, name: string) => {
    const c = open(db, name);
    c.on('error', () => undefined);
    await c.connect();
    clients.push(c);
    return c;
  };
  const admin = await connect(0, 'app-admin');
  await admin.set('laravel_cache:settings', JSON.stringify({ theme: 'dark', seats: 12 }));
  await admin.hSet('laravel_database_user:42', { name: 'Ayaka', email: 'ayaka@example.test' });
  await admin.rPush('laravel_database_queues:default', ['{"job":"App\\\\Jobs\\\\RealJob","attempts":0}']);
  await admin.zAdd('laravel_database_queues:default:delayed', [{ score: 1700000000, value: '{"job":"Later"}' }]);
  await admin.sAdd('laravel_database_tags', ['a', 'b']);
  await admin.set('counter', '7');
  const dumpDb0 = async (): Promise<Map<string, string>> => {
    const keys = (await admin.keys('*')).sort();
    const out = new Map<string, string>();
    for (const k of keys) {
      const d = await admin.sendCommand(['DUMP', k], { typeMapping: { 36: Buffer } } as never);
      out.set(k, Buffer.isBuffer(d) ? d.toString('hex') : String(d));
    }
    return out;
  };
  const seeded = await dumpDb0();

  const delivered: AppOnServer['delivered'] = [];
  let stopping = false;
  const blocked: Array<Promise<unknown>> = [];
  for (const db of opts.blockingDbs) {
    const worker = await connect(db, `app-worker-db${db}`);
    // One BLPOP with no timeout, as a queue:work with block_for 0 waits; whatever it gets is a leak.
    blocked.push(
      worker
        .blPop(APP_QUEUE_KEYS, 0)
        .then((r) => {
          if (r !== null) delivered.push({ db, key: r.key, value: r.element });
        })
        .catch(() => undefined),
    );
  }
  const pollers: Array<ReturnType<typeof setInterval>> = [];
  for (const db of opts.pollingDbs ?? []) {
    const worker = await connect(db, `app-poller-db${db}`);
    pollers.push(
      setInterval(() => {
        if (stopping) return;
        for (const key of APP_QUEUE_KEYS)
          worker
            .lPop(key)
            .then((v) => {
              if (v !== null) delivered.push({ db, key, value: v });
            })
            .catch(() => undefined);
      }, 20),
    );
  }
  // Wait until the blocked workers are really blocked, so a claim made after this sees them.
  const stillBlocked = async (): Promise<number> => {
    const list = String(await admin.sendCommand(['CLIENT', 'LIST']));
    return list.split('\n').filter((l) => / name=app-worker-db\d+ /.test(l) && /\bcmd=blpop\b/.test(l)).length;
  };
  for (let i = 0; i < 100 && (await stillBlocked()) < opts.blockingDbs.length; i++)
    await new Promise((r) => setTimeout(r, 10));

  return {
    delivered,
    dumpDb0,
    seeded,
    workerDbs: [...opts.blockingDbs, ...(opts.pollingDbs ?? [])],
    stillBlocked,
    async stop() {
      stopping = true;
      for (const p of pollers) clearInterval(p);
      for (const c of clients) c.destroy();
      await Promise.allSettled(blocked);
    },
  };
}
