// `lqsim schema`: prints the JSON Schema of the scenario format that ships in schema/ (generated
// from the zod schema; test/unit/json-schema.test.ts keeps the two equal), for editors and CI.
import { readFile } from 'node:fs/promises';
import { SCHEMA_FILE } from '../package-root.ts';
import { out } from './args.ts';

/** `lqsim schema`: prints the JSON Schema of scenario files. */
export async function schemaCommand(): Promise<number> {
  out(await readFile(SCHEMA_FILE, 'utf8'));
  return 0;
}
