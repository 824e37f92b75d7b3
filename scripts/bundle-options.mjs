// How the CLI's bundle is made for Node (scripts/build-cli.mjs), shared with what measures against
// it: the bench's floor for one job (node-redis bundled the same way, bench/run.ts).
/** @type {import('esbuild').BuildOptions} */
export const nodeBundle = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Node's own ESM has no `require`; some bundled CommonJS dependencies call it for built-ins.
  banner: {
    js: "import { createRequire as __lqsimRequire } from 'node:module'; const require = __lqsimRequire(import.meta.url);",
  },
  minifySyntax: true,
  minifyWhitespace: true,
  logLevel: 'warning',
};
