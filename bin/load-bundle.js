// Runs the CLI's CommonJS bundle (dist/cli/lqsim.cjs, scripts/build-cli.mjs) with V8's code cache:
// what V8 compiled in one run of a command is kept, and the next run of that command reads it
// instead of parsing and compiling 2.7 MB again (docs/performance.md: `lqsim run` of one job went
// from ~300 to ~190 ms). Node 20 can cache a script's code (vm.Script's cachedData) but not an ES
// module's, which is why the bundle is CommonJS. Plain CommonJS with no dependencies, like
// bin/lqsim.js, which calls it.
//
// What is trusted, and why it is safe:
// - A cache is one file per command, bundle and V8: dist/cli/code-cache/<command>-<bundle's inode,
//   size and modification time in ns>-<v8.cachedDataVersionTag()>.bin. V8 itself checks its version,
//   its flags and the source's length, not the source's text: the bundle's identity in the name is
//   what keeps a cache from one bundle away from another (a rebuild replaces dist/cli/ whole, with
//   its caches; a process of the old bundle that ends after it writes under the old identity).
// - It is written once, by the first run of a command that ends with exit code 0 (so it holds the
//   functions a successful run needs, not an error's path), to a temporary file renamed into place:
//   runs in parallel read a whole cache or none. One that V8 rejects is replaced the same way.
// - Not written when the flags changed since the start (the tag differs: V8 would reject it), or
//   where dist/cli/ cannot be written (an install the user does not own): that run is simply not
//   faster. LQSIM_CODE_CACHE=0 neither reads nor writes one. Nothing is ever written elsewhere.
'use strict';
const { isAscii } = require('node:buffer');
const {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const { cachedDataVersionTag } = require('node:v8');
const { Script } = require('node:vm');

/**
 * Evaluates `file` as Node evaluates a CommonJS module (its own `require`, `module`, `__filename`,
 * `__dirname`), with the code cache of the command in process.argv.
 * @param {string} file
 */
function runBundle(file) {
  loadBundle(file)();
}

/**
 * What runBundle does in two parts: reads `file` and its code cache and compiles it now, and
 * returns what evaluates it. bin/lqsim.js tells the two apart: a bundle it cannot read (being
 * rebuilt) runs the sources instead, and an error of the bundle's own is never taken for that.
 * @param {string} file
 * @returns {() => void}
 */
function loadBundle(file) {
  const name = cacheName(process.argv.slice(2));
  const fd = openSync(file, 'r');
  let source;
  let identity;
  try {
    const stat = fstatSync(fd, { bigint: true });
    identity = `${stat.ino}-${stat.size}-${stat.mtimeNs}`;
    // esbuild writes ASCII (it escapes the rest): as Latin-1 that is the same text, decoded ~10 ms
    // faster than as UTF-8 for 2.7 MB. Anything else is read as UTF-8.
    const bytes = readFileSync(fd);
    source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  } finally {
    closeSync(fd);
  }
  const useCache = process.env.LQSIM_CODE_CACHE !== '0';
  const tag = cachedDataVersionTag();
  const dir = join(dirname(file), 'code-cache');
  const cacheFile = join(dir, `${name}-${identity}-${tag}.bin`);
  let cachedData;
  if (useCache) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      // none yet
    }
  }
  // The wrapper on a line of its own, so the bundle's lines (and its source map's) stay where they are.
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname, __lqsimImport, __lqsimBundleId) {\n${source}\n})`,
    { filename: file, lineOffset: -1, cachedData },
  );
  return () => {
    if (useCache && (cachedData === undefined || script.cachedDataRejected === true)) {
      process.once('exit', (code) => {
        if (code === 0 && cachedDataVersionTag() === tag) writeCache(dir, cacheFile, script, name, tag);
      });
    }
    const module = { exports: {} };
    // The bundle has no import() of its own (scripts/bundle-options.mjs): a script read from the code
    // cache loses the callback Node gives one. It imports the UI's ES module through this one.
    const importModule = (specifier) => import(specifier);
    script.runInThisContext().call(
      module.exports,
      module.exports,
      createRequire(file),
      module,
      file,
      dirname(file),
      importModule,
      // The bundle's cache of validated scenarios (src/scenarios/spec-cache.ts) is this bundle's only.
      useCache ? identity : undefined,
    );
  };
}

/**
 * Each command has its cache: what one compiles is what its next run needs. The first word that is
 * not an option is the command (commander's rule for these commands, whose options all follow it);
 * a word it would not take exits non-zero, and writes none.
 * @param {readonly string[]} args
 */
function cacheName(args) {
  const command = args.find((a) => !a.startsWith('-')) ?? '';
  return /^[a-z][a-z-]{0,30}$/.test(command) ? command : 'lqsim';
}

/**
 * Best effort: a cache not written only means the next run compiles again. The command's caches of
 * other bundles for this V8 go (a bundle edited in place would otherwise leave one per edit); other
 * V8s' stay, for a user who switches Node versions.
 */
function writeCache(dir, cacheFile, script, name, tag) {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    // Opened before the cache is made (~10 ms): where it cannot be written, nothing is spent.
    const fd = openSync(temporary, 'w');
    try {
      writeFileSync(fd, script.createCachedData());
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, cacheFile);
    const ours = new RegExp(`^${name}-\\d+-\\d+-\\d+-${tag}\\.bin$`);
    for (const f of readdirSync(dir))
      if (ours.test(f) && join(dir, f) !== cacheFile) rmSync(join(dir, f), { force: true });
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // nothing to remove, or nowhere it could have been written
    }
  }
}

module.exports = { loadBundle, runBundle };
