// The local redis-server started while a command's own modules load (cli.ts, for the commands that
// replay a scenario): `lqsim run` spends most of its start importing the engine, and the server's
// start (its watchdog, the spawn, "Ready to accept connections") overlaps that instead of following
// it. acquireRedis' local path takes it (server.ts). One that nothing takes (a cluster scenario, a
// file that does not load) is stopped with the rest at the command's end (cleanup.ts), and its
// watchdog ends it with the process however that ends, as any server the tool starts.
import { dockerEngineConfigured } from './docker-hint.ts';
import type { LocalRedisServer } from './local-server.ts';
import { redisServerBinary, startLocalRedisServer } from './local-server.ts';

let early: { binary: string; server: Promise<LocalRedisServer> } | null = null;

/**
 * Starts it where acquireRedis would start a local server first: no REDIS_URL, and LQSIM_REDIS=local,
 * or unset where no Docker engine is configured. Resolves (never rejects) once the server's process
 * is spawned, or could not be: the caller awaits that before it imports the engine, since the CLI's
 * bundle (CommonJS) evaluates the engine's modules in one synchronous stretch, which would otherwise
 * hold up the free port's lookup and the spawn until it ends, and the server would start after it.
 */
export function startLocalRedisEarly(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (early !== null || env.REDIS_URL) return Promise.resolve();
  const mode = env.LQSIM_REDIS || undefined;
  if (mode !== 'local' && (mode !== undefined || dockerEngineConfigured(env))) return Promise.resolve();
  let resolve!: () => void;
  const spawned = new Promise<void>((r) => (resolve = r));
  const server = startLocalRedisServer({ env, onSpawn: resolve });
  // Taken, its failure is the run's (acquireRedis reports it); not taken, nothing needed it.
  server.then(resolve, resolve);
  early = { binary: redisServerBinary(env), server };
  return spawned;
}

/** The server started early for `env`'s binary, once; null when there is none (the caller starts one). */
export function takeEarlyLocalRedis(env: NodeJS.ProcessEnv): Promise<LocalRedisServer> | null {
  if (early === null || early.binary !== redisServerBinary(env)) return null;
  const { server } = early;
  early = null;
  return server;
}

/** At a command's end, after the cleanups stopped an early server nothing took: forgotten too. */
export function forgetEarlyLocalRedis(): void {
  early = null;
}
