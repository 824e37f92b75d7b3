<?php

/*
 * The jobs of explain-cache-flow.php (cache-store flows), shaped like `php artisan make:job` output
 * in 8.83 with the properties and middleware() each flow needs; handle()/failed() from bootstrap.php's
 * ProbeBehaviour.
 */

namespace App\Jobs;

use Conformance\Laravel\ProbeBehaviour;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldBeUnique;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Queue\Middleware\RateLimited;
use Illuminate\Queue\Middleware\RateLimitedWithRedis;
use Illuminate\Queue\Middleware\ThrottlesExceptions;
use Illuminate\Queue\Middleware\ThrottlesExceptionsWithRedis;
use Illuminate\Queue\Middleware\WithoutOverlapping;
use Illuminate\Queue\SerializesModels;

/** WithoutOverlapping('order-1') with expireAfter(30), $tries = 2 (research §7.1's Foo, without the unique lock). */
class SyncOrder implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $tries = 2;

    public function middleware()
    {
        return [(new WithoutOverlapping('order-1'))->expireAfter(30)];
    }
}

/**
 * SyncOrder's middleware and $tries = 2, but handle() releases the job itself every time
 * ($this->release(), InteractsWithQueue): the lock is taken, the release comes from inside
 * handle(), the lock's release after it (WithoutOverlapping's finally).
 */
class SyncOrderReleasing implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;

    public $tries = 2;

    public function middleware()
    {
        return [(new WithoutOverlapping('order-1'))->expireAfter(30)];
    }

    public function handle()
    {
        \Conformance\Laravel\log_event('handle', ['class' => static::class, 'attempt' => $this->attempts(), 'behaviour' => 'release']);
        $this->release();
    }
}

/** research/cache-store.md §7.1's Foo: ShouldBeUnique ($uniqueId 42) and SyncOrder's middleware, $tries = 2. */
class UniqueSyncOrder implements ShouldQueue, ShouldBeUnique
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $tries = 2;

    public $uniqueId = 42;

    public function middleware()
    {
        return [(new WithoutOverlapping('order-1'))->expireAfter(30)];
    }
}

/** ShouldBeUnique with $uniqueId = 42 and no $uniqueFor: the lock is a SETNX without TTL. */
class UpdateSearchIndex implements ShouldQueue, ShouldBeUnique
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $uniqueId = 42;
}

/** $maxExceptions = 2, $tries = 5: each exception counted in the cache (job-exceptions:<uuid>). */
class ImportFeed implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $tries = 5;

    public $maxExceptions = 2;
}

/** RateLimited('orders') (the cache RateLimiter), $tries = 5. */
class ChargeCard implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $tries = 5;

    public function middleware()
    {
        return [new RateLimited('orders')];
    }
}

/** RateLimitedWithRedis('orders') (DurationLimiter on the default connection), $tries = 5. */
class ChargeCardRedis implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $tries = 5;

    public function middleware()
    {
        return [new RateLimitedWithRedis('orders')];
    }
}

/** ThrottlesExceptions(2, 1) (the cache RateLimiter), $tries = 5; handle() always throws. */
class CallPartner implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $tries = 5;

    /** Every attempt throws: the exception the middleware counts. */
    public function handle()
    {
        \Conformance\Laravel\log_event('handle', ['class' => static::class, 'attempt' => $this->attempts(), 'behaviour' => 'throw:partner down']);

        throw new \RuntimeException('partner down');
    }

    public function middleware()
    {
        return [new ThrottlesExceptions(2, 1)];
    }
}

/** ThrottlesExceptionsWithRedis(2, 1) (DurationLimiter on the default connection), $tries = 5; handle() always throws. */
class CallPartnerRedis implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable, SerializesModels;
    use ProbeBehaviour;

    public $tries = 5;

    /** Every attempt throws: the exception the middleware counts. */
    public function handle()
    {
        \Conformance\Laravel\log_event('handle', ['class' => static::class, 'attempt' => $this->attempts(), 'behaviour' => 'throw:partner down']);

        throw new \RuntimeException('partner down');
    }

    public function middleware()
    {
        return [new ThrottlesExceptionsWithRedis(2, 1)];
    }
}
