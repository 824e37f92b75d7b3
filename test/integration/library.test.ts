// The library entry point, used the way a team's test suite would: a scenario written in code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisServer, ScenarioInput } from '../../src/index.ts';
import { acquireRedis, allCommands, runScenario, Scenario } from '../../src/index.ts';

let redis: RedisServer;
beforeAll(async () => {
  redis = await acquireRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe('library API', () => {
  it('runs a scenario built in code and returns its timeline', async () => {
    const input: ScenarioInput = {
      name: 'in-code',
      title: 'written in a test',
      workers: [{ name: 'worker-1' }],
      jobs: { Ping: { class: 'App\\Jobs\\Ping' } },
      timeline: [{ at: 0, dispatch: 'Ping' }],
    };
    const timeline = await runScenario(Scenario.parse(input), { redis });
    expect(timeline.error).toBeUndefined();
    // dispatch: SELECT + RPUSH; pop: SELECT + 3 EVAL + 4 lua; delete: ZREM.
    expect(allCommands(timeline).map((c) => c.args[0])).toEqual([
      'SELECT',
      'RPUSH',
      'SELECT',
      'EVAL',
      'zrangebyscore',
      'EVAL',
      'zrangebyscore',
      'EVAL',
      'lpop',
      'zadd',
      'ZREM',
    ]);
    expect(timeline.jobs).toMatchObject([{ label: 'Ping#1', outcome: 'succeeded', executions: 1 }]);
  });

  it('checks a scenario built in code the way the loader checks a file', async () => {
    const input: ScenarioInput = {
      name: 'in-code',
      title: 'written in a test',
      jobs: { Ping: { class: 'App\\Jobs\\Ping' } },
      timeline: [{ at: 0, dispatch: 'Pong' }],
    };
    await expect(runScenario(Scenario.parse(input), { redis })).rejects.toThrow(
      /^in-code: timeline\.0\.dispatch: unknown job "Pong"/,
    );
  });
});
