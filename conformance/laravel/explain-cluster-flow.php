<?php

/*
 * One process of a real-time Laravel 8.83 flow on a Redis Cluster, for `lqsim explain`'s cluster
 * fixtures (test/fixtures/explain/cluster/README.md says how they were recorded: a local 3-master
 * cluster, one `redis-cli -p P monitor` per node). Laravel's `clusters` config
 * (config/database.php: redis.clusters.default, a list of seed nodes) makes
 * RedisManager::resolve('default') call resolveCluster, so the queue's connection is phpredis'
 * RedisCluster (PhpRedisConnector::createRedisClusterInstance).
 *
 *   php explain-cluster-flow.php dispatch SEED_PORT QUEUE N [DELAYS]   a web request dispatching N ProbeJobs
 *   php explain-cluster-flow.php work SEED_PORT QUEUE TRIES SLEEP      `queue:work --queue=QUEUE --tries --sleep`
 *
 * QUEUE is config/queue.php's queue ('{default}' or 'default'); BLOCK_FOR its block_for (none by
 * default), RETRY_AFTER its retry_after (90); PREFIX redis.options.prefix (default the 8.x
 * skeleton's 'laravel_database_'; '' for none); MAX_TIME the worker's `--max-time` (default 6).
 * PROBE_BEHAVIOUR and PROBE_LOG as in explain-flow.php.
 *
 * An app's HandleExceptions (Illuminate\Foundation\Bootstrap\HandleExceptions::handleError) turns
 * every PHP warning into an ErrorException; bootstrap.php has no Foundation app, so the same
 * handler is installed here: it is what makes phpredis' client-side refusal of a cross-slot EVAL
 * (a warning, "RedisCluster::eval(): All keys do not map to the same slot") reach the dispatcher
 * and the worker's exception handler.
 */

namespace {
    require_once __DIR__.'/bootstrap.php';

    use Illuminate\Queue\WorkerOptions;

    [, $what, $port, $queue] = $argv + [null, null, '7000', 'default'];
    $prefix = getenv('PREFIX') === false ? 'laravel_database_' : getenv('PREFIX');
    $blockFor = getenv('BLOCK_FOR') === false ? null : (int) getenv('BLOCK_FOR');
    $app = \Conformance\Laravel\bootstrap([
        'queue' => $queue,
        'retry_after' => (int) (getenv('RETRY_AFTER') ?: 90),
        'block_for' => $blockFor,
    ]);
    // config/database.php with a cluster: no top-level 'default' connection, so
    // RedisManager::resolve('default') takes clusters.default (read before 'redis' is first made).
    $app['config']->set('database.redis', [
        'client' => 'phpredis',
        'options' => ['cluster' => 'redis', 'prefix' => $prefix],
        'clusters' => [
            'default' => [
                ['host' => '127.0.0.1', 'password' => null, 'port' => $port, 'database' => '0'],
            ],
        ],
    ]);

    // HandleExceptions::handleError (Laravel 8.83), as an app installs it.
    set_error_handler(function ($level, $message, $file = '', $line = 0) {
        if (error_reporting() & $level) {
            throw new ErrorException($message, 0, $level, $file, $line);
        }
    });

    if ($what === 'dispatch') {
        $delays = array_map('intval', explode(',', $argv[5] ?? '0'));
        for ($i = 0, $n = (int) ($argv[4] ?? 1); $i < $n; $i++) {
            $delay = $delays[intdiv($i * count($delays), $n)];
            try {
                if ($delay > 0) {
                    App\Jobs\ProbeJob::dispatch()->delay($delay);
                } else {
                    App\Jobs\ProbeJob::dispatch();
                }
                \Conformance\Laravel\log_event('dispatched', ['delay' => $delay]);
            } catch (Throwable $e) {
                // What the web request would see: the exception out of dispatch().
                \Conformance\Laravel\log_event('dispatch.threw', ['class' => get_class($e), 'message' => $e->getMessage()]);
            }
        }
    } elseif ($what === 'work') {
        [$tries, $sleep] = [(int) ($argv[4] ?? 2), (int) ($argv[5] ?? 1)];
        // WorkerOptions(name, backoff, memory, timeout, sleep, maxTries, force, stopWhenEmpty, maxJobs, maxTime)
        $options = new WorkerOptions(
            'default', 0, 128, 60, $sleep, $tries, false, false, 0, (int) (getenv('MAX_TIME') ?: 6)
        );
        $worker = \Conformance\Laravel\make_worker($app);
        $worker->daemon('redis', $queue, $options);
    } else {
        fwrite(STDERR, "usage: php explain-cluster-flow.php dispatch SEED_PORT QUEUE N [DELAYS] | work SEED_PORT QUEUE TRIES SLEEP\n");
        exit(2);
    }
}
