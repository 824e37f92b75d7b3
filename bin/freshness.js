// Whether dist/cli/ (the CLI bundle, scripts/build-cli.mjs) was built from the sources as they are
// now. Plain JavaScript with no dependencies: bin/lqsim.js asks it on every start of a clone, before
// it knows whether it can load anything else. A walk of src/ is ~290 stats (its files and
// directories): 4-8 ms made one after another on the main thread, and the garbage they left before
// the bundle was read brought on a scavenge that set V8's first old-generation limit low, so a run
// paid a full mark-compact (~9 ms) too (docs/performance.md). bin/lqsim.js therefore has them made
// on libuv's threads while it reads and compiles the bundle (newestSourceMtimeMsLater), and
// decides after.
'use strict';
const { readdirSync, readFileSync, stat, statSync } = require('node:fs');
const { join } = require('node:path');

/**
 * tsconfig.json (the bundle's JSX setting; it may be absent), then src/ and every directory and
 * file under it: what the bundle is built from. A directory's time is when a file in it was last
 * added, removed or renamed: a source deleted since the build leaves every other file as it was.
 */
function sourceFiles(root) {
  const files = [join(root, 'tsconfig.json')];
  const walk = (dir) => {
    files.push(dir);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(root, 'src'));
  return files;
}

/** The newest modification time (ms) of the sources (sourceFiles); a tsconfig.json that is not there counts 0. */
function newestSourceMtimeMs(root) {
  let newest = 0;
  for (const [i, file] of sourceFiles(root).entries()) {
    const st = statSync(file, { throwIfNoEntry: i > 0 });
    if (st !== undefined) newest = Math.max(newest, st.mtimeMs);
  }
  return newest;
}

/**
 * newestSourceMtimeMs, its stats made on libuv's threads: the directories are read now, the files'
 * times come back to the event loop once the caller's thread lets it run. Rejects when a file
 * cannot be read (gone between the directory's listing and its stat: the sources are being edited).
 * @returns {Promise<number>}
 */
function newestSourceMtimeMsLater(root) {
  let files;
  try {
    files = sourceFiles(root);
  } catch (e) {
    return Promise.reject(e);
  }
  return new Promise((resolve, reject) => {
    let newest = 0;
    let left = files.length;
    for (const [i, file] of files.entries()) {
      stat(file, (e, st) => {
        if (e && !(i === 0 && e.code === 'ENOENT')) reject(e);
        else if (st) newest = Math.max(newest, st.mtimeMs);
        if (--left === 0) resolve(newest);
      });
    }
  });
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

module.exports = { builtFrom, bundleIsFresh, newestSourceMtimeMs, newestSourceMtimeMsLater };
