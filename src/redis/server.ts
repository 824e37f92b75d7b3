// Finds a Redis to replay against, in this order:
//   1. REDIS_URL (someone else's server: we never stop it);
//   2. a testcontainers redis:7.4-alpine, if a Docker engine is configured and answers (skipped by
//      LQSIM_REDIS=local; tried even without a sign of an engine by LQSIM_REDIS=docker);
//   3. the local redis-server binary (skipped by LQSIM_REDIS=docker).
// testcontainers is an optional peer dependency and heavy (~350 ms to import), so it is loaded
// only on the Docker path; when it is not installed, the log line says how to install it.
import { closePool } from './connection-pool.ts';
import { connect, isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { registerCleanup } from '../cleanup.ts';
import { dockerEngineConfigured, loadDockerPackages } from './docker-hint.ts';
import {
  loginDenial,
  RedisConnectError,
  RedisRefusedError,
  RedisSettingError,
  RedisUnavailableError,
} from './errors.ts';
import { parseRedisUrl, redactUrl } from './url.ts';
import { redisServerBinary, startLocalRedisServer } from './local-server.ts';
import { takeEarlyLocalRedis } from './early-server.ts';
import { shortLivedClient } from './connections.ts';

export type RedisServerKind = 'external' | 'docker' | 'local-binary';

export interface RedisServer {
  kind: RedisServerKind;
  url: string;
  host: string;
  port: number;
  version: string;
  /** True when we started it and stop() ends it; false for REDIS_URL. */
  owned: boolean;
  /** Only for a local binary. */
  pid?: number;
  /** Only for a local binary: its temp --dir, removed by stop(). */
  dataDir?: string;
  describe(): string;
  stop(): Promise<void>;
}

export interface AcquireRedisOptions {
  env?: NodeJS.ProcessEnv;
  log?: (msg: string) => void;
  dockerProbeTimeoutMs?: number;
}

export const DOCKER_IMAGE = 'redis:7.4-alpine';
const VERSION_TIMEOUT_MS = 3000;

export async function acquireRedis(opts: AcquireRedisOptions = {}): Promise<RedisServer> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});

  if (env.REDIS_URL) return external(env.REDIS_URL, log);

  const mode = env.LQSIM_REDIS || undefined;
  if (mode !== undefined && mode !== 'local' && mode !== 'docker') {
    throw new RedisSettingError(`LQSIM_REDIS=${mode}: expected "local" or "docker" (or unset)`);
  }
  const tried: string[] = [];

  // Unforced, Docker is only tried where an engine is configured (docker-hint.ts).
  if (mode === 'docker' || (mode === undefined && dockerEngineConfigured(env))) {
    try {
      return await docker(opts.dockerProbeTimeoutMs ?? 3000, log);
    } catch (err) {
      tried.push(`testcontainers (${DOCKER_IMAGE}): ${reason(err)}`);
      log(`Docker not used: ${reason(err)}`);
    }
  }
  if (mode !== 'docker') {
    try {
      return await localBinary(env, log);
    } catch (err) {
      tried.push(`local ${redisServerBinary(env)}: ${reason(err)}`);
    }
  }
  throw new RedisUnavailableError(tried);
}

async function external(rawUrl: string, log: (msg: string) => void): Promise<RedisServer> {
  const shown = redactUrl(rawUrl);
  // Bad input (not a URL, a unix socket) is refused before any connection: RedisSettingError.
  const { host, port, plain } = parseRedisUrl(rawUrl);
  let version: string;
  try {
    version = await serverVersion(rawUrl);
  } catch (err) {
    throw await externalFailure(err, shown, host, port, plain);
  }
  log(`using REDIS_URL ${shown} (Redis ${version})`);
  return {
    kind: 'external',
    url: rawUrl,
    host,
    port,
    version,
    owned: false,
    describe: () => `REDIS_URL ${shown} (Redis ${version})`,
    stop: async () => {},
  };
}

/** Why REDIS_URL's first connection failed, in the words that fit: no install hints where a server answered. */
async function externalFailure(
  err: unknown,
  shown: string,
  host: string,
  port: number,
  plain: boolean,
): Promise<Error> {
  // The server answered but turned the login or the first command down.
  const login = loginDenial(err);
  if (login !== null)
    return new RedisRefusedError(
      `REDIS_URL=${shown}: the server turned the login down (${login}); check the user and password in the URL`,
    );
  const denied = /\bNOPERM\b.*/.exec(reason(err))?.[0];
  if (denied !== undefined)
    return new RedisRefusedError(
      `REDIS_URL=${shown}: the user may not run what lqsim asks first (${denied}); see "How Redis is obtained" for what a run needs`,
    );
  if (!plain) {
    const tls = await tlsFailure(err, host, port);
    if (tls !== null) return new RedisConnectError(`REDIS_URL=${shown}: ${tls}`);
  } else if (/ECONNRESET|Socket closed unexpectedly/.test(reason(err)) && (await completesTlsHandshake(host, port))) {
    // A TLS-only port closes a connection that sends plain text.
    return new RedisConnectError(
      `REDIS_URL=${shown}: the server speaks TLS (it completed a TLS handshake); use rediss:// instead of redis://`,
    );
  }
  // The user named this server; falling back to another one would be a surprise.
  return new RedisUnavailableError([`REDIS_URL=${shown}: ${reason(err)}`], 'REDIS_URL is not reachable.');
}

/**
 * For rediss://: a plaintext Redis never answers a TLS hello (it waits for the end of a line that
 * never comes), so the connect times out; a PING in plain text tells that server apart.
 */
async function tlsFailure(err: unknown, host: string, port: number): Promise<string | null> {
  const message = reason(err);
  const tlsError = /SSL|TLS|EPROTO|wrong version number|certificate|handshake/i.test(message);
  if (!tlsError && !message.startsWith('no answer within')) return null;
  if (await answersPlainPing(host, port))
    return `the server does not speak TLS (it answered a plain-text PING); use redis:// instead of rediss://`;
  return tlsError
    ? `the TLS handshake failed (${message})`
    : `the TLS handshake got no answer within ${VERSION_TIMEOUT_MS} ms`;
}

/** Whether a TLS handshake with host:port completes (the certificate unchecked: only the protocol is asked). */
function completesTlsHandshake(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host, port, rejectUnauthorized: false, servername: isIP(host) ? undefined : host });
    const done = (completed: boolean): void => {
      socket.destroy();
      resolve(completed);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('secureConnect', () => done(true));
  });
}

function answersPlainPing(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (answered: boolean): void => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    // +PONG, or -NOAUTH from a server with a password: either way, plain RESP.
    socket.on('data', (d: Buffer) => done(d[0] === 0x2b || d[0] === 0x2d));
  });
}

async function docker(probeTimeoutMs: number, log: (msg: string) => void): Promise<RedisServer> {
  const [{ getContainerRuntimeClient }, { RedisContainer }] = await loadDockerPackages(() =>
    Promise.all([import('testcontainers'), import('@testcontainers/redis')]),
  );
  // A socket that accepts and never answers would hang the probe, hence the timeout.
  await withTimeout(
    getContainerRuntimeClient(),
    probeTimeoutMs,
    `no container runtime answered within ${probeTimeoutMs} ms`,
  );
  log(`starting ${DOCKER_IMAGE} with testcontainers (the first run pulls the image)`);
  const container = await new RedisContainer(DOCKER_IMAGE).start();
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      unregister();
      closePool(container.getConnectionUrl());
      await container.stop();
    })());
  // No sync fallback: testcontainers' reaper (Ryuk) removes the container when we die.
  const unregister = registerCleanup(stop);
  try {
    const url = container.getConnectionUrl();
    const host = container.getHost();
    const port = container.getPort();
    const version = await serverVersion(url);
    const describe = (): string => `testcontainers ${DOCKER_IMAGE} (Redis ${version}) on ${host}:${port}`;
    log(`using ${describe()}`);
    return { kind: 'docker', url, host, port, version, owned: true, describe, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function localBinary(env: NodeJS.ProcessEnv, log: (msg: string) => void): Promise<RedisServer> {
  // The CLI may have started it while the command's modules loaded (early-server.ts).
  const local = await (takeEarlyLocalRedis(env) ?? startLocalRedisServer({ env }));
  const url = `redis://${local.host}:${local.port}`;
  try {
    // Its first lines say it (local-server.ts), which saves a connection and a round trip (~4 ms of
    // one job's run); INFO where they do not.
    const version = local.version ?? (await serverVersion(url));
    const describe = (): string => `local redis-server ${version} on ${local.host}:${local.port} (pid ${local.pid})`;
    log(`using ${describe()}`);
    return {
      kind: 'local-binary',
      url,
      host: local.host,
      port: local.port,
      version,
      owned: true,
      pid: local.pid,
      dataDir: local.dir,
      describe,
      stop: () => {
        closePool(url); // the connections runs handed on (connection-pool.ts)
        return local.stop();
      },
    };
  } catch (err) {
    await local.stop();
    throw err;
  }
}

/** redis_version from INFO server, over a short-lived RESP2 client that never reconnects. */
export async function serverVersion(url: string): Promise<string> {
  const client = shortLivedClient(url, VERSION_TIMEOUT_MS);
  try {
    await withTimeout(client.connect(), VERSION_TIMEOUT_MS, `no answer within ${VERSION_TIMEOUT_MS} ms`);
    const info = await withTimeout(
      client.sendCommand(['INFO', 'server']).then(String),
      VERSION_TIMEOUT_MS,
      `INFO got no answer within ${VERSION_TIMEOUT_MS} ms`,
    );
    return /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown';
  } finally {
    client.destroy();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  p.catch(() => {}); // a late rejection after the timeout must not become unhandled
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
