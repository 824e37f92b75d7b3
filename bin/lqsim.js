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
  register();
  await import('../src/cli.ts');
}
