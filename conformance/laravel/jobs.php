<?php

/*
 * Probe jobs, shaped like `php artisan make:job` output in 8.83
 * (Illuminate/Foundation/Console/stubs/job.queued.stub: the same four traits, same order).
 * handle()/failed() come from Conformance\Laravel\ProbeBehaviour (a trait with no
 * properties, so it adds nothing to the serialized command).
 */

namespace App\Jobs;

use Conformance\Laravel\ProbeBehaviour;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Queue\SerializesModels;

/** No properties of its own: the payload shows Laravel's defaults only. */
class ProbeJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;
}

/** $tries and $backoff on the job (payload maxTries 3, backoff "5,10"). */
class ProbeRetryJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $tries = 3;

    public $backoff = [5, 10];
}

/** $tries = 2: used for the timeout cases (attempt 1 is not the last, attempt 2 is). */
class ProbeTimeoutJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $tries = 2;
}

/**
 * $tries = 1 and retryUntil() RETRY_UNTIL seconds from dispatch (default 600): the payload has
 * maxTries 1 and retryUntil, and the worker's pre-run check (markJobAsFailedIfAlreadyExceedsMaxAttempts)
 * goes by retryUntil alone, whatever the attempts.
 */
class ProbeRetryUntilJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $tries = 1;

    /** Read once, by Queue::getJobExpiration when the payload is made (the web request's clock). */
    public function retryUntil()
    {
        return \Illuminate\Support\Carbon::now()->addSeconds((int) (getenv('RETRY_UNTIL') ?: 600));
    }
}

/** A constructor argument with '/', '"' and non-ASCII, to show the payload's escaping. */
class ProbeTextJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $text;

    public function __construct($text = '')
    {
        $this->text = $text;
    }
}
