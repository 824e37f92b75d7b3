// The CLI bundle's stand-in for src/tui/ui-deps.ts (scripts/build-cli.mjs): Ink and React live in
// dist/cli/ui.js, an ES module beside the CommonJS bundle, since Ink's layout engine (yoga-layout)
// and Ink itself use top-level await. The bundle's `require('ink')`, `require('react')` and
// `require('react/jsx-runtime')` (in src/tui/ only) are uiModule() here: one React, Ink's own.

/** The loader's import() (bin/load-bundle.js; scripts/bundle-options.mjs says why not the bundle's own). */
declare const __lqsimImport: (specifier: string) => Promise<unknown>;

/** dist/cli/ui.js' exports, by the name the sources import them under. */
type UiModules = Record<'ink' | 'react' | 'react/jsx-runtime', unknown>;
let modules: UiModules | undefined;

export async function loadUiDependencies(): Promise<void> {
  // Beside the bundle, whose URL import.meta.url is in it (build-cli.mjs defines it for CommonJS).
  modules ??= ((await __lqsimImport(new URL('./ui.js', import.meta.url).href)) as { modules: UiModules }).modules;
}

export function uiModule(name: keyof UiModules): unknown {
  // Only src/tui/ imports them, and only src/cli/tui.ts' importUi reaches src/tui/, after loading.
  if (modules === undefined) throw new Error(`internal: ${name} was required before the UI's modules were loaded`);
  return modules[name];
}
