// A web request of the application (the app calling dispatch() or Queue::size()): a PHP process
// of its own, so a Redis connection of its own, opened for the request and closed with it. Every
// queue connection the request uses shares that one Redis connection, as in Laravel: QueueManager
// resolves a RedisQueue per queue connection, and each asks RedisManager for the same `default`
// Redis connection (config/queue.php's 'connection' => 'default'), made once per process.
import type { ConnectionFactory } from './redis-port.ts';
import type { Cache } from './cache.ts';
import { ProcessRedis } from './cache.ts';
import type { LaravelProfile } from './profiles/types.ts';
import type { QueueConfig } from './redis-queue.ts';
import { RedisQueue } from './redis-queue.ts';
import type { ActorContext } from './scheduler.ts';
import { ClientException } from './exceptions.ts';

/** The actor every web request is shown as. */
export const WEB_ACTOR = 'dispatcher';

/** Queue::connection($name): the RedisQueue of a queue connection (undefined: the default one). */
export type QueueResolver = (connection: string | undefined) => RedisQueue;

/**
 * Runs `fn` in one request; returns its result and the Laravel methods it went through since it
 * last took them (`takeMethods`: a request that goes on over several steps names each step's own).
 */
export async function webRequest<T>(
  ctx: ActorContext,
  env: {
    connect: ConnectionFactory;
    profile: LaravelProfile;
    config: (connection: string | undefined) => QueueConfig;
    /** The app's cache in this process (a unique job's lock is taken there). */
    cacheFor: (redis: ProcessRedis) => Cache;
  },
  fn: (queueFor: QueueResolver, takeMethods: () => string[], cache: Cache) => Promise<T>,
): Promise<{ result: T; methods: string[] }> {
  const methods: string[] = [];
  const redis = new ProcessRedis(WEB_ACTOR, env.connect);
  const port = await redis.connection('default');
  const queues = new Map<string, RedisQueue>();
  const queueFor: QueueResolver = (connection) => {
    const config = env.config(connection);
    let queue = queues.get(config.connectionName);
    if (queue === undefined) {
      queue = new RedisQueue(
        port,
        config,
        env.profile,
        () => ctx.time(),
        (m) => methods.push(m),
      );
      queues.set(config.connectionName, queue);
    }
    return queue;
  };
  try {
    const takeMethods = (): string[] => methods.splice(0);
    return { result: await fn(queueFor, takeMethods, env.cacheFor(redis)), methods };
  } catch (e) {
    // The request ends with it (a 500): its step names the methods it went through.
    if (e instanceof ClientException) e.methods = methods;
    throw e;
  } finally {
    await redis.close();
  }
}
