// Saving a lab session: its scenario as a YAML file that `lqsim run` replays to the same trace.
// One timeline entry per line, in the order the actions were taken, with the modeline that gives
// editors the schema. Never overwrites unless asked (an existing file is an error the lab asks
// about), and never leaves half a file.
import { link, rename, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { Document, YAMLMap, YAMLSeq } from 'yaml';
import { removeTemporary } from '../files.ts';
import { SCHEMA_FILE } from '../package-root.ts';
import type { ScenarioInput } from '../scenarios/schema.ts';

/** The scenario as YAML, named after the file it goes to (the name must match it). */
export function labYaml(input: ScenarioInput, file: string): string {
  const name = basename(file).replace(/\.ya?ml$/, '');
  let ref = relative(dirname(resolve(file)), SCHEMA_FILE)
    .split(sep)
    .join('/');
  if (!ref.startsWith('.')) ref = `./${ref}`;
  // The order of the shipped scenarios' keys, whatever order the session set them in.
  const order = [
    'title',
    'description',
    'laravel',
    'start',
    'until',
    'seed',
    'redis',
    'connections',
    'workers',
    'jobs',
  ];
  const fields = input as Record<string, unknown>;
  const ordered: Record<string, unknown> = { name };
  for (const key of [...order, ...Object.keys(fields)])
    if (key !== 'name' && fields[key] !== undefined) ordered[key] ??= fields[key];
  const doc = new Document(ordered);
  // Entries and workers one per line, as the shipped scenarios write them.
  for (const key of ['timeline', 'workers']) {
    const seq = doc.get(key);
    if (seq instanceof YAMLSeq) for (const item of seq.items) if (item instanceof YAMLMap) item.flow = true;
  }
  const connections = doc.get('connections');
  if (connections instanceof YAMLMap)
    for (const pair of connections.items) if (pair.value instanceof YAMLMap) pair.value.flow = true;
  return `# yaml-language-server: $schema=${ref}\n# Saved from lqsim lab: lqsim run ${basename(file)} replays it; lqsim lab ${basename(file)} goes on from its end.\n${doc.toString({ lineWidth: 0 })}`;
}

export class FileExists extends Error {}

/** Writes `file` unless it exists (then FileExists; `overwrite` when the person said yes). */
export async function saveLab(input: ScenarioInput, file: string, overwrite = false): Promise<string> {
  const path = resolve(file);
  await writeWhole(path, labYaml(input, path), overwrite);
  return path;
}

/**
 * Writes `path` unless it exists (then FileExists), or over it when `overwrite`. Whole or not at
 * all: the text goes to a temporary file beside it, then takes the name in one step (a link, which
 * fails if the name is taken; a rename over it when overwriting), so a crash, a full disk or a
 * name taken meanwhile never leaves half a file, and the temporary one is removed.
 */
export async function writeWhole(path: string, content: string | Buffer, overwrite: boolean): Promise<void> {
  const taken = await stat(path).catch(() => null);
  if (taken?.isDirectory() === true) throw new Error(`cannot save to ${path}: it is a directory`);
  if (taken !== null && !overwrite) throw new FileExists(`${path} exists`);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    await writeFile(temp, content, { flag: 'wx' });
    if (overwrite) await rename(temp, path);
    else await link(temp, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && !overwrite) throw new FileExists(`${path} exists`);
    throw new Error(`cannot save to ${path} (${code ?? (e instanceof Error ? e.message : String(e))})`, { cause: e });
  } finally {
    await removeTemporary(temp);
  }
}
