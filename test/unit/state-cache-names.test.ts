// The state pane names a cache key by its own name, without the connection's and the cache's
// prefixes (the same for every key of a run): the key shapes of research/cache-store.md §1-§4.
import { describe, expect, it } from 'vitest';
import { cacheName } from '../../src/tui/state-lines.ts';

describe("the state pane's cache key names", () => {
  it('drops the prefixes of locks, the restart signal, counters and limiters', () => {
    const p = 'laravel_database_laravel_cache:';
    expect(cacheName(`${p}laravel-queue-overlap:App\\Jobs\\Sync:order-1`)).toBe(
      'laravel-queue-overlap:App\\Jobs\\Sync:order-1',
    );
    expect(cacheName(`${p}laravel_unique_job:App\\Jobs\\Sync42`)).toBe('laravel_unique_job:App\\Jobs\\Sync42');
    expect(cacheName(`${p}illuminate:queue:restart`)).toBe('illuminate:queue:restart');
    expect(cacheName(`${p}laravel_throttles_exceptions:45f2afd71121f96996ff38d9cd0a851b:timer`)).toBe(
      'laravel_throttles_exceptions:45f2afd71121f96996ff38d9cd0a851b:timer',
    );
    // RateLimited's md5($limiterName.$key), on the cache (CP + SP) or DurationLimiter's (CP only).
    expect(cacheName(`${p}12c500ed0b7879105fb46af0f246be87:timer`)).toBe('12c500ed0b7879105fb46af0f246be87:timer');
    expect(cacheName('laravel-database-12c500ed0b7879105fb46af0f246be87')).toBe('12c500ed0b7879105fb46af0f246be87');
    // A key of no shape it knows stays whole.
    expect(cacheName('app:something')).toBe('app:something');
  });
});
