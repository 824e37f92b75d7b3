// Saving a lab session: its scenario as a YAML file that `lqsim run` replays to the same trace.
// One timeline entry per line, in the order the actions were taken, with the modeline that gives
// editors the schema. Never overwrites: an existing file is an error the lab asks about.
import { writeFile } from 'node:fs/promises';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { Document, YAMLMap, YAMLSeq } from 'yaml';
import { SCHEMA_FILE } from '../cli/schema.ts';
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
  try {
    await writeFile(path, labYaml(input, path), { flag: overwrite ? 'w' : 'wx' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new FileExists(`${path} exists`);
    throw new Error(`cannot write ${path} (${code ?? (e instanceof Error ? e.message : String(e))})`, { cause: e });
  }
  return path;
}
