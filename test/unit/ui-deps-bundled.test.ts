// The CLI bundle's stand-in for src/tui/ui-deps.ts (scripts/build-cli.mjs): Ink and React come
// from dist/cli/ui.js beside the bundle, imported through the loader's import() (`__lqsimImport`,
// bin/load-bundle.js), and asking for one before they are loaded is an internal error, said so.
import { afterEach, describe, expect, it, vi } from 'vitest';

const loaderImport = '__lqsimImport';
afterEach(() => {
  Reflect.deleteProperty(globalThis, loaderImport);
  vi.resetModules();
});

describe('the bundle’s UI modules (src/tui/ui-deps-bundled.ts)', () => {
  it('refuses a module asked for before they are loaded, naming it', async () => {
    const { uiModule } = await import('../../src/tui/ui-deps-bundled.ts');
    expect(() => uiModule('react')).toThrow("internal: react was required before the UI's modules were loaded");
  });

  it('loads ui.js beside the bundle once, through the loader’s import(), and gives each module by its name', async () => {
    const ink = { Box: 'Box' };
    const imported: string[] = [];
    Reflect.set(globalThis, loaderImport, async (specifier: string) => {
      imported.push(specifier);
      return { modules: { ink, react: { react: true }, 'react/jsx-runtime': { jsx: true } } };
    });
    const { loadUiDependencies, uiModule } = await import('../../src/tui/ui-deps-bundled.ts');
    await loadUiDependencies();
    await loadUiDependencies();
    // import.meta.url is the bundle's in the bundle; here the module's own: ui.js beside it.
    expect(imported).toEqual([new URL('../../src/tui/ui.js', import.meta.url).href]);
    expect(uiModule('ink')).toBe(ink);
    expect(uiModule('react/jsx-runtime')).toEqual({ jsx: true });
  });
});
