#!/usr/bin/env node
// prepack: what the package ships, built afresh. dist/src/ (the library and its types, tsc) is
// emptied first, since tsc never removes what it emitted earlier: a module deleted from src/ would
// still ship from an older build. Then the CLI bundle, without source maps (scripts/build-cli.mjs).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = (script, ...args) => execFileSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });

rmSync(join(root, 'dist', 'src'), { recursive: true, force: true });
run(tsc, '-p', 'tsconfig.build.json');
run(join(root, 'scripts', 'build-cli.mjs'), '--no-sourcemap');
