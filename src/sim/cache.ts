// The application's cache as the queue's processes use it: Illuminate\Cache\Repository over the
// default store. With CACHE_DRIVER=redis (RedisStore) every call is a Redis command on one of the
// process's Redis connections, under the connection's key prefix and cache.prefix; with the
// skeleton's file store nothing reaches Redis, and the model keeps the values itself, shared by the
// run's processes as the files are. research/cache-store.md has the sources.
import { later, toMs } from './clock.ts';
import { add as addScript, releaseLock } from './cache-scripts.ts';
import type { RedisConnectionName } from './profiles/types.ts';
import type { ConnectionFactory, RedisPort } from './redis-port.ts';

export type { RedisConnectionName } from './profiles/types.ts';

/** config/cache.php's default store and config/database.php's connections, as a process reads them. */
export interface CacheConfig {
  store: 'redis' | 'file';
  /** stores.redis.connection. */
  connection: RedisConnectionName;
  /** stores.redis.lock_connection, or the store's connection when none is set. */
  lockConnection: RedisConnectionName;
  /** cache.prefix with the ':' RedisStore adds (to 10.x): what comes before every cache key. */
  storePrefix: string;
  /** The connection's key prefix (database.redis.options.prefix), which phpredis adds to every key sent. */
  connectionPrefix: string;
}

/**
 * A process's Redis connections: RedisManager makes one per connection name, the first time the
 * process uses it, and keeps it for the process's life. The queue's is `default`.
 */
export class ProcessRedis {
  private readonly ports = new Map<RedisConnectionName, Promise<RedisPort>>();

  constructor(
    readonly actor: string,
    private readonly connect: ConnectionFactory,
  ) {}

  connection(name: RedisConnectionName): Promise<RedisPort> {
    let port = this.ports.get(name);
    if (port === undefined) this.ports.set(name, (port = this.connect(this.actor, name)));
    return port;
  }

  /** The process ends: every connection it opened closes. */
  async close(): Promise<void> {
    const ports = [...this.ports.values()];
    this.ports.clear();
    for (const p of ports) await (await p).close();
  }
}

/** Who holds a lock, as the run saw it taken (the narration and the state pane say it). */
export interface LockHolder {
  owner: string;
  /** The actor whose process took it (worker-1, dispatcher). */
  actor: string;
  /** What took it: `WithoutOverlapping (SyncOrder#1)`, `ShouldBeUnique (SyncOrder#2)`. */
  what: string;
  /** Exact virtual instant it was taken. */
  since: number;
  /** Exact virtual instant it expires; null: never. */
  until: number | null;
}

/** The locks held in the cache, by key as sent: taken, released, expired on the virtual clock. */
export class LockBook {
  private readonly held = new Map<string, LockHolder>();

  constructor(private readonly now: () => number) {}

  holder(key: string): LockHolder | null {
    const h = this.held.get(key);
    if (h === undefined) return null;
    if (h.until !== null && toMs(this.now()) > toMs(h.until)) {
      this.held.delete(key);
      return null;
    }
    return h;
  }

  taken(key: string, h: LockHolder): void {
    this.held.set(key, h);
  }

  /** Released by `owner` (null: forced, whoever held it). */
  released(key: string, owner: string | null): void {
    if (owner === null || this.held.get(key)?.owner === owner) this.held.delete(key);
  }
}

/** Illuminate\Contracts\Cache\Lock: a lock with its owner (Str::random()). */
export interface CacheLock {
  /** The key as sent (connection and cache prefixes included). */
  readonly key: string;
  readonly owner: string;
  /** Lock::get(): one try. */
  get(): Promise<boolean>;
  /** Lock::release(): frees it only while this owner holds it. */
  release(): Promise<boolean>;
  /** Lock::forceRelease(): frees it whoever holds it. */
  forceRelease(): Promise<void>;
}

/** Illuminate\Contracts\Cache\Repository, the part the queue uses. */
export interface Cache {
  /** The store puts its keys on Redis (the narration says where a value is). */
  readonly onRedis: boolean;
  /** `name` as the store sends it (prefixes included). */
  keyOf(name: string): string;
  get(name: string): Promise<string | null>;
  /** Repository::forever. */
  forever(name: string, value: string): Promise<void>;
  /** Repository::put for `seconds` (SETEX; a put of 0 seconds or less forgets it). */
  put(name: string, value: string, seconds: number): Promise<void>;
  increment(name: string, by?: number): Promise<number>;
  forget(name: string): Promise<void>;
  many(names: string[]): Promise<Array<string | null>>;
  /** Repository::add for `seconds`: true when it was not there (RedisStore::add, one script). */
  add(name: string, value: string, seconds: number): Promise<boolean>;
  /** Repository::lock($name, $seconds): on the store's lock connection; `what` took it (for the lock book). */
  lock(name: string, seconds: number, what: string, owner?: string): CacheLock;
  /** Repository::restoreLock($name, $owner) (13.x): a lock object of that owner, no new Str::random(). */
  restoreLock(name: string, owner: string): CacheLock;
  /** Cache::store($name): another store of the app's, in the same process. */
  store(name: 'redis' | 'file'): Cache;
}

/** RedisStore on a process's connections: values raw (numbers) as RedisStore::serialize stores them. */
export class RedisCache implements Cache {
  readonly onRedis = true;

  constructor(
    private readonly redis: ProcessRedis,
    private readonly config: CacheConfig,
    private readonly locks: LockEnv,
    /** Cache::store($name) in this process. */
    readonly store: (name: 'redis' | 'file') => Cache,
  ) {}

  keyOf(name: string): string {
    return `${this.config.connectionPrefix}${this.config.storePrefix}${name}`;
  }

  private storePort(): Promise<RedisPort> {
    return this.redis.connection(this.config.connection);
  }

  async get(name: string): Promise<string | null> {
    return (await this.storePort()).get(this.keyOf(name));
  }

  async forever(name: string, value: string): Promise<void> {
    await (await this.storePort()).set(this.keyOf(name), value);
  }

  async put(name: string, value: string, seconds: number): Promise<void> {
    if (seconds <= 0) return this.forget(name);
    await (await this.storePort()).setex(this.keyOf(name), Math.max(1, Math.trunc(seconds)), value);
  }

  async increment(name: string, by = 1): Promise<number> {
    return (await this.storePort()).incrby(this.keyOf(name), by);
  }

  async forget(name: string): Promise<void> {
    await (await this.storePort()).del(this.keyOf(name));
  }

  async many(names: string[]): Promise<Array<string | null>> {
    return (await this.storePort()).mget(names.map((n) => this.keyOf(n)));
  }

  async add(name: string, value: string, seconds: number): Promise<boolean> {
    if (seconds <= 0) return false;
    const reply = await (
      await this.storePort()
    ).eval(addScript, [this.keyOf(name)], [value, Math.max(1, Math.trunc(seconds))]);
    return reply !== null && reply !== undefined;
  }

  restoreLock(name: string, owner: string): CacheLock {
    return this.lock(name, 0, 'restoreLock', owner);
  }

  lock(name: string, seconds: number, what: string, owner?: string): CacheLock {
    const key = this.keyOf(name);
    const port = () => this.redis.connection(this.config.lockConnection);
    return booked(this.locks, key, seconds, what, owner, {
      // RedisLock::acquire (6.12+): SET EX NX with a TTL, SETNX without one.
      acquire: async (owner) =>
        seconds > 0
          ? (await (await port()).set(key, owner, { ex: seconds, nx: true })) === 'OK'
          : (await (await port()).setnx(key, owner)) === 1,
      release: async (owner) => (await (await port()).eval(releaseLock, [key], [owner])) === 1,
      forceRelease: async () => {
        await (await port()).del(key);
      },
    });
  }
}

/** The file store's files: one set for the run's processes. */
export type FileValues = Map<string, { value: string; untilMs: number | null }>;

/** The file store: the run's processes share its values, which expire on the virtual clock. */
export class FileCache implements Cache {
  readonly onRedis = false;

  constructor(
    private readonly values: FileValues,
    private readonly locks: LockEnv,
    /** Cache::store($name) in this process. */
    readonly store: (name: 'redis' | 'file') => Cache,
  ) {}

  private now(): number {
    return this.locks.now();
  }

  keyOf(name: string): string {
    return name;
  }

  private read(name: string): string | null {
    const e = this.values.get(name);
    if (e === undefined) return null;
    if (e.untilMs !== null && toMs(this.now()) > e.untilMs) {
      this.values.delete(name);
      return null;
    }
    return e.value;
  }

  get(name: string): Promise<string | null> {
    return Promise.resolve(this.read(name));
  }

  forever(name: string, value: string): Promise<void> {
    this.values.set(name, { value, untilMs: null });
    return Promise.resolve();
  }

  put(name: string, value: string, seconds: number): Promise<void> {
    if (seconds <= 0) this.values.delete(name);
    else this.values.set(name, { value, untilMs: toMs(this.now()) + Math.trunc(seconds) * 1000 });
    return Promise.resolve();
  }

  increment(name: string, by = 1): Promise<number> {
    const value = Number(this.read(name) ?? 0) + by;
    const untilMs = this.values.get(name)?.untilMs ?? null;
    this.values.set(name, { value: String(value), untilMs });
    return Promise.resolve(value);
  }

  forget(name: string): Promise<void> {
    this.values.delete(name);
    return Promise.resolve();
  }

  many(names: string[]): Promise<Array<string | null>> {
    return Promise.resolve(names.map((n) => this.read(n)));
  }

  add(name: string, value: string, seconds: number): Promise<boolean> {
    if (seconds <= 0 || this.read(name) !== null) return Promise.resolve(false);
    this.values.set(name, { value, untilMs: toMs(this.now()) + Math.trunc(seconds) * 1000 });
    return Promise.resolve(true);
  }

  restoreLock(name: string, owner: string): CacheLock {
    return this.lock(name, 0, 'restoreLock', owner);
  }

  lock(name: string, seconds: number, what: string, owner?: string): CacheLock {
    return booked(this.locks, name, seconds, what, owner, {
      acquire: (owner) => {
        if (this.read(name) !== null) return Promise.resolve(false);
        this.values.set(name, { value: owner, untilMs: seconds > 0 ? toMs(this.now()) + seconds * 1000 : null });
        return Promise.resolve(true);
      },
      release: (owner) => {
        if (this.read(name) !== owner) return Promise.resolve(false);
        this.values.delete(name);
        return Promise.resolve(true);
      },
      forceRelease: () => {
        this.values.delete(name);
        return Promise.resolve();
      },
    });
  }
}

/** What a process's locks need beyond the store: the run's lock book, the clock, owners. */
export interface LockEnv {
  book: LockBook;
  /** The process's actor. */
  actor: string;
  /** The exact virtual instant. */
  now(): number;
  /** Str::random() for a lock's owner, from the run's seeded stream. */
  owner(): string;
}

/** A lock whose taking and freeing the lock book records. */
function booked(
  env: LockEnv,
  key: string,
  seconds: number,
  what: string,
  /** A restored lock's owner; absent: a new one (Str::random()). */
  given: string | undefined,
  store: {
    acquire(owner: string): Promise<boolean>;
    release(owner: string): Promise<boolean>;
    forceRelease(): Promise<void>;
  },
): CacheLock {
  const owner = given ?? env.owner();
  return {
    key,
    owner,
    async get() {
      const got = await store.acquire(owner);
      if (got) {
        const since = env.now();
        env.book.taken(key, {
          owner,
          actor: env.actor,
          what,
          since,
          until: seconds > 0 ? later(since, seconds) : null,
        });
      }
      return got;
    },
    async release() {
      const freed = await store.release(owner);
      env.book.released(key, owner);
      return freed;
    },
    async forceRelease() {
      await store.forceRelease();
      env.book.released(key, null);
    },
  };
}
