// The paired real Laravel 8.83 captures of test/fixtures/explain (README.md there): what stays
// true whatever the findings say. Within a pair the Redis traffic has the same shape (so the
// traffic alone cannot tell its stories apart), and pairs.ts's account of each capture is what
// Laravel's own events (the .events.jsonl beside it) say. The findings themselves are checked
// against pairs.ts by their own tests.
import { describe, expect, it } from 'vitest';
import { explainCapture } from '../../src/explain/index.ts';
import type { CaptureTruth } from '../fixtures/explain/pairs.ts';
import { CAPTURES, PAIRS } from '../fixtures/explain/pairs.ts';
import { captureText, laravelEvents } from '../fixtures/explain/read.ts';

const eventsOf = laravelEvents;

/**
 * Each step as its actor, its kind and the commands it sent and ran, without arguments or times:
 * a pop that reserved a job ran a zadd, one that found nothing did not; a migrate that moved a job
 * back ran zremrangebyrank and rpush.
 */
function shape(capture: string): string[] {
  return explainCapture(capture).timeline.steps.map(
    (s) => `${s.actor} ${s.kind}: ${s.commands.map((c) => c.args[0]!.toLowerCase()).join(' ')}`,
  );
}

const short = (cls: unknown) => String(cls).split('\\').pop();

/** The events file's account, checked for consistency on the way. */
function laravelSaid(name: string): CaptureTruth['events'] {
  const events = eventsOf(name);
  const said: CaptureTruth['events'] = { handles: [], processed: [], failed: [], seconds: [], stopping: [] };
  /** Per process, the attempt it is processing (JobProcessing) and whether its handle() started. */
  const current = new Map<number, { attempt: number; handled: boolean }>();
  const since = new Map<number, number>();
  events.forEach((e, i) => {
    const at = `${name}.events.jsonl line ${i + 1}`;
    const cur = current.get(e.pid);
    switch (e.event) {
      case 'JobProcessing':
        current.set(e.pid, { attempt: Number(e.attempts), handled: false });
        since.set(e.pid, Number(e.now));
        break;
      case 'handle':
        // handle() runs only inside a JobProcessing of the same process and attempt.
        expect(cur?.attempt, at).toBe(Number(e.attempt));
        cur!.handled = true;
        said.handles.push(Number(e.attempt));
        break;
      case 'JobProcessed':
        // Processed: its handle() ran, and the job is deleted, not failed.
        expect(cur, at).toEqual({ attempt: Number(e.attempts), handled: true });
        expect([e.deleted, e.failed], at).toEqual([true, false]);
        said.processed.push(Number(e.attempts));
        said.seconds.push(Number(e.now) - since.get(e.pid)!);
        break;
      case 'JobFailed': {
        expect(cur?.attempt, at).toBe(Number(e.attempts));
        // MaxAttemptsExceededException before handle() (too many attempts), or after its alarm;
        // any other exception came out of handle().
        if (short(e.exception) !== 'MaxAttemptsExceededException') expect(cur!.handled, at).toBe(true);
        // queue:work's JobFailed listener logs the same failure to failed_jobs, next.
        const logged = events.slice(i + 1).find((x) => x.pid === e.pid && x.event === 'failed_jobs.log');
        expect(logged?.exception, at).toBe(e.exception);
        said.failed.push([Number(e.attempts), short(e.exception)!]);
        said.seconds.push(Number(e.now) - since.get(e.pid)!);
        break;
      }
      case 'WorkerStopping':
        // Status 1 is Worker::kill() (its timeout alarm): only while a job of that process ran.
        if (e.status === 1) expect(cur, at).toBeDefined();
        said.stopping.push(Number(e.status));
        break;
    }
  });
  return said;
}

describe('paired real Laravel 8.83 captures (test/fixtures/explain/README.md)', () => {
  it('every capture in a pair is described in pairs.ts, once', () => {
    const names = CAPTURES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const p of PAIRS) for (const c of p.captures) expect(names).toContain(c);
  });

  it('restart-after-job: the daemon stopped for the queue:restart, which came while its job ran', () => {
    // The stop itself is WorkerStopping 0 (pairs.ts); what made it is here. Another process put
    // illuminate:queue:restart into the shared cache between handle() and its end, and the worker
    // (no --stop-when-empty, --max-jobs or --max-time) polled once: Looping comes before each poll.
    const events = eventsOf('restart-after-job');
    const at = (event: string) => events.findIndex((e) => e.event === event);
    const worker = events[at('handle')]!.pid;
    const restart = events[at('queue:restart')]!;
    expect(restart.pid).not.toBe(worker);
    expect(restart['illuminate:queue:restart']).toBe(restart.now);
    expect(at('handle')).toBeLessThan(at('queue:restart'));
    expect(at('queue:restart')).toBeLessThan(at('handle.finished'));
    expect(events.filter((e) => e.pid === worker).map((e) => e.event)).toEqual([
      'Looping',
      'JobProcessing',
      'handle',
      'handle.finished',
      'JobProcessed',
      'WorkerStopping',
    ]);
  });

  describe.each(CAPTURES.map((c) => [c.name, c] as const))('%s', (name, truth) => {
    it("pairs.ts says what Laravel's events say: each handle(), JobProcessed, JobFailed and WorkerStopping", () => {
      expect(laravelSaid(name)).toEqual(truth.events);
    });

    it('its clock is the one pairs.ts names', () => {
      // On the harness's virtual clock the scores are 1700000000 and up, MONITOR's times today's.
      const capture = captureText(name);
      const reserved = /"zadd" "[^"]*:reserved" "(\d+)"/.exec(capture);
      const monitorTime = Number(/^(\d+)\.\d+ \[/m.exec(capture)![1]);
      const skew = Math.abs(Number(reserved![1]) - monitorTime);
      expect(skew > 3600 ? 'skewed' : 'app').toBe(truth.clock);
    });
  });

  describe.each(PAIRS.map((p) => [p.captures.join(' / '), p] as const))('%s', (_, pair) => {
    it('the same shape of Redis traffic: the same steps by the same actors, the same commands in each', () => {
      const [first, ...others] = pair.captures.map((c) => shape(captureText(c)));
      expect(first!.length).toBeGreaterThanOrEqual(2);
      for (const other of others) expect(other).toEqual(first);
    });

    it('different stories: the events of each capture differ from the others', () => {
      const told = pair.captures.map((c) => CAPTURES.find((t) => t.name === c)!.happened);
      expect(new Set(told).size).toBe(told.length);
      const accounts = pair.captures.map((c) => JSON.stringify(laravelSaid(c)));
      // Two of the quiet exits (--once, --max-jobs, --max-time) succeed alike: their events differ
      // only in how the worker stopped, so here only the pair's first story must stand apart.
      expect(accounts.slice(1)).not.toContain(accounts[0]);
    });
  });
});
