// lqsim explain's findings (src/explain/findings.ts) on hand-made MONITOR captures of a Laravel 8
// app (test/helpers/laravel8-monitor.ts): each reading of the same Redis traffic, with how sure
// it is and what else it may be. What each capture should read as is derived from Laravel 8's
// Worker (process → markJobAsFailedIfAlreadyExceedsMaxAttempts before handle(); the SIGALRM
// handler: markJobAsFailedIfWillExceedMaxAttempts, then kill) and RedisQueue (a delete is the ZREM
// of the reserved copy, fail() included), never from the tool's output.
import { describe, expect, it } from 'vitest';
import type { QueueEvent } from '../../src/explain/findings.ts';
import { findings } from '../../src/explain/findings.ts';
import { explainCapture } from '../../src/explain/index.ts';
import { job, Monitor } from '../helpers/laravel8-monitor.ts';

// The dispatcher and two workers, each a process with its own connection (its own address).
const [D, A, B] = ['10.0.0.9:40000', '10.0.0.9:40001', '10.0.0.9:40002'];
const T = 1_795_570_000;

const explain = (m: Monitor) => explainCapture(m.text());
const kinds = (m: Monitor) => explain(m).findings.map((f) => [f.kind, f.certainty]);

/**
 * worker-1 pops the job (retry_after 30); its reservation ends while it runs; worker-2's migrate
 * moves the copy back at +32 s and worker-2 reserves attempt 2; worker-1 deletes its copy at +46 s
 * and polls again. `second`: how long after its pop worker-2 deletes it, then polls.
 */
function reservedAgain(second: number, o: { maxTries?: number | null; skew?: number } = {}): Monitor {
  const j = job(1, o.maxTries ?? null);
  const m = new Monitor(T, 30);
  m.skew = o.skew ?? 0;
  m.connect(D)
    .push(D, j)
    .at(T + 1)
    .connect(A)
    .poll(A, j);
  m.at(T + 32)
    .connect(B)
    .poll(B, j, [j]);
  const deleteB = (): void => void m.delete(B, j).poll(B);
  if (second < 14) {
    m.at(T + 32 + second);
    deleteB();
    m.at(T + 46)
      .delete(A, j)
      .poll(A);
  } else {
    m.at(T + 46)
      .delete(A, j)
      .poll(A);
    m.at(T + 32 + second);
    deleteB();
  }
  return m
    .at(T + 90)
    .poll(A)
    .poll(B);
}

describe('a job reserved again by a second worker, deleted by both', () => {
  it('the second delete as long after its pop as the first run: likely ran twice, or max-attempts under --tries 1', () => {
    const e = explain(reservedAgain(45));
    const f = e.findings.find((x) => x.lines[0] === 12 && x.lines[1] === 24)!;
    expect(f).toMatchObject({
      kind: 'ran-twice',
      certainty: 'likely',
      because: expect.stringMatching(/^worker-2 deleted it 45 s after its pop \(the run of worker-1 took 45 s\)/),
      alternatives: [{ kind: 'max-attempts-exceeded', when: expect.stringMatching(/--tries=1 /) }],
    });
  });

  it('the second delete milliseconds after its pop, against a 45 s first run: possibly max-attempts (the timing says so), or ran twice with more tries', () => {
    // Only possible: a second run that returns at once sends the same traffic (laravel8-ran-twice-quick).
    const e = explain(reservedAgain(0.003));
    const f = e.findings.find((x) => x.lines[1] === 24)!;
    expect(f).toMatchObject({
      kind: 'max-attempts-exceeded',
      certainty: 'possible',
      because: expect.stringMatching(
        /^worker-2 deleted it \d ms after its pop, where the run of worker-1 took 45 s; a second run that returns at once looks the same$/,
      ),
      alternatives: [{ kind: 'ran-twice', when: expect.stringMatching(/--tries of 2 or more/) }],
      failed: { certainty: 'possible' },
    });
    // The life says both, never "failed" as a verdict.
    expect(e.lives[0]).toMatchObject({
      outcome: 'succeeded-or-failed',
      when: expect.stringMatching(
        /^failed with MaxAttemptsExceededException .* if --tries is below 2; if it is 2 or more/,
      ),
    });
    expect(e.timeline.jobs[0]!.outcome).toBe('deleted');
  });

  it("on a clock that is not Redis' (no timings read): possible either way", () => {
    const f = explain(reservedAgain(0.003, { skew: -95_000_000 })).findings;
    expect(f.map((x) => [x.kind, x.certainty])).toEqual([
      ['ran-twice', 'possible'],
      // worker-1 deleted it after worker-2 reserved it: its reservation ended while it ran, whatever the clock.
      ['reservation-expired', 'certain'],
    ]);
    expect(f[0]!.alternatives.map((a) => a.kind)).toEqual(['max-attempts-exceeded']);
  });

  it("with the job's own $tries allowing attempt 2: likely ran twice whatever the delete's timing", () => {
    expect(kinds(reservedAgain(0.003, { maxTries: 3 }))[0]).toEqual(['ran-twice', 'likely']);
  });

  it('attempt 2 past the payload maxTries of 1: certain, the second worker failed it without running', () => {
    expect(kinds(reservedAgain(0.003, { maxTries: 1 }))).toEqual([
      // In the order of the first line each cites: the pop of attempt 1 (12), then of attempt 2 (24).
      ['reservation-expired', 'certain'], // reserved again while worker-1 ran it
      ['reservation-expired', 'certain'], // worker-1 finished 45 s in, past its 30 s
      ['max-attempts-exceeded', 'certain'], // attempt 2 of 1, deleted at once
    ]);
  });
});

describe('a delete that may be fail(): the life says "succeeded or failed" with the condition', () => {
  const life = (build: (m: Monitor, j: ReturnType<typeof job>) => void, maxTries: number | null) => {
    const j = job(1, maxTries);
    const m = new Monitor(T, 90);
    m.connect(D)
      .push(D, j)
      .at(T + 1)
      .connect(A)
      .poll(A, j);
    build(m, j);
    return explain(m.poll(A)).lives[0]!;
  };

  it('deleted after releases: fail() on the last try deletes it the same way', () => {
    const l = life((m, j) => {
      m.release(A, j, 0).poll(A, j, []).release(A, j, 0).poll(A, j).delete(A, j);
    }, 3);
    expect(l).toMatchObject({
      outcome: 'succeeded-or-failed',
      when: expect.stringMatching(/attempt 3 of 3, its last/),
    });
  });

  it('deleted at attempts == maxTries, and without $tries (the worker --tries decides)', () => {
    expect(life((m, j) => void m.delete(A, j), 1)).toMatchObject({ outcome: 'succeeded-or-failed' });
    expect(life((m, j) => void m.delete(A, j), null)).toMatchObject({
      outcome: 'succeeded-or-failed',
      when: expect.stringMatching(/the worker runs with --tries=1 /),
    });
  });

  it('deleted on attempt 1 of 3 with no release: succeeded (an exception would have released it)', () => {
    expect(life((m, j) => void m.delete(A, j), 3)).toEqual(
      expect.objectContaining({ outcome: 'succeeded', marks: [] }),
    );
  });
});

describe("a worker's liveness from its queue commands and its process's start only", () => {
  /** worker-1 pops, its job sends `during` on worker-1's address, then worker-2 reserves it again at +32 s. */
  const taken = (during: (m: Monitor) => void) => {
    const j = job(1);
    const m = new Monitor(T, 30);
    m.connect(D)
      .push(D, j)
      .at(T + 1)
      .connect(A)
      .poll(A, j);
    during(m);
    m.at(T + 32)
      .connect(B)
      .poll(B, j, [j])
      .at(T + 40)
      .delete(B, j)
      .poll(B)
      .at(T + 50)
      .poll(B);
    return explain(m).findings[0]!;
  };

  it("a job's own Redis commands on the worker's address do not make the worker alive", () => {
    const f = taken(
      (m) =>
        void m
          .at(T + 2)
          .other(A, 'GET', 'report:lock')
          .other(A, 'SET', 'report:lock', '1'),
    );
    expect(f).toMatchObject({ kind: 'killed-mid-job', certainty: 'possible', lines: [12, 26] });
    expect(f.alternatives.map((a) => a.kind)).toEqual(['timed-out', 'capture-ended']);
  });

  it('a new process on the same address (its SELECT): the one that popped the job had ended, likely killed', () => {
    const f = taken(
      (m) =>
        void m
          .at(T + 20)
          .connect(A)
          .poll(A),
    );
    expect(f).toMatchObject({
      kind: 'killed-mid-job',
      certainty: 'likely',
      because: expect.stringMatching(/a new process started on the address of worker-1/),
    });
    expect(f.alternatives.map((a) => a.kind)).toEqual(['timed-out']);
  });

  it('a poll by the same process without deleting the job: it went on, the reservation expired', () => {
    expect(taken((m) => void m.at(T + 5).poll(A))).toMatchObject({ kind: 'reservation-expired', certainty: 'certain' });
  });
});

describe('silence after a delete: a timeout, or any other exit', () => {
  /** worker-1 pops attempt 1 and deletes it `after` s in; worker-2 polls on for 10 s. */
  const silent = (after: number, maxTries: number | null, then?: (m: Monitor) => void) => {
    const j = job(1, maxTries);
    const m = new Monitor(T, 90);
    m.connect(D)
      .push(D, j)
      .at(T + 1)
      .connect(A)
      .poll(A, j)
      .at(T + 1 + after)
      .delete(A, j);
    then?.(m);
    m.connect(B)
      .poll(B)
      .at(T + after + 11)
      .poll(B);
    return explain(m);
  };

  it('the last try by the payload (1 of 1), deleted 60 s in, then silence: possibly its timeout, or an orderly exit', () => {
    const f = silent(60, 1).findings;
    expect(f).toEqual([
      expect.objectContaining({
        kind: 'timed-out',
        certainty: 'possible',
        title: expect.stringMatching(
          /^worker-1 deleted Report#1 60 s into attempt 1 of 1 and was never heard from again/,
        ),
      }),
    ]);
    expect(f[0]!.alternatives.map((a) => a.kind)).toEqual(['worker-exited', 'killed-mid-job']);
    expect(f[0]!.alternatives[0]!.when).toMatch(/--once.*--max-jobs.*--max-time.*queue:restart/);
  });

  it("no $tries in the payload: the worker's --tries decides, and the daemon's SIGALRM is not missed", () => {
    const f = silent(60, null).findings;
    expect(f.map((x) => [x.kind, x.certainty])).toEqual([['timed-out', 'possible']]);
    expect(f[0]!.title).toMatch(/attempt 1 \(the last if the worker runs with --tries=1:/);
  });

  it('a daemon that polls again after its delete said nothing; nor a delete within a second (no timeout ran)', () => {
    expect(silent(60, 1, (m) => void m.poll(A)).findings).toEqual([]);
    expect(silent(0.2, 1).findings).toEqual([]);
  });

  it('many processes that each worked one job and went quiet: --once workers, one finding for them all', () => {
    // queue:work --once: connect, one poll, the job, its delete, exit (Worker::runNextJob; no
    // SIGALRM handler, which only daemon() registers).
    const onceWorkers = (n: number) => {
      const m = new Monitor(T, 90);
      m.connect(D);
      for (let i = 1; i <= n; i++) {
        const j = job(i);
        const w = `10.0.0.9:${41000 + i}`;
        m.at(T + i * 10)
          .push(D, j)
          .connect(w)
          .poll(w, j)
          .at(T + i * 10 + 2)
          .delete(w, j);
      }
      return explain(m.at(T + n * 10 + 20).push(D, job(99))).findings;
    };
    const many = onceWorkers(4);
    expect(many.map((f) => [f.kind, f.certainty])).toEqual([['worker-exited', 'likely']]);
    expect(many[0]!.because).toMatch(/^4 processes each polled once/);
    expect(many[0]!.alternatives.map((a) => a.kind)).toEqual(['timed-out']);
    // A few: each said on its own, the timeout first (a daemon's first job looks the same).
    expect(onceWorkers(2).map((f) => [f.kind, f.certainty])).toEqual([
      ['timed-out', 'possible'],
      ['timed-out', 'possible'],
    ]);
  });

  it('the capture ending right after the delete: the capture-ended reading too', () => {
    const j = job(1, 1);
    const m = new Monitor(T, 90);
    m.connect(D)
      .push(D, j)
      .at(T + 1)
      .connect(A)
      .poll(A, j)
      .at(T + 61)
      .delete(A, j);
    expect(explain(m).findings[0]!.alternatives.map((a) => a.kind)).toEqual([
      'worker-exited',
      'capture-ended',
      'killed-mid-job',
    ]);
  });
});

describe('a capture that begins or ends inside a life', () => {
  it("begins after the pop: the delete's ZREM is of a reservation before the capture; no execution is invented", () => {
    const j = job(1, 3);
    j.attempts = 1;
    const m = new Monitor(T, 90)
      .at(T + 5)
      .delete(A, j, 1)
      .poll(A)
      .at(T + 8)
      .poll(A);
    const e = explain(m);
    expect(e.findings).toEqual([]);
    // Attempt 1 of 3: an exception would have released it, so the delete is a success.
    expect(e.lives[0]).toMatchObject({ marks: ['began-before-capture'], outcome: 'succeeded' });
    expect(e.timeline.jobs[0]!.executions).toBe(0);
    expect(e.lives[0]!.events[0]!.what).toBe(
      'deleted by worker-1 (reserved before the capture began: its pop is not in it)',
    );
  });

  it('ends while the job runs within its reservation: killed, timed out or the capture ended, each possible; the life continues after it', () => {
    const j = job(1);
    const m = new Monitor(T, 90);
    m.connect(D)
      .push(D, j)
      .at(T + 1)
      .connect(A)
      .poll(A, j)
      .at(T + 20)
      .connect(B)
      .poll(B);
    const e = explain(m);
    expect(e.findings.map((f) => [f.kind, f.certainty])).toEqual([['killed-mid-job', 'possible']]);
    expect(e.findings[0]!.alternatives.map((a) => a.kind)).toEqual(['capture-ended', 'timed-out']);
    expect(e.lives[0]).toMatchObject({ outcome: 'reserved', marks: ['continues-after-capture'] });
  });

  it('the job taken from a silent worker, and the capture ending while the second runs it: each said', () => {
    const j = job(1);
    const m = new Monitor(T, 30);
    m.connect(D)
      .push(D, j)
      .at(T + 1)
      .connect(A)
      .poll(A, j);
    m.at(T + 32)
      .connect(B)
      .poll(B, j, [j])
      .at(T + 40)
      .connect(D)
      .push(D, job(2));
    expect(kinds(m)).toEqual([
      ['killed-mid-job', 'possible'],
      ['killed-mid-job', 'possible'],
    ]);
    expect(explain(m).lives[0]).toMatchObject({ outcome: 'reserved', marks: ['continues-after-capture'] });
  });

  it('ends while the job runs past retry_after: killed mid-job, or the capture ended', () => {
    const j = job(1);
    const m = new Monitor(T, 30);
    m.connect(D)
      .push(D, j)
      .at(T + 1)
      .connect(A)
      .poll(A, j)
      .at(T + 40)
      .connect(B)
      .poll(B);
    // worker-2's poll at +40 s migrates nothing in this hand-made capture: only the reading matters.
    const f = explain(m).findings;
    expect(f.map((x) => [x.kind, x.certainty])).toEqual([['killed-mid-job', 'possible']]);
    expect(f[0]!.title).toMatch(/killed mid-job, or the capture ended while it ran/);
    expect(f[0]!.alternatives[0]).toEqual({
      kind: 'capture-ended',
      when: expect.stringMatching(/past its reservation/),
    });
  });
});

describe("on a clock that is not Redis' (a simulated clock, a skewed host)", () => {
  /** One worker, retry_after 30, the app 95,000,000 s behind Redis; its job deleted `ran` app-seconds in, then its next poll. */
  const alone = (ran: number) => {
    const j = job(1, 3);
    const m = new Monitor(T, 30);
    m.skew = -95_000_000;
    m.connect(D).push(D, j).connect(A).poll(A, j);
    // The app's clock moves `ran` s while MONITOR's moves milliseconds (as on lqsim's or the harness's virtual clock).
    m.at(m.t + 0.005).delete(A, j);
    m.skew += ran;
    return explain(
      m
        .poll(A)
        .at(m.t + 5)
        .poll(A),
    ).findings;
  };

  it("the worker's next poll carries a now past the reservation: likely it ran past retry_after", () => {
    const f = alone(41);
    expect(f).toEqual([
      expect.objectContaining({
        kind: 'reservation-expired',
        certainty: 'likely',
        because: expect.stringMatching(/carries now \d+ on the worker's clock, past the reservation's end \d+/),
      }),
    ]);
    // Its next poll within the reservation: nothing to say.
    expect(alone(20)).toEqual([]);
  });
});

describe('findings on bare events', () => {
  it('point out a large migration, and BLPOP on the ready list once, both certain', () => {
    const events: QueueEvent[] = [
      { kind: 'migrate', moved: 999, line: 1, from: 'queues:default:delayed' },
      { kind: 'migrate', moved: 1000, line: 2, from: 'queues:default:delayed' },
      { kind: 'block-ready', actor: 'worker-1', line: 3, key: 'queues:default' },
      { kind: 'block-ready', actor: 'worker-1', line: 9, key: 'queues:default' },
    ];
    const f = findings(events);
    expect(f.map((x) => [x.kind, x.certainty, x.lines])).toEqual([
      ['big-migration', 'certain', [2]],
      ['blocking-pop-before-notify', 'certain', [3]],
    ]);
    expect(f[0]!.title).toMatch(/^1000 due jobs moved from queues:default:delayed/);
    // Where they came from says which story: delayed jobs falling due, or reservations ending.
    expect(f[0]!.title).toContain('delayed jobs fell due at once');
    const reserved = findings([{ kind: 'migrate', moved: 1500, line: 4, from: 'queues:default:reserved' }]);
    expect(reserved[0]!.title).toContain('reservations ended at once');
    expect(reserved[0]!.title).not.toContain('delayed');
  });
});
