// runScenario called from JavaScript with what is not a scenario spec says so in one line, before
// it reads anything of it or touches a server (no Redis here: the target is never used).
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenarios/shipped.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { RedisTarget } from '../../src/scenarios/runner.ts';
import type { ScenarioSpec } from '../../src/scenarios/schema.ts';

const nowhere = {
  url: 'redis://127.0.0.1:1',
  owned: false,
  describe: () => 'nowhere',
} as unknown as RedisTarget;

describe('runScenario given what is not a spec', () => {
  it("a loader's whole result: pass its .spec", async () => {
    const loaded = await loadScenario('dispatch');
    await expect(runScenario(loaded as unknown as ScenarioSpec, { redis: nowhere })).rejects.toThrow(
      new TypeError(
        'runScenario takes a scenario spec, and was given a loaded scenario: pass its .spec (loadScenario() and loadScenarioFile() give { spec, ... })',
      ),
    );
  });

  it.each([
    [undefined, 'undefined'],
    [null, 'null'],
    ['dispatch', 'string'],
  ])('%s: what it takes, and what it was given', async (given, named) => {
    await expect(runScenario(given as unknown as ScenarioSpec, { redis: nowhere })).rejects.toThrow(
      new TypeError(
        `runScenario takes a scenario spec (scenario(...).build(), loadScenario(name).spec, or Scenario.parse(...)), and was given ${named}`,
      ),
    );
  });
});
