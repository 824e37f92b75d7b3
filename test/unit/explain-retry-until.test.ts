// A payload's retryUntil against the worker's clock: Laravel 5.5+'s pre-run check
// (Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts) returns while
// `Carbon::now()->getTimestamp() <= retryUntil`, whatever the attempts, and fails the job with
// MaxAttemptsExceededException (Job::fail: the ZREM, then JobFailed) once now is past it; a job
// with a retryUntil is never failed there by its tries. The check runs after the pop, on the clock
// the poll's migrates carried in their ARGV. The truth below is Laravel's: its events beside the
// real 8.83 captures of test/fixtures/explain (the retry-until pair, README.md there), and its
// source for the hand-made captures, never the tool's output.
import { describe, expect, it } from 'vitest';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { explainCapture } from '../../src/explain/index.ts';
import { renderExplainedRecords } from '../../src/explain/records.ts';
import { CaptureExplainer } from '../../src/explain/timeline.ts';
import { job, Monitor } from '../helpers/laravel8-monitor.ts';
import { captureText, laravelEvents } from '../fixtures/explain/read.ts';

const dir = new URL('../fixtures/explain/', import.meta.url);
const events = (name: string) => laravelEvents(name, dir);
const capture = (name: string): string => captureText(name, dir);
const entries = (text: string): CapturedLine[] =>
  text
    .split('\n')
    .map((l, i) => captureEntry(l, i + 1))
    .filter((e): e is CapturedLine => e !== null && !isProblem(e));

/**
 * What the capture itself holds about worker-2's reservation of attempt 2, read by hand: the pop
 * script's zadd of the reserved copy and the ZREM after it (on worker-2's connection), the `now`
 * its reserved migrate carried (ARGV[1], the EVAL's last argument), and the payload it reserved.
 */
function secondReservation(text: string) {
  const lines = entries(text);
  const zrem = lines.filter((e) => e.line.args[0] === 'ZREM').at(-1)!;
  const client = zrem.line.client;
  const mine = lines.filter((e) => e.line.client === client && e.lineNo < zrem.lineNo);
  const evals = mine.filter((e) => e.line.args[0] === 'EVAL');
  const pop = evals.filter((e) => e.line.args[1]!.startsWith('-- Pop the first job')).at(-1)!;
  const migrate = evals
    .filter((e) => e.line.args[1]!.startsWith('-- Get all of the jobs') && e.lineNo < pop.lineNo)
    .at(-1)!;
  const reserved = lines.find((e) => e.lineNo > pop.lineNo && e.line.args[0] === 'zadd')!;
  return {
    reserved: reserved.lineNo,
    zrem,
    now: Number(migrate.line.args.at(-1)),
    payload: JSON.parse(reserved.line.args[3]!) as Record<string, unknown>,
  };
}

describe("the real retry-until pair: Laravel's own account (the premises the rule rests on)", () => {
  it.each([
    ['retry-until-passed', true],
    ['retry-until-ahead', false],
  ] as const)('%s: attempt 2 is past $tries = 1, and the poll now against retryUntil decides', (name, passed) => {
    const said = events(name);
    const second = said.find((e) => e.event === 'JobProcessing' && e.attempts === 2)!;
    const mine = said.filter((e) => e.pid === second.pid);
    const r = secondReservation(capture(name));
    // The payload carries maxTries 1 and the retryUntil Laravel read (Job::retryUntil()).
    expect(r.payload.maxTries).toBe(1);
    expect(r.payload.retryUntil).toBe(second.retryUntil);
    expect(r.payload.attempts).toBe(2);
    // The check's clock (JobProcessing fires just before it, in Worker::process) is the poll's or later.
    expect(r.now).toBeLessThanOrEqual(Number(second.now));
    expect(r.now > Number(second.retryUntil)).toBe(passed);
    expect(Number(second.now) > Number(second.retryUntil)).toBe(passed);
    // Passed: failed before handle(); ahead: handle() ran past its tries and the job was processed.
    expect(mine.some((e) => e.event === 'handle')).toBe(!passed);
    expect(mine.filter((e) => e.event === 'JobFailed').map((e) => e.exception)).toEqual(
      passed ? ['Illuminate\\Queue\\MaxAttemptsExceededException'] : [],
    );
    expect(mine.some((e) => e.event === 'JobProcessed')).toBe(!passed);
  });
});

describe('retry-until-passed: the capture proves the failure', () => {
  const name = 'retry-until-passed';
  const text = capture(name);
  const e = explainCapture(text);
  const said = events(name);
  const failed = said.find((x) => x.event === 'JobFailed')!;
  const log = said.find((x) => x.event === 'failed_jobs.log')!;
  const processing = said.find((x) => x.event === 'JobProcessing' && x.attempts === 2)!;
  const r = secondReservation(text);

  it("max-attempts-exceeded, certain, on worker-2's reservation and ZREM, with no other story", () => {
    const f = e.findings.filter((x) => x.kind === 'max-attempts-exceeded');
    expect(f).toHaveLength(1);
    expect(f[0]!.certainty).toBe('certain');
    expect(f[0]!.lines).toEqual([r.reserved, r.zrem.lineNo]);
    expect(f[0]!.alternatives).toEqual([]);
    // Both numbers the proof rests on are in its words.
    expect(f[0]!.title).toContain(String(processing.retryUntil));
    expect(f[0]!.title).toContain(String(r.now));
  });

  it('has the row failed_jobs holds, from the payload the last pop took', () => {
    expect(e.timeline.failed).toHaveLength(1);
    const row = e.timeline.failed[0]!;
    expect(row.job).toBe('ProbeRetryUntilJob#1');
    expect(row.id).toBe(failed.job_id);
    expect([row.connection, row.queue]).toEqual([log.connection, log.queue]);
    expect([row.exception, row.message]).toEqual([failed.exception, failed.message]);
    expect(row.exception).toBe(log.exception);
    expect(row.failedAt).toBeLessThanOrEqual(Number(log.now));
    expect(row.failedAt).toBeGreaterThanOrEqual(Number(log.now) - 1);
    // getRawBody(): what the pop's LPOP took, the copy worker-2's migrate pushed back (attempts 1).
    const pushedBack = entries(text)
      .filter(
        (x) =>
          x.line.client === 'lua' && x.line.args[0] === 'rpush' && x.line.args[1] === 'laravel_database_queues:default',
      )
      .filter((x) => x.lineNo < r.zrem.lineNo)
      .at(-1)!;
    expect(row.payload).toBe(pushedBack.line.args[2]);
    const body = JSON.parse(row.payload) as Record<string, unknown>;
    expect(body.attempts).toBe(Number(failed.attempts) - 1);
    expect(body.retryUntil).toBe(processing.retryUntil);
  });

  it('its life ends failed, and ndjson has the failed record', () => {
    expect(e.lives.map((l) => [l.job, l.outcome])).toEqual([['ProbeRetryUntilJob#1', 'failed']]);
    expect(renderExplainedRecords(e, e.settings)).toContain('"record":"failed"');
  });
});

describe('retry-until-ahead: past its tries, but retryUntil ahead: Laravel ran it', () => {
  const e = explainCapture(capture('retry-until-ahead'));

  it('max-attempts-exceeded only possible, with ran-again beside it; no failed row, no failed life', () => {
    const f = e.findings.filter((x) => x.kind === 'max-attempts-exceeded');
    expect(f.map((x) => x.certainty)).toEqual(['possible']);
    expect(f[0]!.alternatives.map((a) => a.kind)).toEqual(['ran-again']);
    expect(e.findings.filter((x) => x.certainty === 'certain')).toEqual([]);
    expect(e.timeline.failed).toEqual([]);
    expect(e.lives.some((l) => l.outcome === 'failed')).toBe(false);
    expect(renderExplainedRecords(e, e.settings)).not.toContain('"record":"failed"');
  });
});

describe('retry-until-first-try: attempt 1, within its tries, failed by its retryUntil alone', () => {
  const name = 'retry-until-first-try';
  const text = capture(name);
  const said = events(name);
  const failed = said.find((x) => x.event === 'JobFailed')!;
  const log = said.find((x) => x.event === 'failed_jobs.log')!;
  const processing = said.find((x) => x.event === 'JobProcessing')!;

  it("Laravel's account: attempt 1, now past retryUntil, failed before handle()", () => {
    expect(processing.attempts).toBe(1);
    expect(Number(processing.now)).toBeGreaterThan(Number(processing.retryUntil));
    expect(said.some((x) => x.event === 'handle')).toBe(false);
    expect(failed.exception).toBe('Illuminate\\Queue\\MaxAttemptsExceededException');
  });

  it("certain, with failed_jobs' row: RedisJob::getJobId(), the job's name, and the pushed payload as getRawBody()", () => {
    const e = explainCapture(text);
    expect(e.findings.map((f) => [f.kind, f.certainty])).toEqual([['max-attempts-exceeded', 'certain']]);
    expect(e.timeline.failed).toHaveLength(1);
    const row = e.timeline.failed[0]!;
    expect(row.id).toBe(failed.job_id);
    expect([row.exception, row.message]).toEqual([failed.exception, failed.message]);
    expect(row.message).toBe(log.message);
    // Its one pop took what the dispatch's RPUSH put on the ready list (the pushed payload, attempts 0).
    const pushed = entries(text).find((x) => x.line.client === 'lua' && x.line.args[0] === 'rpush')!;
    expect(row.payload).toBe(pushed.line.args[2]);
    expect((JSON.parse(row.payload) as { attempts: number }).attempts).toBe(Number(failed.attempts) - 1);
  });
});

// Hand-made Laravel 8 captures (test/helpers/laravel8-monitor.ts): worker-B pops the job at
// T + 10 (its migrates carry now = T + 10 + skew) and deletes it 1 ms later. For attempt 2,
// worker-A popped attempt 1 at T + 1 and went quiet; its reservation (retry_after 5) ended, and
// B's migrate moves the job back before B's pop, as in the real pair.
const [D, A, B] = ['10.0.0.9:40000', '10.0.0.9:40001', '10.0.0.9:40002'];
const T = 1_795_570_000;
const Q = /\\"retryUntil\\":null/g;

/**
 * The payload's deadline as `key` says: `retryUntil` (8.x) or `timeoutAt`, in a 7.x payload
 * (createPayloadArray: uuid, displayName, job, maxTries, maxExceptions, delay, timeout, timeoutAt).
 */
function popThenDelete(o: {
  until: number | null;
  key?: 'retryUntil' | 'timeoutAt';
  maxTries: number;
  attempt: 1 | 2;
  skew?: number;
}) {
  const j = job(1, o.maxTries);
  const m = new Monitor(T, 5);
  m.skew = o.skew ?? 0;
  m.connect(D).push(D, j);
  if (o.attempt === 2)
    m.at(T + 1)
      .connect(A)
      .poll(A, j);
  m.at(T + 10)
    .connect(B)
    .poll(B, j, o.attempt === 2 ? [j] : [])
    .at(T + 10.001)
    .delete(B, j)
    .poll(B);
  const text = m.text();
  if (o.until === null) return text;
  if ((o.key ?? 'retryUntil') === 'retryUntil') return text.replace(Q, `\\"retryUntil\\":${o.until}`);
  return text
    .replace(/\\"failOnTimeout\\":false,\\"backoff\\":null,/g, '\\"delay\\":null,')
    .replace(Q, `\\"timeoutAt\\":${o.until}`);
}
const maxAttempts = (text: string) =>
  explainCapture(text)
    .findings.filter((f) => f.kind === 'max-attempts-exceeded')
    .map((f) => f.certainty);

describe("hand-made captures: the poll's now against the payload's retryUntil", () => {
  it('the payload rewritten as meant (the premise of every case below)', () => {
    const text = popThenDelete({ until: T + 5, key: 'timeoutAt', maxTries: 3, attempt: 1 });
    const lines = entries(text);
    const body = JSON.parse(lines.find((x) => x.line.args[0] === 'zadd')!.line.args[3]!) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual([
      'uuid',
      'displayName',
      'job',
      'maxTries',
      'maxExceptions',
      'delay',
      'timeout',
      'timeoutAt',
      'data',
      'id',
      'attempts',
    ]);
    expect(body.timeoutAt).toBe(T + 5);
    // The ZREM still names the copy the pop reserved.
    expect(lines.find((x) => x.line.args[0] === 'ZREM')!.line.args[2]).toBe(
      lines.find((x) => x.line.args[0] === 'zadd')!.line.args[3],
    );
  });

  it('passed at attempt 1 of 3, within its tries: failed at once all the same (certain, a failed row)', () => {
    const e = explainCapture(popThenDelete({ until: T + 5, maxTries: 3, attempt: 1 }));
    expect(e.findings.map((f) => [f.kind, f.certainty])).toEqual([['max-attempts-exceeded', 'certain']]);
    expect(e.timeline.failed.map((f) => f.exception)).toEqual(['Illuminate\\Queue\\MaxAttemptsExceededException']);
  });

  it('now equal to retryUntil is not past it (Laravel returns while now <= retryUntil): within its tries, nothing to say', () => {
    expect(maxAttempts(popThenDelete({ until: T + 10, maxTries: 3, attempt: 1 }))).toEqual([]);
    expect(maxAttempts(popThenDelete({ until: T + 9, maxTries: 3, attempt: 1 }))).toEqual(['certain']);
  });

  it('a retryUntil of 0 is none to Laravel (`if ($retryUntil && ...)`): the tries decide', () => {
    expect(maxAttempts(popThenDelete({ until: 0, maxTries: 3, attempt: 1 }))).toEqual([]);
    expect(maxAttempts(popThenDelete({ until: 0, maxTries: 1, attempt: 2 }))).toEqual(['certain']);
  });

  it('now equal to retryUntil past its tries: the check may come a second later, so only possible', () => {
    expect(maxAttempts(popThenDelete({ until: T + 10, maxTries: 1, attempt: 2 }))).toEqual(['possible']);
  });

  it("a 7.x payload's timeoutAt is read the same way (Job::retryUntil(): retryUntil ?? timeoutAt)", () => {
    expect(maxAttempts(popThenDelete({ until: T + 5, key: 'timeoutAt', maxTries: 3, attempt: 1 }))).toEqual([
      'certain',
    ]);
    const ahead = explainCapture(popThenDelete({ until: T + 600, key: 'timeoutAt', maxTries: 1, attempt: 2 }));
    const f = ahead.findings.filter((x) => x.kind === 'max-attempts-exceeded');
    expect(f.map((x) => x.certainty)).toEqual(['possible']);
    expect(f[0]!.alternatives.map((a) => a.kind)).toEqual(['ran-again']);
    expect(ahead.timeline.failed).toEqual([]);
  });

  it("on a skewed clock the migrates' now is still the worker's: the comparison holds", () => {
    const skew = 95_000_000;
    expect(maxAttempts(popThenDelete({ until: T + skew + 5, maxTries: 3, attempt: 1, skew }))).toEqual(['certain']);
    // MONITOR's own time (T + 10) is past this retryUntil too, but the app's clock is not: ahead.
    expect(maxAttempts(popThenDelete({ until: T + 5, maxTries: 3, attempt: 1, skew: -100 }))).toEqual([]);
  });

  it("a long capture's text (quiet lives counted, not kept) still keeps the failed life and its row", () => {
    // 25 jobs pushed, each reserved once at T + 10 and deleted at once; only Report#1's payload
    // has a retryUntil (T + 5), passed by the poll: it failed, the others succeeded.
    const m = new Monitor(T, 90);
    const jobs = Array.from({ length: 25 }, (_, i) => job(i + 1, null));
    m.connect(D);
    for (const j of jobs) m.push(D, j);
    m.at(T + 10).connect(B);
    for (const j of jobs) m.poll(B, j).delete(B, j);
    const text = m
      .poll(B)
      .text()
      .replace(/(000000000001\\",[^\n]*?)\\"retryUntil\\":null/g, `$1\\"retryUntil\\":${T + 5}`);
    const lines = entries(text);
    // As the CLI's text reads it: every life not asked for.
    const explainer = new CaptureExplainer(captureConfiguration(lines), { file: 'x', allLives: false });
    for (const l of lines) explainer.add(l);
    const e = explainer.finish();
    expect(e.findings.map((f) => [f.kind, f.certainty])).toEqual([['max-attempts-exceeded', 'certain']]);
    expect(e.lives.map((l) => [l.job, l.outcome])).toEqual([['Report#1', 'failed']]);
    expect(e.quietLives).toBe(24);
    expect(e.timeline.failed.map((f) => [f.job, f.id])).toEqual([['Report#1', '00000000000040008000000000000001']]);
  });

  it('without a retryUntil, past its tries is certain (the tries rule), within them nothing', () => {
    expect(maxAttempts(popThenDelete({ until: null, maxTries: 1, attempt: 2 }))).toEqual(['certain']);
    expect(maxAttempts(popThenDelete({ until: null, maxTries: 3, attempt: 1 }))).toEqual([]);
  });
});

describe("a delete some time into a job, then silence: the timeout's story with a retryUntil", () => {
  // Worker::markJobAsFailedIfWillExceedMaxAttempts on the alarm (8.15+): with a retryUntil, the
  // job is failed once that has passed, whatever the tries; so attempt 1 of 3 may be the
  // timeout's failure too, where without one only the last try is.
  const quietAfterSlowDelete = (until: number | null): string => {
    const j = job(1, 3);
    const m = new Monitor(T, 90);
    m.connect(D).push(D, j);
    m.at(T + 1)
      .connect(B)
      .poll(B, j)
      .at(T + 31)
      .delete(B, j);
    m.at(T + 120).connect(D); // the capture goes on a while: the worker is silent
    const text = m.text();
    return until === null ? text : text.replace(Q, `\\"retryUntil\\":${until}`);
  };
  const timedOut = (text: string) => explainCapture(text).findings.filter((f) => f.kind === 'timed-out');

  it('attempt 1 of 3 without a retryUntil: a try was left, so no timeout failed it', () => {
    expect(timedOut(quietAfterSlowDelete(null))).toEqual([]);
  });

  it('attempt 1 of 3 with a retryUntil: possible, and the title says what decides it', () => {
    const found = timedOut(quietAfterSlowDelete(T + 20));
    expect(found.map((f) => f.certainty)).toEqual(['possible']);
    expect(found[0]!.title).toContain(`the payload has retryUntil ${T + 20}`);
  });
});
