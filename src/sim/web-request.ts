// A web request of the application (the app calling dispatch() or Queue::size()): a PHP process
// of its own, so a Redis connection of its own, opened for the request and closed with it.
import type { ConnectionFactory } from './redis-port.ts';
import type { LaravelProfile } from './profiles/types.ts';
import type { QueueConfig } from './redis-queue.ts';
import { RedisQueue } from './redis-queue.ts';
import type { ActorContext } from './scheduler.ts';

/** The actor every web request is shown as. */
export const WEB_ACTOR = 'dispatcher';

/** Runs `fn` with the connection's RedisQueue; returns its result and the Laravel methods it went through. */
export async function webRequest<T>(
  ctx: ActorContext,
  env: { connect: ConnectionFactory; profile: LaravelProfile; config: QueueConfig },
  fn: (queue: RedisQueue) => Promise<T>,
): Promise<{ result: T; methods: string[] }> {
  const methods: string[] = [];
  const port = await env.connect(WEB_ACTOR);
  const queue = new RedisQueue(
    port,
    env.config,
    env.profile,
    () => ctx.time(),
    (m) => methods.push(m),
  );
  const result = await fn(queue);
  await port.close();
  return { result, methods };
}
