#!/usr/bin/env node
// Picks what to run (docs/performance.md):
// - a clone whose bundle was built from the sources as they are (`npm install`/`npm ci` build it,
//   scripts/build-cli.mjs): dist/cli/lqsim.cjs, which starts in a fraction of the time, run with
//   V8's code cache (./load-bundle.js);
// - a clone whose src/ changed since (or that has no bundle): the sources through tsx (a dev
//   dependency: only a clone has sources to run), so an edit takes effect at once, never hidden
//   behind a stale bundle;
// - a published package (no src/): its bundle, which needs nothing but its dependencies.
// CommonJS (bin/package.json), as the two files it loads: Node starts an ES module entry ~15 ms
// slower, and each start pays it (docs/performance.md).
'use strict';
const { existsSync } = require('node:fs');
const { fileURLToPath, pathToFileURL } = require('node:url');
const { bundleIsFresh } = require('./freshness.js');
const { loadBundle, runBundle } = require('./load-bundle.js');

const here = pathToFileURL(__filename);
const root = fileURLToPath(new URL('..', here));
const source = fileURLToPath(new URL('../src/cli.ts', here));
const bundle = fileURLToPath(new URL('../dist/cli/lqsim.cjs', here));
if (!existsSync(source)) {
  runBundle(bundle);
} else if (process.env.LQSIM_FROM_SOURCE !== '1' && isFresh()) {
  let run = null;
  try {
    run = loadBundle(bundle);
  } catch (e) {
    if (e?.code !== 'ENOENT') throw e; // ENOENT: being rebuilt right now (scripts/build-cli.mjs)
  }
  if (run === null) void runSources();
  else run();
} else {
  void runSources();
}

/** The bundle was built from the sources as they are; false while a source cannot be read (being edited). */
function isFresh() {
  try {
    return bundleIsFresh(root);
  } catch {
    return false; // a source gone between its directory's listing and its stat, or a dangling link
  }
}

async function runSources() {
  const { register } = await import('tsx/esm/api').catch((e) => {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
    // Sources without dev dependencies: `npm ci --omit=dev --ignore-scripts` in a clone, a copy of one.
    const why =
      process.env.LQSIM_FROM_SOURCE === '1'
        ? 'LQSIM_FROM_SOURCE=1 asks for the sources'
        : existsSync(bundle)
          ? 'src/ changed since the CLI bundle (dist/cli) was built'
          : 'the CLI bundle (dist/cli) is not built';
    process.stderr.write(
      `lqsim: ${why}, and tsx, which runs the sources, is not installed (a dev dependency): run npm ci in ${root}\n`,
    );
    process.exit(1);
  });
  // The project's tsconfig, wherever the command is run from: without it tsx would look in the
  // current directory, miss `jsx: react-jsx`, and the TUI would fail with "React is not defined".
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', here)) });
  await import(pathToFileURL(source).href);
}
