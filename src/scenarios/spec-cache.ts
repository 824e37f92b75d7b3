// The CLI's cache of validated scenarios (docs/performance.md): `lqsim run` of a file whose text it
// has run before reads the spec that text's validation gave, instead of parsing the YAML and
// building and running the scenario format's schemas again (~20 ms of one job's run).
//
// What is trusted, and why it is safe:
// - Only the CLI's bundle keeps one, and only while it is the same bundle: bin/load-bundle.js hands
//   it the bundle's identity (its inode, size and modification time, as the code cache's name has
//   them). The sources and the library never cache: an edit to the code takes effect at once.
// - A cache is one file per bundle and scenario text: dist/cli/spec-cache/<bundle>-<SHA-256 of the
//   text>.bin. The same text through the same code validates to the same spec: loading reads
//   nothing else (no environment, no clock, no other file; the file's name is only in errors).
// - It is written only for a text that validated, to a temporary file renamed into place, and holds
//   the text's hash again: a file that does not deserialize, or whose hash is not its name's, is a
//   miss (and is replaced). A run under --laravel checks the spec against that version afterwards,
//   cached or not (checkProfileOverride).
// - Where dist/cli/ cannot be written (an install the user does not own), none is: that run is
//   simply not faster. LQSIM_CODE_CACHE=0 neither reads nor writes one, as with the code cache.
//   Nothing is ever written elsewhere.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { parseScenario, type LoadedScenario } from './load.ts';
import { readScenarioSource } from './read-source.ts';
import type { ScenarioSpec } from './schema.ts';

/** Set by bin/load-bundle.js (scripts/bundle-options.mjs' banner) in the CLI's bundle; absent elsewhere. */
declare const __lqsimBundleId: string | undefined;

/** A user's scenario texts beyond this many are forgotten, the least recently written first. */
export const MAX_CACHED_SPECS = 64;

export interface SpecCache {
  /** dist/cli/spec-cache/ */
  dir: string;
  /** The bundle's identity: no two bundles share one. */
  bundle: string;
}

/** The CLI bundle's cache, or null: from the sources, the library, or with LQSIM_CODE_CACHE=0. */
export function cliSpecCache(env: NodeJS.ProcessEnv = process.env): SpecCache | null {
  if (typeof __lqsimBundleId !== 'string' || !/^[0-9-]+$/.test(__lqsimBundleId)) return null;
  if (env.LQSIM_CODE_CACHE === '0') return null;
  return { dir: join(dirname(fileURLToPath(import.meta.url)), 'spec-cache'), bundle: __lqsimBundleId };
}

interface Cached {
  sha256: string;
  spec: ScenarioSpec;
}

/**
 * What loadScenarioFile gives, from `cache` when it holds this text (then the YAML is not parsed
 * and no schema is built), else loaded and validated, and kept for the next time.
 */
export async function loadScenarioFileCached(file: string, cache: SpecCache | null): Promise<LoadedScenario> {
  const source = await readScenarioSource(file);
  if (cache === null) return parseScenario(source, file);
  const sha256 = createHash('sha256').update(source).digest('hex');
  const path = join(cache.dir, `${cache.bundle}-${sha256}.bin`);
  const cached = readCached(path, sha256);
  if (cached !== undefined) return { spec: cached, file, source };
  const loaded = parseScenario(source, file); // throws for a text that does not validate: nothing is written
  writeCached(cache, path, { sha256, spec: loaded.spec });
  return loaded;
}

function readCached(path: string, sha256: string): ScenarioSpec | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined; // none yet
  }
  try {
    const value = deserialize(bytes) as Partial<Cached> | null;
    return value?.sha256 === sha256 && typeof value.spec === 'object' && value.spec !== null ? value.spec : undefined;
  } catch {
    return undefined; // not a cache this V8 reads: written over below
  }
}

/** Best effort: a spec not kept only means the next run validates again. */
function writeCached(cache: SpecCache, path: string, value: Cached): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(cache.dir, { recursive: true });
    writeFileSync(temporary, serialize(value));
    renameSync(temporary, path);
    prune(cache);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // nothing to remove, or nowhere it could have been written
    }
  }
}

/** Other bundles' caches go; of this bundle's, the MAX_CACHED_SPECS written last stay. */
function prune(cache: SpecCache): void {
  const ours: { file: string; at: number }[] = [];
  for (const file of readdirSync(cache.dir)) {
    if (!file.endsWith('.bin')) continue; // another run's temporary file, renamed or removed by it
    if (!file.startsWith(`${cache.bundle}-`)) rmSync(join(cache.dir, file), { force: true });
    else ours.push({ file, at: 0 });
  }
  if (ours.length <= MAX_CACHED_SPECS) return;
  for (const o of ours) {
    try {
      o.at = statSync(join(cache.dir, o.file)).mtimeMs;
    } catch {
      o.at = -1; // removed meanwhile
    }
  }
  ours.sort((a, b) => b.at - a.at);
  for (const o of ours.slice(MAX_CACHED_SPECS)) rmSync(join(cache.dir, o.file), { force: true });
}
