// Illuminate\Cache\RateLimiter over the app's cache (Cache/RateLimiter.php@v8.83.29:90-211): a
// counter and its `:timer` (when the window ends), each with the decay as its TTL. The keys the
// middleware give it are md5s and `laravel_throttles_exceptions:` names, which its
// cleanRateLimiterKey leaves as they are.
import type { Cache } from './cache.ts';

export class RateLimiter {
  constructor(
    private readonly cache: Cache,
    /** PHP's time() (InteractsWithTime::currentTime, availableAt). */
    private readonly time: () => number,
  ) {}

  /** `attempts($key) >= $maxAttempts` and the timer still there; a counter whose timer is gone is reset. */
  async tooManyAttempts(key: string, maxAttempts: number): Promise<boolean> {
    const attempts = Number((await this.cache.get(key)) ?? 0);
    if (attempts >= maxAttempts) {
      // $this->cache->has($key.':timer'): a GET.
      if ((await this.cache.get(`${key}:timer`)) !== null) return true;
      await this.cache.forget(key);
    }
    return false;
  }

  /** add the timer, add the counter at 0, increment it; a counter the add missed but INCRBY made 1 gets its TTL. */
  async hit(key: string, decaySeconds: number): Promise<number> {
    await this.cache.add(`${key}:timer`, String(this.time() + decaySeconds), decaySeconds);
    const added = await this.cache.add(key, '0', decaySeconds);
    const hits = await this.cache.increment(key);
    if (!added && hits === 1) await this.cache.put(key, '1', decaySeconds);
    return hits;
  }

  /** `max(0, $this->cache->get($key.':timer') - $this->currentTime())`. */
  async availableIn(key: string): Promise<number> {
    return Math.max(0, Number((await this.cache.get(`${key}:timer`)) ?? 0) - this.time());
  }

  /** resetAttempts then the timer: DEL key, DEL key:timer. */
  async clear(key: string): Promise<void> {
    await this.cache.forget(key);
    await this.cache.forget(`${key}:timer`);
  }
}
