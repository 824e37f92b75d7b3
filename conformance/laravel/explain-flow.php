<?php

/*
 * One process of a real-time Laravel 8.83 flow for `lqsim explain`'s fixtures
 * (conformance/laravel/explain-captures.sh records them): real clock, real workers, real kills.
 *
 *   php explain-flow.php dispatch PORT CLASS N [DELAYS]     a web request dispatching N jobs of App\Jobs\CLASS
 *   php explain-flow.php work PORT TIMEOUT TRIES SLEEP      `queue:work --timeout --tries --sleep --stop-when-empty`
 *   php explain-flow.php restart PORT                       `queue:restart` (Laravel's own RestartCommand)
 *
 * RETRY_AFTER (default 90) is config/queue.php's retry_after; PROBE_BEHAVIOUR what each attempt's
 * handle() does (bootstrap.php's ProbeBehaviour: "succeed", "run:SECONDS", "throw:msg");
 * PROBE_LOG where the queue events go. The worker's other options, as queue:work's flags:
 * WORK_ONCE=1 (`--once`: Worker::runNextJob, one pop, then the process exits), MAX_JOBS and
 * MAX_TIME (`--max-jobs`, `--max-time`), STOP_WHEN_EMPTY=0 (drop `--stop-when-empty`).
 * CACHE_PATH: the cache is the 8.x skeleton's file store (CACHE_DRIVER=file) in that folder,
 * shared by the flow's processes, so a `queue:restart` reaches a running worker as in an app;
 * without it, bootstrap.php's per-process ArrayStore. Either way no cache command reaches Redis.
 */

namespace {
    require_once __DIR__.'/bootstrap.php';

    use Illuminate\Cache\FileStore;
    use Illuminate\Cache\Repository as CacheRepository;
    use Illuminate\Filesystem\Filesystem;
    use Illuminate\Queue\Console\RestartCommand;
    use Illuminate\Queue\WorkerOptions;
    use Symfony\Component\Console\Input\ArrayInput;
    use Symfony\Component\Console\Output\NullOutput;

    [, $what, $port] = $argv + [null, null, '6379'];
    $retryAfter = (int) (getenv('RETRY_AFTER') ?: 90);
    $app = \Conformance\Laravel\bootstrap(['host' => '127.0.0.1', 'port' => $port, 'retry_after' => $retryAfter]);
    if ($cachePath = getenv('CACHE_PATH')) {
        // CacheManager::createFileDriver: a FileStore on config('cache.stores.file.path').
        $app->singleton('cache.store', function () use ($cachePath) {
            return new CacheRepository(new FileStore(new Filesystem, $cachePath));
        });
    }

    if ($what === 'dispatch') {
        $class = 'App\\Jobs\\'.($argv[3] ?? 'ProbeJob');
        // DELAYS: seconds, comma separated, one per equal batch of the N jobs in order ("2": every
        // job ->delay(2), Queue::later's ZADD to :delayed; "1,2,3": three batches); 0 or none: push.
        $delays = array_map('intval', explode(',', $argv[5] ?? '0'));
        for ($i = 0, $n = (int) ($argv[4] ?? 1); $i < $n; $i++) {
            $delay = $delays[intdiv($i * count($delays), $n)];
            if ($delay > 0) {
                $class::dispatch()->delay($delay);
            } else {
                $class::dispatch();
            }
        }
    } elseif ($what === 'work') {
        [$timeout, $tries, $sleep] = [(int) ($argv[3] ?? 60), (int) ($argv[4] ?? 1), (int) ($argv[5] ?? 3)];
        // WorkerOptions(name, backoff, memory, timeout, sleep, maxTries, force, stopWhenEmpty, maxJobs, maxTime)
        $options = new WorkerOptions(
            'default', 0, 128, $timeout, $sleep, $tries, false, getenv('STOP_WHEN_EMPTY') !== '0',
            (int) getenv('MAX_JOBS'), (int) getenv('MAX_TIME')
        );
        $worker = \Conformance\Laravel\make_worker($app);
        if (getenv('WORK_ONCE') === '1') {
            // WorkCommand::runWorker with --once: one runNextJob, no daemon loop, no timeout alarm.
            $worker->runNextJob('redis', 'default', $options);
        } else {
            $worker->daemon('redis', 'default', $options);
        }
    } elseif ($what === 'restart') {
        // `php artisan queue:restart`: RestartCommand::handle puts illuminate:queue:restart = now
        // (forever) into the cache; a daemon that read another value when it started stops after
        // its current job (Worker::stopIfNecessary, queueShouldRestart).
        $command = new RestartCommand($app['cache.store']);
        $command->setLaravel($app);
        $command->run(new ArrayInput([]), new NullOutput);
        \Conformance\Laravel\log_event('queue:restart', [
            'illuminate:queue:restart' => $app['cache.store']->get('illuminate:queue:restart'),
        ]);
    } else {
        fwrite(STDERR, "usage: php explain-flow.php dispatch PORT CLASS N [DELAYS] | work PORT TIMEOUT TRIES SLEEP | restart PORT\n");
        exit(2);
    }
}
