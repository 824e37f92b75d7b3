<?php

/*
 * Minimal Laravel 8.83 queue runtime built from Debian's packages
 * (php-laravel-framework 8.83.26+dfsg-2, installed under /usr/share/php/Illuminate).
 *
 * It wires only what the Redis queue, the Bus dispatcher and the Worker need:
 *   config, events, RedisManager (phpredis), QueueManager + RedisConnector,
 *   Bus dispatcher (so Job::dispatch() works), an in-memory cache (ArrayStore:
 *   what the Worker uses for illuminate:queue:restart and maxExceptions; the 8.x
 *   skeleton's CACHE_DRIVER is "file", so no cache traffic reaches Redis either way),
 *   a recording exception handler and an in-memory failed-job provider.
 *
 * Time: every queue timestamp in 8.83 comes from Illuminate\Support\Carbon::now()
 * (InteractsWithTime::availableAt/currentTime, Worker::markJobAsFailed*), so
 * Carbon::setTestNow() is the virtual clock. See FINDINGS.md.
 *
 * Nothing here is Laravel's code; all Laravel classes are loaded from Debian's files.
 */

namespace Conformance\Laravel;

require_once '/usr/share/php/Illuminate/autoload.php';

use Illuminate\Bus\Dispatcher as BusDispatcher;
use Illuminate\Cache\ArrayStore;
use Illuminate\Cache\Repository as CacheRepository;
use Illuminate\Config\Repository as Config;
use Illuminate\Container\Container;
use Illuminate\Contracts\Bus\Dispatcher as BusDispatcherContract;
use Illuminate\Contracts\Bus\QueueingDispatcher as QueueingDispatcherContract;
use Illuminate\Contracts\Cache\Repository as CacheContract;
use Illuminate\Contracts\Container\Container as ContainerContract;
use Illuminate\Contracts\Debug\ExceptionHandler;
use Illuminate\Contracts\Events\Dispatcher as EventsContract;
use Illuminate\Contracts\Queue\Factory as QueueFactoryContract;
use Illuminate\Events\Dispatcher as Events;
use Illuminate\Queue\Connectors\RedisConnector;
use Illuminate\Queue\Events\JobExceptionOccurred;
use Illuminate\Queue\Events\JobFailed;
use Illuminate\Queue\Events\JobProcessed;
use Illuminate\Queue\Events\JobProcessing;
use Illuminate\Queue\Events\JobQueued;
use Illuminate\Queue\Events\Looping;
use Illuminate\Queue\Events\WorkerStopping;
use Illuminate\Queue\Failed\FailedJobProviderInterface;
use Illuminate\Queue\QueueManager;
use Illuminate\Queue\Worker;
use Illuminate\Redis\RedisManager;
use Illuminate\Support\Arr;
use Illuminate\Support\Carbon;
use Illuminate\Support\Facades\Facade;
use Throwable;

/**
 * Append one JSON line to the probe log (PROBE_LOG), flushed at once so a SIGKILL loses nothing;
 * and to PROBE_LOG_COPY when set (explain-harness-captures.ts keeps a harness run's events, whose
 * PROBE_LOG the coordinator owns and removes).
 */
function log_event(string $event, array $data = []): void
{
    static $fh = null, $copy = null;
    $path = getenv('PROBE_LOG') ?: 'php://stderr';
    if ($fh === null) {
        $fh = fopen($path, 'ab');
        $copy = getenv('PROBE_LOG_COPY') ? fopen(getenv('PROBE_LOG_COPY'), 'ab') : false;
    }
    $line = ['case' => getenv('PROBE_CASE') ?: null, 'pid' => getmypid(), 'now' => Carbon::now()->getTimestamp(), 'event' => $event] + $data;
    foreach (array_filter([$fh, $copy]) as $out) {
        fwrite($out, json_encode($line, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE)."\n");
        fflush($out);
    }
}

/** The virtual clock: Carbon's test time, in whole UNIX seconds. */
function set_clock(int $unixSeconds): void
{
    Carbon::setTestNow(Carbon::createFromTimestamp($unixSeconds));
}

function advance_clock(int $seconds): void
{
    set_clock(Carbon::now()->getTimestamp() + $seconds);
}

/**
 * PHP errors as an application's kernel handles them: Application::bootstrapWith(HandleExceptions)
 * (Foundation/Bootstrap/HandleExceptions.php:43-45) makes every warning an ErrorException
 * (handleError, :68-77), e.g. phpredis' "RedisCluster::eval(): All keys do not map to the same
 * slot". Its deprecation branch logs through a full Application's logger; deprecations (PHP 8.2
 * under Laravel 8) are dropped here, as the skeleton's null `deprecations` channel drops them.
 */
function handle_errors_as_laravel_does(): void
{
    error_reporting(-1);
    $handler = new \Illuminate\Foundation\Bootstrap\HandleExceptions;
    set_error_handler(function ($level, $message, $file = '', $line = 0) use ($handler) {
        if ($level === E_DEPRECATED || $level === E_USER_DEPRECATED) {
            return true;
        }

        return $handler->handleError($level, $message, $file, $line);
    });
}

/** Records what the Worker reports (Worker::runJob / getNextJob call report()). */
class RecordingExceptionHandler implements ExceptionHandler
{
    public array $reported = [];

    public function report(Throwable $e)
    {
        $this->reported[] = $e;
        log_event('exception.reported', ['class' => get_class($e), 'message' => $e->getMessage()]);
    }

    public function shouldReport(Throwable $e)
    {
        return true;
    }

    public function render($request, Throwable $e)
    {
        throw $e;
    }

    public function renderForConsole($output, Throwable $e)
    {
        $output->writeln(get_class($e).': '.$e->getMessage());
    }
}

/** failed_jobs stand-in: what queue:work's JobFailed listener would log (WorkCommand::logFailedJob). */
class MemoryFailedJobProvider implements FailedJobProviderInterface
{
    public array $failed = [];

    public function log($connection, $queue, $payload, $exception)
    {
        $id = count($this->failed) + 1;
        $this->failed[$id] = compact('connection', 'queue', 'payload') + ['exception' => (string) $exception];
        log_event('failed_jobs.log', [
            'connection' => $connection, 'queue' => $queue,
            'exception' => get_class($exception), 'message' => $exception->getMessage(),
        ]);

        return $id;
    }

    public function all()
    {
        return array_values($this->failed);
    }

    public function find($id)
    {
        return $this->failed[$id] ?? null;
    }

    public function forget($id)
    {
        $had = isset($this->failed[$id]);
        unset($this->failed[$id]);

        return $had;
    }

    public function flush()
    {
        $this->failed = [];
    }
}

/**
 * Build the container.
 *
 * $o keys (all optional): host, port, db, password, prefix (default: the 8.x skeleton's
 * 'laravel_database_'), retry_after (90), block_for (null), queue ('default'),
 * after_commit (false), now (unix seconds for the virtual clock).
 */
function bootstrap(array $o = []): Container
{
    $app = new Container;
    Container::setInstance($app);
    $app->instance(Container::class, $app);
    $app->instance(ContainerContract::class, $app);
    Facade::setFacadeApplication($app);

    if (isset($o['now'])) {
        set_clock((int) $o['now']);
    }

    // config/database.php and config/queue.php of the laravel/laravel 8.x skeleton,
    // with host/port/db given explicitly instead of read from .env.
    $app->instance('config', $config = new Config([
        'database' => [
            'redis' => [
                'client' => 'phpredis',
                'options' => [
                    'cluster' => 'redis',
                    'prefix' => array_key_exists('prefix', $o) ? $o['prefix'] : 'laravel_database_',
                ],
                'default' => [
                    'url' => null,
                    'host' => $o['host'] ?? '127.0.0.1',
                    'password' => $o['password'] ?? null,
                    'port' => (string) ($o['port'] ?? '6379'),
                    'database' => (string) ($o['db'] ?? '0'),
                ],
            ],
        ],
        'queue' => [
            'default' => 'redis',
            'connections' => [
                'redis' => [
                    'driver' => 'redis',
                    'connection' => 'default',
                    'queue' => $o['queue'] ?? 'default',
                    'retry_after' => array_key_exists('retry_after', $o) ? $o['retry_after'] : 90,
                    'block_for' => $o['block_for'] ?? null,
                    'after_commit' => $o['after_commit'] ?? false,
                ],
            ],
            'failed' => ['driver' => 'null'],
        ],
    ]));

    $app->singleton('events', function ($app) {
        return new Events($app);
    });
    $app->alias('events', EventsContract::class);

    // RedisServiceProvider::register() (Illuminate/Redis/RedisServiceProvider.php)
    $app->singleton('redis', function ($app) {
        $config = $app->make('config')->get('database.redis', []);

        return new RedisManager($app, Arr::pull($config, 'client', 'phpredis'), $config);
    });

    // QueueServiceProvider::registerManager() + registerRedisConnector()
    $app->singleton('queue', function ($app) {
        $manager = new QueueManager($app);
        $manager->addConnector('redis', function () use ($app) {
            return new RedisConnector($app['redis']);
        });

        return $manager;
    });
    $app->alias('queue', QueueFactoryContract::class);

    // BusServiceProvider::register()
    $app->singleton(BusDispatcher::class, function ($app) {
        return new BusDispatcher($app, function ($connection = null) use ($app) {
            return $app[QueueFactoryContract::class]->connection($connection);
        });
    });
    $app->alias(BusDispatcher::class, BusDispatcherContract::class);
    $app->alias(BusDispatcher::class, QueueingDispatcherContract::class);

    $app->singleton('cache.store', function () {
        return new CacheRepository(new ArrayStore);
    });
    $app->alias('cache.store', CacheContract::class);

    $app->singleton(ExceptionHandler::class, RecordingExceptionHandler::class);
    $app->singleton('queue.failer', MemoryFailedJobProvider::class);

    listen_for_events($app);

    return $app;
}

/** Log queue events; mirror queue:work's JobFailed -> queue.failer->log (WorkCommand.php:158-161). */
function listen_for_events(Container $app): void
{
    $events = $app['events'];
    $job = function ($j) {
        return [
            'job_id' => $j->getJobId(), 'uuid' => $j->uuid(), 'attempts' => $j->attempts(),
            'name' => $j->resolveName(),
        ];
    };
    $events->listen(JobQueued::class, function (JobQueued $e) {
        // The job's delay (Queueable::delay, what Dispatcher::pushCommandToQueue gave later()), when set.
        log_event('JobQueued', ['id' => $e->id, 'job' => is_object($e->job) ? get_class($e->job) : $e->job]
            + (isset($e->job->delay) ? ['delay' => $e->job->delay] : []));
    });
    $events->listen(JobProcessing::class, function (JobProcessing $e) use ($job) {
        // The payload's retryUntil (or 5.x's timeoutAt), when it has one: what the pre-run check compares now with.
        $until = $e->job->retryUntil();
        log_event('JobProcessing', $job($e->job) + ($until === null ? [] : ['retryUntil' => $until]));
    });
    $events->listen(JobProcessed::class, function (JobProcessed $e) use ($job) {
        log_event('JobProcessed', $job($e->job) + ['deleted' => $e->job->isDeleted(), 'failed' => $e->job->hasFailed()]);
    });
    $events->listen(JobExceptionOccurred::class, function (JobExceptionOccurred $e) use ($job) {
        log_event('JobExceptionOccurred', $job($e->job) + ['exception' => get_class($e->exception), 'message' => $e->exception->getMessage()]);
    });
    $events->listen(JobFailed::class, function (JobFailed $e) use ($job, $app) {
        log_event('JobFailed', $job($e->job) + ['exception' => get_class($e->exception), 'message' => $e->exception->getMessage()]);
        $app['queue.failer']->log($e->connectionName, $e->job->getQueue(), $e->job->getRawBody(), $e->exception);
    });
    $events->listen(Looping::class, function (Looping $e) {
        log_event('Looping', ['connection' => $e->connectionName, 'queue' => $e->queue]);
    });
    $events->listen(WorkerStopping::class, function (WorkerStopping $e) {
        log_event('WorkerStopping', ['status' => $e->status]);
    });
}

/**
 * The stock Illuminate\Queue\Worker, built as QueueServiceProvider::registerWorker() does
 * (never down for maintenance; resetScope omitted: it only clears log context/facades),
 * with the cache WorkCommand::runWorker() would give it.
 */
function make_worker(Container $app, string $name = 'default'): Worker
{
    $worker = new Worker(
        $app['queue'], $app['events'], $app[ExceptionHandler::class],
        function () {
            return false;
        }
    );

    return $worker->setName($name)->setCache($app['cache.store']);
}

/** Behaviour of a probe job per attempt, from PROBE_BEHAVIOUR ("succeed", "throw:msg", "run:seconds"), comma separated. */
trait ProbeBehaviour
{
    public function handle()
    {
        $plan = explode(',', getenv('PROBE_BEHAVIOUR') ?: 'succeed');
        $attempt = $this->attempts();
        $step = $plan[$attempt - 1] ?? end($plan);
        log_event('handle', ['class' => static::class, 'attempt' => $attempt, 'behaviour' => $step]);

        [$kind, $arg] = array_pad(explode(':', $step, 2), 2, null);
        switch ($kind) {
            case 'succeed':
                return;
            case 'throw':
                throw new \RuntimeException($arg ?: 'probe failure');
            case 'run':
                // Real wall-clock work: only a real SIGALRM (pcntl_alarm) or a signal sent from
                // outside interrupts it. sleep() returns early when a signal arrives, so loop.
                $until = microtime(true) + (float) $arg;
                while (($left = $until - microtime(true)) > 0) {
                    usleep((int) (min($left, 0.2) * 1000000));
                }
                log_event('handle.finished', ['class' => static::class, 'attempt' => $attempt]);

                return;
        }
        throw new \InvalidArgumentException("unknown behaviour {$step}");
    }

    public function failed($e)
    {
        log_event('job.failed()', ['class' => static::class, 'exception' => get_class($e)]);
    }
}

require_once __DIR__.'/jobs.php';
