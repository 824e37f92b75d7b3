// redis:// URLs taken apart once, for every place that needs a part of one.

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

/** Throws TypeError for something that is not a URL. */
export function parseRedisUrl(url: string): RedisUrl {
  const u = new URL(url);
  const db = /^\/(\d+)$/.exec(u.pathname)?.[1];
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db !== undefined ? { db: Number(db) } : {}),
    plain: u.protocol === 'redis:',
  };
}
