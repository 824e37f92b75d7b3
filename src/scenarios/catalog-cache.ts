// What `lqsim list` prints, kept from the last validation of the shipped scenarios so that listing
// them needs no YAML parser and no schema (docs/performance.md). scripts/build-cli.mjs validates
// them (listScenarios) and writes the cache beside the CLI bundle; it is used only while every
// scenario file has the content it had then (by hash: not its modification time, which npm pack
// and git reset), and no file came or went.
// Light on purpose: node:fs and node:crypto only.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../package-root.ts';
import type { CatalogEntry } from './catalog.ts';

/**
 * Where scripts/build-cli.mjs leaves the cache: beside the bundle's modules (dist/cli/, where this
 * module's code lands too). The sources have none, so from src/ every listing validates.
 */
export const CATALOG_CACHE: string = fileURLToPath(new URL('./catalog.json', import.meta.url));

/** The shipped scenarios (as listScenarios() gives them): from the cache while it holds, else loaded and validated. */
export async function shippedScenarios(): Promise<CatalogEntry[]> {
  return (
    readCachedCatalog(CATALOG_CACHE, join(PACKAGE_ROOT, 'scenarios')) ??
    (await (await import('./catalog.ts')).listScenarios())
  );
}

interface CachedCatalog {
  files: Array<{ file: string; sha1: string }>;
  entries: Array<Omit<CatalogEntry, 'file'> & { file: string }>;
}

function fingerprint(dir: string): CachedCatalog['files'] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({
      file,
      sha1: createHash('sha1')
        .update(readFileSync(join(dir, file)))
        .digest('hex'),
    }));
}

/**
 * The shipped scenario at `file`, as its build validated it, while the cache holds (it has the
 * premise: title and description); undefined for any other file or without a valid cache.
 */
export function cachedScenario(file: string): CatalogEntry | undefined {
  const path = resolve(file);
  return readCachedCatalog(CATALOG_CACHE, join(PACKAGE_ROOT, 'scenarios'))?.find((e) => resolve(e.file) === path);
}

/** The cached entries when `dir` holds exactly the files they were read from, unchanged; else undefined. */
export function readCachedCatalog(cacheFile: string, dir: string): CatalogEntry[] | undefined {
  let cached: CachedCatalog;
  try {
    cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as CachedCatalog;
    const now = fingerprint(dir);
    if (JSON.stringify(now) !== JSON.stringify(cached.files)) return undefined;
  } catch {
    return undefined; // no cache, or a dir that cannot be read: the full listing says why
  }
  return cached.entries.map((e) => ({ ...e, file: join(dir, e.file) }));
}

/** Writes the cache of `entries` (as listScenarios(dir) returned them just now). */
export function writeCatalogCache(cacheFile: string, dir: string, entries: readonly CatalogEntry[]): void {
  const files = fingerprint(dir);
  const cached: CachedCatalog = {
    files,
    entries: entries.map((e) => ({ ...e, file: e.file.slice(dir.length + 1) })),
  };
  writeFileSync(cacheFile, `${JSON.stringify(cached)}\n`);
}
