// The tool's model (profile 8) against real Laravel 8.83, Debian's php-laravel-framework, driven by
// conformance/laravel/harness.php on the same kind of real Redis, scenario by scenario, compared
// after normalisation (times, ids, uuids, the key prefix; cjson payloads as parsed JSON).
// `npm test` installs the PHP packages when it can (scripts/setup.mjs --laravel); without them
// these tests fail and say what to install: they are the proof that a trace is what Laravel sends.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConformanceResult } from '../../src/conformance/compare.ts';
import { conformScenario, notComparableReason, outcomeDifferences } from '../../src/conformance/compare.ts';
import { firstDifference } from '../../src/cli/conformance.ts';
import type { TraceDiff } from '../../src/trace/diff.ts';
import { makeChalk } from '../../src/output/colour.ts';
import { SCENARIOS_DIR } from '../../src/scenarios/catalog.ts';
import { runWithRealLaravel } from '../../src/conformance/real-laravel.ts';
import { loadScenarioFile, parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { renderDiff } from '../../src/trace/render-diff.ts';
import { lqsim } from '../helpers/cli.ts';
import { useRedis } from '../helpers/run.ts';

const fixture = new URL('../fixtures/conformance/job-options.yaml', import.meta.url).pathname;

/** The whole diff in the failure message, so a mismatch says where. */
function explain(r: ConformanceResult): string {
  if (r.status === 'different') return renderDiff(r.diff, { chalk: makeChalk(0), labels: ['tool@8', 'laravel 8.83'] });
  return JSON.stringify(r);
}

// Every shipped scenario can be played by Laravel 8 (none uses a verbatim data.command, Predis, or
// a stop that real Laravel handles differently): notComparableReason says so, and the list of
// exceptions, with the reason, lives here. Empty today.
const NOT_COMPARABLE: Record<string, string> = {};
// The cluster scenarios (cluster-*, redis.cluster) run on a cluster: cluster-conformance.test.ts.
const SHIPPED = readdirSync(SCENARIOS_DIR)
  .filter((f) => f.endsWith('.yaml') && !f.startsWith('cluster-'))
  .map((f) => f.slice(0, -'.yaml'.length))
  .sort();

describe('every shipped scenario: the model (profile 8) = real Laravel 8.83 after normalisation', () => {
  const redis = useRedis();
  it('ships the twenty scenarios this file compares', () => {
    expect(SHIPPED).toHaveLength(20);
  });
  for (const name of SHIPPED) {
    it(name, async () => {
      const file = join(SCENARIOS_DIR, `${name}.yaml`);
      const { spec } = await loadScenarioFile(file);
      const r = await conformScenario(spec, redis(), { file });
      if (name in NOT_COMPARABLE) {
        expect(r).toMatchObject({ status: 'not-comparable', reason: NOT_COMPARABLE[name] });
        return;
      }
      expect(r.status, explain(r)).toBe('identical');
    });
  }
});

describe('job options and outcomes no shipped scenario uses', () => {
  const redis = useRedis();
  it('a session saved by lqsim lab (actions a millisecond after the step shown, a config change with its restarts, until)', async () => {
    const file = new URL('../fixtures/conformance/lab-session.yaml', import.meta.url).pathname;
    const { spec } = await loadScenarioFile(file);
    expect(spec.until).toBeDefined();
    expect(spec.timeline.some((e) => e.kind === 'config')).toBe(true);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, explain(r)).toBe('identical');
  });
  it('restarts as the lab makes them: a stop with restart (options changed, same name), a kill while one is under way, after a config change', async () => {
    const file = new URL('../fixtures/conformance/lab-restart.yaml', import.meta.url).pathname;
    const { spec } = await loadScenarioFile(file);
    expect(spec.timeline.filter((e) => e.kind === 'stop' && e.restart !== undefined)).toHaveLength(2);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, explain(r)).toBe('identical');
  });
  it('entries and a worker late in their instant, as the lab writes an action at a step shown: after what else happens then', async () => {
    const file = new URL('../fixtures/conformance/lab-late.yaml', import.meta.url).pathname;
    const { spec } = await loadScenarioFile(file);
    // The order late gives, in the model's own run: the dispatch after worker-1's first poll, the
    // kill after worker-1's pop and its handle() at t+3, worker-2's first poll after them.
    const model = await runScenario(spec, { redis: redis(), file });
    const at = (t: number) => model.steps.filter((s) => s.t === spec.start + t).map((s) => `${s.actor} ${s.kind}`);
    expect(at(0)).toEqual(['worker-1 pop', 'dispatcher dispatch']);
    expect(at(3).slice(0, 3)).toEqual(['worker-1 pop', 'worker-1 process', 'worker-1 kill']);
    expect(at(3).indexOf('worker-2 pop')).toBeGreaterThan(at(3).indexOf('worker-1 kill'));
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, explain(r)).toBe('identical');
  });
  it('kills from outside: a --once worker mid-job (restarted), idle and BLPOP-blocked workers, restart: false, a stop then a kill', async () => {
    for (const name of ['kill-once', 'kill-idle-blocked-stopped']) {
      const file = new URL(`../fixtures/conformance/${name}.yaml`, import.meta.url).pathname;
      const { spec } = await loadScenarioFile(file);
      expect(spec.timeline.some((e) => e.kind === 'kill')).toBe(true);
      const r = await conformScenario(spec, redis(), { file });
      expect(r.status, `${name}: ${explain(r)}`).toBe('identical');
    }
  });
  it('instants within a second: an alarm armed at t+0.5 fires at t+10.5, BLPOPs begun at a fraction time out at one, and every time sent is a whole second', async () => {
    const file = new URL('../fixtures/conformance/fractional-times.yaml', import.meta.url).pathname;
    const { spec } = await loadScenarioFile(file);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, explain(r)).toBe('identical');
    if (r.status !== 'identical') return;
    // Derived from the fixture by hand (8.x rules; times are PHP's time(), the floor of the instant).
    // A script is named instead of its text; payloads are left out.
    const lines = r.trace.steps.flatMap((s) =>
      s.commands.map((c) => {
        const args = c.args[0] === 'EVAL' ? ['EVAL', c.script ?? '?', ...c.args.slice(2)] : c.args;
        return `${s.t} ${s.actor} ${c.source} ${args.filter((a) => !a.startsWith('{')).join(' ')}`;
      }),
    );
    const [D, F] = ['queues:default', 'queues:fast'];
    // worker-1 starts at t+0.5: its pop script's ARGV is t+0 + retry_after 30.
    expect(lines).toContain(`T+0.5 worker-1 client EVAL pop 3 ${D} ${D}:reserved ${D}:notify T+30`);
    // pcntl_alarm(10) at t+0.5 fires at t+10.5, after the dispatch at t+10.25: the restarted
    // process (a new connection: SELECT) finds that job and reserves it with time() = t+10.
    expect(lines).toContain('T+10.25 dispatcher client EVAL push 2 queues:default queues:default:notify');
    expect(lines).toContain('T+10.5 worker-1 client SELECT 0');
    expect(lines).toContain(`T+10.5 worker-1 client EVAL pop 3 ${D} ${D}:reserved ${D}:notify T+40`);
    expect(lines).toContain(`T+10.5 worker-1 lua zadd ${D}:reserved T+40`);
    // worker-2 (block_for 4) blocks at t+0.75; the push at t+1.25 wakes it: pop ARGV t+1 + 30.
    expect(lines).toContain(`T+1.25 worker-2 client EVAL pop 3 ${F} ${F}:reserved ${F}:notify T+31`);
    // later() at t+1.75 with delay 2: ZADD :delayed t+1 + 2.
    expect(lines).toContain(`T+1.75 dispatcher client ZADD ${F}:delayed T+3`);
    // Its BLPOP begun at t+1.25 times out at t+5.25; --sleep 3 → it polls at t+8.25 with time() =
    // t+8 and migrates that job.
    expect(lines).toContain(`T+8.25 worker-2 lua zrangebyscore ${F}:delayed -inf T+8`);
    expect(lines).toContain(`T+8.25 worker-2 lua zremrangebyrank ${F}:delayed 0 0`);
    // Attempt 2 of Stuck: its reservation (score t+30) is migrated at t+31.5 (time() t+31);
    // the alarm armed then fires at t+41.5 and fails it (--tries=2): ZREM.
    expect(lines).toContain(`T+31.5 worker-1 lua zrangebyscore ${D}:reserved -inf T+31`);
    expect(lines).toContain(`T+41.5 worker-1 client ZREM ${D}:reserved`);
    // Nothing either side sent has a fraction.
    for (const s of r.trace.steps)
      for (const c of s.commands) for (const a of c.args) expect(a).not.toMatch(/^T[+-]\d+\.\d/);
  });
  it('one request over two queue connections (one Redis connection, one SELECT), Queue::size in it, numbered properties, one request per instance', async () => {
    const file = new URL('../fixtures/conformance/request-calls.yaml', import.meta.url).pathname;
    const { spec } = await loadScenarioFile(file);
    expect(spec.timeline.map((e) => e.kind)).toEqual(['request', 'dispatch']);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, explain(r)).toBe('identical');
  });
  it('no jobs at all: two workers polling empty queues match real Laravel, poll for poll', async () => {
    const { spec } = parseScenario(
      `
name: no-jobs
title: workers with nothing to do
laravel: "8"
until: 7
workers:
  - { name: worker-1, sleep: 3 }
  - { name: worker-2, sleep: 5, start: 1 }
timeline:
  - { at: 2, note: nothing is ever dispatched }
`,
      'no-jobs.yaml',
    );
    const r = await conformScenario(spec, redis());
    expect(r.status, explain(r)).toBe('identical');
    if (r.status === 'identical') expect(r.steps).toBeGreaterThanOrEqual(5);
  });
  it('--once, block_for 5, an empty queue: BLPOP :notify times out at t+5, --sleep 3, exit at t+8, as real Laravel does', async () => {
    const { spec } = parseScenario(
      `
name: once-block-for
title: a --once worker blocks on an empty queue
laravel: "8"
connections:
  redis: { block_for: 5 }
workers:
  - { name: worker-1, once: true }
timeline:
  - { at: 0, note: nothing is dispatched }
`,
      'once-block-for.yaml',
    );
    expect(notComparableReason(spec)).toBeNull();
    const r = await conformScenario(spec, redis());
    expect(r.status, explain(r)).toBe('identical');
    // The comparison keeps only steps that send something; the timeout and the exit send nothing,
    // so both runs' steps, commands or not, are compared here by time and actor.
    const tool = await runScenario(spec, { redis: redis(), laravel: '8' });
    const real = await runWithRealLaravel(spec, { redis: redis() });
    expect(real.error).toBeUndefined();
    const shape = (steps: readonly { t: number; actor: string }[], start: number) =>
      steps.map((s) => [s.t - start, s.actor]);
    expect(shape(real.steps, real.start)).toEqual([
      [0, 'worker-1'], // the pop script finds nothing: BLPOP queues:default:notify 5
      [5, 'worker-1'], // the BLPOP returns nil; runNextJob sleeps --sleep=3
      [8, 'worker-1'], // runNextJob returns: queue:work --once exits
    ]);
    expect(real.steps.at(-1)!.title).toBe('worker-1 exits');
    expect(shape(tool.steps, tool.start)).toEqual(shape(real.steps, real.start));
    expect(tool.steps.at(-1)!.title).toBe('worker-1 exits after one poll that found no job (--once)');
  });
  it('two jobs of one class with one definition: real Laravel plays them, and the traces match', async () => {
    const { spec } = parseScenario(
      `
name: shared-class
title: two job names, one PHP class
laravel: "8"
workers: [{ name: worker-1, tries: 2 }]
jobs:
  First: { class: App\\Jobs\\Shared, tries: 2, attempts: [{ run: 3, throw: boom }, succeed] }
  Second: { class: App\\Jobs\\Shared, tries: 2, attempts: [{ run: 3, throw: boom }, succeed] }
timeline:
  - { at: 0, dispatch: First }
  - { at: 1, dispatch: Second, delay: 2 }
`,
      'shared-class.yaml',
    );
    expect(notComparableReason(spec)).toBeNull();
    const r = await conformScenario(spec, redis());
    expect(r.status, explain(r)).toBe('identical');
  });
  it('backoff lists, maxExceptions, retryUntil, release/fail/delete, failOnTimeout, a kill, two connections, size and SIGTERM match, failed_jobs too', async () => {
    const { spec } = await loadScenarioFile(fixture);
    const r = await conformScenario(spec, redis(), { file: fixture });
    expect(r.status, explain(r)).toBe('identical');
    if (r.status !== 'identical') return;
    // The fixture really exercises them (derived from the timeline by hand, 8.x rules):
    const lines = r.trace.steps.flatMap((s) =>
      s.commands.map((c) => `${s.t} ${s.actor} ${c.source} ${c.args.slice(0, 3).join(' ')}`),
    );
    // Backoff [5, 10]: attempt 1 throws at t+0 → release script ZADDs :delayed at t+0+5; attempt 2
    // (popped at t+5 once migrated) throws → t+5+10.
    expect(lines).toContain('T+0 worker-1 lua zadd queues:default:delayed T+5');
    expect(lines).toContain('T+5 worker-1 lua zadd queues:default:delayed T+15');
    // MaxExceptions: no $backoff, so --backoff (the worker's delay 7) at t+5 → t+12.
    expect(lines).toContain('T+5 worker-1 lua zadd queues:default:delayed T+12');
    // Releases: $this->release(15) at t+5 → t+20.
    expect(lines).toContain('T+5 worker-1 lua zadd queues:default:delayed T+20');
    // FailsOnTimeout: popped at t+4 with $timeout 10 → the alarm at t+14 fails it (failOnTimeout): ZREM.
    expect(lines.filter((l) => l.startsWith('T+14 worker-2 client ZREM queues:slow:reserved {'))).toHaveLength(1);
    // Deletes, dispatched at t+3 with delay 4 → later(): ZADD :delayed at t+7 by the dispatcher.
    expect(lines).toContain('T+3 dispatcher client ZADD queues:default:delayed T+7');
  });
});

describe('job chains: ->chain() and Bus::chain(), pushed by the workers', () => {
  const redis = useRedis();
  const fixtureFile = (name: string) => new URL(`../fixtures/conformance/${name}.yaml`, import.meta.url).pathname;
  it('both forms (and ->chain() in a request) with queue/connection/delay on links and on the chain, a retried link, a self-deleting one', async () => {
    const file = fixtureFile('chain-forms');
    const { spec } = await loadScenarioFile(file);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, explain(r)).toBe('identical');
  });
  it('a failed link (exception on the last try, $this->fail(), the timeout) stops the chain', async () => {
    const file = fixtureFile('chain-failed-link');
    const { spec } = await loadScenarioFile(file);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, explain(r)).toBe('identical');
    if (r.status !== 'identical') return;
    // No Store job is ever pushed: every chain that carried it failed before its turn.
    const pushed = r.trace.steps.flatMap((s) => s.commands.map((c) => c.args.at(-1) ?? ''));
    expect(pushed.some((a) => a.includes('"displayName":"App\\Jobs\\Store"'))).toBe(false);
  });
  it("a worker's Str::uuid() is the model's: the harness asks the coordinator when Laravel draws it", async () => {
    const { spec } = await loadScenarioFile(fixtureFile('chain-forms'));
    const tool = await runScenario(spec, { redis: redis(), laravel: '8' });
    const real = await runWithRealLaravel(spec, { redis: redis() });
    expect(real.error).toBeUndefined();
    // Every payload a client pushed (the push script: 2 keys, the ready list and :notify; or a later()
    // ZADD to :delayed): its uuid, raw, in order.
    const pushed = (a: readonly string[]) =>
      (a[0] === 'EVAL' && a[2] === '2' && a[4]!.endsWith(':notify')) || (a[0] === 'ZADD' && a[1]!.endsWith(':delayed'));
    const uuids = (steps: readonly { commands: readonly { source: string; args: readonly string[] }[] }[]) =>
      steps.flatMap((s) =>
        s.commands
          .filter((c) => c.source === 'client' && pushed(c.args))
          .map((c) => /^\{"uuid":"([0-9a-f-]{36})"/.exec(c.args.at(-1)!)![1]!),
      );
    // 3 web requests + 6 next jobs pushed by the workers (3 of the first chain, 2 of the second,
    // 1 of the request's).
    expect(uuids(tool.steps)).toHaveLength(9);
    expect(uuids(real.steps)).toEqual(uuids(tool.steps));
  });
});

describe('worker options, exception classes and job deadlines no shipped scenario uses (8.x)', () => {
  const redis = useRedis();
  const play = async (name: string) => {
    const file = new URL(`../fixtures/conformance/${name}.yaml`, import.meta.url).pathname;
    const { spec } = await loadScenarioFile(file);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, `${name}: ${explain(r)}`).toBe('identical');
    if (r.status !== 'identical') return [];
    return r.trace.steps.flatMap((s) =>
      s.commands.map((c) => `${s.t} ${s.actor} ${c.source} ${c.args.slice(0, 3).join(' ')}`),
    );
  };
  it('--backoff=1,5,10, --max-jobs and --max-time (and the new process after them), --stop-when-empty, --rest and an alarm during it', async () => {
    const lines = await play('worker-options');
    // The fixture exercises them (derived from it by hand, 8.83's Worker::daemon/stopIfNecessary).
    // --backoff=1,5,10 polled every --sleep=5: attempts 1-4 are released for 1, 5, 10, 10 seconds.
    for (const [at, due] of [
      [0, 1],
      [5, 10],
      [10, 20],
      [20, 30],
    ])
      expect(lines).toContain(`T+${at} backoff lua zadd queues:backoff:delayed T+${due}`);
    // --max-jobs=2: the third Quick on mj is taken by a second process, a new connection (SELECT).
    expect(lines.filter((l) => l === 'T+0 max-jobs client SELECT 0')).toHaveLength(2);
    // --max-time=10: the 15 s Long ends at t+15, past it: a new process selects at t+15.
    expect(lines).toContain('T+15 max-time client SELECT 0');
    // --rest=4: the second Quick on rest is popped after the rest, at t+4.
    expect(lines).toContain('T+4 rest lua lpop queues:rest');
    // --rest=30 outlasts --timeout=20: the alarm at t+20 fails ReleasesItself (a ZREM of the copy
    // its own release moved away), and the new process fails it again unrun: two ZREMs at t+20.
    expect(lines.filter((l) => l.startsWith('T+20 rest-alarm client ZREM queues:ra:reserved'))).toHaveLength(2);
  });
  it("exception classes: PHP's (an Exception, an Error), the application's own, $this->fail(new X) with and without a message: failed_jobs match", async () => {
    await play('exception-classes');
  });
  it('retryUntil ignoring --tries and failing a job before and after it runs, $maxExceptions through timeouts, $timeout', async () => {
    const lines = await play('job-deadlines');
    // Until: retried past --tries=1 (attempt 2 popped at t+10, attempt 3 at t+20), failed at t+28.
    expect(lines.filter((l) => l.startsWith('T+28 worker-1 client ZREM queues:default:reserved '))).toHaveLength(1);
    // Expired (retryUntil t+3, due t+5): failed unrun at t+5.
    expect(lines.filter((l) => l.startsWith('T+5 worker-1 client ZREM queues:default:reserved '))).toHaveLength(1);
    // TimesOut ($timeout 10, $maxExceptions 2, retry_after 15): the second alarm, at t+25, fails it.
    expect(lines.filter((l) => l.startsWith('T+25 worker-2 client ZREM queues:short:reserved '))).toHaveLength(1);
  });
});

describe('the comparison sees a difference', () => {
  const redis = useRedis();
  it('profile 5.7 against real 8.83 on timeout-max-attempts: RPUSH vs the push script with :notify, and no fail before the kill', async () => {
    const file = join(SCENARIOS_DIR, 'timeout-max-attempts.yaml');
    const { spec } = await loadScenarioFile(file);
    const r = await conformScenario(spec, redis(), { file, profile: '5.7' });
    expect(r.status).toBe('different');
    if (r.status !== 'different') return;
    const text = renderDiff(r.diff, { chalk: makeChalk(0), labels: ['tool@5.7', 'laravel 8.83'] });
    // 5.7 pushes with a plain RPUSH; 8.83 runs the push script, whose second key is the notify list.
    expect(text).toMatch(/^\s*- .*RPUSH queues:default /m);
    expect(text).toMatch(/^\s*\+ .*EVAL .*queues:default queues:default:notify/m);
    // 8.83's timeout handler fails the last attempt (--tries=1) before the kill: a ZREM of the
    // reserved copy that 5.7 never sends at the alarm.
    const real = r.real.steps.flatMap((s) => s.commands.map((c) => `${s.t ?? ''} ${c.source} ${c.args[0]}`));
    const tool = r.tool.steps.flatMap((s) => s.commands.map((c) => `${s.t ?? ''} ${c.source} ${c.args[0]}`));
    expect(real).toContain('T+60 client ZREM');
    expect(tool).not.toContain('T+60 client ZREM');
  });
});

describe('notComparableReason', () => {
  const base = {
    name: 'x',
    title: 'x',
    laravel: '8',
    jobs: { A: { class: 'App\\Jobs\\A' } },
    workers: [{ name: 'w' }],
    timeline: [{ at: 0, dispatch: 'A' }],
  };
  const spec = (over: Record<string, unknown>) => parseScenario(JSON.stringify({ ...base, ...over }), 'x.yaml').spec;
  it('accepts what real Laravel can play', () => {
    expect(notComparableReason(spec({}))).toBeNull();
  });
  it('names a verbatim data.command, Predis, a shared class, a stopped --once worker and a stop during BLPOP', () => {
    expect(notComparableReason(spec({ jobs: { A: { class: 'App\\Jobs\\A', command: 'O:1:"A":0:{}' } } }))).toMatch(
      /data\.command verbatim/,
    );
    expect(notComparableReason(spec({ redis: { client: 'predis' } }))).toMatch(/predis/);
    expect(
      notComparableReason(
        spec({ jobs: { A: { class: 'App\\Jobs\\A' }, B: { class: 'App\\Jobs\\A', attempts: ['fail'] } } }),
      ),
    ).toMatch(/jobs A and B share the class App\\Jobs\\A but differ/);
    expect(
      notComparableReason(
        spec({
          workers: [{ name: 'w', once: true }],
          timeline: [
            { at: 0, dispatch: 'A' },
            { at: 1, stop: 'w' },
          ],
        }),
      ),
    ).toMatch(/--once/);
    expect(
      notComparableReason(
        spec({
          connections: { redis: { block_for: 5 } },
          timeline: [
            { at: 0, dispatch: 'A' },
            { at: 1, stop: 'w' },
          ],
        }),
      ),
    ).toMatch(/BLPOP/);
  });
});

describe('outcomeDifferences', () => {
  const failed = (exception: string, message: string) => ({
    connection: 'redis',
    queue: 'default',
    exception,
    message,
  });
  const tool = (f: ReturnType<typeof failed>[], runs: Array<[string, number]>) => ({
    failed: f.map((x, i) => ({ ...x, job: `J#${i}`, id: `id${i}`, failedAt: 0, payload: '' })),
    jobs: runs.map(([c, n], i) => ({
      label: `J#${i}`,
      id: `id${i}`,
      class: c,
      dispatchedAt: 0,
      queue: 'default',
      connection: 'redis',
      outcome: 'failed' as const,
      executions: n,
    })),
  });
  it('is empty when failed_jobs records and handle() counts agree', () => {
    expect(
      outcomeDifferences(tool([failed('Exception', 'boom')], [['App\\A', 2]]), {
        failed: [failed('Exception', 'boom')],
        executions: { 'App\\A': 2 },
      }),
    ).toEqual([]);
  });
  it('names a differing message, a missing record and a differing count', () => {
    expect(
      outcomeDifferences(tool([failed('X', 'a'), failed('Y', 'b')], [['App\\A', 1]]), {
        failed: [failed('X', '')],
        executions: { 'App\\A': 2, 'App\\B': 1 },
      }),
    ).toEqual([
      'failed job 1: tool X "a" on redis/default; laravel X "" on redis/default',
      'failed job 2: tool Y "b" on redis/default; laravel none',
      'App\\A handle() ran: tool 1, laravel 2',
      'App\\B handle() ran: tool 0, laravel 1',
    ]);
  });
});

describe('firstDifference', () => {
  const step = (index: number, cmd: string) => ({
    index,
    actor: 'worker-1',
    commands: [{ source: 'client' as const, db: 0, args: [cmd] }],
  });
  it('keeps two steps of context before the first differing step, and drops what follows; the prefix stays', () => {
    const same = (i: number) => ({ kind: 'same' as const, a: step(i, `S${i}`), b: step(i, `S${i}`) });
    const d: TraceDiff = {
      steps: [
        same(0),
        same(1),
        same(2),
        same(3),
        { kind: 'removed', a: step(4, 'X') },
        same(5),
        { kind: 'added', b: step(6, 'Y') },
      ],
      prefix: ['', 'laravel_database_'],
      same: 5,
      changed: 0,
      removed: 1,
      added: 1,
    };
    const f = firstDifference(d);
    expect(f.steps.map((s) => s.kind)).toEqual(['same', 'same', 'removed']);
    expect(f).toMatchObject({ same: 2, removed: 1, added: 0, prefix: ['', 'laravel_database_'] });
  });
});

describe('lqsim conformance and lqsim diff laravel:', () => {
  it('reports each scenario and a summary line, exit 0 when all are identical', async () => {
    const { code, stdout } = await lqsim(['conformance', 'dispatch', 'block-for']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^identical +dispatch +1 steps, 4 commands$/m);
    expect(stdout).toMatch(/^identical +block-for /m);
    expect(stdout.trim().split('\n').at(-1)).toBe('2 identical, 0 different, 0 not comparable, 0 failed');
  });
  it('lqsim diff <scenario>@8 laravel:<scenario> is empty for a scenario that conforms', async () => {
    const { code, stdout } = await lqsim(['diff', 'success@8', 'laravel:success']);
    expect(code).toBe(0);
    expect(stdout.trim().split('\n').at(-1)).toMatch(/^0 steps differ, \d+ same$/);
  });
  it('without PHP it says what to install, in one line, exit 2', async () => {
    const r = await lqsim(['conformance', 'dispatch'], { env: { LQSIM_PHP: '/nonexistent/php' } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^lqsim: conformance: no PHP .*apt-get install -y php-cli php-redis php-laravel-framework$/,
    );
  });
});
