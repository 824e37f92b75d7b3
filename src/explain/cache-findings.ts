// The findings the cache store's traffic tells (research/cache-store.md §3.1, §3.6, §4.1, §2.3):
// attempts spent by WithoutOverlapping's releases before a MaxAttemptsExceeded failure, a unique
// dispatch dropped, a worker that read a new restart signal. Fed by explain/findings.ts's rules,
// which own the queue's events and the workers' liveness.
import type { Certainty, Finding, QueueEvent } from './findings.ts';
import type { Liveness, Watch } from './liveness.ts';

type Lock = Extract<QueueEvent, { kind: 'lock' }>;
type Limited = Extract<QueueEvent, { kind: 'limited' }>;
type RestartRead = Extract<QueueEvent, { kind: 'restart-read' }>;
type Reserve = Extract<QueueEvent, { kind: 'reserve' }>;
type Delete = Extract<QueueEvent, { kind: 'delete' | 'release' }>;

/** What refused a job before handle(): WithoutOverlapping's lock, or a rate limiter at its max. */
export interface Refusal {
  middleware: 'WithoutOverlapping' | 'RateLimited' | 'ThrottlesExceptions';
  line: number;
  /** Laravel's name of the lock or the limiter's key. */
  key: string;
  heldBy?: string;
  likely?: boolean;
}

/** A release that followed a refusal: the middleware's, handle() not run. */
export interface MiddlewareRelease {
  lock: Refusal;
  release: Delete;
}

function refusalOf(e: Lock): Refusal {
  return {
    middleware: 'WithoutOverlapping',
    line: e.line,
    key: e.key,
    ...(e.heldBy !== undefined ? { heldBy: e.heldBy } : {}),
    ...(e.likely === true ? { likely: true } : {}),
  };
}

/** Actors and jobs kept at most (a capture of any size). */
const KEPT = 4096;

export class CacheFindings {
  readonly out: Finding[] = [];
  /** Each worker's last refusal (an overlap lock, a limiter at its max) since its last pop. */
  private readonly refused = new Map<string, Refusal>();
  /** Each worker's overlap lock taken since its last pop: a release then came from inside handle(). */
  private readonly taken = new Map<string, Lock>();
  /** Each job's releases by middleware, until it is deleted. */
  private readonly spent = new Map<string, MiddlewareRelease[]>();
  /** Each job's releases from inside handle() under a lock taken (their lines), until it is deleted. */
  private readonly selfReleased = new Map<string, number[]>();
  private readonly restarts: Array<{ e: RestartRead; watch: Watch }> = [];

  constructor(private readonly live: Liveness) {}

  reserved(r: Reserve): void {
    this.refused.delete(r.actor);
    this.taken.delete(r.actor);
  }

  lock(e: Lock): void {
    if (e.taken === true && e.lock === 'overlap' && (this.taken.size < KEPT || this.taken.has(e.actor)))
      this.taken.set(e.actor, e);
    if (e.taken !== false) return;
    if (e.lock === 'overlap') {
      if (this.refused.size < KEPT || this.refused.has(e.actor)) this.refused.set(e.actor, refusalOf(e));
      return;
    }
    this.out.push(uniqueDropped(e));
  }

  /**
   * A delete or release: a release right after its worker's refused overlap lock is the
   * middleware's; one after a lock taken came from inside handle() (the lock is released after it).
   */
  ended(e: Delete): { byMiddleware: MiddlewareRelease[]; selfReleased: number[] } {
    const lock = this.refused.get(e.actor);
    this.refused.delete(e.actor);
    const held = this.taken.get(e.actor);
    this.taken.delete(e.actor);
    const list = this.spent.get(e.job) ?? [];
    const self = this.selfReleased.get(e.job) ?? [];
    if (e.kind === 'release' && lock !== undefined && (this.spent.size < KEPT || list.length > 0)) {
      list.push({ lock, release: e });
      this.spent.set(e.job, list);
    } else if (e.kind === 'release' && held !== undefined && (this.selfReleased.size < KEPT || self.length > 0)) {
      self.push(e.line);
      this.selfReleased.set(e.job, self);
    }
    if (e.kind === 'delete') {
      this.spent.delete(e.job);
      this.selfReleased.delete(e.job);
    }
    return { byMiddleware: list, selfReleased: self };
  }

  /** A rate limiter at its max: the release that follows is the middleware's. */
  limited(e: Limited): void {
    if (this.refused.size < KEPT || this.refused.has(e.actor))
      this.refused.set(e.actor, { middleware: e.middleware, line: e.line, key: e.key });
  }

  /** Each worker's last restart check (its cache connection's GET, after each job). */
  private readonly checked = new Map<string, number>();

  restartCheck(worker: string, line: number): void {
    if (this.checked.size < KEPT || this.checked.has(worker)) this.checked.set(worker, line);
  }

  /** Whether `worker` checked the restart signal after `line`: its loop went on past the job it ended there. */
  checkedRestartAfter(worker: string, line: number): boolean {
    return (this.checked.get(worker) ?? 0) > line;
  }

  restartRead(e: RestartRead): void {
    this.restarts.push({ e, watch: this.live.watch(e.worker ?? e.actor, e.line) });
  }

  finish(): Finding[] {
    return [...this.out, ...this.restarts.map(restartFinding)];
  }
}

/** Reserved past its tries and deleted, its earlier attempts released by WithoutOverlapping. */
export function spentByMiddleware(over: Reserve, del: Delete, releases: readonly MiddlewareRelease[]): Finding {
  const likely = releases.some((r) => r.lock.likely === true);
  const by = [...new Set(releases.map((r) => r.lock.middleware))];
  const said = by.map((m) => {
    const mine = releases.filter((r) => r.lock.middleware === m);
    const keys = [...new Set(mine.map((r) => r.lock.key))].join(', ');
    const on = `on attempt${mine.length === 1 ? '' : 's'} ${mine.map((r) => r.release.attempts ?? '?').join(', ')}`;
    if (m !== 'WithoutOverlapping') return `${m}'s limiter ${keys} was at its max ${on}`;
    const holders = [...new Set(mine.map((r) => r.lock.heldBy).filter((h) => h !== undefined))];
    return `the lock ${keys} was refused ${on} (held by ${holders.length === 0 ? 'another process' : holders.join(', ')})`;
  });
  const names = by.join(' and ');
  return {
    kind: 'attempts-spent-by-middleware',
    certainty: likely ? 'likely' : 'certain',
    ...(likely
      ? {
          because:
            "the capture ended after a refusal's release before the worker polled again: a held lock is released in the finally right after handle(), and none followed",
        }
      : {}),
    title: `${del.label} reserved for attempt ${over.attempts} of ${over.maxTries} and deleted at once: failed with MaxAttemptsExceededException without running (markJobAsFailedIfAlreadyExceedsMaxAttempts), its attempts spent by ${names}: ${said.join('; ')}, and each time the middleware released the job without running handle(); a release counts an attempt like any other`,
    lines: [...releases.flatMap((r) => [r.lock.line, r.release.line]), over.line, del.line],
    alternatives: [],
    failed: {
      line: del.line,
      how: `failed with MaxAttemptsExceededException without running, its attempts spent by ${names} releasing it (markJobAsFailedIfAlreadyExceedsMaxAttempts)`,
      certainty: likely ? 'likely' : 'certain',
    },
  };
}

function uniqueDropped(e: Lock): Finding {
  const silent = e.silentFor !== undefined;
  return {
    kind: 'unique-dispatch-dropped',
    certainty: silent ? 'likely' : 'certain',
    ...(silent
      ? {
          because: `its connection sent nothing more in the ${e.silentFor} s the capture went on, where a lock taken is followed by its push within the same statement (a request that ends after a dropped dispatch sends nothing more)`,
        }
      : {}),
    title: `a dispatch by ${e.actor} was dropped: its unique lock ${e.key} was refused (held by ${e.heldBy ?? 'a lock taken before the capture, or by another cache'}), so PendingDispatch pushed nothing and raised nothing${
      e.heldSince !== undefined
        ? `: the lock was taken at line ${e.heldSince} and not released since, so the SETNX failed`
        : silent
          ? ''
          : `: its connection's next command (line ${e.shownBy}) is no push, where a lock taken is followed by the push at once`
    }`,
    lines: e.heldSince !== undefined ? [e.heldSince, e.line] : e.shownBy === undefined ? [e.line] : [e.line, e.shownBy],
    alternatives: silent
      ? [
          {
            kind: 'capture-ended',
            when: 'the push came later than a second after the lock (a payload slow to build) and the capture missed it: then the lock was taken',
          },
        ]
      : [],
  };
}

function restartFinding({ e, watch }: { e: RestartRead; watch: Watch }): Finding {
  const who = e.worker ?? `the worker on ${e.actor}`;
  const went = watch.next?.what === 'queue' ? watch.next : undefined;
  let certainty: Certainty = e.start === undefined ? 'likely' : 'certain';
  let because: string | undefined =
    e.start === undefined
      ? `its check at its start came before any queue:restart in the capture: it read an older value or none, and the one written (${e.written.value}, the time queue:restart ran) differs unless another queue:restart wrote it in the same second`
      : undefined;
  if (went !== undefined) {
    certainty = 'possible';
    because = `yet ${who} sent a queue command after it (line ${went.line}): the value it read may have equalled its start's`;
  }
  return {
    kind: 'restart-signal-read',
    certainty,
    ...(because === undefined ? {} : { because }),
    title: `${who} read a new restart signal (${e.written.value}, written by queue:restart at line ${e.written.line}; at its start it read ${e.start === undefined ? 'an older value, or none' : `${e.start.value}, written at line ${e.start.line}`}): Worker::queueShouldRestart is true after the job it had just finished, so it stops there (exit 0)${went === undefined ? ', and no queue command of it follows' : ''}`,
    lines: [e.written.line, e.line],
    alternatives: [],
  };
}
