// The worker and job options zod cannot judge alone: an option the scenario's Laravel version does
// not have yet (refused with the release that brought it, rather than silently ignored: the
// version's model would not send what that version sends), and options that contradict each other.
import { clusterProblems } from './cluster-config.ts';
import type { LaravelProfile } from '../sim/profiles/types.ts';
import type { Path, Problem } from './schema-issues.ts';
import type { ScenarioSpec, WorkerSpec } from './schema.ts';

/** A queue:work option or job property that arrived in a later Laravel than some profiles model. */
interface Arrival<T> {
  key: keyof T & string;
  /** What a Laravel developer writes. */
  what: string;
  /** The release that brought it, and where that is seen. */
  since: string;
  has(p: LaravelProfile): boolean;
  /** Whether the scenario uses it (default: the key is present). */
  used?(value: unknown): boolean;
}

const WORKER_OPTIONS: Arrival<WorkerSpec>[] = [
  {
    key: 'backoff',
    what: '--backoff',
    since: '8.0.0 (WorkCommand.php@v8.0.0:30; 5.x has --delay, one number)',
    has: (p) => p.worker.backoff === 'list',
  },
  {
    key: 'stop_when_empty',
    what: '--stop-when-empty',
    since: '5.7.2 (WorkCommand.php@v5.7.2:26)',
    has: (p) => p.worker.workOptions.stopWhenEmpty,
  },
  {
    key: 'max_jobs',
    what: '--max-jobs',
    since: '8.0.0 (WorkCommand.php@v8.0.0:31)',
    has: (p) => p.worker.workOptions.maxJobs,
  },
  {
    key: 'max_time',
    what: '--max-time',
    since: '8.0.0 (WorkCommand.php@v8.0.0:32)',
    has: (p) => p.worker.workOptions.maxTime,
  },
  {
    key: 'rest',
    what: '--rest',
    since: '8.32.0 (WorkCommand.php@v8.32.0:36)',
    has: (p) => p.worker.workOptions.rest,
  },
];

type JobSpec = ScenarioSpec['jobs'][string];

/**
 * The keys of a job payload the profile builds: a job property exists in a version exactly when
 * its payload carries it (RedisJob reads it from there).
 */
function payloadKeys(p: LaravelProfile): Set<string> {
  const payload = p.buildPayload({
    className: 'App\\Jobs\\X',
    tries: null,
    timeout: null,
    timeoutAt: null,
    properties: [],
    connection: null,
    queue: null,
    delay: null,
    command: null,
    id: 'x',
    uuid: 'x',
    backoff: null,
    backoffDeclared: null,
    maxExceptions: null,
    failOnTimeout: false,
    createdAt: 0,
  });
  return new Set(Object.keys(payload));
}

const carries = (p: LaravelProfile, ...keys: string[]) => keys.some((k) => payloadKeys(p).has(k));

const JOB_OPTIONS: Arrival<JobSpec>[] = [
  {
    key: 'retry_until',
    what: 'retryUntil()',
    since: "5.5.0 (the payload's timeoutAt, Queue.php@v5.5.0:125)",
    has: (p) => p.worker.timeoutAt && carries(p, 'timeoutAt', 'retryUntil'),
    used: (v) => v !== null,
  },
  {
    key: 'max_exceptions',
    what: 'public $maxExceptions',
    since: '7.0.0 (Queue.php@v7.0.0:134)',
    has: (p) => carries(p, 'maxExceptions'),
    used: (v) => v !== null,
  },
  {
    key: 'backoff',
    what: 'public $backoff',
    since: '8.0.0 (Queue.php@v8.0.0:135)',
    has: (p) => carries(p, 'backoff'),
    used: (v) => v !== null,
  },
  {
    key: 'fail_on_timeout',
    what: 'public $failOnTimeout',
    since: '8.43.0 (Queue.php@v8.43.0:146)',
    has: (p) => carries(p, 'failOnTimeout'),
    used: (v) => v === true,
  },
];

/**
 * What the scenario sets that its Laravel version lacks. `as` names the version the run plays
 * ("this scenario is Laravel 5.7", or a --laravel override).
 */
export function versionProblems(spec: ScenarioSpec, profile: LaravelProfile, as: string): Problem[] {
  const problems: Problem[] = [];
  const refuse = <T>(arrivals: Arrival<T>[], value: T, path: Path) => {
    for (const a of arrivals) {
      const v = value[a.key];
      const used = a.used ? a.used(v) : v !== undefined;
      if (used && !a.has(profile))
        problems.push({ path: [...path, a.key], detail: `${a.what} arrived in Laravel ${a.since}; ${as}` });
    }
  };
  spec.workers.forEach((w, i) => refuse(WORKER_OPTIONS, w, ['workers', i]));
  for (const [name, job] of Object.entries(spec.jobs)) refuse(JOB_OPTIONS, job, ['jobs', name]);
  problems.push(...cacheProblems(spec, profile, as));
  problems.push(...clusterProblems(spec, profile, as));
  return problems;
}

/** Worker options that contradict each other, whatever the version. */
export function workerOptionProblems(spec: ScenarioSpec): Problem[] {
  const problems: Problem[] = [];
  spec.workers.forEach((w, i) => {
    if (w.once) {
      // WorkCommand runs Worker::runNextJob for --once: one pop, its job or one sleep, return.
      for (const [key, flag] of [
        ['stop_when_empty', '--stop-when-empty'],
        ['max_jobs', '--max-jobs'],
        ['max_time', '--max-time'],
        ['rest', '--rest'],
      ] as const) {
        if (w[key] !== undefined && w[key] !== false && w[key] !== 0)
          problems.push({
            path: ['workers', i, key],
            detail: `${flag} does nothing with once: true (--once runs Worker::runNextJob, which processes one job and returns; only Worker::daemon reads ${flag})`,
          });
      }
    }
    if (w.backoff !== undefined && w.delay > 0)
      problems.push({
        path: ['workers', i, 'backoff'],
        detail:
          'give backoff or the deprecated delay, not both: queue:work takes max(--backoff, --delay), which compares a list such as "1,5,10" as a string',
      });
  });
  return problems;
}

/** The cache store's features the version lacks: job middleware, unique jobs, lock_connection. */
function cacheProblems(spec: ScenarioSpec, profile: LaravelProfile, as: string): Problem[] {
  const problems: Problem[] = [];
  const rules = profile.cache;
  if (spec.cache?.lock_connection != null && !rules.lockConnectionOption)
    problems.push({
      path: ['cache', 'lock_connection'],
      detail: `lock_connection arrived in Laravel 8.20.0 (CacheManager reads it); ${as}`,
    });
  for (const [name, job] of Object.entries(spec.jobs)) {
    if (job.middleware.length > 0 && rules.middleware !== null)
      problems.push({ path: ['jobs', name, 'middleware'], detail: `${rules.middleware}; ${as}` });
    job.middleware.forEach((m, i) => {
      const o = 'without_overlapping' in m ? m.without_overlapping : null;
      if (o !== null && typeof o === 'object' && o.shared && !rules.sharedOverlap)
        problems.push({
          path: ['jobs', name, 'middleware', i, 'without_overlapping', 'shared'],
          detail: `WithoutOverlapping::shared() arrived in Laravel 9.32.0; ${as}`,
        });
    });
    if (job.unique !== undefined && rules.unique !== null)
      problems.push({ path: ['jobs', name, 'unique'], detail: `${rules.unique}; ${as}` });
  }
  return problems;
}
