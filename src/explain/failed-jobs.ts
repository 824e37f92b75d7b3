// The failed_jobs rows a capture proves: for each job whose life ends `failed` (a finding's certain
// reading of its delete, explain/outcome.ts), the row queue:work's failer logs
// (WorkCommand::logFailedJob: the connection's name, getQueue(), getRawBody(), the exception), as
// `lqsim run`'s timelines list them (sim/state.ts FailedJob). A failure the capture only makes
// likely or possible has no row: the life says both stories instead.
//
// What the capture cannot show is said so, never made up:
// - the connection's name (config/queue.php's key) is not sent to Redis: CONNECTION below;
// - the exception is the rule's where Laravel's Worker fixes it (MaxAttemptsExceededException
//   past the tries, the timeout's class by release), else UNKNOWN_EXCEPTION, with a message
//   that says why; where the capture's releases span a change of class or wording, both are said;
// - the payload is getRawBody(), the copy the pop took off the ready list (not the :reserved copy
//   the pop wrote, which the ZREM names): '' when that copy is not in the capture;
// - failedAt is MONITOR's second of the delete, as every time of the timeline is: failed_at is the
//   app's Date::now() just after it, the same second or the next on the app's clock; where the
//   app's clock is apart from Redis' (timeline.appClockApart) the capture does not tell it.
import type { FailedJob } from '../scenarios/timeline.ts';
import type { FindingKind } from './findings.ts';
import type { Releases } from './recognise.ts';

/**
 * The connection's name: Laravel names the queue connection in config/queue.php, and Redis never
 * sees it. "redis" is the skeleton's (and the name this timeline's jobs carry).
 */
export const CONNECTION = 'redis';

/**
 * The exception of a failure whose class the capture cannot tell (one the job threw, or a release
 * range over which the class changed). Not a PHP class name (the parentheses), so a test's
 * `toHaveFailedJob(job, SomeException)` never matches it, and text prints "(unknown): why".
 */
export const UNKNOWN_EXCEPTION = '(unknown)';

/** What the capture keeps of a delete that may be proven a failure (explain/job-life.ts). */
export interface FailableDelete {
  /** RedisJob::getJobId(): the payload's `id` (its `uuid` when it has none). */
  id: string;
  /** Job::resolveName(): the payload's displayName, else its `job`. */
  name: string;
  /** getRawBody(): the copy the pop took off the ready list, if the capture holds it. */
  payload: string | undefined;
}

/** The failed_jobs row of a proven failure. */
export function failedJob(o: {
  label: string;
  /** The job's id as the timeline names it: used only when the delete's copy was not kept. */
  jobId: string;
  queue: string;
  /** The finding that proves it, by kind. */
  kind: FindingKind;
  /** MONITOR's time of the delete. */
  t: number;
  releases: Releases | null | undefined;
  kept: FailableDelete | undefined;
}): FailedJob {
  const { exception, message } = failureException(o.kind, o.releases, o.kept?.name);
  return {
    job: o.label,
    id: o.kept?.id ?? o.jobId,
    connection: CONNECTION,
    queue: o.queue,
    exception,
    message,
    failedAt: Math.floor(o.t),
    payload: o.kept?.payload ?? '',
  };
}

/** An exception Laravel fails a job with, over a range of releases. */
interface Thrown {
  from: string;
  to: string;
  exception: string;
  message: (name: string) => string;
}

const MAX_ATTEMPTS = 'Illuminate\\Queue\\MaxAttemptsExceededException';

/**
 * MaxAttemptsExceededException's message by release (shared/reference/laravel-versions.md 2.2;
 * sim/profiles' maxAttemptsMessage): Worker::maxAttemptsExceededException, then (10.10, #46968)
 * MaxAttemptsExceededException::forJob.
 */
const MAX_ATTEMPTS_BY_RELEASE: Thrown[] = [
  {
    from: '5.3',
    to: '5.4',
    exception: MAX_ATTEMPTS,
    message: () => 'A queued job has been attempted too many times. The job may have previously timed out.',
  },
  {
    from: '5.5',
    to: '10.9',
    exception: MAX_ATTEMPTS,
    message: (name) =>
      `${name} has been attempted too many times or run too long. The job may have previously timed out.`,
  },
  {
    from: '10.10',
    to: '13.x',
    exception: MAX_ATTEMPTS,
    message: (name) => `${name} has been attempted too many times.`,
  },
];

/**
 * What each rule's failure is logged with. max-attempts-exceeded: markJobAsFailedIfAlreadyExceedsMaxAttempts,
 * every release. timed-out: the SIGALRM handler's markJobAsFailedIfWillExceedMaxAttempts, from
 * 5.8.28 (before, it fails nothing) with MaxAttemptsExceededException, from 10.10 with
 * TimeoutExceededException (Laravel 8.83: Worker::registerTimeoutHandler → maxAttemptsExceededException).
 */
const BY_KIND: Partial<Record<FindingKind, Thrown[]>> = {
  'max-attempts-exceeded': MAX_ATTEMPTS_BY_RELEASE,
  // The same check (markJobAsFailedIfAlreadyExceedsMaxAttempts): the attempts were spent by middleware releases.
  'attempts-spent-by-middleware': MAX_ATTEMPTS_BY_RELEASE,
  'timed-out': [
    { ...MAX_ATTEMPTS_BY_RELEASE[1]!, from: '5.8' },
    {
      from: '10.10',
      to: '13.x',
      exception: 'Illuminate\\Queue\\TimeoutExceededException',
      message: (name) => `${name} has timed out.`,
    },
  ],
};

/**
 * The exception class and message failed_jobs holds for a failure proven by `kind`, for a capture
 * whose scripts are those of `releases`; `name` is the job's resolveName() (undefined: not kept).
 */
export function failureException(
  kind: FindingKind,
  releases: Releases | null | undefined,
  name: string | undefined,
): { exception: string; message: string } {
  const candidates = (BY_KIND[kind] ?? []).filter((t) => overlaps(t, releases));
  const shownName = name ?? 'the job (its payload is not in the capture)';
  if (candidates.length === 0)
    return {
      exception: UNKNOWN_EXCEPTION,
      message: `not in the capture: MONITOR shows the delete (${kind}), not the exception the job failed with`,
    };
  const [first] = candidates as [Thrown, ...Thrown[]];
  if (candidates.length === 1) return { exception: first.exception, message: first.message(shownName) };
  const span = `its scripts are sent by ${releases === null || releases === undefined ? 'releases it does not tell' : rangeName(releases)}`;
  const sameClass = candidates.every((t) => t.exception === first.exception);
  const each = candidates
    .map((t) => `${sameClass ? '' : `${t.exception}: `}"${t.message(shownName)}" (${rangeName(t)})`)
    .join(', or ');
  return sameClass
    ? { exception: first.exception, message: `not told by the capture (${span}): ${each}` }
    : { exception: UNKNOWN_EXCEPTION, message: `not told by the capture (${span}): ${each}` };
}

function rangeName(r: { from: string; to: string }): string {
  return r.from === r.to ? r.from : `${r.from} to ${r.to}`;
}

/** Whether the releases `t` holds for meet the capture's (unknown releases meet all). */
function overlaps(t: { from: string; to: string }, releases: Releases | null | undefined): boolean {
  if (releases === null || releases === undefined) return true;
  return !before(t.to, releases.from) && !before(releases.to, t.from);
}

/** "9.23" as [9, 23]; "13.x" as [13, Infinity] (as explain/recognise.ts reads them). */
function release(v: string): [number, number] {
  const [major, minor] = v.split('.');
  return [Number(major), minor === 'x' ? Infinity : Number(minor)];
}

function before(a: string, b: string): boolean {
  const [x, y] = [release(a), release(b)];
  return x[0] < y[0] || (x[0] === y[0] && x[1] < y[1]);
}
