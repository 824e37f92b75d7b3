// What the worker's steps say: titles and explanations, as pure functions of what happened. The
// worker (worker.ts, worker-job.ts) decides; this only words it. The methods trail is the worker's.
import type { JobException } from './exceptions.ts';
import { formatSeconds, later, relativeTime, secondsBetween } from './clock.ts';
import { shortClass } from './exceptions.ts';
import type { LockHolder } from './cache.ts';
import type { MiddlewareOutcome } from './job-middleware.ts';
import type { WorkerRules } from './profiles/types.ts';
import type { JobRegistry } from './registry.ts';
import type { ExitReason } from './worker-input.ts';
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

/** supervisord starts a new process: after a kill (`exited` null), or after a clean exit for `exited`. */
export function restart(name: string, exited: ExitReason | null = null): Narration {
  return {
    kind: 'restart',
    title: `supervisor restarts ${name}: a new PHP process with a new Redis connection`,
    explain:
      exited === null
        ? 'The killed process never reached its catch/finally blocks, so nothing was sent to Redis; the job is still in :reserved.'
        : `queue:work returned 0 after ${exited}; supervisord's autorestart=true starts it again. That is what ${exited} is for: a fresh process, with the memory and state the old one built up given back.`,
  };
}

/** supervisord starts the program again after its process exited on SIGTERM, with `flags` changed. */
export function restartWithOptions(name: string, flags: string, killed: boolean): Narration {
  const ended = killed
    ? 'the process that got SIGTERM was killed before it finished its job (nothing more reached Redis)'
    : 'the process that got SIGTERM finished its job and exited';
  return {
    kind: 'restart',
    title: `supervisor restarts ${name}${flags === '' ? '' : ` with ${flags}`}: a new PHP process with a new Redis connection`,
    explain: `queue:work reads its options and config/queue.php only when it starts: ${ended}, and supervisord starts the same program again (supervisorctl restart after a deploy or an edit of its command line).`,
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

/** Worker::stopIfNecessary ended the daemon for one of its options (not SIGTERM); queue:work returns 0. */
export function stoppedByOption(
  s: Setup,
  d: {
    name: string;
    reason: Exclude<ExitReason, 'SIGTERM' | '--once'>;
    now: number;
    startTime: number;
    maxTime: number;
    jobs: number;
    sleep: number;
    /** The supervisor starts a new process (restartsAfterExit). */
    restarts: boolean;
  },
): Narration {
  const after = d.restarts
    ? 'the supervisor starts a new process'
    : d.reason === '--stop-when-empty'
      ? 'nothing restarts it: a --stop-when-empty worker is run to drain the queue (cron, a Kubernetes Job), not under autorestart, where it would start, find nothing and exit forever'
      : 'restart is off, so no new process';
  const ran = d.now - d.startTime;
  switch (d.reason) {
    case '--stop-when-empty':
      return {
        kind: 'stop',
        title: `${d.name} exits: its pop found no job (--stop-when-empty), after sleeping ${d.sleep}s (--sleep)`,
        explain: `Worker::stopIfNecessary runs after the loop's Worker::sleep, so even an empty queue costs one --sleep; queue:work returns 0 and ${after}.`,
      };
    case '--max-time':
      return {
        kind: 'stop',
        title: `${d.name} exits: ${ran}s since it started ≥ --max-time=${d.maxTime}`,
        explain: `stopIfNecessary checks the time only at the end of a loop (after a job, its --rest, or a --sleep), never during a job, so the process ran ${ran - d.maxTime}s past --max-time; it started at ${rel(s, d.startTime)}. queue:work returns 0 and ${after}.`,
      };
    case '--max-jobs':
      return {
        kind: 'stop',
        title: `${d.name} exits: it has taken ${d.jobs} job${d.jobs === 1 ? '' : 's'} (--max-jobs=${d.jobs})`,
        explain: `A job counts when it is popped, whatever becomes of it (released, failed, even failed unrun by markJobAsFailedIfAlreadyExceedsMaxAttempts). queue:work returns 0 and ${after}.`,
      };
    case 'queue:restart':
      return {
        kind: 'stop',
        title: `${d.name} exits: the restart signal changed since it started (php artisan queue:restart)`,
        explain: `Worker::stopIfNecessary reads illuminate:queue:restart from the cache after every job and every sleep, never during a job, and compares it with what the process read when it started; queue:work returns 0 and ${after}, which reads the new code and the new signal.`,
      };
  }
}

/** --rest: Worker::sleep after a job; `killAt`: the job's alarm, still armed, fires first. */
export function resting(
  s: Setup,
  d: { name: string; label: string; seconds: number; now: number; killAt: number | null },
): Narration {
  return {
    kind: 'rest',
    title: `${d.name} rests ${d.seconds}s after ${d.label} (--rest)${d.killAt !== null ? `; the alarm armed for it fires first, at ${rel(s, d.killAt)}` : ''}`,
    explain:
      d.killAt !== null
        ? `Worker::daemon rests before resetTimeoutHandler, so ${d.label}'s --timeout alarm still runs: the rest counts against it.`
        : undefined,
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

/**
 * The pop threw (a cluster client refusing the script): Worker::getNextJob reports it and sleeps
 * one second, then returns no job (Worker.php@v8.83:358-364).
 */
export function popThrew(queue: string, e: { className: string; message: string }, why: string): Narration {
  return {
    kind: 'pop',
    title: `pop on ${queue} threw ${e.className}: ${e.message}; reported, sleeping 1s`,
    explain: `${why} Worker::getNextJob catches it, reports it (the app's log gets it once per loop), checks it is not a lost connection (it is not, so the worker goes on) and sleeps 1 s; no job was popped.`,
  };
}

/** After popThrew's second: getNextJob returned no job, so the loop sleeps --sleep as after an empty pop. */
export function afterPopThrew(sleep: number): Narration {
  return {
    kind: 'pop',
    title: `no job (the pop threw); sleeping ${sleep}s (--sleep)`,
    explain: `getNextJob returned null after its catch, so Worker::daemon sleeps --sleep as it does when the queue is empty, then pops again: the same exception each loop, ${sleep + 1} s apart, until the queue's keys share a slot.`,
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

/** `new RuntimeException("API down")`, the short class name as a PHP author would write it. */
export function newException(e: JobException): string {
  return `new ${shortClass(e.className)}(${e.message === '' ? '' : JSON.stringify(e.message)})`;
}

/** `RuntimeException("API down")`: what a job threw, in a title. */
export function thrownText(e: JobException): string {
  return newException(e).slice('new '.length);
}

/**
 * $this->fail($given) (none: `$this->fail()`). `onlyFailedMethod`: 5.3, where that only calls the
 * job's failed() and CallQueuedHandler deletes the job (ZREM removed this many).
 */
export function failedByJob(label: string, given?: JobException, o: { onlyFailedMethod?: number } = {}): Narration {
  const call = `$this->fail(${given ? newException(given) : ''})`;
  if (o.onlyFailedMethod !== undefined) {
    return {
      kind: 'delete',
      title: `${label} calls ${call}: 5.3 only calls its failed(); then it is deleted as if it succeeded (ZREM removed ${o.onlyFailedMethod})`,
      explain:
        "5.3's InteractsWithQueue::fail calls Job::failed, which runs the job's failed() method and nothing else: no failed_jobs row. handle() returns, so CallQueuedHandler::call deletes the job (5.4 made fail() fail the job).",
    };
  }
  return {
    kind: 'fail',
    title: `${label} calls ${call}: deleted and recorded as failed`,
    explain: `failed() and the failed_jobs row get ${given ? given.className : 'Illuminate\\Queue\\ManuallyFailedException, the exception Job::fail makes when given none'}.`,
  };
}

/** The next job of a chain that a worker pushed (Queueable::dispatchNextJobInChain). */
export interface ChainPush {
  label: string;
  /** The ready list, or :delayed for a link with a delay (with the prefix). */
  key: string;
  delay: number | null;
  /** The jobs after it, by name. */
  rest: string[];
  /** The worker whose connection sent it. */
  worker: string;
  /**
   * The next job is ShouldBeUnique and its lock was held: PendingDispatch pushed nothing, and the
   * rest of the chain, which it carried, is gone with it. The lock's key.
   */
  dropped?: string;
}

/** "pushes B#1 onto queues:default (rest of chain: C) from worker-1's connection". */
export function chainPushText(p: ChainPush): string {
  if (p.dropped !== undefined)
    return `the chain's next job is not pushed: it is ShouldBeUnique and its lock ${p.dropped} is held, so dispatch() pushes nothing${p.rest.length > 0 ? ` and the rest of the chain (${p.rest.join(', ')}) is lost with it` : ''}`;
  const onto = p.delay === null ? `onto ${p.key}` : `with delay ${p.delay}s onto ${p.key}`;
  const rest = p.rest.length > 0 ? `rest of chain: ${p.rest.join(', ')}` : 'the last of the chain';
  return `the chain pushes ${p.label} ${onto} (${rest}) from ${p.worker}'s connection`;
}

const CHAIN_PUSH =
  "CallQueuedHandler::call dispatches the next job of the chain once handle() has returned and the job was neither failed nor released: the worker's own connection pushes it, a new payload (new uuid and id) whose data.command carries the rest of the chain.";

/** A failure ended a chain: the jobs that were still to come are never dispatched. */
export function chainStops(names: string[]): string {
  const them = names.length === 1 ? `${names[0]} is` : `${names.join(', ')} are`;
  return `The chain stops here: ${them} never dispatched (only a job that neither failed nor was released dispatches the next one; CallQueuedHandler::failed runs the chain's catch callbacks, none here).`;
}

/** A released job of a chain: the next one waits in its payload for the retry to succeed. */
export function chainWaits(names: string[]): string {
  return `The chain waits: a released job dispatches nothing, so ${names.join(', ')} stay${names.length === 1 ? 's' : ''} in its payload until a retry returns.`;
}

export function deletedByJob(label: string, removed: number, next: ChainPush | null = null): Narration {
  if (next === null) return { kind: 'delete', title: `${label} calls $this->delete(): ZREM removed ${removed}` };
  return {
    kind: 'delete',
    title: `${label} calls $this->delete(): ZREM removed ${removed}; then ${chainPushText(next)}`,
    explain: `A job that deletes itself has not failed, so its chain goes on. ${CHAIN_PUSH}`,
  };
}

export function succeeded(label: string, removed: number, next: ChainPush | null = null): Narration {
  const zrem =
    removed === 0
      ? 'ZREM removed nothing: the reserved copy this worker holds is no longer there (it was migrated back and re-reserved by another pop).'
      : 'ZREM names the reserved copy (attempts + 1, re-encoded when it was reserved), not the payload that was pushed.';
  if (next === null) {
    return {
      kind: 'delete',
      title: `${label} succeeded: delete from :reserved (ZREM removed ${removed})`,
      explain: zrem,
    };
  }
  return {
    kind: 'delete',
    title: `${label} succeeded: ${chainPushText(next)}, then ZREM removed ${removed}`,
    explain: `${CHAIN_PUSH} Only then is the job deleted. ${zrem}`,
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
    previous: ReturnType<JobRegistry['lastAttempt']>;
  },
): Narration {
  return {
    kind: 'fail',
    title: d.timeoutAt
      ? `${d.label} attempt ${d.attempts}: retryUntil (${rel(s, d.timeoutAt)}) has passed: MaxAttemptsExceededException before it runs`
      : `${d.label} attempt ${d.attempts} > tries ${d.maxTries}: MaxAttemptsExceededException before it runs`,
    explain: d.timeoutAt
      ? `retryUntil (timeoutAt ${rel(s, d.timeoutAt)}) has passed.`
      : d.previous !== null && 'killed' in d.previous
        ? d.previous.killed === 'alarm'
          ? 'This is how a job killed by the timeout finally fails: its reservation expired, it was migrated back and popped again.'
          : 'This is how a job whose worker was killed from outside (SIGKILL: the OOM killer, stopwaitsecs, a deploy) finally fails: its reservation expired, it was migrated back and popped again.'
        : d.previous !== null
          ? `${d.previous.runningOn} is still running attempt ${d.attempts - 1}: its reservation expired first (retry_after is shorter than the job), so a pop migrated it back and reserved it again. It fails here; ${d.previous.runningOn}'s handle() runs on.`
          : 'An earlier attempt never finished: its reservation expired, it was migrated back and popped again.',
  };
}

/** Which of the Worker's markJobAsFailedIf… checks failed a job. */
export type FailedBy =
  | { rule: 'tries'; attempts: number; maxTries: number }
  | { rule: 'retryUntil'; at: number }
  | { rule: 'maxExceptions'; max: number }
  | { rule: 'failOnTimeout' };

export function failedByText(s: Setup, f: FailedBy): string {
  switch (f.rule) {
    case 'tries':
      return `attempt ${f.attempts} of ${f.maxTries}`;
    case 'retryUntil':
      return `retryUntil (${rel(s, f.at)}) has passed`;
    case 'maxExceptions':
      return `$maxExceptions = ${f.max} reached`;
    case 'failOnTimeout':
      return '$failOnTimeout';
  }
}

/** What handle() threw and what the worker handled: the same, or (5.x) an Error wrapped. */
interface Caught {
  thrown: JobException;
  handled: JobException;
}

/** Why the exception the worker handled is not the one thrown (5.x's FatalThrowableError), or undefined. */
function wrapped(c: Caught): string | undefined {
  if (c.handled.className === c.thrown.className) return undefined;
  const short = shortClass(c.thrown.className);
  return `${short} ${short === 'Error' ? 'is' : 'is an Error,'} not an Exception: this version's Worker::process catches it as Throwable and wraps it in ${c.handled.className}, which is what failed() and failed_jobs get.`;
}

/** handleJobException released the job; `backoff`: 8.x's calculateBackoff chose the delay, not --delay. */
/**
 * handleJobException released the job. `retryUntil`: set, and (8.15+) --tries does not count while
 * it lasts.
 */
export function releasedAfterException(
  s: Setup,
  d: Caught & {
    label: string;
    delay: number;
    backoff: boolean;
    attempts: number;
    maxTries: number;
    retryUntil: number | null;
  },
): Narration {
  const attempt = d.retryUntil
    ? `attempt ${d.attempts}, retried until retryUntil (${rel(s, d.retryUntil)}) whatever --tries says`
    : `attempt ${d.attempts} of ${d.maxTries || 'unlimited'}`;
  return {
    kind: 'release',
    title: `${d.label} throws ${thrownText(d.thrown)}: released to :delayed for ${d.delay}s (${d.backoff ? 'backoff' : '--delay'}), ${attempt}`,
    explain: wrapped(d),
  };
}

/** Who holds a lock, as a step says it: `worker-1 (WithoutOverlapping (SyncOrder#1)) since t+0s, no expiry`. */
export function holderText(s: Setup, h: LockHolder | null): string {
  if (h === null)
    return 'another process (not one of this run: the lock was there before it, or another client took it)';
  const until = h.until === null ? 'it never expires' : `it expires at ${rel(s, h.until)}`;
  return `${h.actor}, for ${h.what}, since ${rel(s, h.since)} (${until})`;
}

/** What a middleware saw, as a step says it: the lock and who holds it, or the limiter. */
function middlewareWhy(s: Setup, e: MiddlewareOutcome): string {
  if (e.holder === undefined) return e.why;
  return `${e.why} by ${holderText(s, e.holder)}`;
}

/** What a release by a middleware did to the job's attempts: retryUntil decides, or --tries. */
function attemptSpent(s: Setup, d: { attempts: number; maxTries: number; retryUntil: number | null }): string {
  if (d.retryUntil !== null)
    return `this was attempt ${d.attempts}; retryUntil (${rel(s, d.retryUntil)}) decides when it fails, not --tries`;
  if (d.maxTries > 0 && d.attempts >= d.maxTries)
    return `this release counts as attempt ${d.attempts} of ${d.maxTries}: the next pop fails it with MaxAttemptsExceededException before any middleware runs`;
  return `this release counts as attempt ${d.attempts} of ${d.maxTries || 'unlimited'}`;
}

/**
 * A middleware released the job before handle() (WithoutOverlapping refused the lock, a rate
 * limiter's window is full, ThrottlesExceptions' circuit is open): the pop counted an attempt that
 * handle() never had.
 */
export function releasedByMiddleware(
  s: Setup,
  d: {
    label: string;
    ended: MiddlewareOutcome;
    now: number;
    attempts: number;
    maxTries: number;
    retryUntil: number | null;
  },
): Narration {
  const delay = d.ended.released ?? 0;
  const spent = attemptSpent(s, d);
  return {
    kind: 'release',
    title: `${d.label} released by ${d.ended.middleware} for ${delay}s; handle() did not run, ${spent}`,
    explain: `${d.ended.middleware}::handle released the reserved copy (due at ${rel(s, d.now + delay)}) without calling $next: ${middlewareWhy(s, d.ended)}. No exception reaches the Worker, and the attempt the pop counted is spent. Jobs meant to wait this way usually have retryUntil() or a generous $tries.`,
  };
}

/** A middleware returned without $next and without a release (->dontRelease()): the job is deleted unrun. */
export function droppedByMiddleware(
  s: Setup,
  d: { label: string; ended: MiddlewareOutcome; removed: number; next: ChainPush | null },
): Narration {
  return {
    kind: 'delete',
    title: `${d.label} dropped by ${d.ended.middleware} (dontRelease); handle() did not run, ZREM removed ${d.removed}${d.next === null ? '' : `; then ${chainPushText(d.next)}`}`,
    explain: `${middlewareWhy(s, d.ended)}, and with dontRelease() the middleware returns without calling $next; CallQueuedHandler::call then treats the job as done and deletes it. Nothing is logged to failed_jobs.`,
  };
}

/** ThrottlesExceptions caught what handle() threw, counted it and released the job: the Worker sees a return. */
export function exceptionTakenByMiddleware(
  s: Setup,
  d: {
    label: string;
    thrown: JobException;
    taken: MiddlewareOutcome;
    now: number;
    attempts: number;
    maxTries: number;
    retryUntil: number | null;
  },
): Narration {
  const delay = d.taken.released ?? 0;
  return {
    kind: 'release',
    title: `${d.label} throws ${thrownText(d.thrown)}: ${d.taken.middleware} counts it and releases the job for ${delay}s; ${attemptSpent(s, d)}`,
    explain: `${d.taken.middleware} catches every exception of handle(): ${d.taken.why} (${d.taken.key}); it releases the job itself, so the Worker sees no exception: no report, no maxExceptions count, no failed(). The attempt is spent all the same.`,
  };
}

/** handleJobException failed the job, for `failedBy`. */
export function failedAfterException(s: Setup, d: Caught & { label: string; failedBy: FailedBy }): Narration {
  const thrown = thrownText(d.thrown);
  return {
    kind: 'fail',
    title:
      d.failedBy.rule === 'tries'
        ? `${d.label} throws ${thrown} on ${failedByText(s, d.failedBy)}: failed`
        : `${d.label} throws ${thrown}: failed, ${failedByText(s, d.failedBy)}`,
    explain: wrapped(d) ?? `failed() and the failed_jobs row get the ${shortClass(d.handled.className)} it threw.`,
  };
}

// The alarm.

/** SIGALRM killed the process: while idle (no label), after failing the job, or leaving it reserved. */
export function killed(
  s: Setup,
  d: {
    name: string;
    label: string | null;
    /** Which check of the handler failed the job before the kill (null: none). */
    failedBy: FailedBy | null;
    seconds: number;
    alarm: WorkerRules['alarm'];
    poppedAt: number | null;
    /** It fired during --rest, after the job's own end. */
    resting?: boolean;
  },
): Narration {
  const { name, label } = d;
  const sigalrm = `SIGALRM after ${d.seconds}s (${alarmReason(d.alarm)})`;
  if (label && d.resting) {
    return {
      kind: 'kill',
      title: `${sigalrm}: ${name} is killed during --rest after ${label}${d.failedBy ? `, which the handler fails first (${failedByText(s, d.failedBy)})` : ''}`,
      explain: d.failedBy
        ? `The handler does not know the job has ended: it ran markJobAsFailedIfWillExceedMaxAttempts (and the maxExceptions and failOnTimeout checks) on ${label}, which was not deleted (it was released), so it is "failed": a ZREM of its reserved copy, which is no longer there, and a failed_jobs row, while the released copy waits in :delayed.`
        : `The handler runs the markJobAsFailedIf… checks on ${label} first, which has settled; nothing reaches Redis. --rest counts against --timeout.`,
    };
  }
  return {
    kind: 'kill',
    title: !label
      ? `${sigalrm}: ${name} is killed while idle`
      : d.failedBy
        ? `${sigalrm}: ${label} is failed first (${failedByText(s, d.failedBy)}); then ${name} is killed`
        : `${sigalrm}: ${name} is killed while running ${label}; it stays in :reserved`,
    explain: !label
      ? undefined
      : d.failedBy
        ? 'Since 5.8.28 the timeout handler fails a job that cannot be tried again before it kills the process, so it does not sit in :reserved until retry_after.'
        : `The reservation expires at ${reservedUntil(s, d.poppedAt)}; only then will a pop migrate it back. Its attempts already count this run.`,
  };
}
