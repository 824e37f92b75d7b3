// A private redis-server seen as someone else's (REDIS_URL tests), with an admin client parked in
// db 15: a client in a db keeps runs out of it (claim.ts), so the admin sits where no test's run
// goes and looks into other dbs with INFO keyspace or a script that SELECTs inside Lua.
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { acquireRedis, type RedisServer } from '../../src/redis/server.ts';

const adminOf = (server: RedisServer, db: number) =>
  createClient({ socket: { host: server.host, port: server.port }, database: db });
export type AdminClient = ReturnType<typeof adminOf>;

/** `db`: where the admin sits (15 unless a test means it to hold a db, 0 say, as an app would). */
export async function serverWithAdmin(
  o: { db?: number } = {},
): Promise<{ server: RedisServer; admin: AdminClient; stop(): Promise<void> }> {
  const server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
  const admin = adminOf(server, o.db ?? 15);
  admin.on('error', () => undefined);
  await admin.connect();
  return {
    server,
    admin,
    async stop() {
      admin.destroy();
      await server.stop();
    },
  };
}

/** serverWithAdmin for the tests of a file or a describe: started before them, stopped after. */
export function useServerWithAdmin(o: { db?: number } = {}): { server(): RedisServer; admin(): AdminClient } {
  let held: Awaited<ReturnType<typeof serverWithAdmin>> | undefined;
  beforeAll(async () => {
    held = await serverWithAdmin(o);
  });
  afterAll(() => held?.stop());
  const get = () => {
    if (held === undefined) throw new Error('the server with its admin is not started yet');
    return held;
  };
  return { server: () => get().server, admin: () => get().admin };
}
