// Whether dist/cli/ (the CLI bundle, scripts/build-cli.mjs) was built from the sources as they are
// now. Plain JavaScript with no dependencies: bin/lqsim.js asks it on every start of a clone, before
// it knows whether it can load anything else. It is ~290 stats of src/ (its files and directories),
// made one after another: 2.5-3.5 ms here (docs/performance.md). Made on libuv's threads while the
// bundle compiled (the eleventh session), they cost the main thread more than that: queueing each
// stat, then its callback, 4-7 ms, besides the threads' share of two cores; and a walk that
// join()ed each path took twice as long as this one.
'use strict';
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join, sep } = require('node:path');

/**
 * The newest modification time (ms) of what the bundle is built from: tsconfig.json (its JSX
 * setting; an absent one counts 0), then src/ and every directory and file under it. A directory's
 * time is when a file in it was last added, removed or renamed: a source deleted since the build
 * leaves every other file as it was. Throws when one cannot be read (a dangling link, or a file gone
 * between its directory's listing and its stat: the sources are being edited).
 */
function newestSourceMtimeMs(root) {
  let newest = statSync(join(root, 'tsconfig.json'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const walk = (dir) => {
    newest = Math.max(newest, statSync(dir).mtimeMs);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      // Joined by hand: path.join() normalises each path, which these need not, at half the walk's time.
      const path = `${dir}${sep}${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk(join(root, 'src'));
  return newest;
}

/** When dist/cli/ was built from (its sources' newest time, dist/cli/BUILT_FROM), or null: never built, or being replaced right now. */
function builtFrom(root) {
  let text;
  try {
    text = readFileSync(join(root, 'dist', 'cli', 'BUILT_FROM'), 'utf8');
  } catch {
    return null;
  }
  const at = Number(text);
  return Number.isFinite(at) ? at : null;
}

/** True when dist/cli/ exists and no source is newer than what it was built from. */
function bundleIsFresh(root) {
  const at = builtFrom(root);
  return at !== null && newestSourceMtimeMs(root) <= at;
}

module.exports = { builtFrom, bundleIsFresh, newestSourceMtimeMs };
