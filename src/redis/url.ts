// redis:// URLs taken apart once, for every place that needs a part of one, and shown only with
// their password hidden (redactUrl): a REDIS_URL ends up in CI logs.
import { RedisSettingError } from './errors.ts';

export interface RedisUrl {
  host: string;
  port: number;
  username?: string;
  password?: string;
  /** The /db in the path, if any. */
  db?: number;
  /** rediss:// (TLS) and other schemes are left to node-redis whole. */
  plain: boolean;
}

const FORM = 'expected redis://[user:password@]host[:port][/db] or rediss://... (TLS)';

/**
 * Throws RedisSettingError (bad input) for what cannot name a TCP Redis server: not a URL, another
 * scheme, a unix socket, a password whose `/`, `?`, `#` or `@` was not percent-encoded.
 */
export function parseRedisUrl(url: string): RedisUrl {
  const shown = redactUrl(url);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'unix' || scheme === 'redis+socket' || scheme === 'rediss+socket') {
    // Over a socket every client has the same address in MONITOR (the socket's path), so which
    // actor sent a command cannot be told, and every run would end in a false "another client".
    throw new RedisSettingError(
      `REDIS_URL=${shown}: a unix socket cannot be traced (MONITOR shows every client on it at one address, so lqsim cannot tell the actors apart); use a TCP URL, redis://host:port`,
    );
  }
  if (scheme !== 'redis' && scheme !== 'rediss') throw new RedisSettingError(`REDIS_URL=${shown}: ${FORM}`);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RedisSettingError(`REDIS_URL=${shown}: not a valid URL (${FORM})${encodingHint(url)}`);
  }
  // `redis://u:a/b@host` parses as host "u", port "a"... or, with digits, as a wrong host and a path:
  // an '@' after the host means a password character that was not encoded.
  const at = afterScheme(url).lastIndexOf('@');
  if (at !== -1 && /[/?#]/.test(afterScheme(url).slice(0, at))) {
    throw new RedisSettingError(`REDIS_URL=${shown}: not a valid URL${encodingHint(url)}`);
  }
  if (u.hostname === '' && u.port !== '') throw new RedisSettingError(`REDIS_URL=${shown}: no host (${FORM})`);
  const db = /^\/(\d+)$/.exec(u.pathname)?.[1];
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db !== undefined ? { db: Number(db) } : {}),
    plain: scheme === 'redis',
  };
}

function encodingHint(url: string): string {
  return url.includes('@')
    ? '; a "/", "?", "#" or "@" in the user or password must be percent-encoded (%2F, %3F, %23, %40)'
    : '';
}

function afterScheme(url: string): string {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url);
  return m ? url.slice(m[0].length) : url;
}

/**
 * The URL with everything before its last '@' hidden but a user name: `redis://u:***@host:6379`.
 * Read from the raw text, not a URL parser, so that a password with a raw `/`, `#`, `?` or `@`
 * (which a parser takes for the path, fragment or host) is hidden whole, parsable or not. A user
 * name alone (`redis://name@host`) is hidden too: some clients take it for the password.
 */
export function redactUrl(url: string): string {
  const rest = afterScheme(url);
  const at = rest.lastIndexOf('@');
  if (at === -1) return url;
  const scheme = url.slice(0, url.length - rest.length);
  const userinfo = rest.slice(0, at);
  const colon = userinfo.indexOf(':');
  return `${scheme}${colon === -1 ? '***' : `${userinfo.slice(0, colon)}:***`}${rest.slice(at)}`;
}
