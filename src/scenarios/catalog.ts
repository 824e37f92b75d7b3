// The shipped scenarios: `lqsim list` shows them, `lqsim run <name>` finds one by name.
import { lstat, readdir } from 'node:fs/promises';
import { isFile } from '../files.ts';
import { basename, join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.ts';
import { ScenarioError, closestNames } from './errors.ts';

/** The package's scenarios/ folder (found from src/ and from a build in dist/src/ alike). */
export const SCENARIOS_DIR: string = join(PACKAGE_ROOT, 'scenarios');

export interface CatalogEntry {
  name: string;
  title: string;
  /** The scenario's description (its premise, with the title). */
  description?: string;
  file: string;
  laravel: string;
}

const EXTENSION = '.yaml';
const SCENARIO_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/** Every scenario in `dir`, validated, sorted by name. An invalid file throws its ScenarioError. */
export async function listScenarios(dir: string = SCENARIOS_DIR): Promise<CatalogEntry[]> {
  // Loading validates (the schema, YAML): imported here, so naming or resolving a scenario does not.
  const { loadScenarioFile, scenarioErrorAt } = await import('./load.ts');
  const entries: CatalogEntry[] = [];
  for (const file of (await scenarioFiles(dir)).map((f) => join(dir, f))) {
    const loaded = await loadScenarioFile(file);
    const stem = basename(file, EXTENSION);
    // `lqsim run <name>` finds the file by its name, so the two must agree.
    if (loaded.spec.name !== stem) {
      throw scenarioErrorAt(
        loaded,
        ['name'],
        `the scenario is named "${loaded.spec.name}" but its file is ${stem}${EXTENSION}; make them match`,
      );
    }
    const { name, title, description, laravel } = loaded.spec;
    entries.push({ name, title, ...(description === undefined ? {} : { description }), file, laravel });
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The shipped scenarios in the order a learner meets their ideas: a dispatch, a delayed one, the
 * reservation, the outcomes (success, release, failure), then the alarm (--timeout) and how it
 * must fit inside retry_after, a kill from outside, several queues, migrate's chunks, block_for,
 * and the Laravel 8 chains and bursts that combine them. The picker lists them so.
 */
export const LEARNING_ORDER: readonly string[] = [
  'dispatch',
  'dispatch-later',
  'reserve',
  'success',
  'failure-release',
  'failure-exhausted',
  'timeout-max-attempts',
  'retry-after-vs-timeout',
  'killed-mid-job',
  'priority-queues',
  'migrate-chunking',
  'block-for',
  'block-for-wakeup',
  'chain',
  'queue-restart-deploy',
  'without-overlapping-attempts',
  'unique-job-dropped',
  'rate-limited-release',
  'throttled-exceptions',
  'cluster-without-hash-tag',
  'cluster-hash-tag',
  'cluster-prefix-hash-tag',
  'burst-and-priorities',
];

/** `entries` in LEARNING_ORDER; any other scenario (a user's own) after them, in the order given. */
export function inLearningOrder<T extends { name: string }>(entries: readonly T[]): T[] {
  const rank = (e: T): number => {
    const i = LEARNING_ORDER.indexOf(e.name);
    return i === -1 ? LEARNING_ORDER.length : i;
  };
  return entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i)
    .map(({ e }) => e);
}

/**
 * The file to load for `lqsim run <nameOrPath>`: an existing file (relative to the working
 * directory) wins; else `<dir>/<name>.yaml`.
 */
export async function resolveScenario(nameOrPath: string, dir: string = SCENARIOS_DIR): Promise<string> {
  if (await isFile(nameOrPath)) return nameOrPath;
  const name = nameOrPath.endsWith(EXTENSION) ? nameOrPath.slice(0, -EXTENSION.length) : nameOrPath;
  if (SCENARIO_NAME.test(name)) {
    const file = join(dir, `${name}${EXTENSION}`);
    if (await isFile(file)) return file;
  }
  // Something is there that is no regular file (a directory, a FIFO, /dev/zero, a symlink loop):
  // the loader says which, instead of "no such file".
  if (
    await lstat(nameOrPath).then(
      () => true,
      () => false,
    )
  )
    return nameOrPath;
  let known: string[] = [];
  try {
    known = (await scenarioFiles(dir)).map((f) => basename(f, EXTENSION));
  } catch {
    // No catalog to suggest from; the message below still says what to do.
  }
  const close = closestNames(basename(name), known);
  const hint = close.length > 0 ? ` (did you mean ${close.map((n) => `"${n}"`).join(', ')}?)` : '';
  const looksLikePath = nameOrPath.includes('/') || nameOrPath.includes('\\') || nameOrPath.endsWith(EXTENSION);
  throw new ScenarioError(
    nameOrPath,
    0,
    0,
    '',
    looksLikePath ? `no such file${hint}` : `no such scenario; run lqsim list to see them${hint}`,
  );
}

async function scenarioFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new ScenarioError(dir, 0, 0, '', `cannot read the scenarios folder (${code})`);
  }
  return names.filter((n) => n.endsWith(EXTENSION) && !n.startsWith('.')).sort();
}
