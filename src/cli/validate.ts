// `lqsim validate <file...>`: loads each scenario the way `lqsim run` would, without a Redis.
// Prints `<file>: ok` for each good one; a bad one gets the loader's one-line
// `file:line:col: field: message` on stderr for each of its problems, and the exit status is 2 if
// any was bad.
import './zod-jitless.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import { resolveScenario } from '../scenarios/catalog.ts';
import { ScenarioError } from '../scenarios/errors.ts';
import { loadScenarioFile } from '../scenarios/load.ts';
import { err, out } from './args.ts';

export async function validateFiles(files: readonly string[]): Promise<number> {
  let code = 0;
  for (const name of files) {
    try {
      const file = await resolveScenario(name);
      await loadScenarioFile(file);
      out(`${terminalSafe(file)}: ok\n`);
    } catch (e) {
      if (!(e instanceof ScenarioError)) throw e;
      for (const problem of [e, ...e.also]) err(`lqsim: ${terminalSafe(problem.message)}\n`);
      code = 2;
    }
  }
  return code;
}
