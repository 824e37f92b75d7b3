<?php

/*
 * One actor step of Debian's Laravel 8.83 against a Redis Cluster, as an app configures one
 * (config/database.php: `clusters.default` = the seed nodes, no top-level `default` connection,
 * options.cluster = redis, client phpredis). Research for issue 28: what each node sees.
 * Every invocation is a new PHP process, so new connections (cluster-probe.sh drives it).
 *
 *   php cluster-probe.php STEP seed=HOST:PORT [key=value ...]
 *
 * Keys: prefix ('' for none; default laravel_database_), queue (default 'default'), block_for,
 *       retry_after, now, handler=1 (Laravel's HandleExceptions::handleError installed, as a
 *       console or HTTP kernel does; 0: PHP's own warning), name (Laravel's `name` option),
 *       setname=1 (the harness's way: CLIENT SETNAME on each master before Laravel's first command),
 *       behaviour (PROBE_BEHAVIOUR of the job), loops (daemon: sleeps before it exits).
 * Steps: dispatch [delay=N], work-once, daemon, client-list (CLIENT LIST per master), slots.
 */

namespace Conformance\Laravel;

require __DIR__.'/bootstrap.php';

use Illuminate\Queue\Worker;
use Illuminate\Queue\WorkerOptions;

$step = $argv[1] ?? null;
$o = [];
foreach (array_slice($argv, 2) as $arg) {
    [$k, $v] = array_pad(explode('=', $arg, 2), 2, '');
    $o[$k] = $v;
}
$nullable = function ($v) {
    return ($v === 'null' || $v === '') ? null : (int) $v;
};
[$seedHost, $seedPort] = explode(':', $o['seed']);

$app = bootstrap([
    'retry_after' => array_key_exists('retry_after', $o) ? $nullable($o['retry_after']) : 90,
    'block_for' => array_key_exists('block_for', $o) ? $nullable($o['block_for']) : null,
    'queue' => $o['queue'] ?? 'default',
    'now' => (int) ($o['now'] ?? 1700000000),
]);
// config/database.php for a cluster (the 8.x skeleton's `clusters` spelling): no `default`
// connection, so RedisManager::resolve('default') takes clusters['default'] (RedisManager.php:109-118).
$redis = [
    'client' => 'phpredis',
    'options' => ['cluster' => 'redis', 'prefix' => $o['prefix'] ?? 'laravel_database_'],
    'clusters' => ['default' => [['host' => $seedHost, 'port' => $seedPort, 'database' => '0']]],
];
if (isset($o['name'])) {
    $redis['options']['name'] = $o['name'];
}
$app['config']->set('database.redis', $redis);

if (($o['handler'] ?? '1') === '1') {
    handle_errors_as_laravel_does();
}

if (($o['setname'] ?? '0') === '1') {
    // The harness's naming: CLIENT SETNAME on each master's connection (RedisCluster's node-directed
    // form, client([host, port], subcommand, arg)), before Laravel's first command.
    $client = $app['redis']->connection()->client();
    foreach ($client->_masters() as $m) {
        $client->client($m, 'SETNAME', 'probe-'.getmypid());
    }
}

/** The stock Worker, whose sleep() is logged and counted (no real wait); exits after `loops`. */
class ProbeWorker extends Worker
{
    public static int $sleeps = 0;

    public static int $loops = 2;

    public function sleep($seconds)
    {
        log_event('Worker::sleep', ['seconds' => $seconds]);
        if (++self::$sleeps >= self::$loops) {
            log_event('exit', ['after sleeps' => self::$sleeps, 'shouldQuit' => $this->shouldQuit]);
            exit(0);
        }
    }
}

$queue = $o['queue'] ?? 'default';
putenv('PROBE_BEHAVIOUR='.($o['behaviour'] ?? 'succeed'));
log_event('step', ['step' => $step, 'args' => $o]);

try {
    switch ($step) {
        case 'dispatch':
            // What PendingDispatch::__destruct → Dispatcher::dispatchToQueue returns: the push's value.
            $job = new \App\Jobs\ProbeRetryJob;
            $job->onQueue($queue);
            if (isset($o['delay'])) {
                $job->delay((int) $o['delay']);
            }
            $id = $app[\Illuminate\Contracts\Bus\Dispatcher::class]->dispatch($job);
            log_event('result', ['dispatch returned' => $id]);
            break;

        case 'work-once':
        case 'daemon':
            $options = new WorkerOptions('default', 0, 128, 60, (int) ($o['sleep'] ?? 3), 3, false, false, 0, 0, 0);
            ProbeWorker::$loops = (int) ($o['loops'] ?? 2);
            $worker = (new ProbeWorker($app['queue'], $app['events'], $app[\Illuminate\Contracts\Debug\ExceptionHandler::class], function () {
                return false;
            }))->setName('default')->setCache($app['cache.store']);
            if ($step === 'work-once') {
                $worker->runNextJob('redis', $queue, $options);
                log_event('result', ['runNextJob' => 'returned', 'shouldQuit' => $worker->shouldQuit]);
            } else {
                $worker->daemon('redis', $queue, $options);
            }
            break;

        case 'client-list':
            $client = $app['redis']->connection()->client();
            foreach ($client->_masters() as $m) {
                log_event('CLIENT LIST', ['node' => implode(':', $m), 'list' => $client->client($m, 'LIST')]);
            }
            break;

        case 'connect':
            // Only RedisManager::connection(): the constructor's traffic, nothing after it.
            $app['redis']->connection();
            log_event('result', ['connected' => true]);
            break;

        default:
            fwrite(STDERR, "unknown step: {$step}\n");
            exit(2);
    }
} catch (\Throwable $e) {
    log_event('thrown', ['class' => get_class($e), 'message' => $e->getMessage(), 'at' => basename($e->getFile()).':'.$e->getLine()]);
    exit(1);
}
