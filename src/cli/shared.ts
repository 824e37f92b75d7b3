// What every `lqsim` subcommand shares: the output streams, the usage-error type (exit 2), the
// argument validators, whether CI is set, getting a Redis for the length of one command, and
// trace operands that cannot be read as usage errors. Subcommands live beside this file, one
// module each, and register themselves in src/cli.ts's program().
import { InvalidArgumentError } from 'commander';
import type { RedisServer } from '../redis/server.ts';
import { acquireRedis } from '../redis/server.ts';
import type { SourceContext } from '../trace/source.ts';
import { TraceSourceError } from '../trace/source.ts';

/** Bad input: exit 2, one `lqsim: ...` line. */
export class UsageError extends Error {}

export function oneOf<T extends string>(values: readonly T[], what: string) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value))
      throw new InvalidArgumentError(`${what} must be one of ${values.join(', ')}`);
    return value as T;
  };
}

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number >= 0');
  return n;
}

/**
 * Whether we run in CI, as Ink decides it (the is-in-ci package, which makes Ink draw only the last
 * frame): CI or CONTINUOUS_INTEGRATION is present, even empty, and is neither '0' nor 'false'.
 */
export function ciIsSet(env: NodeJS.ProcessEnv): boolean {
  const set = (k: string) => env[k] !== undefined && env[k] !== '0' && env[k] !== 'false';
  return set('CI') || set('CONTINUOUS_INTEGRATION');
}

export const out = (s: string): void => void process.stdout.write(s);
export const err = (s: string): void => void process.stderr.write(s);

/** A Redis (REDIS_URL, Docker or a local binary) for the length of `fn`, stopped on the way out. */
export async function withRedis<T>(fn: (server: RedisServer) => Promise<T>): Promise<T> {
  const server = await acquireRedis({ log: (m) => err(`lqsim: ${m}\n`) });
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

/** A Redis started only if some operand needs a run, shared by both, stopped on the way out. */
export async function withLazyRedis<T>(fn: (ctx: SourceContext) => Promise<T>): Promise<T> {
  let server: Promise<RedisServer> | undefined;
  try {
    return await fn({ redis: () => (server ??= acquireRedis({ log: (m) => err(`lqsim: ${m}\n`) })) });
  } finally {
    const started = await server?.catch(() => undefined);
    await started?.stop();
  }
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
