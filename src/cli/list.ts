// `lqsim list`: the shipped scenarios, one line each (name, Laravel profile, title). From the CLI
// bundle it reads the catalog its build validated while no scenario file changed since
// (src/scenarios/catalog-cache.ts); otherwise it loads and validates every file, so a broken
// scenario is reported here as anywhere else.
import { shippedScenarios } from '../scenarios/catalog-cache.ts';
import { out } from './args.ts';

export async function listCommand(): Promise<number> {
  const entries = await shippedScenarios();
  const width = Math.max(...entries.map((e) => e.name.length));
  // [8] is shorter than [5.7]: the titles line up all the same.
  const profileWidth = Math.max(...entries.map((e) => e.laravel.length)) + 2;
  for (const e of entries) out(`${e.name.padEnd(width)}  ${`[${e.laravel}]`.padEnd(profileWidth)}  ${e.title}\n`);
  return 0;
}
