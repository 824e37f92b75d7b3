#!/usr/bin/env node
// Bundles the CLI (src/cli.ts and everything it imports, dependencies included) into
// dist/cli/lqsim.js with esbuild, one chunk per lazily imported command, for bin/lqsim.js to run.
// Why a bundle and not tsc's dist/src/ (docs/performance.md): Node 20 spends most of a short
// command's start-up resolving, reading and evaluating hundreds of small module files; Ink alone is
// ~430 ms that way (its es-toolkit/compat barrel loads every helper), ~140 ms bundled and tree-shaken.
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
import { nodeBundle } from './bundle-options.mjs';

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

// Taken before esbuild reads anything: a source saved during the build is newer, so not trusted.
const builtFrom = newestSourceMtimeMs(root);
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
try {
  await build({
    absWorkingDir: root,
    entryPoints: { lqsim: 'src/cli.ts' },
    outdir: staging,
    ...nodeBundle,
    splitting: true,
    tsconfig: 'tsconfig.json',
    // Optional (testcontainers: only with a Docker engine, native ssh2 inside) or only ever loaded
    // by Ink with DEV=true (react-devtools-core): left to Node to resolve if they are used.
    external: ['testcontainers', '@testcontainers/redis', 'react-devtools-core'],
    // Ink and React check NODE_ENV at run time; production drops React's development checks.
    define: { 'process.env.NODE_ENV': '"production"' },
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
