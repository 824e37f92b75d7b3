// Typed errors of the Redis layer. The CLI edge turns them into messages; nothing here prints.

const HOW_TO_GET_REDIS = [
  'To get a Redis server, use one of:',
  '  - Debian/Ubuntu: sudo apt-get install redis-server   (lqsim starts its own redis-server on a free port)',
  '  - macOS: brew install redis',
  '  - a running Docker engine, with testcontainers installed to start redis:7.4-alpine (npm i -D testcontainers@11.14 @testcontainers/redis@11.14)',
  '  - an existing server: REDIS_URL=redis://host:port',
  'LQSIM_REDIS=local or LQSIM_REDIS=docker picks one of the first two ways only.',
].join('\n');

/** A cluster has no Docker path: the local binary, or an existing cluster. */
export const HOW_TO_GET_REDIS_CLUSTER = [
  'To get a Redis Cluster, use one of:',
  '  - Debian/Ubuntu: sudo apt-get install redis-server   (lqsim starts a cluster of three redis-server masters on free ports)',
  '  - macOS: brew install redis',
  '  - an existing cluster: REDIS_CLUSTER_URL=redis://host:port (or several seed nodes: redis://h1:p1,redis://h2:p2)',
].join('\n');

/** No way of getting a Redis server worked; `tried` says what was attempted and why it failed. */
export class RedisUnavailableError extends Error {
  constructor(
    readonly tried: string[],
    message?: string,
    /** The ways to get one (a cluster's differ). */
    howTo: string = HOW_TO_GET_REDIS,
  ) {
    const triedText = tried.length > 0 ? `Tried:\n${tried.map((t) => `  - ${t}`).join('\n')}\n` : '';
    super(`${message ?? 'no Redis server available.'}\n${triedText}${howTo}`);
    this.name = 'RedisUnavailableError';
  }
}

export type LocalRedisFailure =
  | 'not-found'
  | 'port-in-use'
  | 'timeout'
  | 'exited'
  | 'spawn-failed'
  /** The local cluster's nodes started but did not become one cluster in time. */
  | 'cluster-not-formed';

/** Starting the local redis-server binary failed; `output` holds its last stdout/stderr lines. */
export class LocalRedisError extends Error {
  constructor(
    readonly reason: LocalRedisFailure,
    message: string,
    readonly output: string[] = [],
  ) {
    super(output.length > 0 ? `${message}\n  last output:\n${output.map((l) => `    ${l}`).join('\n')}` : message);
    this.name = 'LocalRedisError';
  }
}

/**
 * A Redis setting of the environment that cannot be used: REDIS_URL that cannot name a server lqsim
 * can trace (not a URL, a unix socket), LQSIM_REDIS other than local or docker. Bad input, exit 2.
 */
export class RedisSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisSettingError';
  }
}

/**
 * REDIS_URL's server was reached but the connection could not be used (a TLS handshake that
 * failed): one line with the reason, no install hints, since a server is there.
 */
export class RedisConnectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisConnectError';
  }
}

/**
 * The server's refusal of a login (a wrong password, none where one is needed, one where none is
 * set), or null for any other error. Any connection can meet it, not only the first: the MONITOR
 * connection, an actor's, after the user's password changed.
 */
export function loginDenial(e: unknown): string | null {
  const message = e instanceof Error ? e.message : String(e);
  return /\b(WRONGPASS|NOAUTH)\b|\bERR (AUTH|HELLO|Client sent AUTH)\b/.test(message) ? oneLine(message) : null;
}

/** The server works but will not let the tool do what a faithful trace needs (ACL, version). */
export class RedisRefusedError extends Error {
  constructor(reason: string) {
    super(`refusing to run: ${reason}`);
    this.name = 'RedisRefusedError';
  }
}

/**
 * A reply that is not what the command returns (a server or proxy that answers otherwise): it names
 * the command, what its reply should be and what arrived, instead of letting a wrong value flow on.
 */
export class RedisReplyError extends Error {
  constructor(
    readonly command: string,
    readonly expected: string,
    readonly got: string,
  ) {
    super(`unexpected reply to ${command}: expected ${expected}, got ${got}`);
    this.name = 'RedisReplyError';
  }
}

const CONNECTION_LOST =
  /Socket closed unexpectedly|ECONNRESET|ECONNREFUSED|EPIPE|The client is closed|Connection timeout/i;

/** One line for an error that ended a run: a dropped connection says that Redis was lost. */
export function describeRunFailure(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const denied = loginDenial(e);
  if (denied !== null)
    return `the server turned a connection's login down (${denied}); check the user and password in REDIS_URL`;
  return CONNECTION_LOST.test(message)
    ? `lost the connection to Redis (server gone or network down): ${message}`
    : message;
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
