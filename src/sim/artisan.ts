// `php artisan queue:restart`: a PHP process of its own that writes the restart signal to the
// app's cache (Queue/Console/RestartCommand.php@v8.83.29:54: `$this->cache->forever(
// 'illuminate:queue:restart', $this->currentTime())`; the same from 5.3 to 13). On a Redis cache
// that is one plain SET on the cache's connection, the value the Unix time as a bare integer
// (RedisStore stores numbers unserialized). Daemon workers read it after their current job.
import type { Cache } from './cache.ts';
import { ProcessRedis } from './cache.ts';
import type { ConnectionFactory } from './redis-port.ts';
import type { ActorContext } from './scheduler.ts';

/** The actor artisan commands are shown as; workers may not take its name. */
export const ARTISAN_ACTOR = 'artisan';

/** The artisan commands a scenario may run. */
export const ARTISAN_COMMANDS = ['queue:restart'] as const;
export type ArtisanCommand = (typeof ARTISAN_COMMANDS)[number];

/** RestartCommand::handle in its own process; returns the signal it wrote and the key it went to. */
export async function queueRestart(
  ctx: ActorContext,
  env: {
    connect: ConnectionFactory;
    cacheFor: (redis: ProcessRedis) => Cache;
    restartSignal: { value: string | null };
  },
): Promise<{ value: string; key: string; onRedis: boolean }> {
  const redis = new ProcessRedis(ARTISAN_ACTOR, env.connect);
  try {
    const cache = env.cacheFor(redis);
    const value = String(ctx.time());
    await cache.forever('illuminate:queue:restart', value);
    env.restartSignal.value = value;
    return { value, key: cache.keyOf('illuminate:queue:restart'), onRedis: cache.onRedis };
  } finally {
    await redis.close();
  }
}
