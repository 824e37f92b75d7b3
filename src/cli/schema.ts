// `lqsim schema`: prints the JSON Schema of the scenario format that ships in schema/ (generated
// from the zod schema; test/unit/json-schema.test.ts keeps the two equal), for editors and CI.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.ts';
import { out } from './args.ts';

/** The shipped schema file, for the `$schema=` modeline of scenario files. */
export const SCHEMA_FILE: string = join(PACKAGE_ROOT, 'schema', 'scenario.schema.json');

/** `lqsim schema`: prints the JSON Schema of scenario files. */
export async function schemaCommand(): Promise<number> {
  out(await readFile(SCHEMA_FILE, 'utf8'));
  return 0;
}
