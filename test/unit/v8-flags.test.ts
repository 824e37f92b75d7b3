// The V8 flags a command sets for its run are put back to V8's defaults after it (src/cli/v8-flags.ts):
// the CLI bundle's code cache (bin/load-bundle.js) is written only when the process' flags are the
// ones it started with, which v8.cachedDataVersionTag() stands for. A `reset` that is not V8's
// default would leave every run of that command without a cache.
import { cachedDataVersionTag } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWTH_10_PERCENT, withV8Flag, YOUNG_GENERATION_FIXED } from '../../src/cli/v8-flags.ts';

describe('withV8Flag', () => {
  for (const [name, flag] of Object.entries({ HEAP_GROWTH_10_PERCENT, YOUNG_GENERATION_FIXED })) {
    it(`${name}: set for the run (${flag.set}), and the starting flags back after it`, async () => {
      const start = cachedDataVersionTag();
      const during = await withV8Flag(flag, async () => cachedDataVersionTag());
      expect(during).not.toBe(start);
      expect(cachedDataVersionTag()).toBe(start);
    });
  }

  it('puts the default back when the run throws', async () => {
    const start = cachedDataVersionTag();
    await expect(
      withV8Flag(HEAP_GROWTH_10_PERCENT, async () => {
        throw new Error('the run failed');
      }),
    ).rejects.toThrow('the run failed');
    expect(cachedDataVersionTag()).toBe(start);
  });

  it('with no flag, runs as it is', async () => {
    const start = cachedDataVersionTag();
    expect(await withV8Flag(null, async () => cachedDataVersionTag())).toBe(start);
  });
});
