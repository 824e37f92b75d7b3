<?php

/*
 * One actor of a scenario, played by Debian's real Laravel 8.83 under a coordinator's virtual
 * clock (`lqsim conformance`; src/conformance/). Each actor is its own PHP process, so its own
 * Redis connections (the queue's, and the cache store's when it uses one), as in production: a web
 * request makes dispatch() and Queue::size() calls, a worker is a `queue:work` process (restarted
 * by the coordinator, as supervisord would, after a kill), `artisan` runs `php artisan queue:restart`.
 *
 *   php harness.php CONFIG.json ROLE.json
 *
 * CONFIG: { redis: {host, port, database, cache_database, prefix, cluster?}, connections: {name: {queue,
 *           retry_after, block_for}}, jobs: {name: {class, tries, timeout, retry_until, backoff,
 *           max_exceptions, fail_on_timeout, properties, declared?, attempts, middleware, unique?}},
 *           cache: {store: redis|file, connection, lock_connection, prefix, path},
 *           limiters: {name: 'none' | Limit | [Limit]} }
 *           (the scenario, as the tool validated it; cache with the skeleton's defaults filled in;
 *           redis.cluster: host/port is a Redis Cluster's seed node, configured as `clusters`)
 * ROLE:   { role: request|worker|artisan, name: <CLIENT SETNAME>, connections: {as CONFIG's,
 *           current at the process's start}, ...calls, worker options or the artisan command }
 *         request calls: [{op: dispatch, job, count, delay, queue, connection, properties: [per
 *         instance], chain: [{job, queue, connection, delay}] | null, uuids | null} | {op: chain,
 *         chain, queue, connection, delay, uuids} (Bus::chain) | {op: size, queue, connection}],
 *         each with `wait`: seconds the request sleeps before it (a request that goes on)
 *
 * Protocol: JSON lines. The process prints {"y":"ready"} and waits; the coordinator answers
 * {"now": T, "instant": I}: T is Laravel's clock, whole virtual unix seconds (Carbon::setTestNow;
 * PHP's time() never has a fraction), I the exact virtual instant, to the millisecond, which the
 * alarm is timed from (pcntl_alarm counts from the moment it is called). The actor runs Laravel's
 * code until Laravel waits, where it prints a yield and waits again:
 *   {"y":"sleep","s":N}    Worker::sleep(N)                        (the one Worker method overridden),
 *                          or a request's sleep() before a call that has a `wait`
 *   {"y":"busy","s":N}     the job's handle() works for N virtual seconds
 *   {"y":"step"}           a new step at the same instant (after a pop, after a processed job)
 *   {"y":"blocking"}       about to BLPOP; then {"y":"unblocked"} once the server answered it
 *   {"y":"done"}           the actor's work is over (the coordinator then closes stdin); a request's
 *                          "threw": {class, message} when a call threw (the request ended there)
 *   {"y":"uuid"}           a worker's Str::uuid() (the payload of a chain's next job), or a request's
 *                          after a sleep (a call whose uuids are null): answered at
 *                          once with {"uuid": U}, the next uuid of the model's stream; not a wait,
 *                          the clock and the step go on
 * Every yield carries "alarm": the virtual instant the worker's pcntl_alarm is due (or null).
 * An answer may carry "signal": "ALRM" | "TERM": the process sends itself that real signal, so
 * Laravel's own handlers (Worker::registerTimeoutHandler, listenForSignals) run, and the timeout
 * handler's Worker::kill really SIGKILLs the process.
 *
 * What is not Laravel's: pcntl_alarm and hrtime are shadowed in the Illuminate\Queue namespace
 * (Worker.php calls both unqualified), so the alarm is armed in virtual time and --max-time
 * (Worker::daemon's `hrtime(true) / 1e9` start, stopIfNecessary's elapsed time) is measured on the
 * virtual clock; microtime and time likewise in Illuminate\Redis\Limiters (DurationLimiter's
 * ARGV, for the *WithRedis middleware); Worker::sleep and the job's busy time are virtual; blpop returns only when the
 * coordinator says so; HarnessWorker::stopIfNecessary only notes whether the loop that stopped had
 * a job (Laravel's own method decides), so the coordinator's supervisor knows a --stop-when-empty
 * exit. Everything sent to Redis is Laravel's (RedisQueue, LuaScripts, RedisJob, PhpRedisConnector),
 * from Debian's files.
 */

namespace Illuminate\Queue {
    /** Worker::registerTimeoutHandler/resetTimeoutHandler's alarm, armed on the virtual clock. */
    function pcntl_alarm(int $seconds): int
    {
        return \Conformance\Laravel\Harness::alarm($seconds);
    }

    /** Worker::daemon/stopIfNecessary's clock for --max-time: the virtual one, in nanoseconds. */
    function hrtime(bool $asNumber = false)
    {
        // The exact virtual instant (to the millisecond), as hrtime is exact: not Carbon's second.
        $ns = (int) round(\Conformance\Laravel\Harness::$instant * 1000) * 1000000;

        return $asNumber ? $ns : [intdiv($ns, 1000000000), $ns % 1000000000];
    }
}

namespace Illuminate\Redis\Limiters {
    /** DurationLimiter's microtime(true): the exact virtual instant (a float, as PHP's). */
    function microtime(bool $asFloat = false)
    {
        $t = (float) \Conformance\Laravel\Harness::$instant;

        return $asFloat ? $t : sprintf('%.8F %d', $t - floor($t), (int) floor($t));
    }

    /** DurationLimiter's time(): Laravel's clock, as Carbon's (the whole virtual second). */
    function time(): int
    {
        return \Illuminate\Support\Carbon::now()->getTimestamp();
    }
}

namespace Conformance\Laravel {
    require_once __DIR__.'/bootstrap.php';

    use Illuminate\Queue\Events\JobProcessing;
    use Illuminate\Queue\Worker;
    use Illuminate\Queue\WorkerOptions;
    use Illuminate\Redis\Connections\PhpRedisClusterConnection;
    use Illuminate\Redis\Connections\PhpRedisConnection;
    use Illuminate\Redis\Connectors\PhpRedisConnector;
    use Illuminate\Support\Arr;
    use Illuminate\Support\Carbon;
    use Illuminate\Support\Facades\Queue;

    final class Harness
    {
        /** The instant the armed alarm is due (virtual unix seconds, maybe fractional), or null. */
        public static int|float|null $alarmAt = null;

        /** The exact virtual instant of the last answer: no virtual time passes between answers. */
        public static int|float $instant = 0;

        /** Scenario job specs by PHP class name. */
        public static array $jobs = [];

        /** pcntl_alarm: due $seconds after the exact instant; returns the old alarm's seconds left. */
        public static function alarm(int $seconds): int
        {
            $left = self::$alarmAt === null ? 0 : (int) ceil(max(0, self::$alarmAt - self::$instant));
            self::$alarmAt = $seconds > 0 ? self::$instant + $seconds : null;

            return $left;
        }

        public static function send(array $message): void
        {
            fwrite(STDOUT, json_encode($message + ['alarm' => self::$alarmAt], JSON_UNESCAPED_SLASHES)."\n");
            fflush(STDOUT);
        }

        /** Str::uuid() in a worker: the coordinator's next uuid, drawn when Laravel draws it. */
        public static function uuid(): string
        {
            self::send(['y' => 'uuid']);
            $line = fgets(STDIN);
            if ($line === false) {
                exit(0);
            }

            return json_decode($line, true, 512, JSON_THROW_ON_ERROR)['uuid'];
        }

        /** Print a yield, wait for the coordinator's answer, set the clock, raise its signal. */
        public static function pause(array $message): array
        {
            self::send($message);
            $line = fgets(STDIN);
            if ($line === false) {
                exit(0);                      // the coordinator is done with this actor
            }
            $answer = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
            set_clock((int) $answer['now']);
            self::$instant = $answer['instant'];
            if (isset($answer['signal'])) {
                posix_kill(getmypid(), constant('SIG'.$answer['signal']));
                pcntl_signal_dispatch();
            }

            return $answer;
        }
    }

    /** The stock Worker, but Worker::sleep() waits on the virtual clock. */
    class HarnessWorker extends Worker
    {
        /** Whether the loop that stopped the daemon had popped nothing (null: not stopped by it). */
        public static ?bool $stoppedIdle = null;

        public function sleep($seconds)
        {
            Harness::pause(['y' => 'sleep', 's' => $seconds]);
        }

        /** Laravel's own; then a new step at the same instant: the job's outcome closes its step. */
        protected function runJob($job, $connectionName, WorkerOptions $options)
        {
            $result = parent::runJob($job, $connectionName, $options);
            Harness::pause(['y' => 'step']);

            return $result;
        }

        /** Laravel's own, noting only whether its $job was null when it said stop. */
        protected function stopIfNecessary(WorkerOptions $options, $lastRestart, $startTime = 0, $jobsProcessed = 0, $job = null)
        {
            $status = parent::stopIfNecessary($options, $lastRestart, $startTime, $jobsProcessed, $job);
            if (! is_null($status)) {
                self::$stoppedIdle = is_null($job);
            }

            return $status;
        }
    }

    /** A BLPOP that hands control back to the coordinator when it returns (Laravel's blpop inside). */
    trait HandsBackBlpop
    {
        public function blpop(...$arguments)
        {
            Harness::send(['y' => 'blocking']);
            $result = parent::blpop(...$arguments);
            Harness::pause(['y' => 'unblocked']);

            return $result;
        }
    }

    class HarnessConnection extends PhpRedisConnection
    {
        use HandsBackBlpop;
    }

    class HarnessClusterConnection extends PhpRedisClusterConnection
    {
        use HandsBackBlpop;
    }

    /**
     * PhpRedisConnector::connect and ::connectToCluster, building the connections above
     * (createClient, createRedisClusterInstance and buildClusterConnectionString are Laravel's).
     */
    class HarnessConnector extends PhpRedisConnector
    {
        /** $name: the process's connection name (on a cluster; a single server's is Laravel's `name` option). */
        public function __construct(private string $name)
        {
        }

        public function connect(array $config, array $options)
        {
            $connector = function () use ($config, $options) {
                return $this->createClient(array_merge($config, $options, Arr::pull($config, 'options', [])));
            };

            return new HarnessConnection($connector(), $connector, $config);
        }

        /**
         * Laravel's own (PhpRedisConnector.php:43-50), then each master's connection named. Laravel's
         * `name` option cannot do it on a cluster: its client('SETNAME', $name) is RedisCluster::client(
         * $node, $subcommand) with 'SETNAME' as the node, a warning and nothing sent (ErrorException
         * under HandleExceptions). client([$host, $port], 'SETNAME', $name) opens the one connection per
         * node phpredis would open at the process's first command for that node, and names it (the
         * line is dropped as the tool's own); Laravel's commands then use it. The seed connection that
         * sent CLUSTER SLOTS is closed by then: the coordinator gives it to the actor whose SETNAME
         * follows it on the seed (real-laravel.ts).
         */
        public function connectToCluster(array $config, array $clusterOptions, array $options)
        {
            $options = array_merge($options, $clusterOptions, Arr::pull($config, 'options', []));
            $client = $this->createRedisClusterInstance(
                array_map([$this, 'buildClusterConnectionString'], $config), $options
            );
            foreach ($client->_masters() as $master) {
                $client->client($master, 'SETNAME', $this->name);
            }

            return new HarnessClusterConnection($client);
        }
    }

    /** A scenario job: the make:job stub's traits, the scenario's properties, handle() per attempt. */
    function define_job_class(array $job): void
    {
        $fqcn = $job['class'];
        $at = strrpos($fqcn, '\\');
        $namespace = $at === false ? '' : substr($fqcn, 0, $at);
        $short = $at === false ? $fqcn : substr($fqcn, $at + 1);
        // Own properties: the options first, then the scenario's properties, unless the scenario
        // gives the class's declaration order (`declared`, PHP names), which serialize() follows.
        $props = [];
        foreach (['tries' => 'tries', 'timeout' => 'timeout', 'backoff' => 'backoff', 'maxExceptions' => 'max_exceptions'] as $php => $key) {
            if ($job[$key] !== null) {
                $props[$php] = "public \${$php} = ".var_export($job[$key], true).';';
            }
        }
        if ($job['fail_on_timeout']) {
            $props['failOnTimeout'] = 'public $failOnTimeout = true;';
        }
        // ShouldBeUnique's $uniqueFor is a property in 8.x (a method from 9.1): declared after the options.
        $unique = $job['unique'] ?? null;
        if (is_array($unique) && array_key_exists('for', $unique)) {
            $props['uniqueFor'] = 'public $uniqueFor = '.var_export($unique['for'], true).';';
        }
        foreach ($job['properties'] as $name => $value) {
            $props[$name] = "public \${$name} = ".var_export($value, true).';';
        }
        if (isset($job['declared'])) {
            $props = array_merge(array_flip($job['declared']), $props);
        }
        $retryUntil = $job['retry_until'] === null ? '' :
            'public function retryUntil() { return \Illuminate\Support\Carbon::now()->addSeconds('.(int) $job['retry_until'].'); }';
        // ShouldBeUnique / ShouldBeUniqueUntilProcessing; uniqueId() a method (not serialized).
        $implements = '\\Illuminate\\Contracts\\Queue\\ShouldQueue';
        $methods = [$retryUntil, middleware_method($job['middleware'] ?? [])];
        if ($unique !== null) {
            $implements .= ', \\Illuminate\\Contracts\\Queue\\'
                .(is_array($unique) && ($unique['until_processing'] ?? false) ? 'ShouldBeUniqueUntilProcessing' : 'ShouldBeUnique');
            // uniqueId() returns the scenario's id, or {property: X}: $this->X (each instance's own).
            if (is_array($unique) && array_key_exists('id', $unique)) {
                $id = $unique['id'];
                $methods[] = 'public function uniqueId() { return '
                    .(is_array($id) ? '$this->'.$id['property'] : var_export($id, true)).'; }';
            }
            // uniqueVia(): another store of the app's, Cache::store($name).
            if (is_array($unique) && isset($unique['via'])) {
                $methods[] = 'public function uniqueVia() { return \\Illuminate\\Container\\Container::getInstance()->make(\'cache\')->store('
                    .var_export($unique['via'], true).'); }';
            }
        }
        $code = ($namespace === '' ? '' : "namespace {$namespace};\n")
            ."class {$short} implements {$implements} {\n"
            ."use \\Illuminate\\Foundation\\Bus\\Dispatchable, \\Illuminate\\Queue\\InteractsWithQueue, \\Illuminate\\Bus\\Queueable, \\Illuminate\\Queue\\SerializesModels;\n"
            ."use \\Conformance\\Laravel\\ScenarioBehaviour;\n"
            .implode("\n", $props)."\n".implode("\n", array_filter($methods))."\n}\n";
        eval($code);
        Harness::$jobs[$fqcn] = $job;
    }

    /**
     * The job's middleware(), in the scenario's order: new WithoutOverlapping($key) with
     * ->releaseAfter() / ->dontRelease() / ->expireAfter() (Queue/Middleware/WithoutOverlapping.php).
     * Queueable's own $middleware property stays [] (it is serialized; middleware() is not).
     */
    function middleware_method(array $middleware): string
    {
        if ($middleware === []) {
            return '';
        }

        return 'public function middleware() { return ['.implode(', ', array_map('Conformance\\Laravel\\middleware_code', $middleware)).']; }';
    }

    /** One middleware of the scenario's as PHP code: `new X(...)` and its options. */
    function middleware_code(array $m): string
    {
        $kind = array_key_first($m);
        $o = $m[$kind];
        $ns = '\\Illuminate\\Queue\\Middleware\\';
        switch ($kind) {
            case 'without_overlapping':
                if (is_string($o)) {
                    return "(new {$ns}WithoutOverlapping(".var_export($o, true).'))';
                }
                $code = "(new {$ns}WithoutOverlapping(".var_export($o['key'], true).'))';
                $code .= $o['dont_release'] ? '->dontRelease()' : '->releaseAfter('.var_export($o['release_after'], true).')';

                return $code.'->expireAfter('.var_export($o['expire_after'], true).')';
            case 'rate_limited':
            case 'rate_limited_with_redis':
                $class = $kind === 'rate_limited' ? 'RateLimited' : 'RateLimitedWithRedis';
                $limiter = is_string($o) ? $o : $o['limiter'];
                $code = "(new {$ns}{$class}(".var_export($limiter, true).'))';

                return is_array($o) && $o['dont_release'] ? $code.'->dontRelease()' : $code;
            case 'throttles_exceptions':
            case 'throttles_exceptions_with_redis':
                $class = $kind === 'throttles_exceptions' ? 'ThrottlesExceptions' : 'ThrottlesExceptionsWithRedis';
                $code = "(new {$ns}{$class}(".var_export($o['max_attempts'], true).', '.var_export($o['decay_minutes'], true).'))';
                $code .= '->backoff('.var_export($o['backoff'], true).')';
                if (isset($o['by'])) {
                    $code .= '->by('.var_export($o['by'], true).')';
                }
                if (isset($o['when'])) {
                    // ->when(fn ($e) => $e instanceof A || ...): an application's class is declared
                    // the first time it is thrown (make_exception), so the test names it as a string.
                    $tests = array_map(function ($class) {
                        return 'is_a($e, '.var_export($class, true).')';
                    }, $o['when']);
                    $code .= '->when(function ($e) { return '.implode(' || ', $tests).'; })';
                }

                return $o['by_job'] ? $code.'->byJob()' : $code;
        }
        throw new \InvalidArgumentException("unknown middleware {$kind}");
    }

    /**
     * RateLimiter::for($name, fn ($job) => ...) as an app's service provider declares it: Limit::none(),
     * a Limit (perMinute/perHour/perDay, or new Limit('', N, $decayMinutes)) with ->by($key), or a list.
     */
    function define_limiters(\Illuminate\Cache\RateLimiter $limiter, array $limiters): void
    {
        foreach ($limiters as $name => $definition) {
            $limiter->for($name, function ($job) use ($definition) {
                if ($definition === 'none') {
                    return \Illuminate\Cache\RateLimiting\Limit::none();
                }
                $limits = array_map('Conformance\\Laravel\\make_limit', array_is_list($definition) ? $definition : [$definition]);

                return array_is_list($definition) ? $limits : $limits[0];
            });
        }
    }

    function make_limit(array $l): \Illuminate\Cache\RateLimiting\Limit
    {
        $Limit = \Illuminate\Cache\RateLimiting\Limit::class;
        $limit = isset($l['per_minute']) ? $Limit::perMinute($l['per_minute'])
            : (isset($l['per_hour']) ? $Limit::perHour($l['per_hour'])
            : (isset($l['per_day']) ? $Limit::perDay($l['per_day'])
            : new $Limit('', $l['max_attempts'], $l['decay_minutes'] ?? 1)));

        return isset($l['by']) ? $limit->by($l['by']) : $limit;
    }

    /**
     * ->onConnection() / ->onQueue() / ->delay() as the scenario gives them, on a job, a
     * PendingDispatch or a PendingChain (each has the three methods, with Laravel's own meaning).
     */
    function route($target, array $options)
    {
        if (isset($options['connection'])) {
            $target->onConnection($options['connection']);
        }
        if (isset($options['queue'])) {
            $target->onQueue($options['queue']);
        }
        if (isset($options['delay'])) {
            $target->delay($options['delay']);
        }

        return $target;
    }

    /** `new <class>` of a chain, with what ->onConnection/->onQueue/->delay set on it (the role's link). */
    function chain_link(array $config, array $link)
    {
        $class = $config['jobs'][$link['job']]['class'];

        return route(new $class, $link);
    }

    /**
     * `new $class($message)`: one of PHP's exceptions, or the application's own class (namespaced),
     * declared here as extending \Exception the first time it is thrown.
     */
    function make_exception(string $class, string $message): \Throwable
    {
        if (! class_exists($class)) {
            $at = strrpos($class, '\\');
            eval('namespace '.substr($class, 0, $at).'; class '.substr($class, $at + 1).' extends \\Exception {}');
        }

        return new $class($message);
    }

    /** handle(): what the scenario says attempt N does (the last entry repeats). */
    trait ScenarioBehaviour
    {
        public function handle()
        {
            log_event('handle', ['class' => static::class, 'attempt' => $this->attempts()]);
            $plan = Harness::$jobs[static::class]['attempts'];
            $b = $plan[min($this->attempts(), count($plan)) - 1];
            if (is_string($b)) {
                $b = [$b => true];
            }
            if (($b['run'] ?? 0) > 0) {
                Harness::pause(['y' => 'busy', 's' => $b['run']]);
            }
            $class = $b['exception'] ?? 'Exception';
            if (isset($b['throw'])) {
                throw make_exception($class, $b['throw']);
            }
            if (isset($b['release'])) {
                $this->release($b['release']);
            } elseif (isset($b['fail'])) {
                // $this->fail(), or $this->fail(new X($message)) with a message or a class.
                $this->fail($b['fail'] === true && ! isset($b['exception'])
                    ? null : make_exception($class, $b['fail'] === true ? '' : $b['fail']));
            } elseif (isset($b['delete'])) {
                $this->delete();
            }
        }
    }

    /** A web request's calls in order (the role's `calls`), on this process's connections. */
    function run_request_calls($app, array $config, array $calls): void
    {
        foreach ($calls as $call) {
            if (($call['wait'] ?? 0) > 0) {
                // A request that goes on (a long request, an artisan command) sleep()s between
                // its calls, keeping its process and its Redis connection: on the virtual clock.
                Harness::pause(['y' => 'sleep', 's' => $call['wait']]);
            }
            if ($call['op'] === 'size') {
                Queue::connection($call['connection'] ?? null)->size($call['queue']);
                continue;
            }
            // The coordinator's uuids, through Laravel's own test seam (see real-laravel.ts):
            // given up front, or (null: a call after a sleep) asked for when Laravel draws one.
            $uuids = $call['uuids'];
            \Illuminate\Support\Str::createUuidsUsing(function () use (&$uuids) {
                return $uuids === null ? Harness::uuid() : array_shift($uuids);
            });
            if ($call['op'] === 'chain') {
                // Bus::chain([...])->onConnection()->onQueue()->delay()->dispatch() (PendingChain).
                $pending = \Illuminate\Support\Facades\Bus::chain(array_map(function ($link) use ($config) {
                    return chain_link($config, $link);
                }, $call['chain']));
                route($pending, $call)->dispatch();
                continue;
            }
            $class = $config['jobs'][$call['job']]['class'];
            for ($i = 0; $i < $call['count']; $i++) {
                // $class::dispatch() is `new PendingDispatch(new static)` (Dispatchable); the
                // instance gets its own property values in between, as a constructor would.
                $job = new $class;
                foreach ($call['properties'][$i] as $property => $value) {
                    $job->{$property} = $value;
                }
                $pending = route(new \Illuminate\Foundation\Bus\PendingDispatch($job), $call);
                if (isset($call['chain'])) {
                    $pending->chain(array_map(function ($link) use ($config) {
                        return chain_link($config, $link);
                    }, $call['chain']));
                }
                unset($pending);          // PendingDispatch::__destruct() dispatches
            }
        }
    }

    // ---- main ----------------------------------------------------------------------------

    // Every web request and queue:work process runs under its kernel's HandleExceptions.
    handle_errors_as_laravel_does();

    $config = json_decode(file_get_contents($argv[1]), true, 512, JSON_THROW_ON_ERROR);
    $role = json_decode(file_get_contents($argv[2]), true, 512, JSON_THROW_ON_ERROR);

    foreach ($config['jobs'] as $job) {
        // Two scenario jobs may name one class (identical definitions: compare.ts checks it).
        if (!class_exists($job['class'], false)) {
            define_job_class($job);
        }
    }

    putenv('PROBE_LOG='.($config['log'] ?? '/dev/null'));
    $app = bootstrap([
        'host' => $config['redis']['host'],
        'port' => $config['redis']['port'],
        'db' => $config['redis']['database'],
        'prefix' => $config['redis']['prefix'],
    ]);
    // config/queue.php as this process reads it when it boots: the role's connections (current at
    // its start: a `config` entry changes them for later processes), else the scenario's.
    $queueConnections = [];
    foreach ($role['connections'] ?? $config['connections'] as $name => $c) {
        $queueConnections[$name] = [
            'driver' => 'redis', 'connection' => 'default', 'queue' => $c['queue'],
            'retry_after' => $c['retry_after'], 'block_for' => $c['block_for'], 'after_commit' => false,
        ];
    }
    $app['config']->set('queue.connections', $queueConnections);
    $app['config']->set('queue.default', array_key_first($queueConnections));
    if ($config['redis']['cluster'] ?? false) {
        // config/database.php for a cluster, as Laravel spells it: `clusters` with the seed node
        // (node1), no top-level connections, so RedisManager::resolve() takes clusters[$name]
        // (RedisManager.php:109-118) for the queue's `default` and the cache store's `cache`.
        $seed = [['host' => $config['redis']['host'], 'port' => (string) $config['redis']['port'], 'database' => '0']];
        $app['config']->set('database.redis', [
            'client' => 'phpredis',
            'options' => $app['config']->get('database.redis.options'),
            'clusters' => ['default' => $seed, 'cache' => $seed],
        ]);
    } else {
        // config/database.php's `cache` connection (the skeleton's: REDIS_CACHE_DB), beside `default`.
        $app['config']->set('database.redis.cache', ['database' => (string) $config['redis']['cache_database']]
            + $app['config']->get('database.redis.default'));
        // PhpRedisConnector::createClient sends CLIENT SETNAME for a configured name: how the
        // coordinator finds this process's connections, both of them this actor's (the line is
        // dropped from the trace).
        $app['config']->set('database.redis.default.name', $role['name']);
        $app['config']->set('database.redis.cache.name', $role['name']);
    }
    // config/cache.php: the scenario's store (CACHE_DRIVER=file, the skeleton's, unless it says
    // redis), shared by the run's processes either way; the store built by Laravel's own
    // CacheServiceProvider (CacheManager::createRedisDriver / createFileDriver).
    $cache = $config['cache'];
    $app['config']->set('cache', [
        'default' => $cache['store'],
        'stores' => [
            'file' => ['driver' => 'file', 'path' => $cache['path']],
            'redis' => ['driver' => 'redis', 'connection' => $cache['connection'], 'lock_connection' => $cache['lock_connection']],
        ],
        'prefix' => $cache['prefix'],
    ]);
    $app->singleton('files', \Illuminate\Filesystem\Filesystem::class);
    (new \Illuminate\Cache\CacheServiceProvider($app))->register();
    // The application's aliases (Application::registerCoreContainerAliases) the *WithRedis
    // middleware resolve the RedisManager by.
    $app->alias('redis', \Illuminate\Contracts\Redis\Factory::class);
    define_limiters($app->make(\Illuminate\Cache\RateLimiter::class), $config['limiters'] ?? []);
    $app['redis']->extend('phpredis', function () use ($role) {
        return new HarnessConnector($role['name']);
    });

    $start = Harness::pause(['y' => 'ready']);

    switch ($role['role']) {
        case 'request':
            // One web request: its calls in order, on this process's one Redis connection. A call
            // that throws ends the request, as a controller's exception does (the HTTP kernel
            // reports it and answers 500: Foundation/Http/Kernel.php handle()'s catch).
            try {
                run_request_calls($app, $config, $role['calls']);
            } catch (\Throwable $e) {
                $app[\Illuminate\Contracts\Debug\ExceptionHandler::class]->report($e);
                $threw = ['class' => get_class($e), 'message' => $e->getMessage()];
            }
            break;

        case 'worker':
            // A chain's next job is dispatched from the worker (CallQueuedHandler::call): its uuid
            // comes from the coordinator at the moment Laravel draws it, as the model draws it.
            \Illuminate\Support\Str::createUuidsUsing(function () {
                return Harness::uuid();
            });
            // WorkCommand::gatherWorkerOptions: name, backoff (max(--backoff, --delay): "1,5,10"),
            // memory, timeout, sleep, maxTries, force, stopWhenEmpty, maxJobs, maxTime, rest.
            $options = new WorkerOptions(
                'default', $role['backoff'], 128, $role['timeout'], $role['sleep'], $role['tries'],
                false, $role['stopWhenEmpty'], $role['maxJobs'], $role['maxTime'], $role['rest']
            );
            $worker = (new HarnessWorker(
                $app['queue'], $app['events'], $app[\Illuminate\Contracts\Debug\ExceptionHandler::class],
                function () {
                    return false;
                }
            ))->setName('default')->setCache($app['cache.store']);
            // The coordinator's steps: a pop is one, the job's processing another (JobProcessing
            // fires before markJobAsFailedIfAlreadyExceedsMaxAttempts), what follows runJob (the
            // rest, stopIfNecessary's restart check, the next poll) a third: HarnessWorker::runJob.
            $app['events']->listen(JobProcessing::class, function () {
                Harness::pause(['y' => 'step', 'job' => true]);
            });
            if ($role['once']) {
                $worker->runNextJob($role['connection'], $role['queue'], $options);
            } else {
                $worker->daemon($role['connection'], $role['queue'], $options);
            }
            break;

        case 'artisan':
            // php artisan queue:restart: Laravel's RestartCommand, as the console kernel runs it
            // (Command::run → handle()), with the app's cache store; its output goes nowhere.
            if ($role['command'] !== 'queue:restart') {
                fwrite(STDERR, "unknown artisan command {$role['command']}\n");
                exit(2);
            }
            $command = new \Illuminate\Queue\Console\RestartCommand($app['cache.store']);
            $command->setLaravel($app);
            $command->run(new \Symfony\Component\Console\Input\ArrayInput([]), new \Symfony\Component\Console\Output\NullOutput);
            break;

        default:
            fwrite(STDERR, "unknown role {$role['role']}\n");
            exit(2);
    }

    // `threw`: what the request's call threw to the controller (the request then ended).
    Harness::send(['y' => 'done', 'idle' => HarnessWorker::$stoppedIdle] + (isset($threw) ? ['threw' => $threw] : []));
    fgets(STDIN);                             // stay connected until the coordinator has attributed our lines
}
