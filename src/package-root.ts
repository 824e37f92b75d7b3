// Where the package lives, from src/ or from a build in dist/src/: the folder with package.json
// and scenarios/ (a build may copy a package.json of its own, without scenarios/).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(from: string): string {
  for (let dir = from; dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'scenarios'))) return dir;
  }
  return resolve(from, '..');
}

export const PACKAGE_ROOT: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** The shipped JSON Schema of scenario files (`lqsim schema`; the `$schema=` modeline `new` and the lab's save write). */
export const SCHEMA_FILE: string = join(PACKAGE_ROOT, 'schema', 'scenario.schema.json');

export function packageVersion(): string {
  try {
    return (
      (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: string }).version ??
      'unknown'
    );
  } catch {
    return 'unknown';
  }
}
