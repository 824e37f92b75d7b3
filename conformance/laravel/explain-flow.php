<?php

/*
 * One process of a real-time Laravel 8.83 flow for `lqsim explain`'s fixtures
 * (conformance/laravel/explain-captures.sh records them): real clock, real workers, real kills.
 *
 *   php explain-flow.php dispatch PORT CLASS N              a web request dispatching N jobs of App\Jobs\CLASS
 *   php explain-flow.php work PORT TIMEOUT TRIES SLEEP      `queue:work --timeout --tries --sleep --stop-when-empty`
 *
 * RETRY_AFTER (default 90) is config/queue.php's retry_after; PROBE_BEHAVIOUR what each attempt's
 * handle() does (bootstrap.php's ProbeBehaviour: "succeed", "run:SECONDS", "throw:msg");
 * PROBE_LOG where the queue events go. The worker's other options, as queue:work's flags:
 * WORK_ONCE=1 (`--once`: Worker::runNextJob, one pop, then the process exits), MAX_JOBS and
 * MAX_TIME (`--max-jobs`, `--max-time`), STOP_WHEN_EMPTY=0 (drop `--stop-when-empty`).
 */

namespace {
    require_once __DIR__.'/bootstrap.php';

    use Illuminate\Queue\WorkerOptions;

    [, $what, $port] = $argv + [null, null, '6379'];
    $retryAfter = (int) (getenv('RETRY_AFTER') ?: 90);
    $app = \Conformance\Laravel\bootstrap(['host' => '127.0.0.1', 'port' => $port, 'retry_after' => $retryAfter]);

    if ($what === 'dispatch') {
        $class = 'App\\Jobs\\'.($argv[3] ?? 'ProbeJob');
        for ($i = 0, $n = (int) ($argv[4] ?? 1); $i < $n; $i++) {
            $class::dispatch();
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
    } else {
        fwrite(STDERR, "usage: php explain-flow.php dispatch PORT CLASS N | work PORT TIMEOUT TRIES SLEEP\n");
        exit(2);
    }
}
