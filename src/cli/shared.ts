// What the subcommands that reach Redis share: getting a Redis for the length of one command, and
// trace operands that cannot be read as usage errors. What every command needs, Redis or not, is
// in ./args.ts (light, imported before any command runs).
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { terminalSafe } from '../output/terminal-safe.ts';
import type { RedisServer } from '../redis/server.ts';
import { acquireRedis } from '../redis/server.ts';
import { acquireRedisCluster } from '../redis/cluster-server.ts';
import type { RedisTarget } from '../scenarios/run-resources.ts';
import { clusterTarget } from '../scenarios/cluster-config.ts';
import type { SourceContext } from '../trace/source.ts';
import { TraceSourceError } from '../trace/source.ts';
import { err, UsageError } from './args.ts';

/**
 * A Redis (REDIS_URL, Docker or a local binary) for the length of `fn`, stopped on the way out.
 * What it says about the server it got goes to stderr, or to `log` (the TUI holds it until the
 * screen is back).
 */
export async function withRedis<T>(
  fn: (server: RedisServer) => Promise<T>,
  log: (message: string) => void = (m) => err(`lqsim: ${m}\n`),
  /** The environment that decides which Redis (LQSIM_REDIS, REDIS_URL); the process's by default. */
  env?: NodeJS.ProcessEnv,
): Promise<T> {
  const server = await acquireRedis({ log, ...(env === undefined ? {} : { env }) });
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

/**
 * withRedis for a scenario: a Redis Cluster (REDIS_CLUSTER_URL, or three local masters) for one
 * that says `redis.cluster`, else a single server as withRedis gets it.
 */
export async function withRedisFor<T>(
  spec: { redis: { cluster?: boolean | undefined } },
  fn: (server: RedisTarget) => Promise<T>,
  log: (message: string) => void = (m) => err(`lqsim: ${m}\n`),
  env?: NodeJS.ProcessEnv,
): Promise<T> {
  if (spec.redis.cluster !== true) return withRedis(fn, log, env);
  const cluster = await acquireRedisCluster({ log, ...(env === undefined ? {} : { env }) });
  try {
    return await fn(clusterTarget(cluster));
  } finally {
    await cluster.stop();
  }
}

/** A Redis started only if some operand needs a run, shared by both, stopped on the way out. */
export async function withLazyRedis<T>(fn: (ctx: SourceContext) => Promise<T>): Promise<T> {
  const log = (m: string): void => err(`lqsim: ${m}\n`);
  let server: Promise<RedisServer> | undefined;
  let cluster: ReturnType<typeof acquireRedisCluster> | undefined;
  try {
    return await fn({
      redis: () => (server ??= acquireRedis({ log })),
      cluster: async () => clusterTarget(await (cluster ??= acquireRedisCluster({ log }))),
    });
  } finally {
    const started = await server?.catch(() => undefined);
    await started?.stop();
    await (await cluster?.catch(() => undefined))?.stop();
  }
}

/**
 * `--golden` (run's, and check's with `--update`) is checked before the run: a file that cannot be
 * written is bad input (exit 2), found at once, not after the run.
 */
export function checkGoldenTarget(file: string): void {
  const dir = dirname(resolve(file));
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(`--golden ${terminalSafe(file)}: no directory ${terminalSafe(dir)} to write it in`);
}

/** Bad operands (a trace source that cannot be read) are usage errors (exit 2). */
export async function asUsage<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof TraceSourceError) throw new UsageError(e.message);
    throw e;
  }
}
