#!/usr/bin/env node
// Runs the TypeScript sources through tsx (a runtime dependency), so the CLI works from a clone
// with no build step; a published package runs the compiled dist/ instead.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const built = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  // The project's tsconfig, wherever the command is run from: without it tsx would look in the
  // current directory, miss `jsx: react-jsx`, and the TUI would fail with "React is not defined".
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
  await import('../src/cli.ts');
}
