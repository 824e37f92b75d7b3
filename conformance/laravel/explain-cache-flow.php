<?php

/*
 * One process of a real-time Laravel 8.83 flow with the cache store on Redis, for `lqsim explain`'s
 * cache fixtures (conformance/laravel/explain-cache-captures.sh records them; research/cache-store.md
 * §7 and §7.1 describe the same setup). The app is bootstrap.php's, plus what the 8.x skeleton
 * (laravel/laravel >= v8.5.6) and CACHE_DRIVER=redis give it:
 *
 *   config/database.php  redis.cache = { database: '1' }   (REDIS_CACHE_DB), prefix laravel_database_
 *   config/cache.php     default 'redis', stores.redis = { driver: redis, connection: cache,
 *                        lock_connection: default }, prefix 'laravel_cache' (APP_NAME=Laravel)
 *
 * and CacheServiceProvider's bindings: 'cache' (CacheManager, so the store is built by
 * CacheManager::createRedisDriver itself), 'cache.store' (what WorkCommand gives the Worker and what
 * WithoutOverlapping, UniqueLock and CallQueuedHandler resolve as Cache), RateLimiter.
 *
 *   php explain-cache-flow.php dispatch PORT CLASS N     a web request dispatching N jobs of App\Jobs\CLASS
 *   php explain-cache-flow.php work PORT TRIES           `queue:work --tries --sleep=1 [--stop-when-empty]`
 *   php explain-cache-flow.php restart PORT              `queue:restart` (Laravel's own RestartCommand)
 *   php explain-cache-flow.php hold PORT NAME SECONDS    another process takes the lock NAME and keeps it
 *
 * PROBE_BEHAVIOUR as in bootstrap.php; STOP_WHEN_EMPTY=0 drops --stop-when-empty; WORK_ONCE=1 is `--once`;
 * CACHE_CONNECTION and LOCK_CONNECTION change the store's connections (below).
 */

namespace {
    require_once __DIR__.'/bootstrap.php';
    require_once __DIR__.'/explain-cache-jobs.php';

    use Illuminate\Cache\CacheManager;
    use Illuminate\Cache\RateLimiter;
    use Illuminate\Cache\RateLimiting\Limit;
    use Illuminate\Queue\Console\RestartCommand;
    use Illuminate\Queue\WorkerOptions;
    use Symfony\Component\Console\Input\ArrayInput;
    use Symfony\Component\Console\Output\NullOutput;

    [, $what, $port] = $argv + [null, null, '6379'];
    $app = \Conformance\Laravel\bootstrap(['host' => '127.0.0.1', 'port' => $port]);

    // The 8.x skeleton's cache connection and config/cache.php with CACHE_DRIVER=redis.
    $config = $app['config'];
    $config->set('database.redis.cache', [
        'url' => null, 'host' => '127.0.0.1', 'password' => null, 'port' => (string) $port, 'database' => '1',
    ]);
    // CACHE_CONNECTION=default: the store on the queue's connection (5.3's skeleton);
    // LOCK_CONNECTION=none: no lock_connection (a config from before skeleton v8.5.6): locks go
    // where the cache goes (CacheManager::createRedisDriver: `lock_connection ?? connection`).
    $store = ['driver' => 'redis', 'connection' => getenv('CACHE_CONNECTION') ?: 'cache'];
    if (getenv('LOCK_CONNECTION') !== 'none') {
        $store['lock_connection'] = 'default';
    }
    $config->set('cache', ['default' => 'redis', 'stores' => ['redis' => $store], 'prefix' => 'laravel_cache']);
    // Application::registerCoreContainerAliases: 'redis' is also the Redis Factory (what
    // RateLimitedWithRedis and ThrottlesExceptionsWithRedis resolve).
    $app->alias('redis', \Illuminate\Contracts\Redis\Factory::class);
    $app->alias('redis', \Illuminate\Redis\RedisManager::class);
    // CacheServiceProvider::register().
    $app->singleton('cache', function ($app) {
        return new CacheManager($app);
    });
    $app->singleton('cache.store', function ($app) {
        return $app['cache']->driver();
    });
    $app->singleton(RateLimiter::class, function ($app) {
        return new RateLimiter($app->make('cache')->driver($app['config']->get('cache.limiter')));
    });
    // A RouteServiceProvider's RateLimiter::for('orders', ...): one a minute.
    $app->make(RateLimiter::class)->for('orders', function () {
        return Limit::perMinute(1);
    });

    if ($what === 'dispatch') {
        $class = 'App\\Jobs\\'.($argv[3] ?? 'SyncOrder');
        for ($i = 0, $n = (int) ($argv[4] ?? 1); $i < $n; $i++) {
            // PendingDispatch::__destruct at the end of the statement: the unique lock, then the push.
            $class::dispatch();
        }
    } elseif ($what === 'work') {
        $tries = (int) ($argv[3] ?? 1);
        // WorkerOptions(name, backoff, memory, timeout, sleep, maxTries, force, stopWhenEmpty, maxJobs, maxTime)
        $options = new WorkerOptions(
            'default', 0, 128, 60, 1, $tries, false, getenv('STOP_WHEN_EMPTY') !== '0',
            (int) getenv('MAX_JOBS'), (int) getenv('MAX_TIME')
        );
        $worker = \Conformance\Laravel\make_worker($app);
        if (getenv('WORK_ONCE') === '1') {
            $worker->runNextJob('redis', 'default', $options);
        } else {
            $worker->daemon('redis', 'default', $options);
        }
    } elseif ($what === 'hold') {
        // Another process takes a lock by its name (Cache::lock(NAME, SECONDS)->get()) and keeps it.
        $app['cache.store']->lock($argv[3], (int) ($argv[4] ?? 30))->get();
    } elseif ($what === 'restart') {
        // ArtisanServiceProvider builds RestartCommand with $app['cache.store'].
        // The value it writes is currentTime(): logged from the clock around it, not read back (a
        // GET would be in the capture as if the command sent it).
        $command = new RestartCommand($app['cache.store']);
        $command->setLaravel($app);
        $before = \Illuminate\Support\Carbon::now()->getTimestamp();
        $command->run(new ArrayInput([]), new NullOutput);
        $after = \Illuminate\Support\Carbon::now()->getTimestamp();
        \Conformance\Laravel\log_event('queue:restart', ['illuminate:queue:restart' => $before === $after ? (string) $after : "$before..$after"]);
    } else {
        fwrite(STDERR, "usage: php explain-cache-flow.php dispatch PORT CLASS N | work PORT TRIES | restart PORT | hold PORT NAME SECONDS\n");
        exit(2);
    }
}
