// The profiles, one row per Laravel version, every value written by hand from Laravel's source.
// Citations are repo@tag path:line; "F" is laravel/framework with its src/Illuminate/ prefix left
// out, "L" is the application skeleton, laravel/laravel (whose 13.x branch was not available: its
// 12.x skeleton, v12.11.2, is cited for 13). The Lua texts themselves are checked in scripts.test.ts
// and scripts-13.test.ts; here, which scripts exist and how many keys RedisQueue passes them.
import { describe, expect, it } from 'vitest';
import type { ScriptName } from '../../src/sim/lua.ts';
import { getProfile, isProfileName, PROFILE_NAMES, PROFILES, type ProfileName } from '../../src/sim/profiles/index.ts';
import { laravel13 } from '../../src/sim/profiles/laravel-13.ts';
import { laravel53 } from '../../src/sim/profiles/laravel-5.3.ts';
import { laravel57 } from '../../src/sim/profiles/laravel-5.7.ts';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import type { QueueRules, RedisClientName, WorkerRules } from '../../src/sim/profiles/types.ts';

interface Row {
  name: ProfileName;
  defaultClient: RedisClientName;
  defaultPrefix: string;
  /** WorkCommand's {--tries=N}. */
  defaultTries: number;
  /** RedisConnector::connect: what a configured `'retry_after' => null` becomes. */
  retryAfterNullMeans60: boolean;
  push: QueueRules['push'];
  later: QueueRules['later'];
  notify: boolean;
  migrationBatchSize: boolean;
  /** numkeys RedisQueue passes to each LuaScripts method; null: the version has no such method. */
  scripts: Record<ScriptName, number | null>;
  onTimeout: WorkerRules['onTimeout'];
  alarm: WorkerRules['alarm'];
  resetAlarm: boolean;
  blockingPop: WorkerRules['blockingPop'];
  blockOnlyFirstQueue: boolean;
  sleepAfterException: boolean;
  jobLevelOptions: boolean;
  timeoutAt: boolean;
  retryUntilIgnoresTries: boolean;
  backoff: WorkerRules['backoff'];
  /** RedisJob::attempts() for the first two reservations: [attempts in the payload, what it returns]. */
  attempts: Array<[number, number]>;
  /** What the MaxAttemptsExceededException of App\Jobs\ImportCsv says. */
  maxAttemptsMessage: string;
  /** What the timeout handler's TimeoutExceededException says; null: it has none. */
  timedOutMessage: string | null;
  /** Does connecting send SELECT 0? [predis, phpredis]; null: the version has no phpredis connector. */
  selectDb0: [boolean, boolean | null];
  /** Job chains: ->chain() on a dispatch, Bus::chain(). */
  bus: { chain: boolean; busChain: boolean };
}

const JOB = 'App\\Jobs\\ImportCsv';

const ROWS: Row[] = [
  {
    name: '5.3',
    // F@v5.3.31 Redis/Database.php:6 `use Predis\Client;` (Predis is the only client).
    defaultClient: 'predis',
    // L@v5.3.30 config/database.php: the 'redis' array has no 'options'/'prefix' at all.
    defaultPrefix: '',
    // F@v5.3.31 Queue/Console/WorkCommand.php:30 `{--tries=0 : ...}`.
    defaultTries: 0,
    // F@v5.3.31 Queue/Connectors/RedisConnector.php:49 `Arr::get($config, 'retry_after', 60)`:
    // Arr::get returns a present null (Support/Arr.php:256-257 `if (static::exists(...)) return`).
    retryAfterNullMeans60: false,
    // The same line: the key is 'retry_after' (5.2's connector read 'expire': v5.2.45 :50).
    // F@v5.3.31 Queue/RedisQueue.php:95 `$this->getConnection()->rpush($this->getQueue($queue), $payload)`.
    push: 'rpush',
    // F@v5.3.31 Queue/RedisQueue.php:113 `$this->getConnection()->zadd(`.
    later: 'zadd',
    // F@v5.3.31 Queue/RedisQueue.php:139, :187: pop and migrateExpiredJobs take 2 keys, no :notify.
    notify: false,
    migrationBatchSize: false,
    // F@v5.3.31 Queue/LuaScripts.php:12,32,46,65 (pop, release, migrateExpiredJobs, size only);
    // Queue/RedisQueue.php:69 size 3, :139 pop 2, :172 release 2, :187 migrateExpiredJobs 2.
    scripts: { push: null, later: null, pop: 2, release: 2, migrateExpiredJobs: 2, size: 3, clear: null },
    // F@v5.3.31 Queue/Worker.php:101-106: the SIGALRM handler only posix_kill(SIGKILL)s.
    onTimeout: 'kill',
    // F@v5.3.31 Queue/Worker.php:72 registerTimeoutHandler($options) at the top of each loop,
    // :109 `pcntl_alarm($options->timeout + $options->sleep)`.
    alarm: 'timeout-plus-sleep',
    resetAlarm: false,
    // F@v5.3.31 Queue/Connectors/RedisConnector.php:46-50 passes no block_for.
    blockingPop: null,
    blockOnlyFirstQueue: false,
    // F@v5.3.31 Queue/Worker.php:156-162: runNextJob catches the exception, then sleep($options->sleep).
    sleepAfterException: true,
    // F@v5.3.31 Queue/Worker.php:197,233 pass only (int) $options->maxTries; :109 only $options->timeout.
    jobLevelOptions: false,
    timeoutAt: false,
    retryUntilIgnoresTries: false,
    // F@v5.3.31 Queue/Console/WorkCommand.php:25 `{--delay=0 : Amount of time to delay failed jobs}`.
    backoff: 'delay',
    // F@v5.3.31 Queue/RedisQueue.php:205 `setMeta($payload, 'attempts', 1)`; Jobs/RedisJob.php:101
    // `return Arr::get($this->decoded, 'attempts')` (the popped payload's own value).
    attempts: [
      [1, 1],
      [2, 2],
    ],
    // F@v5.3.31 Queue/Worker.php:265.
    maxAttemptsMessage: 'A queued job has been attempted too many times. The job may have previously timed out.',
    timedOutMessage: null,
    // Predis' connection factory adds `SELECT <database>` whenever a database is configured, 0
    // included; the real 5.3 capture (test/fixtures/seed-003-capture.txt:1) starts with SELECT 0.
    selectDb0: [true, null],
    // F@v5.3.31 Bus/Queueable.php:12-26: only $connection, $queue, $delay (chains: v5.5.0).
    bus: { chain: false, busChain: false },
  },
  {
    name: '5.7',
    // L@v5.7.28 config/database.php:113 `'client' => 'predis'`.
    defaultClient: 'predis',
    // L@v5.7.28 config/database.php:111-129: no 'options'/'prefix' in the 'redis' array.
    defaultPrefix: '',
    // F@v5.7.29 Queue/Console/WorkCommand.php:32 `{--tries=0 : ...}`.
    defaultTries: 0,
    // F@v5.7.29 Queue/Connectors/RedisConnector.php:48 `$config['retry_after'] ?? 60` (since v5.5.0).
    retryAfterNullMeans60: true,
    // F@v5.7.29 Queue/RedisQueue.php:104 `->rpush($this->getQueue($queue), $payload)`.
    push: 'rpush',
    // F@v5.7.29 Queue/RedisQueue.php:133 `$this->getConnection()->zadd(`.
    later: 'zadd',
    // F@v5.7.29 Queue/RedisQueue.php:205 migrate and :222 pop take 2 keys.
    notify: false,
    migrationBatchSize: false,
    // F@v5.7.29 Queue/LuaScripts.php:16,32,61,83 (size, pop, release, migrateExpiredJobs only);
    // Queue/RedisQueue.php:77 size 3, :205 migrate 2, :222 pop 2, :279 release 2.
    scripts: { push: null, later: null, pop: 2, release: 2, migrateExpiredJobs: 2, size: 3, clear: null },
    // F@v5.7.29 Queue/Worker.php:142-144 `pcntl_signal(SIGALRM, function () { $this->kill(1); })`.
    onTimeout: 'kill',
    // F@v5.7.29 Queue/Worker.php:146-148 `pcntl_alarm(max($this->timeoutForJob($job, $options), 0))`.
    alarm: 'job-timeout',
    resetAlarm: false,
    // F@v5.7.29 Queue/RedisQueue.php:217 `if (! is_null($this->blockFor)) return $this->blockingPop($queue)`,
    // :235 `$this->getConnection()->blpop($queue, $this->blockFor)`: BLPOP on the ready list.
    blockingPop: 'list',
    blockOnlyFirstQueue: false,
    // F@v5.7.29 Queue/Worker.php:220-234: runNextJob has no catch; it returns after runJob.
    sleepAfterException: false,
    // F@v5.7.29 Queue/Worker.php:160 `$job && ! is_null($job->timeout()) ? $job->timeout() : ...`,
    // :419 `$maxTries = ! is_null($job->maxTries()) ? $job->maxTries() : $maxTries`.
    jobLevelOptions: true,
    // F@v5.7.29 Queue/Worker.php:421 `if ($job->timeoutAt() && $job->timeoutAt() <= ...)`, and
    // :425 still fails on `$maxTries > 0 && $job->attempts() >= $maxTries` when timeoutAt is set.
    timeoutAt: true,
    retryUntilIgnoresTries: false,
    // F@v5.7.29 Queue/Console/WorkCommand.php:27 `{--delay=0 : ...}`.
    backoff: 'delay',
    // F@v5.7.29 Queue/RedisQueue.php:152 `'attempts' => 0`; Jobs/RedisJob.php:107
    // `return ($this->decoded['attempts'] ?? null) + 1`.
    attempts: [
      [0, 1],
      [1, 2],
    ],
    // F@v5.7.29 Queue/Worker.php:402.
    maxAttemptsMessage: `${JOB} has been attempted too many times or run too long. The job may have previously timed out.`,
    timedOutMessage: null,
    // Predis as in 5.3; F@v5.7.29 Redis/Connectors/PhpRedisConnector.php:72 `if (! empty($config['database']))`.
    selectDb0: [true, false],
    // F@v5.7.29 Bus/Queueable.php:122 chain(), :136 dispatchNextJobInChain(); Bus/Dispatcher.php has
    // no chain() (v8.0.0 :163 adds it; 5.7 has Dispatchable::withChain, Foundation/Bus/Dispatchable.php:35).
    bus: { chain: true, busChain: false },
  },
  {
    name: '8',
    // L@v8.6.12 config/database.php:122 `'client' => env('REDIS_CLIENT', 'phpredis')`.
    defaultClient: 'phpredis',
    // L@v8.6.12 config/database.php:126 `Str::slug(env('APP_NAME', 'laravel'), '_').'_database_'`.
    defaultPrefix: 'laravel_database_',
    // F@v8.83.27 Queue/Console/WorkCommand.php:38 `{--tries=1 : ...}`.
    defaultTries: 1,
    // F@v8.83.27 Queue/Connectors/RedisConnector.php:48 `$config['retry_after'] ?? 60`.
    retryAfterNullMeans60: true,
    // F@v8.83.27 Queue/RedisQueue.php:140 `LuaScripts::push(), 2, $this->getQueue($queue), ...`.
    push: 'script',
    // F@v8.83.27 Queue/RedisQueue.php:179 `$this->getConnection()->zadd(`.
    later: 'zadd',
    // F@v8.83.27 Queue/RedisQueue.php:247 migrate and :261 pop pass `$queue.':notify'` / `$to.':notify'`.
    notify: true,
    migrationBatchSize: false,
    // F@v8.83.27 Queue/LuaScripts.php:16,32,52,82,105,140 (no later); Queue/RedisQueue.php:85 size 3,
    // :140 push 2, :247 migrate 3, :261 pop 3, :304 release 2, :320 clear 4.
    scripts: { push: 2, later: null, pop: 3, release: 2, migrateExpiredJobs: 3, size: 3, clear: 4 },
    // F@v8.83.27 Queue/Worker.php:208-225: markJobAsFailedIfWillExceedMaxAttempts (and
    // ...MaxExceptions, ...ItShouldFailOnTimeout) before `$this->kill(static::EXIT_ERROR)`.
    onTimeout: 'fail-last-attempt-then-kill',
    // F@v8.83.27 Queue/Worker.php:228-230 `pcntl_alarm(max($this->timeoutForJob($job, $options), 0))`.
    alarm: 'job-timeout',
    // F@v8.83.27 Queue/Worker.php:182 resetTimeoutHandler(), :238-240 `pcntl_alarm(0)`.
    resetAlarm: true,
    // F@v8.83.27 Queue/RedisQueue.php:271-272 `if (! $job && ! is_null($this->blockFor) && $block &&
    // $this->getConnection()->blpop([$queue.':notify'], $this->blockFor))`.
    blockingPop: 'notify',
    // F@v8.83.27 Queue/RedisQueue.php:208 `public function pop($queue = null)`: no queue index.
    blockOnlyFirstQueue: false,
    sleepAfterException: false,
    jobLevelOptions: true,
    timeoutAt: true,
    // F@v8.83.27 Queue/Worker.php:526 `if (! $job->retryUntil() && $maxTries > 0 && ...)`.
    retryUntilIgnoresTries: true,
    // F@v8.83.27 Queue/Worker.php:593-596 calculateBackoff: `explode(',', ... $job->backoff() ...)`.
    backoff: 'list',
    // F@v8.83.27 Queue/RedisQueue.php:198 `'attempts' => 0`; Jobs/RedisJob.php:107 `... + 1`.
    attempts: [
      [0, 1],
      [1, 2],
    ],
    // F@v8.83.27 Queue/Worker.php:751.
    maxAttemptsMessage: `${JOB} has been attempted too many times or run too long. The job may have previously timed out.`,
    timedOutMessage: null,
    // F@v8.83.27 Redis/Connectors/PhpRedisConnector.php:90-91 `if (isset($config['database']))
    // $client->select((int) $config['database'])`.
    selectDb0: [true, true],
    // F@v8.83.26 Bus/Queueable.php:185 chain(), :222 dispatchNextJobInChain(); Bus/Dispatcher.php:163 chain().
    bus: { chain: true, busChain: true },
  },
  {
    name: '13',
    // L@v12.11.2 config/database.php:147 `'client' => env('REDIS_CLIENT', 'phpredis')`.
    defaultClient: 'phpredis',
    // L@v12.11.2 config/database.php:151 `Str::slug((string) env('APP_NAME', 'laravel')).'-database-'`.
    defaultPrefix: 'laravel-database-',
    // F@v13.26.1 Queue/Console/WorkCommand.php:52 `{--tries=1 : ...}`.
    defaultTries: 1,
    // F@v13.26.1 Queue/Connectors/RedisConnector.php:47 `$config['retry_after'] ?? 60`.
    retryAfterNullMeans60: true,
    // F@v13.26.1 Queue/RedisQueue.php:330 `LuaScripts::push(), 2, $queue, ...`.
    push: 'script',
    // F@v13.26.1 Queue/RedisQueue.php:370 `LuaScripts::later(), 1, $this->getQueueRedisKey($queue).':delayed'`.
    later: 'script',
    notify: true,
    // F@v13.26.1 Queue/RedisQueue.php:449 `..., $this->currentTime(), $this->migrationBatchSize`.
    migrationBatchSize: true,
    // F@v13.26.1 Queue/LuaScripts.php:16,32,51,69,99,122,157; Queue/RedisQueue.php:121 size 3,
    // :330 push 2, :370 later 1, :449 migrate 3, :463 pop 3, :506 release 2, :522 clear 4.
    scripts: { push: 2, later: 1, pop: 3, release: 2, migrateExpiredJobs: 3, size: 3, clear: 4 },
    // F@v13.26.1 Queue/Worker.php:302-326.
    onTimeout: 'fail-last-attempt-then-kill',
    // F@v13.26.1 Queue/Worker.php:329.
    alarm: 'job-timeout',
    // F@v13.26.1 Queue/Worker.php:339-341 resetTimeoutHandler `pcntl_alarm(0)`.
    resetAlarm: true,
    // F@v13.26.1 Queue/RedisQueue.php:473-474 (as in 8).
    blockingPop: 'notify',
    // F@v13.26.1 Queue/RedisQueue.php:404 `$block = ! $this->secondaryQueueHadJob && $index === 0`.
    blockOnlyFirstQueue: true,
    sleepAfterException: false,
    jobLevelOptions: true,
    timeoutAt: true,
    // F@v13.26.1 Queue/Worker.php:713 `if (! $job->retryUntil() && $maxTries > 0 && ...)`.
    retryUntilIgnoresTries: true,
    // F@v13.26.1 Queue/Worker.php:793 calculateBackoff.
    backoff: 'list',
    // F@v13.26.1 Queue/RedisQueue.php:389 `'attempts' => 0`; Jobs/RedisJob.php:106 `... + 1`.
    attempts: [
      [0, 1],
      [1, 2],
    ],
    // F@v13.26.1 Queue/MaxAttemptsExceededException.php:24.
    maxAttemptsMessage: `${JOB} has been attempted too many times.`,
    // F@v13.26.1 Queue/TimeoutExceededException.php:15.
    timedOutMessage: `${JOB} has timed out.`,
    // F@v13.26.1 Redis/Connectors/PhpRedisConnector.php:117-118 (isset, as in 8).
    selectDb0: [true, true],
    // F@v13.26.1 Bus/Queueable.php:266 chain(), :337 dispatchNextJobInChain(); Bus/Dispatcher.php:207 chain().
    bus: { chain: true, busChain: true },
  },
];

describe('the profile registry', () => {
  it('lists exactly the table rows, oldest first, each under its own name', () => {
    expect(PROFILE_NAMES).toEqual(ROWS.map((r) => r.name));
    expect(Object.keys(PROFILES).sort()).toEqual([...PROFILE_NAMES].sort());
    const modules = { '5.3': laravel53, '5.7': laravel57, '8': laravel8, '13': laravel13 };
    for (const name of PROFILE_NAMES) {
      expect(PROFILES[name]).toBe(modules[name]);
      expect(PROFILES[name].name).toBe(name);
      expect(getProfile(name)).toBe(PROFILES[name]);
    }
  });

  it('knows only those names (not 5.8, not an inherited key such as toString)', () => {
    for (const bad of ['5.8', '9', '', 'toString', 'constructor', '__proto__']) {
      expect(isProfileName(bad)).toBe(false);
      expect(() => getProfile(bad)).toThrow(`unknown Laravel profile "${bad}" (known: 5.3, 5.7, 8, 13)`);
    }
  });
});

describe.each(ROWS)('Laravel $name', (row) => {
  const p = getProfile(row.name);

  it('connects as its skeleton does (client, prefix, SELECT)', () => {
    expect(p.defaultClient).toBe(row.defaultClient);
    expect(p.defaultPrefix).toBe(row.defaultPrefix);
    expect(p.worker.selectOnConnect('predis', 0)).toBe(row.selectDb0[0]);
    if (row.selectDb0[1] !== null) expect(p.worker.selectOnConnect('phpredis', 0)).toBe(row.selectDb0[1]);
    // Both clients select a non-zero database.
    expect(p.worker.selectOnConnect('predis', 3)).toBe(true);
    expect(p.worker.selectOnConnect('phpredis', 3)).toBe(true);
  });

  it("reads config/queue.php's retry_after as its RedisConnector does", () => {
    expect(p.queue.retryAfterNullMeans60).toBe(row.retryAfterNullMeans60);
  });

  it('sends push, later, migrate and pop as its RedisQueue does', () => {
    expect(p.queue).toEqual({
      push: row.push,
      later: row.later,
      notify: row.notify,
      retryAfterNullMeans60: row.retryAfterNullMeans60,
      migrationBatchSize: row.migrationBatchSize,
    });
  });

  it('has exactly its version’s LuaScripts methods, each with the key count RedisQueue passes', () => {
    const keys = Object.fromEntries(
      Object.entries(p.scripts).map(([name, script]) => [name, script === null ? null : script.numberOfKeys]),
    );
    expect(keys).toEqual(row.scripts);
    for (const [name, script] of Object.entries(p.scripts)) if (script) expect(script.name).toBe(name);
  });

  it("runs queue:work's defaults and rules", () => {
    expect(p.worker).toMatchObject({
      defaultTries: row.defaultTries,
      onTimeout: row.onTimeout,
      alarm: row.alarm,
      resetAlarm: row.resetAlarm,
      blockingPop: row.blockingPop,
      blockOnlyFirstQueue: row.blockOnlyFirstQueue,
      sleepAfterException: row.sleepAfterException,
      jobLevelOptions: row.jobLevelOptions,
      timeoutAt: row.timeoutAt,
      retryUntilIgnoresTries: row.retryUntilIgnoresTries,
      backoff: row.backoff,
    });
    for (const [inPayload, attempts] of row.attempts) expect(p.worker.attemptsOf(inPayload)).toBe(attempts);
  });

  it('has the job chains of its Bus', () => {
    expect(p.bus).toEqual(row.bus);
  });

  it('words the max-attempts and timeout failures as its Worker does', () => {
    expect(p.worker.maxAttemptsMessage(JOB)).toBe(row.maxAttemptsMessage);
    expect(p.worker.timedOutMessage?.(JOB) ?? null).toBe(row.timedOutMessage);
  });

  it('keeps its rule switches and its scripts consistent', () => {
    // A push or later "script" rule needs the script; a plain RPUSH / ZADD version has none.
    expect(p.scripts.push !== null).toBe(p.queue.push === 'script');
    expect(p.scripts.later !== null).toBe(p.queue.later === 'script');
    // :notify is pop's and migrate's third key; the batch size is migrate's second ARGV.
    expect(p.scripts.pop?.numberOfKeys).toBe(p.queue.notify ? 3 : 2);
    expect(p.scripts.migrateExpiredJobs?.numberOfKeys).toBe(p.queue.notify ? 3 : 2);
    expect(p.scripts.migrateExpiredJobs?.argv).toHaveLength(p.queue.migrationBatchSize ? 2 : 1);
  });
});
