// lqsim explain's findings and lives against Laravel's own account: each real Laravel 8.83 capture
// in test/fixtures/explain has the events Laravel fired beside it (*.events.jsonl, written by the
// probe app's listeners in conformance/laravel/explain-captures.sh). No `certain` finding and no
// life's outcome may say what those events contradict; and each capture reads as written by hand
// below, from its events.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/explain/findings.ts';
import { explainCapture } from '../../src/explain/index.ts';
import { CAPTURES } from '../fixtures/explain/pairs.ts';

const dir = new URL('../fixtures/explain/', import.meta.url);
// The conformance probe's captures too (conformance/laravel/probe.sh: case-X.monitor.txt, its
// events in X.events.jsonl), on a virtual clock, so no timing is read there.
const probe = new URL('../../conformance/laravel/captures/', import.meta.url);
const pairs: Array<{ name: string; capture: URL; events: URL }> = [
  ...readdirSync(dir)
    .filter((f) => f.endsWith('.events.jsonl'))
    .map((f) => f.replace(/\.events\.jsonl$/, ''))
    .map((name) => ({ name, capture: new URL(`${name}.txt`, dir), events: new URL(`${name}.events.jsonl`, dir) })),
  ...readdirSync(probe)
    .filter((f) => f.endsWith('.events.jsonl') && readdirSync(probe).includes(`case-${f.split('.')[0]}.monitor.txt`))
    .map((f) => f.split('.')[0]!)
    .map((c) => ({
      name: `probe case ${c}`,
      capture: new URL(`case-${c}.monitor.txt`, probe),
      events: new URL(`${c}.events.jsonl`, probe),
    })),
];

type Said = Record<string, unknown> & { event: string; pid?: number };
const read = (events: URL): Said[] =>
  readFileSync(events, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Said);
const explained = (name: string) => explainCapture(readFileSync(new URL(`${name}.txt`, dir), 'utf8'));

/** What Laravel's events say against a certain finding of this kind, or null when they agree. */
function contradiction(f: Finding, events: Said[]): string | null {
  const failedBy = (exception: string) =>
    events.some((x) => x.event === 'JobFailed' && String(x.exception).endsWith(exception));
  switch (f.kind) {
    case 'ran-twice': {
      // Two handle() calls, the second begun before the first finished.
      const starts = events.filter((x) => x.event === 'handle');
      const ends = events.filter((x) => x.event === 'handle.finished');
      const overlap = starts.length >= 2 && ends.some((e) => events.indexOf(e) > events.indexOf(starts[1]!));
      return overlap ? null : 'handle() did not run twice at once';
    }
    case 'max-attempts-exceeded':
      return failedBy('MaxAttemptsExceededException') ? null : 'no JobFailed with MaxAttemptsExceededException';
    case 'timed-out':
      return events.some((x) => x.event === 'WorkerStopping' && x.status === 1)
        ? null
        : 'no worker stopped with status 1';
    case 'killed-mid-job': {
      // A process that began a job and neither finished it nor stopped in order.
      const pids = new Set(events.filter((x) => x.event === 'JobProcessing').map((x) => x.pid));
      const cut = [...pids].some(
        (pid) =>
          !events.some((x) => x.pid === pid && ['JobProcessed', 'JobFailed', 'WorkerStopping'].includes(x.event)),
      );
      return cut ? null : 'every process that began a job finished it or stopped';
    }
    case 'big-migration': {
      // As many jobs moved at once as the title opens with: at least that many queued, and from
      // :delayed, queued with a delay (JobQueued's `delay`, bootstrap.php).
      const moved = Number(/^(\d+) /.exec(f.title)?.[1]);
      const delayed = /from \S+:delayed /.test(f.title);
      const queued = events.filter((x) => x.event === 'JobQueued' && (!delayed || Number(x.delay) > 0)).length;
      return queued >= moved ? null : `${moved} moved at once, ${queued} queued${delayed ? ' with a delay' : ''}`;
    }
    default:
      // reservation-expired and the rest: test/fixtures/explain/pairs.ts says, per capture, below.
      return null;
  }
}

describe("explain's findings against Laravel's own events (real 8.83 captures)", () => {
  it.each(pairs)('$name: no certain finding the events contradict, no life outcome either', (pair) => {
    const { name } = pair;
    const events = read(pair.events);
    const e = explainCapture(readFileSync(pair.capture, 'utf8'));
    expect(pairs.length).toBeGreaterThan(10);
    for (const f of e.findings.filter((x) => x.certainty === 'certain'))
      expect(contradiction(f, events), `${name}: ${f.kind}: ${f.title}`).toBeNull();
    for (const life of e.lives) {
      const id = e.timeline.jobs.find((j) => j.label === life.job)!.id;
      const mine = events.filter((x) => x.uuid === id);
      const failed = mine.some((x) => x.event === 'JobFailed');
      const processed = mine.some((x) => x.event === 'JobProcessed' && x.failed === false);
      if (life.outcome === 'succeeded') expect(failed, `${name}: ${life.job} succeeded`).toBe(false);
      if (life.outcome === 'failed') expect(failed, `${name}: ${life.job} failed`).toBe(true);
      // A job Laravel both processed and failed: the capture cannot say one of them.
      if (failed && processed) expect(life.outcome).toBe('succeeded-or-failed');
    }
  });

  // By hand, from each capture's events.
  const expected: Record<string, Array<[Finding['kind'], Finding['certainty']]>> = {
    // Attempt 1 ran 5 s (handle 79 → 84), attempt 2 began at 82 in another process and ran 5 s:
    // ran twice, likely by the timings (the same Redis traffic under --tries=1 would delete attempt 2
    // within milliseconds); each finished past its 3 s reservation, which the timings prove.
    'laravel8-ran-twice': [
      ['ran-twice', 'likely'],
      ['reservation-expired', 'certain'],
      ['reservation-expired', 'certain'],
    ],
    // Attempt 1's process never finished nor stopped (SIGKILL); attempt 2 ran and succeeded at once
    // (--tries=3). The same traffic as max-attempts below: neither reading more than possible.
    'laravel8-killed-worker': [
      ['killed-mid-job', 'possible'],
      ['max-attempts-exceeded', 'possible'],
    ],
    // The same kill; attempt 2 failed with MaxAttemptsExceededException without handle() (--tries=1).
    'laravel8-max-attempts': [
      ['killed-mid-job', 'possible'],
      ['max-attempts-exceeded', 'possible'],
    ],
    // The same kill, of a job with $tries = 1 and a retryUntil: attempt 2's poll carried now
    // 1795627410, past the payload's retryUntil 1795627408, and Laravel failed it before handle()
    // (JobFailed, MaxAttemptsExceededException): markJobAsFailedIfAlreadyExceedsMaxAttempts fails
    // once now > retryUntil, and its check comes after the poll on the same clock, so certain.
    'laravel8-retry-until-passed': [
      ['killed-mid-job', 'possible'],
      ['max-attempts-exceeded', 'certain'],
    ],
    // retryUntil 600 s ahead of that poll: attempt 2 (past $tries = 1) ran and succeeded
    // (JobProcessed). Past its tries is no failure with a retryUntil; only a check later than the
    // poll could have seen it pass, so no more than possible.
    'laravel8-retry-until-ahead': [
      ['killed-mid-job', 'possible'],
      ['max-attempts-exceeded', 'possible'],
    ],
    // The 2 s timeout stopped attempt 1's worker (status 1, nothing sent), then failed attempt 2 of
    // 2 (its delete) and stopped that worker too: killed mid-job (or timed out), then timed out.
    'laravel8-timeout-kills': [
      ['killed-mid-job', 'possible'],
      ['timed-out', 'possible'],
    ],
  };

  it.each(Object.keys(expected))('%s reads as its events say, with its certainty', (name) => {
    const f = explained(name).findings;
    expect(f.map((x) => [x.kind, x.certainty])).toEqual(expected[name]);
  });

  it('the killed worker and the timed-out one each name the other story', () => {
    for (const name of ['laravel8-killed-worker', 'laravel8-timeout-kills'])
      expect(explained(name).findings[0]!.alternatives.map((a) => a.kind)).toContain('timed-out');
    expect(explained('laravel8-killed-worker').findings[1]!.alternatives.map((a) => a.kind)).toEqual(['ran-again']);
  });

  // The quiet exits (test/fixtures/explain/README.md): a pop, a ZREM 2 s later, then silence, from
  // the timeout's alarm, --once, --max-jobs, --max-time and a real queue:restart alike (once-failed's
  // ZREM 1 ms after its pop is no alarm's). Only possible, and the orderly exits are named beside
  // it, queue:restart among them.
  it.each(['timed-out', 'once-succeeded', 'max-jobs', 'max-time', 'restart-after-job'])(
    'laravel8-%s: the silence after its delete names every quiet exit, queue:restart among them',
    (name) => {
      const [f, ...rest] = explained(`laravel8-${name}`).findings;
      expect(rest).toEqual([]);
      expect([f!.kind, f!.certainty]).toEqual(['timed-out', 'possible']);
      const exited = f!.alternatives.find((a) => a.kind === 'worker-exited');
      expect(exited?.when).toMatch(/--once\b.*--max-jobs\b.*--max-time\b.*queue:restart\b/);
    },
  );

  // test/fixtures/explain/pairs.ts (recorded with the harness, each with its twin of the same
  // traffic and another story): each kind that happened is stated (a finding or an alternative),
  // each the capture proves is certain, and none its twin's story leaves open is.
  it.each(CAPTURES.map((c) => ({ ...c })))('$name: its kinds stated, certain where proven, never where not', (c) => {
    const f = explained(`laravel8-${c.name}`).findings;
    const stated = new Set(f.flatMap((x) => [x.kind, ...x.alternatives.map((a) => a.kind)]));
    const certain = new Set(f.filter((x) => x.certainty === 'certain').map((x) => x.kind));
    for (const k of c.kinds) expect(stated.has(k), `${c.name}: ${k} stated`).toBe(true);
    for (const k of c.certain) expect(certain.has(k), `${c.name}: ${k} certain`).toBe(true);
    for (const k of c.notCertain) expect(certain.has(k), `${c.name}: ${k} not certain`).toBe(false);
  });
});
