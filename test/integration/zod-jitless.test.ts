// In the integration project: it sets zod's global config and needs its own module graph, which the
// unit project's shared one (isolate: false) does not give.
// zod's JIT is off in the CLI's commands that parse scenarios (src/cli/zod-jitless.ts), and only
// there: the library leaves a user's zod (perhaps their application's own instance) as it is. zod
// reads the setting as it builds each object schema, so it must be set before the scenario schema
// is built: the JIT shows as `new Function` at a schema's first parse.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { config } from 'zod';

afterEach(() => {
  config({ jitless: undefined });
  vi.unstubAllGlobals();
  vi.resetModules();
});

const SOURCE =
  'name: j\ntitle: t\njobs:\n  A: { class: App\\Jobs\\A }\nworkers:\n  - { name: w }\ntimeline:\n  - { at: 0, dispatch: A }\n';

/** Parses SOURCE with the modules loaded now, counting the functions compiled from strings meanwhile. */
async function parseCountingCompiles(): Promise<{ spec: unknown; compiled: number }> {
  const { parseScenario } = await import('../../src/scenarios/load.ts');
  let compiled = 0;
  const Real = Function;
  vi.stubGlobal(
    'Function',
    new Proxy(Real, {
      construct: (target, args) => {
        compiled++;
        return Reflect.construct(target, args);
      },
    }),
  );
  const { spec } = parseScenario(SOURCE, 'j.yaml');
  vi.unstubAllGlobals();
  return { spec, compiled };
}

describe("zod's JIT", () => {
  it('is left on by the library and its testing entries: its first parse compiles', async () => {
    await import('../../src/index.ts');
    await import('../../src/testing/index.ts');
    expect(config().jitless).toBeUndefined();
    expect((await parseCountingCompiles()).compiled).toBeGreaterThan(0);
  });

  it.each(['run', 'validate', 'conformance', 'tui', 'check'])(
    'is off once `lqsim %s` is loaded, before the schema is built: its parse compiles nothing, and gives the same',
    async (command) => {
      const withJit = (await parseCountingCompiles()).spec;
      vi.resetModules();
      await import(`../../src/cli/${command}.ts`);
      expect(config().jitless).toBe(true);
      const without = await parseCountingCompiles();
      expect(without.compiled).toBe(0);
      expect(without.spec).toEqual(withJit);
    },
  );
});
