// `big-migration` on real Laravel 8.83 (test/fixtures/explain/README.md): 1200 delayed jobs that
// fall due together, moved back onto the queue by one migrate, against the same 1200 falling due
// in three batches. The truth is pairs.ts's MIGRATIONS, checked here against Laravel's events and
// against the capture read by hand (RedisQueue::migrateExpiredJobs: EVAL with 3 keys, :delayed
// first, the queue second; LuaScripts::migrateExpiredJobs rpushes the due payloads onto the queue,
// inside the script, in chunks of 100); then lqsim's findings against that truth.
import { describe, expect, it } from 'vitest';
import { explainCapture } from '../../src/explain/index.ts';
import type { MigrationTruth } from '../fixtures/explain/pairs.ts';
import { MIGRATIONS } from '../fixtures/explain/pairs.ts';
import { captureText, laravelEvents } from '../fixtures/explain/read.ts';

const eventsOf = laravelEvents;

/** The events file's account, in pairs.ts's words. */
function laravelSaid(name: string): MigrationTruth['events'] {
  const said: MigrationTruth['events'] = { queued: {}, processed: 0, failed: 0, stopping: [] };
  for (const e of eventsOf(name)) {
    if (e.event === 'JobQueued') said.queued[Number(e.delay)] = (said.queued[Number(e.delay)] ?? 0) + 1;
    if (e.event === 'JobProcessed') {
      expect([e.attempts, e.deleted, e.failed]).toEqual([1, true, false]);
      said.processed++;
    }
    if (e.event === 'JobFailed') said.failed++;
    if (e.event === 'WorkerStopping') said.stopping.push(Number(e.status));
  }
  return said;
}

/** A MONITOR line: its client (`lua` inside a script) and its arguments, unquoted enough to count. */
function monitorLine(line: string): { client: string; args: string[] } | null {
  const m = /^\d+\.\d+ \[\d+ (\S+)\] (.*)$/.exec(line);
  if (m === null) return null;
  return { client: m[1]!, args: [...m[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((a) => a[1]!) };
}

/** Each migrate of :delayed that moved jobs: its line number and how many payloads it rpushed onto the queue. */
function delayedMigrates(capture: string): Array<{ line: number; moved: number }> {
  const found: Array<{ line: number; moved: number }> = [];
  /** The migrate being read (its script's `lua` lines follow it) and its queue (KEYS[2]). */
  let open: { line: number; moved: number; queue: string } | null = null;
  for (const [i, text] of capture.split('\n').entries()) {
    const l = monitorLine(text);
    if (l === null) continue;
    if (l.client === 'lua') {
      if (open !== null && l.args[0]!.toLowerCase() === 'rpush' && l.args[1] === open.queue)
        open.moved += l.args.length - 2;
      continue;
    }
    if (open !== null && open.moved > 0) found.push({ line: open.line, moved: open.moved });
    const [cmd, , keys, from, to] = l.args;
    open =
      cmd?.toUpperCase() === 'EVAL' && keys === '3' && from!.endsWith(':delayed')
        ? { line: i + 1, moved: 0, queue: to! }
        : null;
  }
  if (open !== null && open.moved > 0) found.push({ line: open.line, moved: open.moved });
  return found;
}

describe.each(MIGRATIONS.map((c) => [c.name, c] as const))('laravel8-%s', (name, truth) => {
  const capture = captureText(name);
  let memo: ReturnType<typeof explainCapture> | undefined;
  const explained = () => (memo ??= explainCapture(capture));
  const big = () => explained().findings.filter((f) => f.kind === 'big-migration');

  it("pairs.ts says what Laravel's events say: JobQueued per delay, JobProcessed, JobFailed, WorkerStopping", () => {
    expect(laravelSaid(name)).toEqual(truth.events);
  });

  it('pairs.ts says what the capture says: the payloads each migrate of :delayed moved, every queued job among them', () => {
    expect(delayedMigrates(capture).map((m) => m.moved)).toEqual(truth.migrated);
    const queued = Object.values(truth.events.queued).reduce((a, b) => a + b, 0);
    expect(truth.migrated.reduce((a, b) => a + b, 0)).toBe(queued);
  });

  it("its clock is the app's: the delayed scores are MONITOR's seconds", () => {
    const score = Number(/"ZADD" "[^"]*:delayed" "(\d+)"/.exec(capture)![1]);
    const monitorTime = Number(/^(\d+)\.\d+ \[/m.exec(capture)![1]);
    expect(Math.abs(score - monitorTime)).toBeLessThan(60);
  });

  it('its kinds stated, certain where proven, never where not', () => {
    const f = explained().findings;
    const stated = new Set(f.flatMap((x) => [x.kind, ...x.alternatives.map((a) => a.kind)]));
    const certain = new Set(f.filter((x) => x.certainty === 'certain').map((x) => x.kind));
    for (const k of truth.kinds) expect(stated.has(k), `${k} stated`).toBe(true);
    for (const k of truth.certain) expect(certain.has(k), `${k} certain`).toBe(true);
    for (const k of truth.notCertain) expect(certain.has(k), `${k} not certain`).toBe(false);
  });

  if (truth.kinds.includes('big-migration')) {
    it('big-migration, certain, once: as many jobs as the request queued with ->delay(2), from :delayed, at that migrate', () => {
      const delayed = eventsOf(name).filter((e) => e.event === 'JobQueued' && e.delay === 2).length;
      const [migrate] = delayedMigrates(capture);
      expect(big().map((f) => [f.certainty, f.lines])).toEqual([['certain', [migrate!.line]]]);
      expect(big()[0]!.title).toMatch(
        new RegExp(`^${delayed} due jobs moved from laravel_database_queues:default:delayed back`),
      );
      expect(big()[0]!.alternatives).toEqual([]);
    });
  } else {
    it('no big-migration: no migrate moved 1000 (each moved what fell due since the last)', () => {
      expect(Math.max(...delayedMigrates(capture).map((m) => m.moved))).toBeLessThan(1000);
      expect(big()).toEqual([]);
      expect(explained().findings.flatMap((f) => f.alternatives.map((a) => a.kind))).not.toContain('big-migration');
    });
  }
});
