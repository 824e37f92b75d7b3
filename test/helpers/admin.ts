// A private redis-server seen as someone else's (REDIS_URL tests), with an admin client parked in
// db 15: a client in a db keeps runs out of it (claim.ts), so the admin sits where no test's run
// goes and looks into other dbs with INFO keyspace or a script that SELECTs inside Lua.
import { createClient } from 'redis';
import { acquireRedis, type RedisServer } from '../../src/redis/server.ts';

const adminOf = (server: RedisServer) =>
  createClient({ socket: { host: server.host, port: server.port }, database: 15 });
export type AdminClient = ReturnType<typeof adminOf>;

export async function serverWithAdmin(): Promise<{ server: RedisServer; admin: AdminClient; stop(): Promise<void> }> {
  const server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
  const admin = adminOf(server);
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
