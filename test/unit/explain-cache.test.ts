// lqsim explain on real Laravel 8.83 captures with the cache store on Redis
// (test/fixtures/explain-cache, recorded by conformance/laravel/explain-cache-captures.sh). Each
// expectation is derived by hand from Laravel's source (research/cache-store.md, cited per test)
// and the capture's own lines, and checked against Laravel's events recorded beside it: which
// step says what, the header's cache prefix, db and lock connection, the findings and where a
// finding must not be made.
import { describe, expect, it } from 'vitest';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { cacheLines } from '../../src/explain/configuration-text.ts';
import { captureSettings } from '../../src/explain/settings.ts';
import type { Finding } from '../../src/explain/findings.ts';
import { explainCapture } from '../../src/explain/index.ts';
import { CaptureExplainer } from '../../src/explain/timeline.ts';
import { captureText, laravelEvents } from '../fixtures/explain/read.ts';

const DIR = new URL('../fixtures/explain-cache/', import.meta.url);
const CP = 'laravel_database_';
const SP = 'laravel_cache:';

interface Read {
  /** Each step by the first capture line it holds (its SELECT aside: the line of its first command). */
  steps: Map<number, { actor: string; title: string; operations: Array<string | undefined> }>;
  findings: Finding[];
  config: ReturnType<typeof captureConfiguration>;
  lines: string[];
}

function read(name: string): Read {
  const text = captureText(name, DIR);
  const lines = text.split('\n');
  const captured = lines
    .map((raw, i) => captureEntry(raw, i + 1))
    .filter((e): e is CapturedLine => e !== null && !isProblem(e));
  const config = captureConfiguration(captured);
  const steps: Read['steps'] = new Map();
  const explainer = new CaptureExplainer(config, {
    file: name,
    onStep: (step, at) => {
      // The line of the step's first command that is not a SELECT.
      const first = step.commands.findIndex((c) => c.args[0] !== 'SELECT');
      steps.set(at.first + Math.max(0, first), {
        actor: step.actor,
        title: step.title,
        operations: step.commands.map((c) => c.operation),
      });
    },
  });
  for (const e of captured) explainer.add(e);
  return { steps, findings: explainer.finish().findings, config, lines };
}

/** The capture's line `n` names this command and key (the line numbers the tests cite are the capture's). */
function lineIs(r: Read, n: number, command: string, key: string): void {
  expect(r.lines[n - 1]).toContain(`"${command}" "${key.replace(/\\/g, '\\\\')}"`);
}

const OVERLAP = `${CP}${SP}laravel-queue-overlap:App\\Jobs\\SyncOrder:order-1`;
const UNIQUE = `${CP}${SP}laravel_unique_job:App\\Jobs\\UpdateSearchIndex42`;
const RESTART = `${CP}${SP}illuminate:queue:restart`;

describe('WithoutOverlapping spending attempts (laravel8-overlap-attempts)', () => {
  // SyncOrder: $tries = 2, WithoutOverlapping('order-1')->expireAfter(30) (research §3.1, §7.1).
  // worker-1 takes the lock for job 1 (line 17) and holds it for its 3 s handle(); worker-2 pops
  // job 2 three times: SET NX refused (lines 33, 49), each followed by the queue's release (34,
  // 50) and no releaseLock; attempt 3 is past $tries: ZREM (65) without any SET (the check comes
  // before the middleware, Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts).
  const r = read('overlap-attempts');

  it('the capture is what the story says', () => {
    for (const n of [17, 33, 49]) lineIs(r, n, 'SET', OVERLAP);
    expect(r.lines[73]).toContain('"EVAL" "if redis.call(\\"get\\",KEYS[1]) == ARGV[1] then\\n');
    expect(r.lines[73]).toContain(`"1" "${OVERLAP.replace(/\\/g, '\\\\')}" "bxUQjeArIQTEcAh8"`);
    expect(r.lines[16]).toContain('"bxUQjeArIQTEcAh8" "EX" "30" "NX"');
    const failed = laravelEvents('overlap-attempts', DIR).filter((e) => e.event === 'JobFailed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ attempts: 3, exception: 'Illuminate\\Queue\\MaxAttemptsExceededException' });
    // handle() ran once, for job 1 only.
    expect(laravelEvents('overlap-attempts', DIR).filter((e) => e.event === 'handle')).toHaveLength(1);
  });

  it('says each lock taken, refused (held by worker-1) and released, in Laravel’s words', () => {
    expect(r.steps.get(17)).toMatchObject({
      actor: 'worker-1',
      title:
        'WithoutOverlapping: lock laravel-queue-overlap:App\\Jobs\\SyncOrder:order-1 taken for 30 s (released at line 74): handle() runs',
      operations: ['cache lock-acquire'],
    });
    for (const n of [33, 49])
      expect(r.steps.get(n)).toMatchObject({
        actor: 'worker-2',
        title:
          'WithoutOverlapping: lock laravel-queue-overlap:App\\Jobs\\SyncOrder:order-1 refused: held by worker-1 (taken at line 17): the job is released without running handle()',
      });
    expect(r.steps.get(74)?.title).toBe(
      'lock laravel-queue-overlap:App\\Jobs\\SyncOrder:order-1 released by its owner (RedisLock::release)',
    );
  });

  it('finds the attempts spent by WithoutOverlapping before MaxAttemptsExceeded, certain, in place of a bare max-attempts finding', () => {
    const spent = r.findings.filter((f) => f.kind === 'attempts-spent-by-middleware');
    expect(spent).toHaveLength(1);
    expect(spent[0]).toMatchObject({ certainty: 'certain', alternatives: [] });
    expect(spent[0]!.lines).toEqual(expect.arrayContaining([33, 34, 49, 50, 65]));
    expect(spent[0]!.title).toContain('SyncOrder#2 reserved for attempt 3 of 2');
    expect(spent[0]!.title).toContain('refused on attempts 1, 2 (held by worker-1 (taken at line 17))');
    expect(spent[0]!.failed).toMatchObject({ line: 65, certainty: 'certain' });
    expect(r.findings.map((f) => f.kind)).not.toContain('max-attempts-exceeded');
  });

  it('reads the cache prefix, the cache db and the lock connection off the capture, citing lines', () => {
    expect(r.config.cache.prefixes).toEqual([{ value: `${CP}${SP}`, lines: [7, 17, 23, 33, 37] }]);
    expect(r.config.cache.dbs.map((d) => d.value)).toEqual([1]);
    // Locks on db 0, on the TCP connection of worker-1's and worker-2's queue commands.
    expect(r.config.cache.locks).toEqual([{ value: { on: 'queue', db: 0 }, lines: [17, 33, 49, 74] }]);
    const byClient = new Map(r.config.connections.map((c) => [c.client, c]));
    // worker-1's cache connection :41374 (SELECT 1, line 6), worker-2's :41396 (line 22).
    expect(byClient.get('127.0.0.1:41374')?.cacheOf?.client).toBe('127.0.0.1:41388');
    expect(byClient.get('127.0.0.1:41396')?.cacheOf?.client).toBe('127.0.0.1:41404');
    const text = cacheLines(r.config).join('\n');
    expect(text).toContain(
      "cache prefix: laravel_database_laravel_cache: (the connection's laravel_database_, then the cache's laravel_cache:)",
    );
    expect(text).toContain(
      'cache db: 1 (lines 7, 23, 37, 53, 66; SELECT 1 as each cache connection connects: lines 6, 22)',
    );
    expect(text).toContain(
      "lock connection: the queue's own connection, db 0 (lines 17, 33, 49, 74): lock_connection 'default'",
    );
    expect(captureSettings(r.config).cache.locks).toEqual([{ value: { on: 'queue', db: 0 }, lines: [17, 33, 49, 74] }]);
  });
});

describe('research/cache-store.md §7.1 with real processes (laravel8-research-7-1)', () => {
  // UniqueSyncOrder ($tries 2, $uniqueId 42, WithoutOverlapping('order-1')->expireAfter(30)):
  // a request dispatches it twice: SETNX (3) then the push (4); SETNX again (7), refused, nothing
  // pushed. Another process takes the overlap lock (9) and keeps it. A daemon (--max-jobs=2): its
  // SET NX refused (21, 37), the job released each time (22, 38), a restart check after each (25,
  // 41). A --once worker pops attempt 3: ZREM (54), then CallQueuedHandler::failed's DEL of the
  // unique lock (55); it never checks the restart signal. queue:restart's SET (57) comes last.
  const r = read('research-7-1');

  it('the capture and the events are what §7.1 says', () => {
    for (const n of [3, 7])
      expect(r.lines[n - 1]).toContain(
        '"SETNX" "laravel_database_laravel_cache:laravel_unique_job:App\\\\Jobs\\\\UniqueSyncOrder42"',
      );
    for (const n of [9, 21, 37])
      expect(r.lines[n - 1]).toContain(
        '"SET" "laravel_database_laravel_cache:laravel-queue-overlap:App\\\\Jobs\\\\UniqueSyncOrder:order-1"',
      );
    expect(r.lines[54]).toContain(
      '"DEL" "laravel_database_laravel_cache:laravel_unique_job:App\\\\Jobs\\\\UniqueSyncOrder42"',
    );
    const events = laravelEvents('research-7-1', DIR);
    expect(events.filter((e) => e.event === 'JobQueued')).toHaveLength(1);
    expect(events.filter((e) => e.event === 'handle')).toEqual([]);
    expect(events.find((e) => e.event === 'JobFailed')).toMatchObject({
      attempts: 3,
      exception: 'Illuminate\\Queue\\MaxAttemptsExceededException',
    });
  });

  it('reads the holder as the other process, the refusals and the force-release, and no restart check of the --once worker', () => {
    expect(r.steps.get(9)).toMatchObject({
      actor: 'other-1',
      title: expect.stringContaining(
        'taken for 30 s, most likely: the capture shows no release of it, and the next try of it (line 21, another connection) was refused',
      ),
    });
    for (const n of [21, 37])
      expect(r.steps.get(n)?.title).toContain(
        'refused: held by other-1 (taken at line 9): the job is released without running handle()',
      );
    expect(r.steps.get(55)).toMatchObject({
      actor: 'worker-2',
      title: expect.stringMatching(/^unique lock laravel_unique_job:App\\Jobs\\UniqueSyncOrder42 force-released/),
    });
    expect([...r.steps.values()].filter((s) => s.actor === 'worker-2:cache')).toEqual([]);
  });

  it('finds the dropped dispatch and the attempts spent by WithoutOverlapping, both certain, and nothing else', () => {
    expect(r.findings.map((f) => [f.kind, f.certainty])).toEqual([
      ['unique-dispatch-dropped', 'certain'],
      ['attempts-spent-by-middleware', 'certain'],
    ]);
    expect(r.findings[0]!.lines).toEqual([3, 7]);
    expect(r.findings[1]!.lines).toEqual(expect.arrayContaining([21, 22, 37, 38, 54]));
    expect(r.findings[1]!.title).toContain('held by other-1 (taken at line 9)');
  });
});

describe("lqsim's own ndjson, where an actor's process has both connections", () => {
  // overlap-attempts as lqsim's ndjson would carry it (issue 27's plan: a process's cache
  // connection is attributed to the same actor and process as its queue connection): each line
  // its MONITOR args and db, the two connections of each worker one `worker-N` process.
  const ACTOR: Record<string, string> = {
    '127.0.0.1:41366': 'dispatcher-1',
    '127.0.0.1:41374': 'worker-1',
    '127.0.0.1:41388': 'worker-1',
    '127.0.0.1:41394': 'dispatcher-2',
    '127.0.0.1:41396': 'worker-2',
    '127.0.0.1:41404': 'worker-2',
  };
  const ndjson = captureText('overlap-attempts', DIR)
    .split('\n')
    .map((raw, i) => captureEntry(raw, i + 1))
    .filter((e): e is CapturedLine => e !== null && !isProblem(e))
    .map(({ line }) =>
      JSON.stringify({
        t: Number(line.time),
        db: line.db,
        actor: line.client === 'lua' ? 'lua' : ACTOR[line.client],
        process: 1,
        source: line.client === 'lua' ? 'lua' : 'client',
        args: line.args,
      }),
    );

  it('reads the same story, each worker checking the restart signal itself, and says the db tells the connections', () => {
    const e = explainCapture(ndjson);
    expect(e.findings.map((f) => [f.kind, f.certainty])).toEqual([['attempts-spent-by-middleware', 'certain']]);
    const titles = e.timeline.steps.map((st) => `${st.actor}: ${st.title}`);
    expect(titles).toContain('worker-2: worker-2 read the restart signal: unchanged');
    expect(titles).toContain(
      'worker-2: WithoutOverlapping: lock laravel-queue-overlap:App\\Jobs\\SyncOrder:order-1 refused: held by worker-1 (taken at line 16): the job is released without running handle()',
    );
    const header = e.timeline.scenario.description ?? '';
    expect(header).toContain(
      "lock connection: db 0 (lines 16, 32, 48, 73): lqsim's ndjson names each actor's process, not its connections",
    );
    expect(header).not.toContain("cache on the queue's connection");
  });
});

describe('a store without lock_connection (laravel8-overlap-lock-on-cache)', () => {
  // overlap-attempts again, config/cache.php without lock_connection (a config from before
  // skeleton v8.5.6): CacheManager::createRedisDriver locks on the store's connection, so each
  // SET NX and the release script go over the worker's cache connection in db 1 (research §1.3).
  // The refused locks are told by that connection's next command: the restart check after the
  // job (37, 53), where a lock taken would have been released first.
  const r = read('overlap-lock-on-cache');

  it('reads the lock connection as the cache connection, db 1, and the story as before', () => {
    for (const n of [17, 33, 49])
      expect(r.lines[n - 1]).toMatch(/^\S+ \[1 [^\]]+\] "SET" "laravel_database_laravel_cache:laravel-queue-overlap:/);
    expect(r.config.cache.locks).toEqual([{ value: { on: 'cache', db: 1 }, lines: [17, 33, 49, 74] }]);
    expect(cacheLines(r.config).join('\n')).toContain(
      'lock connection: the cache connection, db 1 (lines 17, 33, 49, 74): no lock_connection',
    );
    expect(r.steps.get(17)).toMatchObject({
      actor: 'worker-1:cache',
      title: expect.stringContaining('taken for 30 s (released at line 74)'),
    });
    expect(r.steps.get(33)).toMatchObject({
      actor: 'worker-2:cache',
      title: expect.stringContaining('refused: held by worker-1 (taken at line 17)'),
    });
    expect(r.steps.get(49)?.title).toContain('refused: held by worker-1 (taken at line 17)');
    expect(r.findings.map((f) => [f.kind, f.certainty])).toEqual([['attempts-spent-by-middleware', 'certain']]);
    expect(r.findings[0]!.title).toContain('refused on attempts 1, 2');
  });
});

describe('a store on the queue connection (laravel8-restart-on-default)', () => {
  // restart-signal with `connection => 'default'` (5.3's skeleton): the worker's restart checks
  // (7, 19) go over its own queue connection, db 0, as does queue:restart's SET (17).
  const r = read('restart-on-default');

  it('says the cache is on the queue connection, and the worker read the new signal', () => {
    expect(r.config.cache.dbs).toEqual([{ value: 0, lines: [7, 17, 19] }]);
    expect(cacheLines(r.config).join('\n')).toContain(
      "cache on the queue's connection: worker-1 (127.0.0.1:36928, from line 6) sends the cache's commands over its queue connection",
    );
    expect(r.steps.get(19)).toMatchObject({
      actor: 'worker-1',
      title:
        'worker-1 read the restart signal: changed to 1795647944 (written at line 17): it stops now, after its job (Worker::stopIfNecessary)',
    });
    expect(r.findings.map((f) => [f.kind, f.lines])).toEqual([['restart-signal-read', [17, 19]]]);
  });
});

describe('its twin: handle() releases the job itself (laravel8-overlap-self-release)', () => {
  // SyncOrderReleasing: the same middleware and $tries = 2, no other holder, handle() calls
  // $this->release(). Each attempt: SET NX (17, 36), the queue's release from inside handle()
  // (18, 37), then WithoutOverlapping's finally releases the lock (21, 40); attempt 3 fails with
  // MaxAttemptsExceededException (ZREM, 55). The same queue traffic as overlap-attempts: the lock's
  // release after the job's tells that the lock was taken and handle() ran.
  const r = read('overlap-self-release');

  it('the capture and the events are what the story says', () => {
    for (const n of [17, 36])
      expect(r.lines[n - 1]).toContain('"SET" "laravel_database_laravel_cache:laravel-queue-overlap:');
    for (const n of [18, 37]) expect(r.lines[n - 1]).toContain('"EVAL" "-- Remove the job from the current queue');
    for (const n of [21, 40]) expect(r.lines[n - 1]).toContain('"EVAL" "if redis.call(\\"get\\",KEYS[1])');
    const events = laravelEvents('overlap-self-release', DIR);
    expect(events.filter((e) => e.event === 'handle').map((e) => e.attempt)).toEqual([1, 2]);
    expect(events.find((e) => e.event === 'JobFailed')).toMatchObject({ attempts: 3 });
  });

  it('reads each lock as taken, released after the job was, and makes no middleware finding', () => {
    expect(r.steps.get(17)?.title).toBe(
      'WithoutOverlapping: lock laravel-queue-overlap:App\\Jobs\\SyncOrderReleasing:order-1 taken for 30 s (released at line 21): handle() runs',
    );
    expect(r.steps.get(36)?.title).toContain('taken for 30 s (released at line 40)');
    expect(r.findings.map((f) => [f.kind, f.certainty])).toEqual([['max-attempts-exceeded', 'certain']]);
    expect(r.findings[0]!.title).toContain('its earlier attempts released from inside handle() (lines 18, 37');
  });
});

describe('a unique dispatch dropped (laravel8-unique-dropped)', () => {
  // UpdateSearchIndex: ShouldBeUnique, $uniqueId 42, no $uniqueFor → SETNX (research §4.1).
  // Request 1: SETNX (3) then the push (4); the second dispatch's SETNX (7) and nothing more from
  // that connection. The worker force-releases the lock (DEL, 19) after the job succeeds.
  // Request 2: SETNX (30) then the push (31).
  const r = read('unique-dropped');

  it('the capture and the events are what the story says', () => {
    for (const n of [3, 7, 30]) lineIs(r, n, 'SETNX', UNIQUE);
    lineIs(r, 19, 'DEL', UNIQUE);
    // Three dispatches, two queued.
    expect(laravelEvents('unique-dropped', DIR).filter((e) => e.event === 'JobQueued')).toHaveLength(2);
  });

  it('says the lock taken before each push, refused for the dropped dispatch, force-released after the job', () => {
    expect(r.steps.get(3)?.title).toBe(
      'unique lock laravel_unique_job:App\\Jobs\\UpdateSearchIndex42 taken with no expiry: the dispatch pushes the job (line 4)',
    );
    expect(r.steps.get(7)?.title).toMatch(
      /^unique lock laravel_unique_job:App\\Jobs\\UpdateSearchIndex42 refused: held by dispatcher-1 \(taken at line 3\): this dispatch was dropped/,
    );
    expect(r.steps.get(19)?.title).toMatch(
      /^unique lock laravel_unique_job:App\\Jobs\\UpdateSearchIndex42 force-released \(DEL/,
    );
    expect(r.steps.get(30)?.title).toContain('taken with no expiry: the dispatch pushes the job (line 31)');
  });

  it('finds the dropped dispatch, certain: the lock was taken at line 3 and not released before; none for the dispatches that pushed', () => {
    const dropped = r.findings.filter((f) => f.kind === 'unique-dispatch-dropped');
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ certainty: 'certain', lines: [3, 7], alternatives: [] });
    expect(dropped[0]!.title).toContain('the lock was taken at line 3 and not released since, so the SETNX failed');
    expect(r.findings.filter((f) => f.kind !== 'unique-dispatch-dropped')).toEqual([]);
  });

  it('without the lock taken in the capture, reads the drop from its connection falling silent: likely, the capture ending beside it', () => {
    // The capture from line 5 on: the first dispatch (its SETNX and push) cut off. The request's
    // connection sends nothing after the SETNX (line 7, now 3) while the capture goes on 1 s.
    const e = explainCapture(captureText('unique-dropped', DIR).split('\n').slice(4));
    const dropped = e.findings.filter((f) => f.kind === 'unique-dispatch-dropped');
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ certainty: 'likely', lines: [3] });
    expect(dropped[0]!.alternatives.map((a) => a.kind)).toEqual(['capture-ended']);
  });

  it("the lock connection is the dispatching request's queue connection", () => {
    expect(r.config.cache.locks).toEqual([{ value: { on: 'queue', db: 0 }, lines: [3, 7, 19, 30] }]);
  });
});

describe('queue:restart read by a worker (laravel8-restart-signal)', () => {
  // Worker::daemon reads illuminate:queue:restart at its start (7) and after each job (20);
  // queue:restart SETs it (18) while worker-1 runs its job: worker-1's check after the job reads
  // the new value and it stops (research §2.1-2.3). worker-2 starts after (22), reads the same
  // value after its empty poll (30): unchanged, it stops only by --stop-when-empty.
  const r = read('restart-signal');

  it('the capture and the events are what the story says', () => {
    for (const n of [7, 20, 22, 30]) lineIs(r, n, 'GET', RESTART);
    lineIs(r, 18, 'SET', RESTART);
    const restart = laravelEvents('restart-signal', DIR).find((e) => e.event === 'queue:restart');
    expect(r.lines[17]).toContain(`"${restart!['illuminate:queue:restart'] as string}"`);
  });

  it('says each check against the value the worker read at its start', () => {
    expect(r.steps.get(18)?.title).toBe(
      'queue:restart: wrote the restart signal 1795646951 (Cache::forever illuminate:queue:restart)',
    );
    expect(r.steps.get(7)).toMatchObject({
      actor: 'worker-1:cache',
      title: 'worker-1 read the restart signal as it started: what was set before the capture, if anything',
    });
    expect(r.steps.get(20)?.title).toBe(
      'worker-1 read the restart signal: changed to 1795646951 (written at line 18): it stops now, after its job (Worker::stopIfNecessary)',
    );
    expect(r.steps.get(22)?.title).toBe(
      'worker-2 read the restart signal as it started: 1795646951 (written at line 18)',
    );
    expect(r.steps.get(30)?.title).toBe('worker-2 read the restart signal: unchanged');
  });

  it('finds worker-1 read a new restart signal; nothing of worker-2, nor a timeout for the silence the restart explains', () => {
    expect(r.findings.map((f) => f.kind)).toEqual(['restart-signal-read']);
    expect(r.findings[0]).toMatchObject({ certainty: 'likely', lines: [18, 20] });
    expect(r.findings[0]!.title).toMatch(
      /^worker-1 read a new restart signal \(1795646951, written by queue:restart at line 18/,
    );
  });
});

describe('queue:restart twice in one second (laravel8-restart-same-second)', () => {
  // queue:restart writes the time in whole seconds (RestartCommand: currentTime()): its SET (3),
  // the daemon's check at its start (5), another queue:restart in the same second (14) writes the
  // same value, so the check after the empty poll (15) reads no change: queueShouldRestart
  // compares values (`!=`), and the worker stops only by --stop-when-empty.
  const r = read('restart-same-second');

  it('the capture is what the story says', () => {
    for (const n of [3, 14]) expect(r.lines[n - 1]).toContain(`"SET" "${RESTART}" "1795647609"`);
    for (const n of [5, 15]) lineIs(r, n, 'GET', RESTART);
  });

  it('reads the check as unchanged and finds nothing', () => {
    expect(r.steps.get(5)?.title).toBe(
      'worker-1 read the restart signal as it started: 1795647609 (written at line 3)',
    );
    expect(r.steps.get(15)?.title).toBe('worker-1 read the restart signal: unchanged');
    expect(r.findings.filter((f) => f.kind === 'restart-signal-read')).toEqual([]);
  });
});

describe('maxExceptions and the rate limiters (laravel8-max-exceptions, laravel8-rate-limited)', () => {
  it('words each maxExceptions command with the job of the uuid (research §2.4)', () => {
    const r = read('max-exceptions');
    // ImportFeed: $maxExceptions 2. Attempt 1: GET (17), SETEX 86400 0 (18), INCRBY (19);
    // attempt 2: GET (35), INCRBY (36), DEL (37), then the ZREM of its failure.
    expect(r.steps.get(18)?.title).toMatch(
      /^maxExceptions: started ImportFeed#1's count at 0, for a day \(job-exceptions:/,
    );
    expect(r.steps.get(19)?.title).toMatch(/^maxExceptions: counted an exception of ImportFeed#1/);
    expect(r.steps.get(37)?.title).toMatch(
      /^maxExceptions: ImportFeed#1 reached its maxExceptions: the count deleted, the job fails/,
    );
    expect(r.lines[36]).toContain('"DEL" "laravel_database_laravel_cache:job-exceptions:');
  });

  it("a capture that begins after a worker's start does not tell whether its first check read a change", () => {
    // restart-signal from line 8 on: worker-1's start (its SELECT 1 and GET, lines 6-7) is cut
    // off, so its check after the job (line 20, now 13) is the first the capture shows.
    const lines = captureText('restart-signal', DIR).split('\n').slice(7);
    const e = explainCapture(lines);
    expect(e.timeline.steps.map((s) => s.title)).toContain(
      'worker-1 read the restart signal (its first check in the capture, the worker started before it: whether this is new to it is not told): 1795646951 (written at line 11)',
    );
    expect(e.findings.filter((f) => f.kind === 'restart-signal-read')).toEqual([]);
  });

  it('reads a bare md5 key as a limiter only where the capture shows it as one (any cache key may end in an md5)', () => {
    const lines = captureText('rate-limited', DIR).split('\n');
    const bare = lines.find((l) =>
      l.endsWith('"GET" "laravel_database_laravel_cache:12c500ed0b7879105fb46af0f246be87"'),
    )!;
    expect(explainCapture([bare]).timeline.steps.map((s) => s.title)).toEqual(['other traffic: 1 command (GET)']);
  });

  it('recognises every command of the limiters, the DurationLimiter scripts by their exact text: no other traffic is left', () => {
    for (const name of [
      'rate-limited',
      'overlap-attempts',
      'unique-dropped',
      'restart-signal',
      'restart-same-second',
      'max-exceptions',
    ]) {
      const r = read(name);
      const other = [...r.steps.values()].filter((s) => s.title.startsWith('other traffic'));
      expect(other, name).toEqual([]);
    }
    const r = read('rate-limited');
    const titles = [...r.steps.values()].map((s) => s.title);
    // RateLimited('orders'): key md5('orders') (research §3.3); RateLimitedWithRedis and
    // ThrottlesExceptionsWithRedis EVAL DurationLimiter's scripts on the queue's connection (§3.4-3.5).
    expect(titles).toContain('rate limiter 12c500ed0b7879105fb46af0f246be87: read the attempts (tooManyAttempts)');
    expect(
      titles.filter((t) => t.startsWith('DurationLimiter 12c500ed0b7879105fb46af0f246be87: acquire a slot')),
    ).toHaveLength(2);
    expect(
      titles.some((t) => /^DurationLimiter laravel_throttles_exceptions:[0-9a-f]{32}: too many attempts\?/.test(t)),
    ).toBe(true);
    expect(titles.some((t) => /^ThrottlesExceptions laravel_throttles_exceptions:[0-9a-f]{32}: hit/.test(t))).toBe(
      true,
    );
  });
});
