// `lqsim schema`: prints the JSON Schema of the scenario format that ships in schema/ (generated
// from the zod schema; test/unit/json-schema.test.ts keeps the two equal), for editors and CI.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { PACKAGE_ROOT } from '../package-root.ts';
import { out } from './shared.ts';

/** The shipped schema file, for the `$schema=` modeline of scenario files. */
export const SCHEMA_FILE: string = join(PACKAGE_ROOT, 'schema', 'scenario.schema.json');

export function registerSchema(program: Command, setExit: (code: number) => void): void {
  program
    .command('schema')
    .description('print the JSON Schema of scenario files (for editors: see `lqsim new`)')
    .action(async () => {
      out(await readFile(SCHEMA_FILE, 'utf8'));
      setExit(0);
    });
}
