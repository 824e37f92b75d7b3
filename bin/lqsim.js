#!/usr/bin/env node
// Runs the TypeScript sources through tsx (a runtime dependency) wherever they are, so a clone runs
// what is in src/ now, with no build step, even after `npm pack` (whose prepack leaves a dist/
// behind that the next edit makes stale). A published package has no src/: it runs dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const source = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  // The project's tsconfig, wherever the command is run from: without it tsx would look in the
  // current directory, miss `jsx: react-jsx`, and the TUI would fail with "React is not defined".
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
  await import(pathToFileURL(source).href);
} else {
  await import(pathToFileURL(fileURLToPath(new URL('../dist/src/cli.js', import.meta.url))).href);
}
