// lqsim explain on a real Laravel 8.83 capture with the cache store on Redis
// (test/fixtures/explain-cache/laravel8-overlap-attempts.txt), as a user runs it: every format
// carries the cache commands' operations and words, the header's cache figures and the finding;
// and --tui's replay sends the queue's commands only (the cache's are shown, never sent).
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { replayCapture } from '../../src/explain/replay.ts';
import { captureTimeline } from '../../src/explain/timeline.ts';
import { newClient } from '../../src/redis/connections.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { lqsim } from '../helpers/cli.ts';

const FIXTURE = new URL('../fixtures/explain-cache/laravel8-overlap-attempts.txt', import.meta.url).pathname;
// Line 33: worker-2's SET NX refused (worker-1 took the lock at line 17 and released it at line 74).
const REFUSED =
  'WithoutOverlapping: lock laravel-queue-overlap:App\\Jobs\\SyncOrder:order-1 refused: held by worker-1 (taken at line 17): the job is released without running handle()';

describe('lqsim explain on a capture with the cache store on Redis', () => {
  it('text: the header names the cache prefix, db and lock connection; the steps and the finding say what the locks did', async () => {
    const r = await lqsim(['explain', FIXTURE]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('cache db: 1 (lines 7, 23, 37, 53, 66;');
    expect(text).toContain("lock connection: the queue's own connection, db 0 (lines 17, 33, 49, 74)");
    expect(text).toContain(`worker-2 ${REFUSED}`);
    expect(text).toContain('worker-2:cache worker-2 read the restart signal: unchanged');
    expect(text).toMatch(
      /certain: SyncOrder#2 reserved for attempt 3 of 2 .* its attempts spent by WithoutOverlapping/,
    );
  });

  it('ndjson: each cache command carries its operation, the settings their cache figures, the finding its record', async () => {
    const r = await lqsim(['explain', FIXTURE, '--format', 'ndjson']);
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const ops = rows.filter((row) => row.record === undefined).map((row) => row.operation);
    expect(ops.filter((o) => o === 'cache lock-acquire')).toHaveLength(3);
    expect(ops.filter((o) => o === 'cache lock-release')).toHaveLength(1);
    expect(ops.filter((o) => o === 'cache restart-read')).toHaveLength(8);
    const settings = rows.find((row) => row.record === 'settings') as { cache: Record<string, unknown> };
    expect(settings.cache).toMatchObject({
      prefixes: [{ value: 'laravel_database_laravel_cache:' }],
      dbs: [{ value: 1 }],
      locks: [{ value: { on: 'queue', db: 0 }, lines: [17, 33, 49, 74] }],
    });
    const findings = rows.filter((row) => row.record === 'finding');
    expect(findings.map((f) => [f.kind, f.certainty])).toEqual([['attempts-spent-by-middleware', 'certain']]);
  });

  it('json: the steps carry the titles, the findings the kind', async () => {
    const r = await lqsim(['explain', FIXTURE, '--format', 'json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      steps: Array<{ title: string; actor: string }>;
      findings: Array<{ kind: string }>;
      settings: { cache: { dbs: Array<{ value: number }> } };
    };
    expect(doc.steps.filter((s) => s.title === REFUSED).map((s) => s.actor)).toEqual(['worker-2', 'worker-2']);
    expect(doc.findings.map((f) => f.kind)).toEqual(['attempts-spent-by-middleware']);
    expect(doc.settings.cache.dbs.map((d) => d.value)).toEqual([1]);
  });
});

describe('--tui replay of a capture with cache traffic', () => {
  let server: RedisServer;
  beforeEach(async () => {
    server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
  });
  afterEach(async () => server?.stop());

  it("replays the queue's commands and sends none of the cache's", async () => {
    const lines = readFileSync(FIXTURE, 'utf8')
      .split('\n')
      .map((raw, i) => captureEntry(raw, i + 1))
      .filter((e): e is CapturedLine => e !== null && !isProblem(e));
    const config = captureConfiguration(lines);
    const { findings } = captureTimeline(lines, config, { file: FIXTURE });
    const timeline = await replayCapture({
      file: FIXTURE,
      source: 'capture',
      config,
      problems: [],
      problemCount: 0,
      findings,
      url: server.url,
      onStep: async () => {},
    });
    expect(timeline.steps.some((s) => s.title === REFUSED)).toBe(true);
    const client = newClient(server.url);
    await client.connect();
    try {
      // Redis counts every command it ran: the replay's scripts and reads, but no SET (the locks),
      // no GET (the restart checks), no SETNX.
      const stats = String(await client.sendCommand(['INFO', 'commandstats']));
      expect(stats).toMatch(/cmdstat_eval(sha)?:/);
      expect(stats).not.toMatch(/cmdstat_(set|get|setnx):/);
    } finally {
      client.destroy();
    }
  });
});
