// lqsim explain's failed jobs (json's `failed`, ndjson's `failed` records, the footers): a row for
// each failure the capture proves, as failed_jobs would hold it, and none for a failure it only
// makes likely or possible. The truth is Laravel's own: the events its listeners logged beside
// each real Laravel 8.83 capture (JobFailed, and queue:work's failed_jobs.log), and Laravel 8.83's
// source for what the events do not carry (WorkCommand::logFailedJob logs $job->getRawBody(),
// RedisJob's $job: the string the pop script's LPOP took off the ready list).
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { failureException, UNKNOWN_EXCEPTION } from '../../src/explain/failed-jobs.ts';
import { explainCapture } from '../../src/explain/index.ts';
import { ExplainedJsonWriter } from '../../src/explain/json-writer.ts';
import { renderExplainedRecords } from '../../src/explain/records.ts';
import { captureSettings } from '../../src/explain/settings.ts';
import { CaptureExplainer } from '../../src/explain/timeline.ts';
import { makeChalk } from '../../src/output/colour.ts';
import { renderMarkdown } from '../../src/output/markdown.ts';
import { renderTextFooter } from '../../src/output/text.ts';
import { matchers } from '../../src/testing/matchers.ts';
import type { LaravelEvent } from '../fixtures/explain/read.ts';
import { captureText, laravelEvents } from '../fixtures/explain/read.ts';

const proven = new URL('../fixtures/explain-failed/', import.meta.url);
const pairs = new URL('../fixtures/explain/', import.meta.url);

const events = (dir: URL, name: string) => laravelEvents(name, dir);
const capture = (dir: URL, name: string): string => captureText(name, dir);

describe('a failure the capture proves: a job killed on its last try, failed by the next pop past $tries', () => {
  // laravel8-killed-past-tries (README.md beside it): ProbeTimeoutJob ($tries = 2), its workers
  // SIGKILLed in attempts 1 and 2, the third worker's pop is attempt 3: MaxAttemptsExceededException.
  const name = 'killed-past-tries';
  const said = events(proven, name);
  const text = capture(proven, name);
  const explained = explainCapture(text);
  const jobFailed = said.filter((e) => e.event === 'JobFailed');
  const logged = said.filter((e) => e.event === 'failed_jobs.log');

  it('Laravel failed it once (the events this test rests on)', () => {
    expect(jobFailed).toHaveLength(1);
    expect(logged).toHaveLength(1);
    expect(said.filter((e) => e.event === 'handle').map((e) => e.attempt)).toEqual([1, 2]);
  });

  it('tells each killed attempt once, beside the reservation that followed it', () => {
    // Two handle()s that never finished (attempts 1 and 2, their processes killed): each is
    // followed by the next worker's reservation, and only by that one.
    const killed = said.filter(
      (e) => e.event === 'handle' && !said.some((f) => f.pid === e.pid && /^Job(Processed|Failed)$/.test(f.event)),
    );
    expect(killed.map((e) => e.attempt)).toEqual([1, 2]);
    const kills = explained.findings.filter((f) => f.kind === 'killed-mid-job');
    expect(kills).toHaveLength(killed.length);
    expect(new Set(kills.map((f) => f.lines[0])).size).toBe(killed.length);
    expect(kills.map((f) => /attempt (\d+)\) and was never heard/.exec(f.title)?.[1])).toEqual(['1', '2']);
  });

  it('has the row failed_jobs holds: connection, queue, exception and message as Laravel logged them', () => {
    const [failed] = jobFailed as [LaravelEvent];
    const [log] = logged as [LaravelEvent];
    expect(explained.timeline.failed).toHaveLength(1);
    const [row] = explained.timeline.failed as [(typeof explained.timeline.failed)[number]];
    // The trace names jobs class#n in order of first appearance: the capture's one ProbeTimeoutJob.
    expect(row.job).toBe(`${String(failed.name).split('\\').pop()}#1`);
    // RedisJob::getJobId() is the payload's id (JobFailed's job_id).
    expect(row.id).toBe(failed.job_id);
    expect(row.connection).toBe(log.connection);
    expect(row.queue).toBe(log.queue);
    expect(row.exception).toBe(failed.exception);
    expect(row.exception).toBe(log.exception);
    expect(row.message).toBe(failed.message);
    // failed_at is Date::now() when the failer logs, just after the ZREM (Job::fail deletes, then
    // calls failed(), then fires JobFailed): the ZREM's whole second, or the one before it.
    expect(row.failedAt).toBeLessThanOrEqual(Number(log.now));
    expect(row.failedAt).toBeGreaterThanOrEqual(Number(log.now) - 1);
  });

  it("has getRawBody() as its payload: the copy the last pop took off the ready list, not the ZREM's", () => {
    const [failed] = jobFailed as [LaravelEvent];
    const [row] = explained.timeline.failed as [(typeof explained.timeline.failed)[number]];
    const lines = text
      .split('\n')
      .map((l, i) => captureEntry(l, i + 1))
      .filter((e): e is CapturedLine => e !== null && !isProblem(e));
    // The last pop's LPOP takes what the last RPUSH onto the ready list put there: here the
    // migrate that moved attempt 2's :reserved copy back (rpush KEY payload, in the script's lines).
    const lastZrem = lines.filter((e) => e.line.args[0] === 'ZREM').at(-1)!;
    const rpushes = lines.filter(
      (e) =>
        e.line.client === 'lua' &&
        e.line.args[0] === 'rpush' &&
        e.line.args[1] === 'laravel_database_queues:default' &&
        e.lineNo < lastZrem.lineNo,
    );
    const taken = rpushes.at(-1)!.line.args[2]!;
    expect(row.payload).toBe(taken);
    expect(row.payload).not.toBe(lastZrem.line.args[2]);
    const body = JSON.parse(row.payload) as Record<string, unknown>;
    // RedisJob::attempts() is the raw body's attempts + 1 (JobFailed's attempts).
    expect(body.attempts).toBe(Number(failed.attempts) - 1);
    expect(body.uuid).toBe(failed.uuid);
    expect(body.id).toBe(failed.job_id);
  });

  it("is the life that ends failed, and the matchers' failed job", () => {
    expect(explained.lives.filter((l) => l.outcome === 'failed').map((l) => l.job)).toEqual(['ProbeTimeoutJob#1']);
    expect(matchers.toHaveFailedJob(explained.timeline, 'ProbeTimeoutJob#1', 'MaxAttemptsExceededException').pass).toBe(
      true,
    );
  });

  it("is in the text and markdown footers, with Laravel's exception and message", () => {
    const [failed] = jobFailed as [LaravelEvent];
    const text = renderTextFooter(explained.timeline, { chalk: makeChalk(0), width: 400 });
    expect(text).toContain('failed jobs: 1\n  ProbeTimeoutJob#1 at t+5s on redis/default\n');
    expect(text).toContain(`${String(failed.exception)}: ${String(failed.message)}`);
    expect(renderMarkdown(explained.timeline)).toMatch(
      /^- Failed: ProbeTimeoutJob\\#1 at t\+5s: `Illuminate\\Queue\\MaxAttemptsExceededException`: /m,
    );
  });

  it('is in ndjson as a `failed` record, and in json as streamed by the CLI (written at the end)', () => {
    const records = renderExplainedRecords(explained, explained.settings)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.filter((r) => r.record === 'failed')).toEqual(
      explained.timeline.failed.map((f) => ({ record: 'failed', ...f })),
    );

    // As `lqsim explain --format json` does: the header first, each step as it ends, no step kept.
    const lines = text
      .split('\n')
      .map((l, i) => captureEntry(l, i + 1))
      .filter((e): e is CapturedLine => e !== null && !isProblem(e));
    const config = captureConfiguration(lines);
    let out = '';
    const json = new ExplainedJsonWriter((s) => (out += s));
    const explainer = new CaptureExplainer(config, { file: 'x', allLives: true, onStep: (s) => json.step(s) });
    json.begin(explainer.timeline);
    for (const l of lines) explainer.add(l);
    json.end(explainer.finish(), captureSettings(config));
    const doc = JSON.parse(out) as { failed: unknown[] };
    expect(doc.failed).toEqual(JSON.parse(JSON.stringify(explained.timeline.failed)));
    expect(doc.failed).toHaveLength(1);
  });
});

describe('a failure the capture does not prove has no row', () => {
  // Laravel failed each of these jobs (its events say so), but the same Redis traffic is also a
  // success (test/fixtures/explain/README.md): a --tries the traffic does not carry, a --once exit.
  it.each([
    'max-attempts',
    'max-attempts-tries1',
    'harness-max-attempts-tries1',
    'timed-out',
    'harness-timed-out',
    'once-failed',
    'timeout-kills',
  ])('%s: Laravel failed it, explain lists no failed job', (name) => {
    expect(events(pairs, name).some((e) => e.event === 'JobFailed')).toBe(true);
    const e = explainCapture(capture(pairs, name));
    expect(e.timeline.failed).toEqual([]);
    expect(e.lives.some((l) => l.outcome === 'failed')).toBe(false);
    expect(renderExplainedRecords(e, e.settings)).not.toContain('"record":"failed"');
  });

  it.each(
    readdirSync(pairs)
      .filter((f) => f.endsWith('.events.jsonl'))
      .map((f) => f.replace(/^laravel8-|\.events\.jsonl$/g, '')),
  )('%s: every row is a life that ends failed, and a JobFailed with its exception', (name) => {
    const e = explainCapture(capture(pairs, name));
    const said = events(pairs, name);
    expect(e.timeline.failed.map((f) => f.job)).toEqual(
      e.lives.filter((l) => l.outcome === 'failed').map((l) => l.job),
    );
    for (const f of e.timeline.failed)
      expect(said.some((x) => x.event === 'JobFailed' && x.exception === f.exception && x.job_id === f.id)).toBe(true);
  });
});

describe("the exception a proven failure is logged with, by the capture's releases", () => {
  // shared/reference/laravel-versions.md 2.2 (Worker::maxAttemptsExceededException at each tag):
  // 5.3-5.4 "A queued job has been attempted too many times. ..."; 5.5-10.9 "<Job> has been
  // attempted too many times or run too long. ..."; 10.10+ "<Job> has been attempted too many
  // times."; the timeout's own TimeoutExceededException ("<Job> has timed out.") from 10.10.
  const MAX = 'Illuminate\\Queue\\MaxAttemptsExceededException';
  const job = 'App\\Jobs\\Report';

  it('past the tries: MaxAttemptsExceededException in every release, its message as the releases word it', () => {
    expect(failureException('max-attempts-exceeded', { from: '5.8', to: '9.22' }, job)).toEqual({
      exception: MAX,
      message: `${job} has been attempted too many times or run too long. The job may have previously timed out.`,
    });
    expect(failureException('max-attempts-exceeded', { from: '5.3', to: '5.3' }, job)).toEqual({
      exception: MAX,
      message: 'A queued job has been attempted too many times. The job may have previously timed out.',
    });
    expect(failureException('max-attempts-exceeded', { from: '12.45', to: '13.x' }, job)).toEqual({
      exception: MAX,
      message: `${job} has been attempted too many times.`,
    });
    // 9.23 to 13.x spans 10.10's new wording: the class is known, the message is not.
    const spanning = failureException('max-attempts-exceeded', { from: '9.23', to: '13.x' }, job);
    expect(spanning.exception).toBe(MAX);
    expect(spanning.message).toMatch(/^not told by the capture/);
    expect(spanning.message).toContain(`"${job} has been attempted too many times."`);
    expect(spanning.message).toContain('or run too long');
  });

  it("a timeout's failure: MaxAttemptsExceededException to 10.9, TimeoutExceededException from 10.10, unknown across", () => {
    expect(failureException('timed-out', { from: '5.8', to: '9.22' }, job).exception).toBe(MAX);
    expect(failureException('timed-out', { from: '12.45', to: '13.x' }, job)).toEqual({
      exception: 'Illuminate\\Queue\\TimeoutExceededException',
      message: `${job} has timed out.`,
    });
    const spanning = failureException('timed-out', { from: '9.23', to: '13.x' }, job);
    expect(spanning.exception).toBe(UNKNOWN_EXCEPTION);
    expect(spanning.message).toContain('Illuminate\\Queue\\TimeoutExceededException');
  });

  it('a rule that does not fix the exception (one the job threw): unknown, said so, and no matcher takes it for a class', () => {
    const thrown = failureException('ran-again', { from: '5.8', to: '9.22' }, job);
    expect(thrown.exception).toBe(UNKNOWN_EXCEPTION);
    expect(thrown.message).toMatch(/^not in the capture/);
    const timeline = explainCapture(capture(proven, 'killed-past-tries')).timeline;
    const unknown = { ...timeline, failed: timeline.failed.map((f) => ({ ...f, ...thrown })) };
    expect(matchers.toHaveFailedJob(unknown, 'ProbeTimeoutJob#1').pass).toBe(true);
    expect(matchers.toHaveFailedJob(unknown, 'ProbeTimeoutJob#1', 'Exception').pass).toBe(false);
    expect(matchers.toHaveFailedJob(unknown, 'ProbeTimeoutJob#1', /Exception:/).pass).toBe(false);
  });
});
