<?php

/*
 * The bench's flow played by real Laravel 8.83 (Debian's packages, the conformance runtime of
 * conformance/laravel/bootstrap.php), free-running: real time, no coordinator, nothing shadowed.
 *
 *   php bench/laravel.php dispatch HOST PORT N   one process (a web request) dispatches N jobs
 *   php bench/laravel.php work HOST PORT SLEEP   one `queue:work --sleep=SLEEP --stop-when-empty`
 *                                                 worker works the queue until it is empty
 *
 * The job is the bench scenario's (bench/big-scenario.ts): App\Jobs\SendInvoice with a public
 * $invoice = 4711, whose handle() returns at once. Queue events go to PROBE_LOG (the bench points
 * it at /dev/null), as queue:work prints its Processing/Processed lines.
 */

namespace {
    require_once __DIR__.'/../conformance/laravel/bootstrap.php';
}

namespace App\Jobs {
    use Illuminate\Bus\Queueable;
    use Illuminate\Contracts\Queue\ShouldQueue;
    use Illuminate\Foundation\Bus\Dispatchable;
    use Illuminate\Queue\InteractsWithQueue;
    use Illuminate\Queue\SerializesModels;

    class SendInvoice implements ShouldQueue
    {
        use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;

        public $invoice;

        public function __construct($invoice)
        {
            $this->invoice = $invoice;
        }

        public function handle()
        {
        }
    }
}

namespace {
    use App\Jobs\SendInvoice;
    use Illuminate\Queue\WorkerOptions;

    [, $what, $host, $port] = $argv + [null, null, '127.0.0.1', '6379'];
    $app = \Conformance\Laravel\bootstrap(['host' => $host, 'port' => $port]);

    if ($what === 'dispatch') {
        $n = (int) ($argv[4] ?? 1);
        for ($i = 0; $i < $n; $i++) {
            SendInvoice::dispatch(4711);
        }
    } elseif ($what === 'work') {
        // WorkCommand's defaults (8.83): backoff 0, memory 128, timeout 60, sleep 3, tries 1.
        $options = new WorkerOptions('default', 0, 128, 60, (int) ($argv[4] ?? 3), 1, false, true);
        \Conformance\Laravel\make_worker($app)->daemon('redis', 'default', $options);
    } else {
        fwrite(STDERR, "usage: php bench/laravel.php dispatch HOST PORT N | work HOST PORT\n");
        exit(2);
    }
}
