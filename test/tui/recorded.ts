// Real timelines for the component tests: each scenario is run once against a real redis-server
// (REDIS_URL, Docker or the local binary, as the CLI would pick) and the panes are checked on
// what the run produced, not on hand-built fixtures.
import { beforeAll } from 'vitest';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { runShipped, useRedis } from '../helpers/run.ts';

export function recordScenarios(...names: string[]): (name: string) => Timeline {
  const redis = useRedis();
  const recorded = new Map<string, Timeline>();
  beforeAll(async () => {
    for (const name of names) {
      const timeline = await runShipped(name, redis());
      if (timeline.error !== undefined) throw new Error(`${name}: ${timeline.error}`);
      recorded.set(name, timeline);
    }
  });
  return (name) => {
    const t = recorded.get(name);
    if (t === undefined) throw new Error(`${name} was not recorded`);
    return t;
  };
}
