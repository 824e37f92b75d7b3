// `lqsim tui` and `lqsim lab`: the full-terminal UI (src/tui/), or, where there is no terminal,
// what can stand in for it. Light until the UI is drawn: Redis' client is imported while the
// first frame is already on screen (src/tui/run-tui.ts starts Redis after drawing it).
import './zod-jitless.ts';
import type { RedisClusterTarget } from '../scenarios/cluster-config.ts';
import type { RedisServer } from '../redis/server.ts';
import type * as RunTui from '../tui/run-tui.ts';
import { loadUiDependencies } from '../tui/ui-deps.ts';
import { ciIsSet, err, UsageError } from './args.ts';

/**
 * Imports the UI. yoga-layout (Ink's layout engine) instantiates its inlined WebAssembly through
 * `fetch('data:...')` whenever `fetch` exists, which makes Node load its whole HTTP client (undici,
 * ~35 ms of a first frame budgeted at 300) to decode bytes yoga decodes itself when there is no
 * fetch. So there is none while the UI's modules load; nothing else runs meanwhile. The CLI's
 * bundle loads Ink and React first (src/tui/ui-deps.ts).
 */
export async function importUi(): Promise<typeof RunTui> {
  const load = async (): Promise<typeof RunTui> => {
    await loadUiDependencies();
    return import('../tui/run-tui.ts');
  };
  const fetch = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (fetch?.configurable !== true) return load();
  Reflect.deleteProperty(globalThis, 'fetch');
  try {
    return await load();
  } finally {
    Object.defineProperty(globalThis, 'fetch', fetch);
  }
}

/** The CLI's withRedis (./shared.ts), imported when the UI asks for Redis. */
async function lazyWithRedis<T>(fn: (server: RedisServer) => Promise<T>, log: (message: string) => void): Promise<T> {
  return (await import('./shared.ts')).withRedis(fn, log);
}

/** The cluster for a scenario that says redis.cluster, started when the UI first runs one. */
async function lazyCluster(log: (message: string) => void): Promise<RedisClusterTarget> {
  return (await import('../scenarios/cluster-config.ts')).acquireClusterTarget({ log });
}

/** Why the full-screen UI cannot run here, or null when it can: it needs a terminal both ways. */
export function tuiUnavailable(env: NodeJS.ProcessEnv): string | null {
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) return 'not a terminal';
  // Ink draws only the last frame when CI is set (is-in-ci), so a CI job with a TTY gets text too.
  if (ciIsSet(env)) return 'CI is set';
  return null;
}

export async function tuiCommand(scenario: string | undefined, o: { laravel?: string }): Promise<number> {
  const unavailable = tuiUnavailable(process.env);
  if (unavailable !== null) {
    if (scenario === undefined)
      throw new UsageError(`tui: ${unavailable}, so no scenario picker; name one (lqsim list shows them)`);
    err(`lqsim: ${unavailable}: printing the text trace instead of the terminal UI (same as lqsim run)\n`);
    return (await import('./run.ts')).runCommand(scenario, { format: 'text', laravel: o.laravel });
  }
  const { runTui } = await importUi();
  return runTui({ scenario, laravel: o.laravel, withRedis: lazyWithRedis, withCluster: lazyCluster });
}

export async function labCommand(scenario: string | undefined, o: { laravel?: string }): Promise<number> {
  // A scenario that does not load is the first thing to say, terminal or not.
  if (scenario !== undefined) {
    const { resolveScenario } = await import('../scenarios/catalog.ts');
    const { checkProfileOverride, loadScenarioFile } = await import('../scenarios/load.ts');
    checkProfileOverride(await loadScenarioFile(await resolveScenario(scenario)), o.laravel);
  }
  const unavailable = tuiUnavailable(process.env);
  if (unavailable !== null)
    throw new UsageError(`lab: ${unavailable}: the lab is interactive; lqsim run prints a scenario's trace`);
  const { runTui } = await importUi();
  return runTui({ scenario, laravel: o.laravel, withRedis: lazyWithRedis, withCluster: lazyCluster, lab: true });
}
