// How the CLI's bundles are made for Node (scripts/build-cli.mjs), shared with what measures against
// them: the bench's floor for one job (node-redis bundled and loaded the same way, bench/run.ts).
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

/**
 * What the CLI imports from `redis`, and where @redis/client defines each: the bundle's `redis`
 * (redisClientOnly). test/unit/redis-client-only.test.ts holds the sources to it.
 */
export const REDIS_CLIENT_PARTS = {
  RedisClient: { file: 'dist/lib/client/index.js', name: 'default' },
  TimeoutError: { file: 'dist/lib/errors.js', name: 'TimeoutError' },
};

/**
 * node-redis' client alone: `redis` is @redis/client re-exported with the Redis Stack modules'
 * commands added (@redis/bloom, json, search, time-series: ~170 modules, which the CLI never sends),
 * and @redis/client's own entry loads its cluster, sentinel, pool and client-side cache too. The
 * CLI imports two things from `redis`, the very objects @redis/client defines: bundled, `redis` is
 * a module of those two alone, from the @redis/client that the installed `redis` depends on (one
 * job's `lqsim run` ~10 ms sooner, docs/performance.md). A source that imports anything else from
 * `redis` fails the build ("No matching export"). The sources, and the library, import `redis` itself.
 * @type {import('esbuild').Plugin}
 */
export const redisClientOnly = {
  name: 'redis-client-only',
  setup(b) {
    const redisDir = dirname(createRequire(import.meta.url).resolve('redis/package.json'));
    const clientDir = dirname(createRequire(join(redisDir, 'package.json')).resolve('@redis/client/package.json'));
    b.onResolve({ filter: /^redis$/ }, () => ({ path: 'redis', namespace: 'lqsim-redis-client' }));
    b.onLoad({ filter: /^redis$/, namespace: 'lqsim-redis-client' }, () => ({
      contents: Object.entries(REDIS_CLIENT_PARTS)
        .map(([as, { file, name }]) => `export { ${name} as ${as} } from ${JSON.stringify(join(clientDir, file))};`)
        .join('\n'),
      resolveDir: clientDir,
      loader: 'js',
    }));
  },
};
/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  minifySyntax: true,
  minifyWhitespace: true,
  logLevel: 'warning',
};

/**
 * An ES module: the UI's Ink and React (dist/cli/ui.js), which use top-level await.
 * @type {import('esbuild').BuildOptions}
 */
export const nodeBundle = {
  ...common,
  format: 'esm',
  // Node's own ESM has no `require`; some bundled CommonJS dependencies call it for built-ins.
  banner: {
    js: "import { createRequire as __lqsimRequire } from 'node:module'; const require = __lqsimRequire(import.meta.url);",
  },
};

/**
 * CommonJS, which V8 can cache compiled (bin/load-bundle.js): the CLI itself (dist/cli/lqsim.cjs).
 * Strict, as the ES modules it is made of are; `import.meta.url` is the bundle's own URL.
 * No import() inside: a script V8 read from its code cache has lost the callback Node gives a
 * dynamic import in it (Node 20: "A dynamic import callback was not specified"). Every import() of a
 * package becomes a require(); an ES module (the UI's, dist/cli/ui.js) is imported through
 * `__lqsimImport`, the loader's import() (or Node's own, when Node runs the file itself).
 * `__lqsimBundleId` is the bundle's identity as the loader read it, for the cache of validated
 * scenarios (src/scenarios/spec-cache.ts); undefined when Node runs the file itself (no cache).
 * @type {import('esbuild').BuildOptions}
 */
export const nodeCjsBundle = {
  ...common,
  format: 'cjs',
  plugins: [redisClientOnly],
  supported: { 'dynamic-import': false },
  banner: {
    js: [
      '"use strict";',
      'var __lqsimBundleUrl=require("node:url").pathToFileURL(__filename).href;',
      'var __lqsimImport=typeof __lqsimImport=="function"?__lqsimImport:(s)=>import(s);',
      'var __lqsimBundleId=typeof __lqsimBundleId=="string"?__lqsimBundleId:undefined;',
    ].join(''),
  },
  define: { 'import.meta.url': '__lqsimBundleUrl' },
};
