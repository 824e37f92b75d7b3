// What the worker's steps say: titles and explanations, as pure functions of what happened. The
// worker (worker.ts, worker-job.ts) decides; this only words it. The methods trail is the worker's.
import { formatSeconds, later, relativeTime, secondsBetween } from './clock.ts';
import { shortClass } from './exceptions.ts';
import type { WorkerRules } from './profiles/types.ts';
import type { Wake } from './redis-queue.ts';
import type { StepDescription } from './scheduler.ts';
import type { WorkerStatus } from './state.ts';

/** A step's words: its kind, one-line title and, for some, why. */
export type Narration = Pick<StepDescription, 'kind' | 'title' | 'explain'>;

/** What the texts need of the worker's setup. */
export interface Setup {
  /** Virtual unix time of t=0: times are told as t+Ns. */
  start: number;
  /** The connection's retry_after in seconds (null: a reservation never expires). */
  retryAfter: number | null;
}

/** A virtual time relative to t=0: `t+90s`, `t+0.5s`. */
export function rel(s: Setup, t: number): string {
  return relativeTime(t, s.start);
}

/** SendEmail#1 for a job the registry knows; otherwise the short class and the id's start. */
export function jobLabel(known: string | undefined, className: string, id: string): string {
  return known ?? `${shortClass(className)}#${id.slice(0, 6)}`;
}

/** Until when a job reserved at `now` (Laravel's time(), whole seconds) stays reserved. */
export function untilText(s: Setup, now: number): string {
  const r = s.retryAfter;
  return r === null ? `forever (retry_after is null)` : `${rel(s, now + r)} (retry_after ${r}s)`;
}

/** When the reservation of the job popped at `poppedAt` expires. */
export function reservedUntil(s: Setup, poppedAt: number | null): string {
  const r = s.retryAfter;
  return r === null || poppedAt === null ? `never (retry_after is null)` : rel(s, poppedAt + r);
}

/** What armed the alarm, in the user's terms. */
export function alarmReason(alarm: WorkerRules['alarm']): string {
  return alarm === 'timeout-plus-sleep' ? '--timeout + --sleep, as 5.3 arms it' : '--timeout';
}

/** The two clocks that decide a long job's fate: its reservation and the worker's alarm. */
export function deadlines(
  s: Setup,
  d: { finishAt: number; alarmAt: number | null; poppedAt: number | null; once: boolean },
): string {
  const { finishAt, alarmAt } = d;
  const reservedUntil = s.retryAfter === null || d.poppedAt === null ? null : d.poppedAt + s.retryAfter;
  const alarm =
    alarmAt !== null
      ? `the alarm fires at ${rel(s, alarmAt)}`
      : d.once
        ? 'no alarm (--once never arms one)'
        : 'no alarm (--timeout=0)';
  const reservation =
    reservedUntil === null
      ? `the reservation never expires (retry_after is null)`
      : `the reservation expires at ${rel(s, reservedUntil)}`;
  let verdict = '';
  if (reservedUntil !== null && reservedUntil < finishAt && (alarmAt === null || reservedUntil < alarmAt)) {
    verdict = ': the reservation expires while it still runs, so another worker can migrate it and run it again';
  } else if (alarmAt !== null && alarmAt <= finishAt) {
    verdict =
      reservedUntil !== null && alarmAt < reservedUntil
        ? ': the alarm kills the worker before the reservation expires, so the job is never run twice at once'
        : '';
  } else if (alarmAt !== null && reservedUntil !== null && alarmAt < reservedUntil) {
    verdict = ': it finishes first, and were it stuck, the alarm would kill it before the reservation expires';
  }
  return `Finishes at ${rel(s, finishAt)}; ${reservation}; ${alarm}${verdict}.`;
}

// The daemon loop and the supervisor.

export function restart(name: string): Narration {
  return {
    kind: 'restart',
    title: `supervisor restarts ${name}: a new PHP process with a new Redis connection`,
    explain:
      'The killed process never reached its catch/finally blocks, so nothing was sent to Redis; the job is still in :reserved.',
  };
}

/** A kill entry found no process: the worker has not started, or has exited. */
export function nothingToKill(name: string, status: WorkerStatus): Narration {
  const why = status.kind === 'stopped' ? `it exited (${status.reason})` : 'it has no process running';
  return { kind: 'kill', title: `SIGKILL to ${name}: nothing to kill, ${why}` };
}

/** SIGKILL from outside: no handler runs, nothing more reaches Redis. */
export function killedFromOutside(
  s: Setup,
  d: { name: string; label: string | null; poppedAt: number | null },
): Narration {
  return {
    kind: 'kill',
    title: d.label
      ? `SIGKILL to ${d.name} (from outside) while it runs ${d.label}: the process dies; the job stays in :reserved`
      : `SIGKILL to ${d.name} (from outside): the process dies while idle`,
    explain: d.label
      ? `No catch, finally or timeout handler runs, so nothing is sent to Redis: the reserved copy waits until ${reservedUntil(s, d.poppedAt)}, when a pop migrates it back and its attempts already count this run.`
      : 'No handler runs and nothing is sent to Redis; its connection closes.',
  };
}

export function stoppedBySignal(name: string): Narration {
  return { kind: 'stop', title: `${name} exits: SIGTERM was received (Worker::stop)` };
}

/** Worker::runNextJob returned: `hadJob`, it ran the job it popped; else it slept --sleep once. */
export function stoppedAfterOnce(name: string, hadJob = true): Narration {
  return {
    kind: 'stop',
    title: hadJob ? `${name} exits after one job (--once)` : `${name} exits after one poll that found no job (--once)`,
  };
}

/** How the BLPOP that this step wakes from ended, as the title's opening words. */
export function wakeText(w: Wake): string {
  if (w.by === 'timeout') {
    return `BLPOP timed out after ${formatSeconds(w.waited)}s${w.waited === w.blockFor ? ' (block_for)' : ''} with nothing`;
  }
  const after = w.waited > 0 ? ` after ${formatSeconds(w.waited)}s` : '';
  return w.list === 'notify'
    ? `a push's notification woke the BLPOP${after}, so it popped again`
    : `a push woke the BLPOP${after}`;
}

/**
 * getNextJob reserved a job; `blpop`: 5.6-5.7's BLPOP of the ready list did it, not the pop script;
 * `woke`: the step wakes from a BLPOP that ended so.
 */
export function popped(
  s: Setup,
  /** `now`: Laravel's time() at the pop, which the reservation's score counts from. */
  d: { label: string; attempts: number; now: number; blpop: boolean; woke?: Wake | null },
): Narration {
  return {
    kind: 'pop',
    title: `pop: ${d.woke ? `${wakeText(d.woke)}: ` : ''}reserved ${d.label} (attempts ${d.attempts}) until ${untilText(s, d.now)}`,
    explain: d.blpop
      ? 'BLPOP took the payload; PHP incremented attempts, re-encoded it and ZADDed it to :reserved (not atomic: a crash in between loses the job).'
      : 'The pop script moved the payload to :reserved with attempts + 1, re-encoded by cjson (key order changes).',
  };
}

/** No queue had a job; `woke`: the step wakes from a BLPOP that ended so. */
export function nothingPopped(queue: string, sleep: number, woke: Wake | null = null): Narration {
  const title = `pop: ${woke ? `${wakeText(woke)}: ` : ''}no job on ${queue}; sleeping ${sleep}s (--sleep)`;
  if (woke?.by !== 'timeout') return { kind: 'pop', title };
  return {
    kind: 'pop',
    title,
    explain:
      woke.list === 'notify'
        ? 'BLPOP on :notify returned nil, so retrieveNextJob returns [null, null] without popping again: only a notification makes it pop once more.'
        : 'BLPOP on the ready list returned nil, so blockingPop returns [null, null]: nothing was reserved.',
  };
}

// One job: Worker::process and what handle() did.

/** handle() starts at the instant `now` and runs `run` seconds; `killAt`: the alarm fires before it finishes. */
export function processing(
  s: Setup,
  d: {
    label: string;
    attempt: number;
    run: number;
    now: number;
    killAt: number | null;
    alarmAt: number | null;
    poppedAt: number | null;
    once: boolean;
  },
): Narration {
  return {
    kind: 'process',
    title:
      `process: ${d.label} attempt ${d.attempt} starts; handle() runs ${d.run}s` +
      (d.killAt !== null ? ` (the ${formatSeconds(secondsBetween(d.now, d.killAt))}s alarm fires first)` : ''),
    explain: deadlines(s, { finishAt: later(d.now, d.run), alarmAt: d.alarmAt, poppedAt: d.poppedAt, once: d.once }),
  };
}

/** `now`: Laravel's time() (the release script's score is now + seconds). */
export function releasedByJob(s: Setup, label: string, seconds: number, now: number): Narration {
  return {
    kind: 'release',
    title: `${label} calls $this->release(${seconds}): back to :delayed, due at ${rel(s, now + seconds)}`,
  };
}

export function failedByJob(label: string): Narration {
  return { kind: 'fail', title: `${label} calls $this->fail(): deleted and recorded as failed` };
}

export function deletedByJob(label: string, removed: number): Narration {
  return { kind: 'delete', title: `${label} calls $this->delete(): ZREM removed ${removed}` };
}

export function succeeded(label: string, removed: number): Narration {
  return {
    kind: 'delete',
    title: `${label} succeeded: delete from :reserved (ZREM removed ${removed})`,
    explain:
      removed === 0
        ? 'ZREM removed nothing: the reserved copy this worker holds is no longer there (it was migrated back and re-reserved by another pop).'
        : 'ZREM names the reserved copy (attempts + 1, re-encoded when it was reserved), not the payload that was pushed.',
  };
}

/** markJobAsFailedIfAlreadyExceedsMaxAttempts failed the job before it ran. */
export function failedBeforeRunning(
  s: Setup,
  d: {
    label: string;
    attempts: number;
    maxTries: number;
    timeoutAt: number | null;
    /** How the attempt before this one went (JobRegistry.lastAttempt). */
    previous: { runningOn: string } | 'killed' | null;
  },
): Narration {
  return {
    kind: 'fail',
    title: `${d.label} attempt ${d.attempts} > tries ${d.maxTries}: MaxAttemptsExceededException before it runs`,
    explain: d.timeoutAt
      ? `retryUntil (timeoutAt ${rel(s, d.timeoutAt)}) has passed.`
      : d.previous === 'killed'
        ? 'This is how a job killed by the timeout finally fails: its reservation expired, it was migrated back and popped again.'
        : d.previous !== null
          ? `${d.previous.runningOn} is still running attempt ${d.attempts - 1}: its reservation expired first (retry_after is shorter than the job), so a pop migrated it back and reserved it again. It fails here; ${d.previous.runningOn}'s handle() runs on.`
          : 'An earlier attempt never finished: its reservation expired, it was migrated back and popped again.',
  };
}

/** handleJobException released the job; `backoff`: 8.x's calculateBackoff chose the delay, not --delay. */
export function releasedAfterException(d: {
  label: string;
  message: string;
  delay: number;
  backoff: boolean;
  attempts: number;
  maxTries: number;
}): Narration {
  return {
    kind: 'release',
    title: `${d.label} threw "${d.message}": released to :delayed for ${d.delay}s (${d.backoff ? 'backoff' : '--delay'}), attempt ${d.attempts} of ${d.maxTries || 'unlimited'}`,
  };
}

export function failedAfterException(d: {
  label: string;
  message: string;
  attempts: number;
  maxTries: number;
}): Narration {
  return {
    kind: 'fail',
    title: `${d.label} threw "${d.message}" on attempt ${d.attempts} of ${d.maxTries}: failed`,
  };
}

// The alarm.

/** SIGALRM killed the process: while idle (no label), after failing the job, or leaving it reserved. */
export function killed(
  s: Setup,
  d: {
    name: string;
    label: string | null;
    failed: boolean;
    seconds: number;
    alarm: WorkerRules['alarm'];
    poppedAt: number | null;
  },
): Narration {
  const { name, label } = d;
  const sigalrm = `SIGALRM after ${d.seconds}s (${alarmReason(d.alarm)})`;
  return {
    kind: 'kill',
    title: !label
      ? `${sigalrm}: ${name} is killed while idle`
      : d.failed
        ? `${sigalrm}: ${label} is failed first (its last attempt, or failOnTimeout/maxExceptions); then ${name} is killed`
        : `${sigalrm}: ${name} is killed while running ${label}; it stays in :reserved`,
    explain: !label
      ? undefined
      : d.failed
        ? 'Since 5.8.28 the timeout handler fails a job that cannot be tried again before it kills the process, so it does not sit in :reserved until retry_after.'
        : `The reservation expires at ${reservedUntil(s, d.poppedAt)}; only then will a pop migrate it back. Its attempts already count this run.`,
  };
}
