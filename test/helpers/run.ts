// Runs shipped scenarios against one real redis-server per test file (REDIS_URL, testcontainers
// or the local binary, as the CLI would pick).
import { afterAll, beforeAll } from 'vitest';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';

export function useRedis(): () => RedisServer {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await acquireRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('redis not started');
    return server;
  };
}

export async function runFile(file: string, server: RedisServer, laravel?: string): Promise<Timeline> {
  const loaded = await loadScenarioFile(file);
  return runScenario(loaded.spec, { redis: server, file, laravel });
}

export async function runShipped(name: string, server: RedisServer): Promise<Timeline> {
  return runFile(await resolveScenario(name), server);
}
