// lqsim explain on captures: seed 003's (Laravel 5.3) through the CLI, with what it must say
// derived by hand from the capture; and every shipped scenario's own run fed back in as MONITOR
// lines, which must be read as Laravel's queue throughout, under the scenario's own version.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import type { Finding } from '../../src/explain/findings.ts';
import { recogniseCommand } from '../../src/explain/recognise.ts';
import { captureTimeline } from '../../src/explain/timeline.ts';
import { isClusterSlots } from '../../src/explain/cluster-configuration.ts';
import { formatMonitorLine } from '../../src/redis/redis-escape.ts';
import type { RedisClusterServer } from '../../src/redis/cluster-nodes.ts';
import { startLocalRedisCluster } from '../../src/redis/local-cluster.ts';
import { nodeLine } from '../../src/redis/monitor-line.ts';
import { clusterTarget } from '../../src/scenarios/cluster-config.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { listScenarios } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { lqsim } from '../helpers/cli.ts';

const SEED_003 = new URL('../fixtures/seed-003-capture.txt', import.meta.url).pathname;

describe('lqsim explain <capture>', () => {
  it("prints seed 003's capture as Laravel 5.3's story, each figure citing its lines", async () => {
    const r = await lqsim(['explain', SEED_003]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const text = r.stdout;
    // (The header wraps at the terminal's width.)
    expect(text.replace(/\s+/g, ' ')).toContain(
      'Laravel: 5.3, profile 5.3 (by the text of LuaScripts::migrateExpiredJobs lines 3, 7; LuaScripts::pop line 9)',
    );
    expect(text).toContain('retry_after: 10 s (line 9)');
    expect(text).toContain('key prefix: (none)');
    // later() from the request, then the worker's poll (both migrates and the pop) and its delete.
    const titles = text
      .split('\n')
      .filter((l) => /^#\d/.test(l))
      .map((l) => l.replace(/\s+/g, ' '));
    expect(titles).toEqual([
      // Each step's wall-clock time (UTC; the capture began at 1489802272.491060), then t+.
      '#0 01:57:52.491 t+0.491s dispatcher-1 later: DelayTestJob#1 onto default:delayed until t+60s',
      '#1 01:58:53.958 t+61.958s worker-1 pop: reserved DelayTestJob#1 (attempts 1) until t+71s',
      '#2 01:58:53.963 t+61.963s worker-1 delete: DelayTestJob#1 (ZREM of its reserved copy)',
    ]);
  });

  it('explains a capture of real Laravel 8.83 (bench/laravel.php: 3 jobs dispatched, one worker works them)', async () => {
    // Made with redis-cli monitor while `php bench/laravel.php dispatch ... 3` and then `work ... 0` ran.
    const r = await lqsim([
      'explain',
      new URL('../fixtures/explain/laravel8-three-jobs.txt', import.meta.url).pathname,
    ]);
    expect(r.code).toBe(0);
    // The migrate script's text is 5.8's, replaced in 9.23 (its `limit`): 5.8 to 9.22.
    expect(r.stdout).toContain('Laravel: 5.8 to 9.22, profile 8 (by the text of LuaScripts::push lines 3, 6, 9;');
    expect(r.stdout).toContain('key prefix: laravel_database_');
    expect(r.stdout).toContain('retry_after: 90 s (lines 17, 26, 35, 44)');
    const titles = r.stdout
      .split('\n')
      .filter((l) => /^#\d/.test(l))
      .map((l) => l.replace(/^#\d+\s+\S+\s+\S+\s+/, '').replace(/\s+/g, ' '));
    // RedisQueue::push x3 from one process; the worker: pop (migrates + pop script) and delete per
    // job, then one pop that finds nothing before --stop-when-empty ends it.
    expect(titles).toEqual([
      'dispatcher-1 push: SendInvoice#1 onto default',
      'dispatcher-1 push: SendInvoice#2 onto default',
      'dispatcher-1 push: SendInvoice#3 onto default',
      'worker-1 pop: reserved SendInvoice#1 (attempts 1) until t+90s',
      'worker-1 delete: SendInvoice#1 (ZREM of its reserved copy)',
      'worker-1 pop: reserved SendInvoice#2 (attempts 1) until t+90s',
      'worker-1 delete: SendInvoice#2 (ZREM of its reserved copy)',
      'worker-1 pop: reserved SendInvoice#3 (attempts 1) until t+90s',
      'worker-1 delete: SendInvoice#3 (ZREM of its reserved copy)',
      'worker-1 pop: no job on default',
    ]);
  });

  describe('real Laravel 8.83 flows (conformance/laravel/explain-captures.sh: real clock, real kills)', () => {
    const fixture = (flow: string) => new URL(`../fixtures/explain/laravel8-${flow}.txt`, import.meta.url).pathname;
    /** What Laravel's own events (recorded beside each capture) say happened: the ground truth. */
    const laravelSaid = (flow: string): Array<Record<string, unknown>> =>
      readFileSync(fixture(flow).replace(/\.txt$/, '.events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const findingsOf = async (flow: string) => {
      const r = await lqsim(['explain', fixture(flow), '-f', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { findings: Finding[] }).findings;
    };

    it('a job run twice: retry_after 3 s, a 5 s job, the skeleton timeout 60', async () => {
      // Laravel: handle() started for attempt 1 (one process) and attempt 2 (another) while 1 ran.
      const handles = laravelSaid('ran-twice').filter((e) => e.event === 'handle');
      expect(handles.map((e) => e.attempt)).toEqual([1, 2]);
      expect(handles[0]!.pid).not.toBe(handles[1]!.pid);
      // By hand from the capture: worker-1 (127.0.0.1:56312) reserves it on line 13 until +3 s;
      // worker-2 (:56328) migrates it back and reserves attempt 2 on line 25; worker-1 deletes on
      // line 27, 5.0 s after its pop; worker-2 on line 34, 5.0 s after its own.
      const f = await findingsOf('ran-twice');
      expect(f.map((x) => x.lines)).toEqual([
        [13, 25],
        [13, 27],
        [25, 34],
      ]);
      expect(f[0]!.title).toMatch(
        /^ProbeJob#1 reserved again by worker-2 \(attempt 2\) while worker-1 still ran it \(attempt 1\) \(worker-1's reservation ended after retry_after \(3 s\).*: it ran twice at once$/,
      );
      // Both deletes came 5.0 s after their pops: handle() ran both times (a MaxAttemptsExceeded
      // failure deletes within milliseconds), so likely, with the --tries reading beside it.
      expect(f[0]).toMatchObject({
        kind: 'ran-twice',
        certainty: 'likely',
        alternatives: [{ kind: 'max-attempts-exceeded', when: expect.stringMatching(/--tries=1 /) }],
      });
      expect(f[1]!.title).toMatch(
        /^worker-1 finished ProbeJob#1 \(attempt 1\) 5\.0 s after its pop, past its reservation \(retry_after 3 s\): the worker's timeout is not shorter than retry_after/,
      );
      expect(f[2]!.title).toMatch(/^worker-2 finished ProbeJob#1 \(attempt 2\) 5\.0 s after its pop/);
      const text = await lqsim(['explain', fixture('ran-twice')]);
      expect(text.stdout).toContain('retry_after: 3 s (lines 11, 23, 32, 39)');
      // Absolute (UTC) and relative: the trace's t+ counts from the first whole second (the text wraps).
      expect(text.stdout.replace(/\s+/g, ' ')).toContain(
        'captured: 2026-11-25 01:37:59.052 UTC to 2026-11-25 01:38:07.784 UTC (8.732 s); t+0s is 2026-11-25 01:37:59.000 UTC',
      );
    });

    it("each job's life, and each command labelled with Laravel's operation", async () => {
      const r = await lqsim(['explain', fixture('ran-twice'), '-f', 'json']);
      const doc = JSON.parse(r.stdout) as {
        lives: Array<{ job: string; events: Array<{ line: number; what: string }> }>;
        steps: Array<{ commands: Array<{ args: string[]; source: string; operation?: string }> }>;
      };
      // By hand from the capture: the push (3), worker-1's reservation (ZADD 13), worker-2's migrate
      // putting the expired copy back (its RPUSH, 21) and its reservation (25), worker-1's ZREM of
      // the attempt-1 copy while :reserved holds attempt 2's (27), worker-2's ZREM (34).
      expect(doc.lives).toEqual([
        {
          job: 'ProbeJob#1',
          events: [
            expect.objectContaining({ line: 3, what: 'pushed onto default by dispatcher-1' }),
            expect.objectContaining({ line: 13, what: 'reserved by worker-1 for attempt 1 until t+3s' }),
            expect.objectContaining({
              line: 21,
              what: "moved back onto default by worker-2's migrate (from :reserved, its reservation over)",
            }),
            expect.objectContaining({ line: 25, what: 'reserved by worker-2 for attempt 2 until t+6s' }),
            expect.objectContaining({
              line: 27,
              what: "deleted by worker-1 (attempt 1's copy; :reserved holds attempt 2's, so the ZREM removes nothing)",
            }),
            expect.objectContaining({ line: 34, what: 'deleted by worker-2' }),
          ],
          // Reserved twice, and a ZREM that removed nothing.
          eventful: true,
          // No $tries in the payload: under --tries 2 or less an exception on attempt 2 fails it the same way.
          outcome: 'succeeded-or-failed',
          when: expect.stringMatching(
            /^failed if handle\(\) threw on attempt 2 and the worker runs with --tries from 1 to 2 /,
          ),
          marks: [],
        },
      ]);
      // Every command of the push and of worker-1's poll, with its operation (SELECT: none).
      const ops = doc.steps
        .slice(0, 2)
        .flatMap((s) => s.commands)
        .map((c) => `${c.source === 'lua' ? 'lua ' : ''}${c.args[0]!.toLowerCase()} ${c.operation ?? '-'}`);
      expect(ops).toEqual([
        'select -',
        'eval push',
        'lua rpush -',
        'lua rpush notify',
        'select -',
        'eval migrate delayed',
        'lua zrangebyscore -',
        'eval migrate reserved',
        'lua zrangebyscore -',
        'eval pop',
        'lua lpop -',
        'lua zadd -',
        'lua lpop notify',
      ]);
    });

    it('a failure a rule reads as possible is said in the life as a condition, and the job not counted as failed', async () => {
      const text = await lqsim(['explain', fixture('timeout-kills')]);
      expect(text.stdout).toMatch(/^ {2}ProbeTimeoutJob#1 +deleted /m);
      expect(text.stdout).toMatch(
        /line 27 +deleted by worker-2: if its timeout ended it, failed by the worker's timeout with MaxAttemptsExceededException/,
      );
      expect(text.stdout).toMatch(/^ {4}ends: succeeded or failed \(if its timeout ended it, /m);
      const md = await lqsim(['explain', fixture('max-attempts'), '-f', 'markdown']);
      expect(md.stdout).toContain(
        '- t+3.351s, line 27: deleted by worker-2: if --tries=1, failed with MaxAttemptsExceededException without running; else it ran and succeeded',
      );
    });

    it('a worker SIGKILLed mid-job: silent after its pop; the next worker reserves the job when retry_after ends', async () => {
      // Laravel: attempt 1 started and never ended (SIGKILL); attempt 2, in another process, succeeded.
      const said = laravelSaid('killed-worker');
      expect(said.filter((e) => e.event === 'handle').map((e) => e.attempt)).toEqual([1, 2]);
      expect(said.filter((e) => e.event === 'JobProcessed').map((e) => e.attempts)).toEqual([2]);
      // By hand: worker-1's last command is its pop (line 11, ZADD line 13); worker-2 reserves
      // attempt 2 on line 25 (retry_after 2 s later) and deletes 2 ms after it on line 27.
      const f = await findingsOf('killed-worker');
      expect(f.map((x) => x.lines)).toEqual([
        [13, 25],
        [25, 27],
      ]);
      expect(f[0]!.title).toMatch(
        /^worker-1 popped ProbeJob#1 \(attempt 1\) and was never heard from again \(no delete, release or poll\): killed mid-job/,
      );
      // --tries=3 here, so the quick delete was a success: the finding gives both readings, neither certain.
      expect(f[1]!.title).toMatch(
        /^ProbeJob#1 deleted 2 ms after worker-2 reserved it \(attempt 2\) from worker-1 \(silent since its pop\): with --tries=1 \(queue:work's default from 6\.0; before, 0 sets no limit\) that is MaxAttemptsExceededException/,
      );
      expect(f[1]).toMatchObject({
        kind: 'max-attempts-exceeded',
        certainty: 'possible',
        alternatives: [{ kind: 'ran-again', when: expect.stringMatching(/--tries of 2 or more/) }],
      });
    });

    it("the same kill under queue:work's default --tries=1: attempt 2 fails at once with MaxAttemptsExceededException", async () => {
      const said = laravelSaid('max-attempts');
      expect(said.filter((e) => e.event === 'handle').map((e) => e.attempt)).toEqual([1]);
      expect(said.filter((e) => e.event === 'JobFailed').map((e) => [e.attempts, e.exception])).toEqual([
        [2, 'Illuminate\\Queue\\MaxAttemptsExceededException'],
      ]);
      const f = await findingsOf('max-attempts');
      expect(f.map((x) => x.lines)).toEqual([
        [13, 25],
        [25, 27],
      ]);
      expect(f[1]!.title).toMatch(/^ProbeJob#1 deleted 1 ms after worker-2 reserved it \(attempt 2\) from worker-1/);
      expect(f[1]).toMatchObject({ kind: 'max-attempts-exceeded', certainty: 'possible' });
    });

    it('timeout 2 s < retry_after 4 s: the timeout kills attempt 1, then fails attempt 2 of $tries = 2 before killing again', async () => {
      const said = laravelSaid('timeout-kills');
      expect(said.filter((e) => e.event === 'WorkerStopping').map((e) => e.status)).toEqual([1, 1]);
      expect(said.filter((e) => e.event === 'JobFailed').map((e) => e.attempts)).toEqual([2]);
      // By hand: worker-1 pops (ZADD line 13) and falls silent; worker-2 reserves attempt 2 on line
      // 25 at +4.6 s and deletes it on line 27, 2.0 s later, its last command.
      const f = await findingsOf('timeout-kills');
      expect(f.map((x) => x.lines)).toEqual([
        [13, 25],
        [25, 27],
      ]);
      expect(f[0]!.title).toMatch(/^worker-1 popped ProbeTimeoutJob#1 \(attempt 1\) and was never heard from again/);
      expect(f[1]!.title).toMatch(
        /^worker-2 deleted ProbeTimeoutJob#1 2\.0 s into attempt 2 of 2 and was never heard from again .*: its timeout \(about 2\.0 s\) may have failed the job with MaxAttemptsExceededException/,
      );
      // Silence after a delete: a --once worker or an orderly exit goes quiet the same way.
      expect(f[1]).toMatchObject({ kind: 'timed-out', certainty: 'possible' });
      expect(f[1]!.alternatives.map((a) => a.kind)).toContain('worker-exited');
      // No timing finding: every job ended within its reservation.
      expect(f.some((x) => /past its reservation/.test(x.title))).toBe(false);
    });
  });

  it("explains the conformance probe's captures of real 8.83 (a virtual clock): retry_after off the workers' own clock", async () => {
    // conformance/laravel/probe.sh: real Laravel 8.83, its clock set by Carbon::setTestNow, so the
    // times it sends are years from MONITOR's; each case is labelled there with what it does.
    const probe = (c: string) =>
      lqsim(['explain', new URL(`../../conformance/laravel/captures/case-${c}.monitor.txt`, import.meta.url).pathname]);
    const d = await probe('d'); // job throws, tries=3 backoff=[5,10] on the job: released twice
    expect(d.code).toBe(0);
    expect(d.stderr).toBe('');
    const flat = d.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain('retry_after: 90 s (lines 13, 29)');
    expect(flat).toMatch(/app clock: \d+ s behind Redis' \(lines 9, 11\)/);
    expect(flat).toContain(
      "release: ProbeRetryJob#1 back to default:delayed until 2023-11-14 22:13:25 UTC (the app's clock, not Redis')",
    );
    // The second release: backoff 10 after the pop of attempt 2 at 22:13:25.
    expect(flat).toContain(
      "release: ProbeRetryJob#1 back to default:delayed until 2023-11-14 22:13:35 UTC (the app's clock, not Redis')",
    );
    // queue config retry_after => null: RedisConnector's 60.
    expect((await probe('r')).stdout).toMatch(/^retry_after: 60 s \(line 13\)$/m);
    // block_for 5 on an empty queue: BLPOP on :notify for 5 s.
    expect((await probe('f1')).stdout).toMatch(/^block_for: 5 s \(line 10\)$/m);
    // A worker SIGKILLed under --tries=1, the job re-popped after retry_after and failed at once.
    const h3 = await probe('h3');
    expect(h3.stdout).toMatch(/- possible: worker-1 popped ProbeJob#1 \(attempt 1\) and was never heard from again/);
    expect(h3.stdout).toMatch(
      /- possible: ProbeJob#1 deleted \d+ ms after worker-2 reserved it \(attempt 2\) from worker-1/,
    );
  });

  it("reads lqsim's own ndjson too: a run's commands on its virtual clock, retry_after and all", async () => {
    const { spawnSync } = await import('node:child_process');
    const { LQSIM_BIN, lqsimEnv } = await import('../helpers/cli.ts');
    const run = spawnSync(process.execPath, [LQSIM_BIN, 'run', 'retry-after-vs-timeout', '-f', 'ndjson'], {
      env: lqsimEnv(),
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const r = spawnSync(process.execPath, [LQSIM_BIN, 'explain', '-'], {
      input: `${run.stdout}{"t": "not a number"}\n`,
      env: lqsimEnv(),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    // The scenario's connection has retry_after 30 (its second part, another connection, 90).
    expect(r.stdout).toMatch(/^retry_after: 30 s \(lines [\d, ]+\); 90 s /m);
    expect(r.stdout).toMatch(/GenerateReport#1 reserved again by worker-2 \(attempt 2\) while worker-1 still ran it/);
    // On its virtual clock throughout, so the timing reads: worker-1 deleted 45 s after a 30 s reservation.
    expect(r.stdout).toMatch(
      /worker-1 finished GenerateReport#1 \(attempt 1\) 45 s after its pop, past its reservation \(retry_after 30 s\)/,
    );
    // Its actors keep their names; a restarted process is that actor's, by number.
    const killed = spawnSync(process.execPath, [LQSIM_BIN, 'run', 'killed-mid-job', '-f', 'ndjson'], {
      env: lqsimEnv(),
      encoding: 'utf8',
    });
    const k = spawnSync(process.execPath, [LQSIM_BIN, 'explain', '-'], {
      input: killed.stdout,
      env: lqsimEnv(),
      encoding: 'utf8',
    });
    expect(k.stdout).toMatch(
      /^#10 +22:23:20\.000 t\+600s +worker-1 \(process 2\) +pop: reserved ImportCsv#1 \(attempts 2\) until t\+1200s$/m,
    );
    expect(k.stdout).toMatch(
      /- possible: worker-1 popped ImportCsv#1 \(attempt 1\) and was never heard from again .* then worker-1 \(process 2\) reserved it \(attempt 2\)/,
    );
    const last = run.stdout.trimEnd().split('\n').length + 1;
    expect(r.stderr).toContain(`lqsim: stdin:${last}: not an ndjson command: needs t, db, actor, process, source`);
  });

  it('writes json (the timeline with its findings) and markdown (with a Findings section)', async () => {
    const capture = new URL('../fixtures/explain/laravel8-three-jobs.txt', import.meta.url).pathname;
    const json = await lqsim(['explain', capture, '--format', 'json']);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as { steps: Array<{ title: string }>; findings: unknown[]; jobs: unknown[] };
    expect(parsed.steps).toHaveLength(10);
    expect(parsed.steps[3]!.title).toBe('pop: reserved SendInvoice#1 (attempts 1) until t+90s');
    expect(parsed.jobs).toHaveLength(3);
    expect(parsed.findings).toEqual([]);
    const md = await lqsim(['explain', capture, '-f', 'markdown']);
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^# laravel8-three-jobs\.txt: /);
    expect(md.stdout.trimEnd()).toMatch(/## Findings\n\nNone\.$/);
  });

  it('--tui: a file only (stdin is the keyboard); without a terminal, the text trace with a note', async () => {
    const capture = new URL('../fixtures/explain/laravel8-killed-worker.txt', import.meta.url).pathname;
    const piped = await lqsim(['explain', '--tui', '-']);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe('lqsim: explain --tui: the keyboard is standard input; give the capture as a file\n');
    const text = await lqsim(['explain', '--tui', capture]);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('lqsim: not a terminal: printing the text trace instead of the terminal UI\n');
    expect(text.stdout).toContain('worker-1 popped ProbeJob#1 (attempt 1) and was never heard from again');
  });

  it("reads standard input, names the lines that are not MONITOR's, and refuses a missing file", async () => {
    const missing = await lqsim(['explain', '/nonexistent/capture.txt']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^lqsim: explain: no such file: \/nonexistent\/capture\.txt/);
    const { spawnSync } = await import('node:child_process');
    const { LQSIM_BIN, lqsimEnv } = await import('../helpers/cli.ts');
    const input = 'OK\n1489802272.491060 [0 127.0.0.1:63798] "SELECT" "0"\nnot monitor\n';
    // Standard input is spilled to a temporary file for the two passes, and the file removed.
    const tmp = mkdtempSync(join(tmpdir(), 'explain-tmp-'));
    const r = spawnSync(process.execPath, [LQSIM_BIN, 'explain', '-'], {
      input,
      env: lqsimEnv({ TMPDIR: tmp }),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    // (tsx, when it runs the sources, keeps its own cache there too.)
    expect(readdirSync(tmp).filter((f) => f.startsWith('lqsim-explain-'))).toEqual([]);
    rmSync(tmp, { recursive: true });
    expect(r.stdout).toContain('Laravel: not told (no script of Laravel in the capture)');
    expect(r.stderr).toMatch(/^lqsim: stdin:3: not a MONITOR line: /);
  });
});

describe('every shipped scenario, its own run fed back in', () => {
  let server: RedisServer;
  // The cluster scenarios run on a cluster (started at the first of them), their lines each marked
  // with the node whose MONITOR saw it, as lqsim merges a cluster's.
  let cluster: Promise<RedisClusterServer> | undefined;
  beforeAll(async () => {
    server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
  });
  afterAll(async () => {
    await server?.stop();
    await (await cluster)?.stop();
  });

  /** A scenario file's own run, and its commands as MONITOR lines, each actor's process its own connection. */
  async function captured(
    file: string,
    laravel?: string,
  ): Promise<{ timeline: Timeline; lines: CapturedLine[]; count: number }> {
    const { spec } = await loadScenarioFile(file);
    const redis = spec.redis.cluster === true ? clusterTarget(await (cluster ??= startLocalRedisCluster())) : server;
    const timeline = await runScenario(spec, { redis, file, laravel });
    const addr = new Map<string, string>();
    const text = timeline.steps
      .flatMap((s) => s.commands)
      .map((c) => {
        const key = `${c.actor}:${c.process}`;
        if (!addr.has(key)) addr.set(key, `10.0.0.1:${5000 + addr.size}`);
        const line = formatMonitorLine({
          time: c.time,
          db: c.db,
          client: c.source === 'lua' ? 'lua' : addr.get(key)!,
          args: c.args,
          ...(c.binaryArgs ? { binaryArgs: c.binaryArgs } : {}),
        });
        return c.node === undefined ? line : nodeLine(c.node, line);
      })
      .join('\n');
    const lines = text
      .split('\n')
      .map((raw, i) => captureEntry(raw, i + 1))
      .filter((e): e is CapturedLine => e !== null && !isProblem(e));
    return { timeline, lines, count: text.split('\n').length };
  }
  /** A shipped scenario's run as a capture; `name@8` runs it under another profile. */
  const capturedRun = async (operand: string) => {
    const [name, laravel] = operand.split('@');
    return captured(await (await import('../../src/scenarios/catalog.ts')).resolveScenario(name!), laravel);
  };

  it('points out what each teaching scenario is about, from its commands alone', async () => {
    const found = async (name: string): Promise<string[]> => {
      const { lines } = await capturedRun(name);
      return captureTimeline(lines, captureConfiguration(lines), { file: name }).findings.map(
        (f) => `${f.kind} ${f.certainty}: ${f.title}`,
      );
    };
    // retry_after 30 < the job's 45 s: at t+30 the reserved copy is migrated back and worker-2
    // reserves it while worker-1 still runs it.
    // (MONITOR's time is real here and the scripts' virtual, so no timing is read off MONITOR: the
    // ran-twice reading stays possible; that worker-1 deleted it after worker-2's pop proves its
    // reservation ended while it ran; worker-2's next poll carries a now past its own reservation;
    // each worker falls silent after its last delete as the run ends; a 5.7 worker's timeout
    // deletes nothing, so that silence is not read as one.)
    expect(await found('retry-after-vs-timeout')).toEqual([
      expect.stringMatching(
        /^ran-twice possible: GenerateReport#1 reserved again by worker-2 \(attempt 2\) while worker-1 still ran it/,
      ),
      expect.stringMatching(
        /^reservation-expired certain: worker-1 finished GenerateReport#1 \(attempt 1\) after worker-2/,
      ),
      expect.stringMatching(
        /^reservation-expired likely: worker-2 finished GenerateReport#1 \(attempt 2\) past its reservation/,
      ),
    ]);
    // A SIGKILL mid-job: worker-1 sends nothing after its pop; the restarted process (a new
    // connection, so another worker to the capture) reserves the job again once retry_after has passed.
    expect(await found('killed-mid-job')).toEqual([
      expect.stringMatching(
        /^killed-mid-job possible: worker-1 popped ImportCsv#1 \(attempt 1\) and was never heard from again \(no delete, release or poll\): killed mid-job.*then worker-2 reserved it \(attempt 2\)$/,
      ),
    ]);
    // 5.7 with block_for: BLPOP on the ready list itself.
    expect(await found('block-for')).toEqual([
      expect.stringMatching(/^blocking-pop-before-notify certain: BLPOP on the ready list queues:default/),
    ]);
    // The worker's last delete, then the run's end: on 5.7 nothing (its timeout deletes nothing);
    // the same flow on 8 is possibly a timeout, the capture's end beside it.
    expect(await found('success')).toEqual([]);
    expect(await found('success@8')).toEqual([
      expect.stringMatching(/^timed-out possible: worker-1 deleted ResizeImage#1 some time into attempt 1/),
    ]);
  });

  it('is Laravel queue traffic throughout, under a version range holding its own profile', async () => {
    for (const entry of await listScenarios()) {
      const { timeline, lines, count } = await captured(entry.file);
      expect(lines.length, entry.name).toBe(count);
      // A cluster client's CLUSTER SLOTS is its own (a process connecting), told apart by isClusterSlots.
      for (const l of lines.filter((l) => !isClusterSlots(l.line.args)))
        expect(recogniseCommand(l.line.args, l.line.client), `${entry.name}: ${l.line.args[0]}`).toBeDefined();
      const config = captureConfiguration(lines);
      expect(config.profiles, entry.name).toContain(timeline.profile);
      const { timeline: explained } = captureTimeline(lines, config, { file: entry.name });
      expect(
        explained.steps.some((s) => s.title.startsWith('other traffic')),
        entry.name,
      ).toBe(false);
      expect(explained.steps.flatMap((s) => s.commands).length, entry.name).toBe(lines.length);
      // Matched step for step: every step of the run begins a step of the explanation, which may
      // split one further (a request that dispatches many jobs is one step of the scenario and a
      // push per job in the capture), never join two, and keeps each within one connection.
      const starts = (steps: Array<{ commands: unknown[] }>): number[] => {
        const out: number[] = [];
        let i = 0;
        for (const step of steps) {
          if (step.commands.length > 0) out.push(i);
          i += step.commands.length;
        }
        return out;
      };
      const explainedStarts = new Set(starts(explained.steps));
      for (const start of starts(timeline.steps))
        expect(explainedStarts.has(start), `${entry.name}: command ${start}`).toBe(true);
      const original = timeline.steps.flatMap((step) => step.commands);
      let at = 0;
      for (const step of explained.steps) {
        const senders = original
          .slice(at, at + step.commands.length)
          .filter((c) => c.source === 'client')
          .map((c) => `${c.actor}:${c.process}`);
        expect(new Set(senders).size, `${entry.name}: ${step.title}`).toBe(1);
        at += step.commands.length;
      }
    }
  }, 120_000);
});
