<?php

/*
 * One actor step against a real Redis, through Debian's Laravel 8.83 classes.
 * Every invocation is a new PHP process = a new Redis connection (like a web request
 * that dispatches, or a `queue:work` process), so MONITOR shows its connect-time commands.
 *
 *   php probe.php STEP [key=value ...]
 *
 * Common keys: port, host, db, password, prefix, now (virtual clock, unix seconds),
 *              retry_after, block_for, queue.
 * Steps:
 *   dispatch  class=ProbeJob [delay=N] [text=...]   Job::dispatch(...)(->delay(N))   (PendingDispatch -> Bus -> RedisQueue)
 *   push      class=ProbeJob                         Queue::push(new Job)
 *   later     class=ProbeJob delay=N                 Queue::later(N, new Job)
 *   push-string                                      Queue::push('App\Jobs\ProbeJob@handle', [...])  (string job)
 *   pop                                              Queue::pop(): reserve one job, do not run it
 *   size                                             Queue::size()
 *   clear                                            RedisQueue::clear() (queue:clear)
 *   work-once [tries= timeout= sleep= backoff= memory= rest=]   Worker::runNextJob (= queue:work --once)
 *   daemon    [same + max_jobs= stop_when_empty=1]               Worker::daemon (= queue:work)
 * The job's handle() follows PROBE_BEHAVIOUR (see bootstrap.php). Events go to PROBE_LOG.
 */

namespace Conformance\Laravel;

require __DIR__.'/bootstrap.php';

use Illuminate\Queue\WorkerOptions;
use Illuminate\Support\Facades\Queue;

$step = $argv[1] ?? null;
$o = [];
foreach (array_slice($argv, 2) as $arg) {
    [$k, $v] = array_pad(explode('=', $arg, 2), 2, '');
    $o[$k] = $v;
}
$nullable = function ($v) {
    return ($v === 'null' || $v === '') ? null : (int) $v;
};

$app = bootstrap([
    'host' => $o['host'] ?? '127.0.0.1',
    'port' => $o['port'] ?? '6379',
    'db' => $o['db'] ?? '0',
    'password' => $o['password'] ?? null,
    'prefix' => $o['prefix'] ?? 'laravel_database_',
    'retry_after' => array_key_exists('retry_after', $o) ? $nullable($o['retry_after']) : 90,
    'block_for' => array_key_exists('block_for', $o) ? $nullable($o['block_for']) : null,
    'queue' => 'default',
    'now' => (int) ($o['now'] ?? 1700000000),
]);

$queue = $o['queue'] ?? null;           // null = the connection's default queue
$class = 'App\\Jobs\\'.($o['class'] ?? 'ProbeJob');
log_event('step', ['step' => $step, 'args' => $o]);

switch ($step) {
    case 'dispatch':
        $pending = isset($o['text']) ? $class::dispatch($o['text']) : $class::dispatch();
        if (isset($o['delay'])) {
            $pending->delay((int) $o['delay']);
        }
        if ($queue) {
            $pending->onQueue($queue);
        }
        unset($pending);                   // PendingDispatch::__destruct() dispatches
        break;

    case 'push':
        $id = Queue::push(isset($o['text']) ? new $class($o['text']) : new $class, '', $queue);
        log_event('result', ['id' => $id]);
        break;

    case 'later':
        $id = Queue::later((int) ($o['delay'] ?? 60), new $class, '', $queue);
        log_event('result', ['id' => $id]);
        break;

    case 'push-string':
        $id = Queue::push('App\Jobs\ProbeJob@handle', ['path' => 'a/b', 'name' => 'é'], $queue);
        log_event('result', ['id' => $id]);
        break;

    case 'pop':
        $job = Queue::pop($queue);
        log_event('result', $job ? ['job_id' => $job->getJobId(), 'attempts' => $job->attempts(), 'reserved' => $job->getReservedJob()] : ['job' => null]);
        break;

    case 'size':
        log_event('result', ['size' => Queue::size($queue)]);
        break;

    case 'clear':                          // what `artisan queue:clear redis` calls
        log_event('result', ['cleared' => Queue::connection('redis')->clear($queue ?? 'default')]);
        break;

    case 'work-once':
    case 'daemon':
        $options = new WorkerOptions(
            'default',
            (int) ($o['backoff'] ?? 0),
            (int) ($o['memory'] ?? 128),
            (int) ($o['timeout'] ?? 60),
            (int) ($o['sleep'] ?? 3),
            (int) ($o['tries'] ?? 1),
            false,
            (bool) ($o['stop_when_empty'] ?? false),
            (int) ($o['max_jobs'] ?? 0),
            (int) ($o['max_time'] ?? 0),
            (int) ($o['rest'] ?? 0)
        );
        $worker = make_worker($app);
        $names = $queue ?? 'default';
        if ($step === 'work-once') {
            $worker->runNextJob('redis', $names, $options);
            log_event('result', ['runNextJob' => 'returned']);
        } else {
            $status = $worker->daemon('redis', $names, $options);
            log_event('result', ['daemon' => 'returned', 'status' => $status]);
        }
        break;

    default:
        fwrite(STDERR, "unknown step: {$step}\n");
        exit(2);
}
