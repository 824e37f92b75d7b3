// Whether dist/cli/ (the CLI bundle, scripts/build-cli.mjs) was built from the sources as they are
// now. Plain JavaScript with no dependencies: bin/lqsim.js asks it on every start, before it knows
// whether it can load anything else. A walk of src/ is ~170 stats, a few milliseconds.
'use strict';
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

/** The newest modification time (ms) of any file under src/ and of tsconfig.json (the bundle's JSX setting). */
function newestSourceMtimeMs(root) {
  let newest = statSync(join(root, 'tsconfig.json'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk(join(root, 'src'));
  return newest;
}

/** True when dist/cli/ exists and no source is newer than what it was built from. */
function bundleIsFresh(root) {
  let builtFrom;
  try {
    builtFrom = Number(readFileSync(join(root, 'dist', 'cli', 'BUILT_FROM'), 'utf8'));
  } catch {
    return false; // never built, or being replaced right now
  }
  return Number.isFinite(builtFrom) && newestSourceMtimeMs(root) <= builtFrom;
}

module.exports = { newestSourceMtimeMs, bundleIsFresh };
