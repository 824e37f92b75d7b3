#!/usr/bin/env node
// The package.json that `npm pack` and `npm publish` ship carries no script npm runs on install.
// `prepare` builds the CLI bundle in a clone (`npm ci`, scripts/build-cli.mjs); a package already
// holds dist/cli and does not hold scripts/, so there `prepare` could only fail, and npm 11 lists it
// among the install scripts a user has to allow.
//
//   node scripts/pack-manifest.mjs strip    (prepack) package.json without them; the original kept aside
//   node scripts/pack-manifest.mjs restore  (postpack, postpublish) the original back, byte for byte
//
// `npm publish` reads package.json again after packing and sends that to the registry, which is what
// installs decide on: during a publish the original comes back at postpublish, not at postpack. A
// pack or publish that dies in between leaves package.json stripped (`git status` shows it) and the
// original aside; the next strip or restore puts the original back first.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The lifecycle scripts npm may run when a package is installed (`npm help scripts`). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
const aside = join(root, 'package.json.prepack');

function restore() {
  if (existsSync(aside)) renameSync(aside, manifest);
}

function strip() {
  restore();
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  const dropped = INSTALL_SCRIPTS.filter((name) => pkg.scripts?.[name] !== undefined);
  if (dropped.length === 0) return;
  writeFileSync(aside, text);
  for (const name of dropped) delete pkg.scripts[name];
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
}

const [what] = process.argv.slice(2);
if (what === 'strip') strip();
else if (what === 'restore') {
  // A publish reads package.json after postpack: leave it stripped until postpublish.
  if (!(process.env.npm_lifecycle_event === 'postpack' && process.env.npm_command === 'publish')) restore();
} else {
  console.error(`pack-manifest: expected "strip" or "restore", got ${what === undefined ? 'nothing' : `"${what}"`}`);
  process.exit(2);
}
