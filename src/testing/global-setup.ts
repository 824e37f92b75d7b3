// `globalSetup: ['laravel-queue-sim/vitest-global-setup']` in vitest.config: one redis-server for
// the whole test run, shared by every file and worker. It starts before the workers and hands its
// address to them as REDIS_URL, so each `acquireRedis()` in a test uses it, and each run claims a
// db of its own on it (src/redis/claim.ts): test files may run in parallel. Where REDIS_URL is set
// already (a CI service container), that server is used and nothing is started.
import { acquireRedis } from '../redis/server.ts';

export default async function setup(): Promise<() => Promise<void>> {
  if (process.env.REDIS_URL) return async () => {};
  // The local binary, as `acquireRedis()` would pick it here; never REDIS_URL (unset, just checked).
  const server = await acquireRedis({ env: process.env });
  process.env.REDIS_URL = server.url;
  return async () => {
    delete process.env.REDIS_URL;
    await server.stop();
  };
}
