// The cache store on Redis (CACHE_DRIVER=redis) against real Laravel 8.83 (Debian's
// php-laravel-framework, conformance/laravel/harness.php): queue:restart, maxExceptions counted in
// the cache, WithoutOverlapping and unique jobs. Each fixture is played by the model and by
// Laravel and compared command for command; then what it exercises is checked on the normalised
// trace, every expected line derived by hand from Laravel's source (research/cache-store.md):
// keys are CP (stripped) + `laravel_cache:` (cache.prefix + RedisStore's ':') + the name; the
// restart signal, job-exceptions counters on the `cache` connection (db 1); locks on the
// lock_connection `default` (db 0); lock owners named OWNER1... by the normaliser.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConformanceResult } from '../../src/conformance/compare.ts';
import { conformScenario } from '../../src/conformance/compare.ts';
import { makeChalk } from '../../src/output/colour.ts';
import { loadScenarioFile, parseScenario } from '../../src/scenarios/load.ts';
import type { NormalisedTrace } from '../../src/trace/normalise.ts';
import { renderDiff } from '../../src/trace/render-diff.ts';
import { useRedis } from '../helpers/run.ts';

const fixture = (name: string) => new URL(`../fixtures/conformance/${name}.yaml`, import.meta.url).pathname;

function explain(r: ConformanceResult): string {
  if (r.status === 'different') return renderDiff(r.diff, { chalk: makeChalk(0), labels: ['tool@8', 'laravel 8.83'] });
  return JSON.stringify(r);
}

const RESTART = 'laravel_cache:illuminate:queue:restart';
const overlap = (cls: string, key: string) => `laravel_cache:laravel-queue-overlap:App\\Jobs\\${cls}:${key}`;
const unique = (clsAndId: string) => `laravel_cache:laravel_unique_job:App\\Jobs\\${clsAndId}`;

/**
 * `T+7 idle 1 GET laravel_cache:...`: time, actor, db, a client command (payloads left out; a
 * script by its name: the compared trace is the tool's, identical to Laravel's).
 */
function clientLines(trace: NormalisedTrace): string[] {
  return trace.steps.flatMap((s) =>
    s.commands
      .filter((c) => c.source === 'client')
      .map((c) => {
        const args = c.args[0] === 'EVAL' ? ['EVAL', c.script ?? '?', ...c.args.slice(2)] : c.args;
        return `${s.t} ${s.actor} ${c.db} ${args.filter((a) => !a.startsWith('{')).join(' ')}`;
      }),
  );
}

/** `T+1 a-2 lua zadd queues:a:delayed T+1`: the [lua] lines, payloads left out. */
function luaLines(trace: NormalisedTrace): string[] {
  return trace.steps.flatMap((s) =>
    s.commands
      .filter((c) => c.source === 'lua')
      .map((c) => `${s.t} ${s.actor} lua ${c.args.filter((a) => !a.startsWith('{')).join(' ')}`),
  );
}

describe('the cache store on Redis against real Laravel 8.83', () => {
  const redis = useRedis();
  const play = async (name: string): Promise<NormalisedTrace> => {
    const file = fixture(name);
    const { spec } = await loadScenarioFile(file);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, `${name}: ${explain(r)}`).toBe('identical');
    if (r.status !== 'identical') throw new Error(`${name} is not identical`);
    return r.trace;
  };

  it('queue:restart: daemons read the signal at start and after each job or sleep, the busy one after its job; --once never', async () => {
    const trace = await play('cache-restart');
    const lines = clientLines(trace);
    const of = (actor: string) => lines.filter((l) => l.split(' ')[1] === actor);
    // Worker::daemon's first GET opens the cache connection (SELECT 1) before the queue's first
    // command opens the queue's (SELECT 0): research §7.1.
    expect(of('busy').slice(0, 4)).toEqual([
      'T+0 busy 1 SELECT 1',
      `T+0 busy 1 GET ${RESTART}`,
      'T+0 busy 0 SELECT 0',
      'T+0 busy 0 EVAL migrateExpiredJobs 3 queues:default:delayed queues:default queues:default:notify T+0',
    ]);
    // RestartCommand::handle: forever() → one plain SET on the cache connection, value time().
    expect(of('artisan')).toEqual(['T+5 artisan 1 SELECT 1', `T+5 artisan 1 SET ${RESTART} T+5`]);
    // idle (start 1, --sleep 3) reads it after each sleep: t+4 (old value), t+7 (new: it exits);
    // supervisord's new process reads it at its start, with a new cache connection.
    expect(of('idle').filter((l) => l.includes(' 1 '))).toEqual([
      'T+1 idle 1 SELECT 1',
      `T+1 idle 1 GET ${RESTART}`,
      `T+4 idle 1 GET ${RESTART}`,
      `T+7 idle 1 GET ${RESTART}`,
      'T+7 idle 1 SELECT 1',
      `T+7 idle 1 GET ${RESTART}`,
      `T+10 idle 1 GET ${RESTART}`,
      `T+13 idle 1 GET ${RESTART}`,
      `T+16 idle 1 GET ${RESTART}`,
      `T+19 idle 1 GET ${RESTART}`,
    ]);
    // busy is in Import's handle() from t+0 to t+20: no read in between; after the job it reads
    // the new signal and exits (the run ends there: nothing is left to do, run-end.ts).
    expect(of('busy').filter((l) => l.includes(' GET '))).toEqual([
      `T+0 busy 1 GET ${RESTART}`,
      `T+20 busy 1 GET ${RESTART}`,
    ]);
    // --once (runNextJob) never reads it: no cache connection at all.
    expect(of('once').length).toBeGreaterThan(0);
    expect(of('once').every((l) => l.split(' ')[2] === '0')).toBe(true);
  });

  it('maxExceptions counted in the cache: GET, SETEX a day, INCRBY on each exception; DEL when it fails the job', async () => {
    const lines = clientLines(await play('cache-max-exceptions')).filter((l) => l.includes('job-exceptions'));
    // Flaky (uuid 1): throws at t+0 and t+5 (--sleep 5 after a --delay 2 release), succeeds at
    // t+10, leaving its count. Broken (uuid 2): throws at t+20 and t+25, the second reaches 2.
    const key = (n: number) => `laravel_cache:job-exceptions:UUID${n}`;
    expect(lines).toEqual([
      `T+0 worker-1 1 GET ${key(1)}`,
      `T+0 worker-1 1 SETEX ${key(1)} 86400 0`,
      `T+0 worker-1 1 INCRBY ${key(1)} 1`,
      `T+5 worker-1 1 GET ${key(1)}`,
      `T+5 worker-1 1 INCRBY ${key(1)} 1`,
      `T+20 worker-1 1 GET ${key(2)}`,
      `T+20 worker-1 1 SETEX ${key(2)} 86400 0`,
      `T+20 worker-1 1 INCRBY ${key(2)} 1`,
      `T+25 worker-1 1 GET ${key(2)}`,
      `T+25 worker-1 1 INCRBY ${key(2)} 1`,
      `T+25 worker-1 1 DEL ${key(2)}`,
    ]);
  });

  it('WithoutOverlapping: a refused copy released until MaxAttemptsExceeded, releaseAfter, expireAfter, dontRelease, the lock freed after a throw', async () => {
    const trace = await play('cache-overlap');
    const lines = clientLines(trace);
    const lua = luaLines(trace);
    const order = overlap('SyncOrder', 'order-1');
    // a: the holder takes it with SETNX (no expireAfter) on the queue's connection (db 0). The
    // copy, popped by a-2 at t+1, is refused twice, released for 0 s each time (attempts 1 and 2
    // spent without handle()), and its third pop fails it before middleware: ZREM, no lock asked.
    expect(lines.filter((l) => l.includes(order))).toEqual([
      `T+0 a-1 0 SETNX ${order} OWNER1`,
      `T+1 a-2 0 SETNX ${order} OWNER5`,
      `T+1 a-2 0 SETNX ${order} OWNER9`,
      `T+30 a-1 0 EVAL releaseLock 1 ${order} OWNER1`,
    ]);
    expect(lua.filter((l) => l.startsWith('T+1 a-2 lua zadd queues:a:delayed'))).toEqual([
      'T+1 a-2 lua zadd queues:a:delayed T+1',
      'T+1 a-2 lua zadd queues:a:delayed T+1',
    ]);
    expect(lines.filter((l) => l.startsWith('T+1 a-2 0 ZREM queues:a:reserved'))).toHaveLength(1);
    // b: ->expireAfter(600) is SET EX 600 NX; ->releaseAfter(10) brings the copy back at t+11,
    // t+21, t+31; at t+31 attempt 4 > $tries 3: failed unrun although the holder ended at t+25.
    const stock = overlap('SyncStock', 'stock-7');
    expect(lines.filter((l) => l.includes(stock)).map((l) => l.replace(/OWNER\d+/, 'OWNER'))).toEqual([
      `T+0 b-1 0 SET ${stock} OWNER EX 600 NX`,
      `T+1 b-2 0 SET ${stock} OWNER EX 600 NX`,
      `T+11 b-2 0 SET ${stock} OWNER EX 600 NX`,
      `T+21 b-2 0 SET ${stock} OWNER EX 600 NX`,
      `T+25 b-1 0 EVAL releaseLock 1 ${stock} OWNER`,
    ]);
    for (const due of [11, 21, 31]) expect(lua).toContain(`T+${due - 10} b-2 lua zadd queues:b:delayed T+${due}`);
    expect(lines.filter((l) => l.startsWith('T+31 b-2 0 ZREM queues:b:reserved'))).toHaveLength(1);
    // c: ->dontRelease(): the refused copy is deleted (ZREM), never released.
    expect(lines.filter((l) => l.startsWith('T+1 c-2 0 ZREM queues:c:reserved'))).toHaveLength(1);
    expect(lua.some((l) => l.includes('queues:c:delayed') && l.includes('zadd'))).toBe(false);
    // d: handle() throws at t+4 while holding the lock: WithoutOverlapping's finally releases it
    // (releaseLock) before the worker releases the job for --delay 3.
    const search = overlap('Reindex', 'search');
    const t4 = lines.filter((l) => l.startsWith('T+4 d-1 '));
    expect(t4.findIndex((l) => l.startsWith(`T+4 d-1 0 EVAL releaseLock 1 ${search} `))).toBeLessThan(
      t4.findIndex((l) => l.startsWith('T+4 d-1 0 EVAL release 2 queues:d:delayed queues:d:reserved')),
    );
    expect(lua).toContain('T+4 d-1 lua zadd queues:d:delayed T+7');
  });

  it('unique jobs: a second dispatch dropped, the lock released on success and failure, kept on release, released before processing, per instance by a property', async () => {
    const trace = await play('cache-unique');
    const lines = clientLines(trace);
    const pushes = (t: string) => lines.filter((l) => l.startsWith(`${t} dispatcher 0 EVAL push`)).length;
    // $uniqueFor 3600: SET EX 3600 NX, before the push; the second instance is refused: one push.
    expect(lines.filter((l) => l.startsWith('T+0 dispatcher'))).toEqual([
      'T+0 dispatcher 0 SELECT 0',
      `T+0 dispatcher 0 SET ${unique('UpdateIndex42')} OWNER1 EX 3600 NX`,
      'T+0 dispatcher 0 EVAL push 2 queues:default queues:default:notify',
      `T+0 dispatcher 0 SET ${unique('UpdateIndex42')} OWNER2 EX 3600 NX`,
    ]);
    // 8.x declares $uniqueFor as a property: serialized after the options.
    const payload = trace.steps[0]!.commands.find((c) => c.args[0] === 'EVAL')!.args.at(-1)!;
    expect(payload).toContain(String.raw`O:20:\"App\\Jobs\\UpdateIndex\":11:{s:9:\"uniqueFor\";i:3600;s:3:\"job\";N;`);
    // Success: a plain DEL (forceRelease) by the worker.
    expect(lines).toContain(`T+0 worker-1 0 DEL ${unique('UpdateIndex42')}`);
    expect(pushes('T+2')).toBe(1);
    // SyncFeed (no uniqueId(): per class) releases itself at t+10: the lock stays, so t+12's
    // dispatch is dropped; its success at t+20 frees it, and t+30's is pushed.
    const feed = unique('SyncFeed');
    expect(lines.filter((l) => l.includes(feed)).map((l) => l.replace(/ OWNER\d+$/, ''))).toEqual([
      `T+10 dispatcher 0 SETNX ${feed}`,
      `T+12 dispatcher 0 SETNX ${feed}`,
      `T+20 worker-1 0 DEL ${feed}`,
      `T+30 dispatcher 0 SETNX ${feed}`,
      `T+40 worker-1 0 DEL ${feed}`,
    ]);
    expect(pushes('T+12')).toBe(0);
    expect(pushes('T+30')).toBe(1);
    // ImportFile fails on its only try: CallQueuedHandler::failed frees the lock; t+41 is pushed.
    expect(lines).toContain(`T+40 worker-1 0 DEL ${unique('ImportFilefile-9')}`);
    expect(pushes('T+41')).toBe(1);
    // RenderReport (UntilProcessing) frees it before handle() (t+50, runs 20 s): t+55's dispatch
    // takes it and is pushed, t+56's is dropped.
    const report = unique('RenderReport7');
    expect(lines.filter((l) => l.includes(report)).map((l) => l.replace(/ OWNER\d+$/, ''))).toEqual([
      `T+50 dispatcher 0 SETNX ${report}`,
      `T+50 worker-1 0 DEL ${report}`,
      `T+55 dispatcher 0 SETNX ${report}`,
      `T+56 dispatcher 0 SETNX ${report}`,
      `T+70 worker-1 0 DEL ${report}`,
    ]);
    expect([pushes('T+55'), pushes('T+56')]).toEqual([1, 0]);
    // ShipOrder's uniqueId() returns $this->orderId: orders 1 and 2 get their own locks; order 1
    // again at t+81 is dropped; each lock goes when its own job succeeds (5 s each, after t+90).
    const ship = unique('ShipOrder');
    expect(lines.filter((l) => l.includes(ship)).map((l) => l.replace(/ OWNER\d+$/, ''))).toEqual([
      `T+80 dispatcher 0 SETNX ${ship}1`,
      `T+80 dispatcher 0 SETNX ${ship}2`,
      `T+81 dispatcher 0 SETNX ${ship}1`,
      `T+95 worker-1 0 DEL ${ship}1`,
      `T+100 worker-1 0 DEL ${ship}2`,
    ]);
    expect([pushes('T+80'), pushes('T+81')]).toEqual([2, 0]);
  });

  it('a worker killed while it holds an overlap lock without TTL: the lock stays, every retry is refused until MaxAttemptsExceeded', async () => {
    const lines = clientLines(await play('cache-killed-holder'));
    const lock = overlap('Import', 'import');
    const id = unique('Import5');
    // SIGKILL at t+3 runs no finally: no releaseLock ever. retry_after 20 brings the job back at
    // the first poll after t+20 (t+23: polls every 5 s from the new process's start at t+3); its
    // attempts 2 and 3 are refused, attempt 4 fails it, and failing frees the unique lock, so the
    // dispatch at t+40 is queued (t+10's was dropped), to be refused the same way at t+43.
    expect(lines.filter((l) => l.includes(lock) || l.includes(id)).map((l) => l.replace(/ OWNER\d+$/, ''))).toEqual([
      `T+0 dispatcher 0 SETNX ${id}`,
      `T+0 worker-1 0 SETNX ${lock}`,
      `T+10 dispatcher 0 SETNX ${id}`,
      `T+23 worker-1 0 SETNX ${lock}`,
      `T+23 worker-1 0 SETNX ${lock}`,
      `T+23 worker-1 0 DEL ${id}`,
      `T+40 dispatcher 0 SETNX ${id}`,
      `T+43 worker-1 0 SETNX ${lock}`,
      `T+43 worker-1 0 SETNX ${lock}`,
      `T+43 worker-1 0 SETNX ${lock}`,
      `T+43 worker-1 0 DEL ${id}`,
    ]);
    expect(lines.filter((l) => l.includes('EVAL push')).map((l) => l.split(' ')[0])).toEqual(['T+0', 'T+40']);
  });

  it('unique and overlap locks with the other ends of an attempt: exceptions and maxExceptions, UntilProcessing refused by the middleware, release then delete, the timeout', async () => {
    const lines = clientLines(await play('cache-combos')).map((l) => l.replace(/ OWNER\d+/, ''));
    const about = (...keys: string[]) => lines.filter((l) => keys.some((k) => l.includes(k)));
    // Throws: an exception leaves the unique lock (CallQueuedHandler never reaches its release);
    // the second exception reaches $maxExceptions 2: the counter goes, the job fails, failed()
    // frees the lock (after the ZREM).
    expect(about(unique('Throws1'), 'queues:a:reserved').filter((l) => !l.includes('EVAL'))).toEqual([
      `T+0 dispatcher 0 SETNX ${unique('Throws1')}`,
      `T+2 dispatcher 0 SETNX ${unique('Throws1')}`,
      'T+5 w-a 0 ZREM queues:a:reserved',
      `T+5 w-a 0 DEL ${unique('Throws1')}`,
    ]);
    // Early (UntilProcessing): each attempt frees the unique lock before WithoutOverlapping asks
    // for its own, even the attempts the middleware then refuses; the failure frees nothing more.
    expect(about(unique('Early2'), overlap('Early', 'early'))).toEqual([
      `T+0 dispatcher 0 SETNX ${unique('Early2')}`,
      `T+0 w-b 0 DEL ${unique('Early2')}`,
      `T+0 w-b 0 SETNX ${overlap('Early', 'early')}`,
      `T+0.5 dispatcher 0 SETNX ${unique('Early2')}`,
      `T+1 w-b2 0 DEL ${unique('Early2')}`,
      `T+1 w-b2 0 SETNX ${overlap('Early', 'early')}`,
      `T+1 w-b2 0 DEL ${unique('Early2')}`,
      `T+1 w-b2 0 SETNX ${overlap('Early', 'early')}`,
      `T+10 w-b 0 EVAL releaseLock 1 ${overlap('Early', 'early')}`,
    ]);
    // Juggles: $this->release(4) inside the overlap lock: the finally frees it, the unique lock
    // stays (t+1 is dropped); attempt 2 deletes itself: ZREM, the overlap lock, then the unique one.
    const j = overlap('Juggles', 'j');
    expect(
      about(unique('Juggles'), j, 'queues:c:reserved').filter(
        (l) => !l.includes(' EVAL ') || l.includes('releaseLock'),
      ),
    ).toEqual([
      `T+0 dispatcher 0 SETNX ${unique('Juggles')}`,
      `T+0 w-c 0 SET ${j} EX 300 NX`,
      `T+0 w-c 0 EVAL releaseLock 1 ${j}`,
      `T+1 dispatcher 0 SETNX ${unique('Juggles')}`,
      `T+5 w-c 0 SET ${j} EX 300 NX`,
      'T+5 w-c 0 ZREM queues:c:reserved',
      `T+5 w-c 0 EVAL releaseLock 1 ${j}`,
      `T+5 w-c 0 DEL ${unique('Juggles')}`,
    ]);
    // Stuck: the alarm at t+5 fails its only attempt (failed() frees the unique lock) and kills
    // the process, which never frees the overlap lock: t+8's copy is refused by it at t+10 and
    // fails on its next pop.
    expect(about(unique('Stuck4'), overlap('Stuck', 'stuck'))).toEqual([
      `T+0 dispatcher 0 SETNX ${unique('Stuck4')}`,
      `T+0 w-d 0 SETNX ${overlap('Stuck', 'stuck')}`,
      `T+5 w-d 0 DEL ${unique('Stuck4')}`,
      `T+8 dispatcher 0 SETNX ${unique('Stuck4')}`,
      `T+10 w-d 0 SETNX ${overlap('Stuck', 'stuck')}`,
      `T+10 w-d 0 DEL ${unique('Stuck4')}`,
    ]);
  });

  it('a worker in BLPOP beside its cache connection: woken by a push, timed out by block_for, both connections in db 1', async () => {
    const lines = clientLines(await play('cache-block-for'));
    // Each process: the cache connection first (SELECT 1, the restart GET), then the queue's.
    expect(lines.filter((l) => l.includes('BLPOP') || l.includes(' SELECT '))).toEqual([
      'T+0 worker-1 1 SELECT 1',
      'T+0 worker-1 1 SELECT 1',
      'T+0 worker-1 1 BLPOP queues:default:notify 5',
      'T+2 dispatcher 1 SELECT 1',
      'T+2 worker-1 1 BLPOP queues:default:notify 5',
      'T+4 artisan 1 SELECT 1',
      // t+7: the BLPOP begun at t+2 times out; --sleep 3; t+10 the signal has changed: a new process.
      'T+10 worker-1 1 SELECT 1',
      'T+10 worker-1 1 SELECT 1',
      'T+10 worker-1 1 BLPOP queues:default:notify 5',
      'T+12 dispatcher 1 SELECT 1',
    ]);
  });

  it("a request that goes on: each dispatch() asks for its own lock on the request's one connection, before its push", async () => {
    const lines = clientLines(await play('cache-request')).filter((l) => l.includes(' dispatcher '));
    const sync = unique('Sync');
    expect(lines.map((l) => l.replace(/ OWNER\d+$/, ''))).toEqual([
      'T+0 dispatcher 0 SELECT 0',
      `T+0 dispatcher 0 SETNX ${sync}1`,
      'T+0 dispatcher 0 EVAL push 2 queues:default queues:default:notify',
      `T+0 dispatcher 0 SETNX ${sync}1`,
      'T+0 dispatcher 0 EVAL size 3 queues:default queues:default:delayed queues:default:reserved',
      `T+0 dispatcher 0 SETNX ${sync}1`,
      `T+1 dispatcher 0 SETNX ${sync}2`,
      'T+1 dispatcher 0 EVAL push 2 queues:default queues:default:notify',
      `T+2 dispatcher 0 SETNX ${sync}3`,
      'T+2 dispatcher 0 EVAL push 2 queues:default queues:default:notify',
    ]);
  });

  it('rate limiters: RateLimited on the cache, RateLimitedWithRedis and ThrottlesExceptionsWithRedis on DurationLimiter, their release delays, a circuit cleared', async () => {
    const trace = await play('cache-rate-limiters');
    const lines = clientLines(trace);
    const lua = luaLines(trace);
    const md5 = (s: string) => createHash('md5').update(s).digest('hex');
    // The worker starts at t+0.25: time() is T+0, microtime(true) T+0.25 (DurationLimiter's ARGV[1]).
    // RateLimited('orders'), Limit::perMinute(1): key md5('orders' . ''), on the cache (db 1).
    const orders = `laravel_cache:${md5('orders')}`;
    expect(lines.filter((l) => l.includes(orders))).toEqual([
      // Bar#1: tooManyAttempts (GET: none), hit: add the timer (availableAt(60)), add 0, INCRBY.
      `T+0.25 worker-1 1 GET ${orders}`,
      `T+0.25 worker-1 1 EVAL add 1 ${orders}:timer T+60 60`,
      `T+0.25 worker-1 1 EVAL add 1 ${orders} 0 60`,
      `T+0.25 worker-1 1 INCRBY ${orders} 1`,
      // Bar#2: 1 >= 1 and the timer is there (has); availableIn reads it again.
      `T+0.25 worker-1 1 GET ${orders}`,
      `T+0.25 worker-1 1 GET ${orders}:timer`,
      `T+0.25 worker-1 1 GET ${orders}:timer`,
    ]);
    // RateLimitedWithRedis('orders'): DurationLimiter on the default connection, the key md5 with
    // the connection's prefix only; acquire() is the hit, the refused one too.
    expect(lines.filter((l) => l.includes(' EVAL durationLimiter 1 ' + md5('orders')))).toEqual([
      `T+0.25 worker-1 0 EVAL durationLimiter 1 ${md5('orders')} T+0.25 T+0 60 1`,
      `T+0.25 worker-1 0 EVAL durationLimiter 1 ${md5('orders')} T+0.25 T+0 60 1`,
    ]);
    // 'reports' returns two limits: Rep#1 and #2 hit both (4 commands each); Rep#3 is limited by
    // the first (GET, GET timer, GET timer) and never reaches the second.
    const team = `laravel_cache:${md5('reportsteam-1')}`;
    const hourly = `laravel_cache:${md5('reports')}`;
    expect(lines.filter((l) => l.includes(team))).toHaveLength(4 + 4 + 3);
    expect(lines.filter((l) => l.includes(hourly))).toHaveLength(4 + 4);
    expect(lines).toContain(`T+0.25 worker-1 1 EVAL add 1 ${hourly}:timer T+3600 3600`);
    // ThrottlesExceptions(2, 1): key laravel_throttles_exceptions: md5(class), cache variant in db 1,
    // Redis variant (DurationLimiter) in db 0 without the cache prefix.
    expect(
      lines.some((l) => l.includes(` 1 GET laravel_cache:laravel_throttles_exceptions:${md5('App\\Jobs\\Qux')}`)),
    ).toBe(true);
    expect(
      lines
        .filter((l) => l.includes(`laravel_throttles_exceptions:${md5('App\\Jobs\\Quux')}`))
        .map((l) => l.split(' ').slice(2, 5).join(' ')),
    ).toEqual([
      '0 EVAL tooManyAttempts',
      '0 EVAL durationLimiter',
      '0 EVAL tooManyAttempts',
      '0 EVAL durationLimiter',
      '0 EVAL tooManyAttempts',
    ]);
    // Limit::none() ('free'): no limiter command at all; every db-1 line is the restart signal's
    // or a key above.
    const known = [
      RESTART,
      orders,
      team,
      hourly,
      `laravel_throttles_exceptions:${md5('App\\Jobs\\Qux')}`,
      'laravel_cache:laravel_throttles_exceptions:api',
    ];
    expect(
      lines
        .filter((l) => l.split(' ')[2] === '1' && !l.includes('SELECT'))
        .every((l) => known.some((k) => l.includes(k))),
    ).toBe(true);
    // The release delays: RateLimited availableIn 60 + 3; RateLimitedWithRedis decaysAt (T+60) - now + 3;
    // ThrottlesExceptions availableIn + 3; ThrottlesExceptionsWithRedis decaysAt - now, no + 3.
    expect(lua.filter((l) => l.includes('zadd queues:default:delayed') && !l.endsWith('T+0'))).toEqual([
      'T+0.25 worker-1 lua zadd queues:default:delayed T+63',
      'T+0.25 worker-1 lua zadd queues:default:delayed T+63',
      'T+0.25 worker-1 lua zadd queues:default:delayed T+63',
      // Api, ApiRedis: ->backoff(1) after a counted exception: a minute.
      'T+0.25 worker-1 lua zadd queues:default:delayed T+60',
      'T+0.25 worker-1 lua zadd queues:default:delayed T+60',
      'T+0.25 worker-1 lua zadd queues:default:delayed T+63',
      'T+0.25 worker-1 lua zadd queues:default:delayed T+60',
    ]);
    // Their retry at t+60.25 succeeds: the circuit is cleared. ->by('api') on the cache
    // (RateLimiter::clear: the counter and its timer); ->byJob() on Redis (the payload's uuid,
    // the 12th dispatched) after DurationLimiter's tooManyAttempts.
    expect(lines.filter((l) => l.startsWith('T+60.25') && l.includes('throttles_exceptions'))).toEqual([
      'T+60.25 worker-1 1 GET laravel_cache:laravel_throttles_exceptions:api',
      'T+60.25 worker-1 1 DEL laravel_cache:laravel_throttles_exceptions:api',
      'T+60.25 worker-1 1 DEL laravel_cache:laravel_throttles_exceptions:api:timer',
      'T+60.25 worker-1 0 EVAL tooManyAttempts 1 laravel_throttles_exceptions:UUID12 T+60.25 T+60 300 3',
      'T+60.25 worker-1 0 DEL laravel_throttles_exceptions:UUID12',
    ]);
  });

  it('a unique job in a chain: the worker asks for the next link, ->chain() in the request, Bus::chain() never', async () => {
    const lines = clientLines(await play('cache-unique-chain'));
    const publish = unique('Publish3');
    expect(lines.filter((l) => l.includes(publish)).map((l) => l.replace(/ OWNER\d+$/, ''))).toEqual([
      `T+0 dispatcher 0 SETNX ${publish}`,
      // Fetch's chain at t+2 (worker-2): refused while Publish#1 runs; nothing pushed.
      `T+2 worker-2 0 SETNX ${publish}`,
      `T+10 worker-1 0 DEL ${publish}`,
      `T+20 dispatcher 0 SETNX ${publish}`,
      `T+30 worker-1 0 DEL ${publish}`,
      `T+45 dispatcher 0 SETNX ${publish}`,
      // t+46: Bus::chain() pushes without asking; both copies free the lock when they succeed.
      `T+55 worker-1 0 DEL ${publish}`,
      `T+57 worker-2 0 DEL ${publish}`,
    ]);
    expect(lines.filter((l) => l.startsWith('T+2 worker-2 0 EVAL push'))).toEqual([]);
    expect(lines.filter((l) => l.startsWith('T+46 dispatcher 0 EVAL push'))).toHaveLength(1);
  });

  it('config/cache.php as an app may have it: the store on `default`, another prefix; locks on the store connection (lock_connection null), another cache db', async () => {
    const variant = async (cache: string, redisDbs: string) => {
      const { spec } = parseScenario(
        `
name: cache-config
title: a cache config
laravel: "8"
redis: ${redisDbs}
cache: ${cache}
workers: [{ name: worker-1, sleep: 5 }]
jobs:
  Sync: { class: App\\Jobs\\Sync, unique: { id: 1 }, middleware: [{ without_overlapping: k }] }
timeline:
  - { at: 0, dispatch: Sync }
  - { at: 1, artisan: queue:restart }
`,
        'cache-config.yaml',
      );
      const r = await conformScenario(spec, redis());
      expect(r.status, explain(r)).toBe('identical');
      return r.status === 'identical' ? clientLines(r.trace) : [];
    };
    // connection default, prefix myapp: one connection per process, everything in db 2 (REDIS_DB).
    const onDefault = await variant('{ store: redis, connection: default, prefix: myapp }', '{ database: 2 }');
    expect(onDefault.filter((l) => l.includes('myapp:'))).toEqual([
      'T+0 dispatcher 2 SETNX myapp:laravel_unique_job:App\\Jobs\\Sync1 OWNER1',
      'T+0 worker-1 2 GET myapp:illuminate:queue:restart',
      'T+0 worker-1 2 SETNX myapp:laravel-queue-overlap:App\\Jobs\\Sync:k OWNER2',
      'T+0 worker-1 2 EVAL releaseLock 1 myapp:laravel-queue-overlap:App\\Jobs\\Sync:k OWNER2',
      'T+0 worker-1 2 DEL myapp:laravel_unique_job:App\\Jobs\\Sync1',
      'T+0 worker-1 2 GET myapp:illuminate:queue:restart',
      'T+1 artisan 2 SET myapp:illuminate:queue:restart T+1',
      'T+5 worker-1 2 GET myapp:illuminate:queue:restart',
    ]);
    expect(onDefault.filter((l) => l.includes('SELECT'))).toEqual([
      'T+0 dispatcher 2 SELECT 2',
      'T+0 worker-1 2 SELECT 2',
      'T+1 artisan 2 SELECT 2',
    ]);
    // lock_connection null (an app scaffolded before v8.5.6): locks on the store's `cache`
    // connection, db 3 (REDIS_CACHE_DB); the dispatch opens it for the unique lock.
    const noLockConnection = await variant('{ store: redis, lock_connection: null }', '{ cache_database: 3 }');
    expect(noLockConnection.filter((l) => l.startsWith('T+0 dispatcher'))).toEqual([
      'T+0 dispatcher 3 SELECT 3',
      'T+0 dispatcher 3 SETNX laravel_cache:laravel_unique_job:App\\Jobs\\Sync1 OWNER1',
      'T+0 dispatcher 0 SELECT 0',
      'T+0 dispatcher 0 EVAL push 2 queues:default queues:default:notify',
    ]);
    expect(noLockConnection).toContain(
      'T+0 worker-1 3 SETNX laravel_cache:laravel-queue-overlap:App\\Jobs\\Sync:k OWNER2',
    );
  });

  it('keeps TTLs in virtual time on both sides: an expireAfter lock outlives its killed holder until it expires, a limiter window reopens', async () => {
    const trace = await play('cache-ttl');
    const lines = clientLines(trace);
    // WithoutOverlapping('order-1')->expireAfter(5)->releaseAfter(3): SET … EX 5 NX. worker-1 takes
    // it at t+0 and is SIGKILLed at t+2 (no finally: the lock stays); at t+5 it still exists (Redis
    // expires a key once now is past its expiry); at t+9 it is gone and worker-2 takes it.
    const lock = overlap('Sync', 'order-1');
    expect(lines.filter((l) => l.includes(lock))).toEqual([
      `T+0 worker-1 0 SET ${lock} OWNER1 EX 5 NX`,
      `T+1 worker-2 0 SET ${lock} OWNER2 EX 5 NX`,
      `T+5 worker-2 0 SET ${lock} OWNER3 EX 5 NX`,
      `T+9 worker-2 0 SET ${lock} OWNER4 EX 5 NX`,
      `T+9 worker-2 0 EVAL releaseLock 1 ${lock} OWNER4`,
    ]);
    // RateLimited('orders'), Limit::perMinute(1): the counter and its timer set at t+21 for 60 s;
    // at t+85 both have expired (t+81), so the released job's GET finds nothing and it hits anew.
    const k = `laravel_cache:${createHash('md5').update('orders').digest('hex')}`;
    expect(lines.filter((l) => l.startsWith('T+85') && l.includes(k))).toEqual([
      `T+85 worker-2 1 GET ${k}`,
      `T+85 worker-2 1 EVAL add 1 ${k}:timer T+145 60`,
      `T+85 worker-2 1 EVAL add 1 ${k} 0 60`,
      `T+85 worker-2 1 INCRBY ${k} 1`,
    ]);
  });

  it('ThrottlesExceptions->when(): only the exceptions it lets through are counted, the others reach the Worker', async () => {
    const trace = await play('cache-throttle-when');
    // ThrottlesExceptions::handle@v8.83.29:98-106: when() false → rethrown before hit(); the
    // Worker then handles it (handleJobException: released with --backoff 0, failed on attempt 3).
    const k = `laravel_cache:laravel_throttles_exceptions:${createHash('md5').update('App\\Jobs\\SyncCrm').digest('hex')}`;
    expect(clientLines(trace).filter((l) => l.includes('laravel_throttles_exceptions:'))).toEqual([
      `T+0 worker-1 1 GET ${k}`,
      `T+0 worker-1 1 EVAL add 1 ${k}:timer T+60 60`,
      `T+0 worker-1 1 EVAL add 1 ${k} 0 60`,
      `T+0 worker-1 1 INCRBY ${k} 1`,
      `T+0 worker-1 1 GET ${k}`,
      `T+0 worker-1 1 GET ${k}`,
    ]);
  });

  it("uniqueVia(): a unique lock in the redis store while the app's default cache is the file store", async () => {
    const trace = await play('cache-unique-via');
    // UniqueLock::acquire@v8.83.29:36-44: `$cache = $job->uniqueVia()`, then its lock(): the redis
    // store's lock_connection `default` (db 0, the request's and the worker's queue connection).
    // The worker's restart check reads the file store: nothing of it on Redis.
    const key = unique('Export9');
    expect(clientLines(trace).filter((l) => !l.includes('queues:'))).toEqual([
      'T+0 dispatcher 0 SELECT 0',
      `T+0 dispatcher 0 SETNX ${key} OWNER1`,
      `T+0 dispatcher 0 SETNX ${key} OWNER2`,
      'T+1 worker-1 0 SELECT 0',
      `T+1 worker-1 0 DEL ${key}`,
    ]);
  });
});
