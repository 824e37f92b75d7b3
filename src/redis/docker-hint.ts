// Whether a Docker engine is configured at all, by the places testcontainers' own strategies look
// (DOCKER_HOST, ~/.testcontainers.properties, the usual unix sockets of Docker, rootless Docker,
// Docker Desktop, Colima and Rancher Desktop). Without any of them the probe can only fail: it
// costs ~300 ms (importing testcontainers) and a "Docker not used" line that reads like an error.
// With one, and testcontainers not installed (an optional peer dependency), that line says how to
// install it.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function dockerEngineConfigured(
  env: NodeJS.ProcessEnv,
  o: { exists?: (path: string) => boolean; home?: string; uid?: number; platform?: NodeJS.Platform } = {},
): boolean {
  const exists = o.exists ?? existsSync;
  const platform = o.platform ?? process.platform;
  // Windows talks to Docker over a named pipe that cannot be tested with a file check.
  if (platform === 'win32') return true;
  if (env.DOCKER_HOST || env.TESTCONTAINERS_HOST_OVERRIDE || env.TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE) return true;
  const home = o.home ?? homedir();
  const uid = o.uid ?? process.getuid?.();
  const candidates = [
    join(home, '.testcontainers.properties'),
    '/var/run/docker.sock',
    ...(env.XDG_RUNTIME_DIR ? [join(env.XDG_RUNTIME_DIR, 'docker.sock')] : []),
    ...(uid !== undefined ? [`/run/user/${uid}/docker.sock`] : []),
    join(home, '.docker', 'run', 'docker.sock'),
    join(home, '.docker', 'desktop', 'docker.sock'),
    join(home, '.colima', 'default', 'docker.sock'),
    join(home, '.colima', 'docker.sock'),
    join(home, '.rd', 'docker.sock'),
  ];
  return candidates.some(exists);
}

/**
 * How to turn Docker support on. testcontainers and @testcontainers/redis are optional peer
 * dependencies: heavy (ssh2, cpu-features, native builds), so a package install leaves them out.
 */
export const DOCKER_PACKAGES_INSTALL = 'npm i -D testcontainers@11.14 @testcontainers/redis@11.14';

/**
 * Loads testcontainers' packages (`load` imports them), or, when either is not installed, fails
 * with one line saying how to install them. Any other failure is passed on as it is.
 */
export async function loadDockerPackages<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    if (!isMissing(e)) throw e;
    throw new Error(`testcontainers is not installed; to use Docker: ${DOCKER_PACKAGES_INSTALL}`, { cause: e });
  }
}

/** Node's "Cannot find package 'testcontainers'" (ESM) or "Cannot find module" (CommonJS), for either package. */
function isMissing(e: unknown): boolean {
  const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    /Cannot find (?:package|module) '(?:testcontainers|@testcontainers\/redis)'/.test(message)
  );
}
