// The shipped scenarios by name, for a test suite: loadScenario('timeout-max-attempts') gives the
// validated spec `lqsim run timeout-max-attempts` runs, with no path built from the package's
// location. A file of your own is loadScenarioFile(path).
import { join } from 'node:path';
import { isFile } from '../files.ts';
import { resolveScenario, SCENARIOS_DIR } from './catalog.ts';
import { ScenarioError } from './errors.ts';
import type { LoadedScenario } from './load.ts';
import { loadScenarioFile } from './load.ts';

/** A shipped scenario (a name `lqsim list` shows), loaded and validated: `{ spec, ... }`. */
export async function loadScenario(name: string): Promise<LoadedScenario> {
  if (/[/\\]/.test(name) || name.endsWith('.yaml'))
    throw new ScenarioError(
      name,
      0,
      0,
      '',
      "loadScenario takes a shipped scenario's name (lqsim list); load a file with loadScenarioFile(path)",
    );
  const file = join(SCENARIOS_DIR, `${name}.yaml`);
  // Only the catalog: a file of the same name in the working directory is not a shipped scenario.
  if (await isFile(file)) return loadScenarioFile(file);
  // Not there: resolveScenario throws the error that lists the closest names.
  await resolveScenario(name, SCENARIOS_DIR);
  throw new ScenarioError(name, 0, 0, '', 'no such scenario; run lqsim list to see them');
}
