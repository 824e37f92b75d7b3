#!/usr/bin/env node
// Bundles the CLI (src/cli.ts and everything it imports, dependencies included) with esbuild, for
// bin/lqsim.js to run (docs/performance.md):
// - dist/cli/lqsim.cjs: the CLI, one CommonJS file. V8 can cache the code it compiles for a script
//   (bin/load-bundle.js) but not for an ES module in Node 20, and compiling the bundle was the
//   largest part of a short command's start after Node's own. Commands imported lazily stay lazy:
//   their modules are evaluated when the command runs, only compiled (or read from the cache) at start.
// - dist/cli/ui.js (+ a chunk for Ink's devtools): Ink and React as an ES module, for the UI only
//   (src/tui/ui-deps-bundled.ts): Ink and its layout engine use top-level await, which CommonJS
//   cannot hold.
// Why a bundle and not tsc's dist/src/: Node 20 spends most of a short command's start-up
// resolving, reading and evaluating hundreds of small module files; Ink alone is ~430 ms that way
// (its es-toolkit/compat barrel loads every helper), ~140 ms bundled and tree-shaken.
// Runs in `prepare` (so `npm install`/`npm ci` in a clone leave a fresh bundle), `npm run build`
// and `prepack` (scripts/build-package.mjs, with --no-sourcemap).
//
// The bundle is written beside its final place and renamed over it, so a command started meanwhile
// runs the old bundle or the new one, never half of one. dist/cli/BUILT_FROM records the newest
// modification time among the sources it was built from; bin/lqsim.js runs the bundle only when
// nothing under src/ is newer (src/ edited since: it runs the sources through tsx instead).
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { tsImport } from 'tsx/esm/api';
import { newestSourceMtimeMs } from '../bin/freshness.js';
import { nodeBundle, nodeCjsBundle } from './bundle-options.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// --out <dir> (tests): elsewhere than dist/cli, which is what bin/lqsim.js runs.
const outAt = process.argv.indexOf('--out');
const final = outAt > 0 ? resolve(process.argv[outAt + 1]) : join(root, 'dist', 'cli');
// --no-sourcemap (prepack): the package's bundle has no maps. They would name src/ and node_modules/
// files the package does not have, or carry them all (6.8 MB, mostly Ink's, React's and zod's
// sources, for stack traces only LQSIM_DEBUG prints); identifiers are not minified, so a stack
// still names its functions. A clone's bundle keeps its maps: there the files they name exist.
const sourcemap = process.argv.includes('--no-sourcemap') ? false : 'linked';
const staging = `${final}.${process.pid}.tmp`;

/**
 * In the CommonJS bundle, what src/tui/ imports from Ink and React is dist/cli/ui.js' (loaded by
 * src/tui/ui-deps-bundled.ts, which stands in for src/tui/ui-deps.ts here).
 * @type {import('esbuild').Plugin}
 */
const uiFromItsEsModule = {
  name: 'ui-from-its-es-module',
  setup(b) {
    const bundled = join(root, 'src', 'tui', 'ui-deps-bundled.ts');
    b.onResolve({ filter: /^(ink|react|react\/jsx-runtime)$/ }, (a) => ({ path: a.path, namespace: 'lqsim-ui' }));
    b.onLoad({ filter: /.*/, namespace: 'lqsim-ui' }, (a) => ({
      contents: `module.exports = require(${JSON.stringify(bundled)}).uiModule(${JSON.stringify(a.path)});`,
      resolveDir: root,
      loader: 'js',
    }));
    b.onResolve({ filter: /\/ui-deps\.ts$/ }, () => ({ path: bundled }));
  },
};

// Taken before esbuild reads anything: a source saved during the build is newer, so not trusted.
const builtFrom = newestSourceMtimeMs(root);
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
try {
  // Optional (testcontainers: only with a Docker engine, native ssh2 inside) or only ever loaded
  // by Ink with DEV=true (react-devtools-core): left to Node to resolve if they are used.
  const external = ['testcontainers', '@testcontainers/redis', 'react-devtools-core'];
  // Ink and React check NODE_ENV at run time; production drops React's development checks.
  const production = { 'process.env.NODE_ENV': '"production"' };
  await build({
    absWorkingDir: root,
    entryPoints: ['src/cli.ts'],
    outfile: join(staging, 'lqsim.cjs'),
    ...nodeCjsBundle,
    tsconfig: 'tsconfig.json',
    external,
    define: { ...nodeCjsBundle.define, ...production },
    plugins: [...nodeCjsBundle.plugins, uiFromItsEsModule],
    sourcemap,
    legalComments: 'external',
  });
  await build({
    absWorkingDir: root,
    stdin: {
      contents: [
        "import * as ink from 'ink';",
        "import * as react from 'react';",
        "import * as jsxRuntime from 'react/jsx-runtime';",
        "export const modules = { ink, react, 'react/jsx-runtime': jsxRuntime };",
      ].join('\n'),
      resolveDir: root,
      sourcefile: 'ui.js',
    },
    entryNames: 'ui',
    outdir: staging,
    ...nodeBundle,
    splitting: true,
    external,
    define: production,
    sourcemap,
    legalComments: 'external',
  });
  await cacheCatalog(join(staging, 'catalog.json'));
  writeFileSync(join(staging, 'BUILT_FROM'), `${builtFrom}\n`);
  rmSync(final, { recursive: true, force: true });
  renameSync(staging, final);
} catch (e) {
  rmSync(staging, { recursive: true, force: true });
  console.error(`build-cli: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  process.exit(1);
}

/**
 * `lqsim list` from the bundle reads this instead of parsing every scenario (src/cli/list.ts). A
 * scenario that does not validate leaves no cache: `lqsim list` then loads them all and says why.
 */
async function cacheCatalog(file) {
  const at = (m) => new URL(m, import.meta.url).href;
  const catalog = await tsImport(at('../src/scenarios/catalog.ts'), import.meta.url);
  const { writeCatalogCache } = await tsImport(at('../src/scenarios/catalog-cache.ts'), import.meta.url);
  try {
    writeCatalogCache(file, catalog.SCENARIOS_DIR, await catalog.listScenarios());
  } catch (e) {
    console.error(`build-cli: no catalog cache (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
  }
}
