// What `lqsim explain` points out in a capture: rules over the queue events read from it, each
// finding citing the capture lines it rests on, saying how sure it is and what else the same
// traffic may be. Pure.
//
// MONITOR shows commands, never processes or replies, so much of a job's story is read from
// what follows: a Laravel daemon that finishes a job deletes or releases it and polls again at
// once, so a worker's silence after a pop or a delete says its process ended (killed, its
// timeout's SIGALRM, or an orderly exit: --once, --max-jobs, --max-time, queue:restart), or that
// the capture ended. A finding resting on silence names each of these. Liveness is read from a
// worker's queue commands and a process's start only (explain/liveness.ts).
import { CacheFindings, spentByMiddleware } from './cache-findings.ts';
import type { Heard, Watch } from './liveness.ts';
import { Liveness } from './liveness.ts';

/** What happened to a job (or a queue), as the capture shows it; `line` is the capture's line number. */
export type QueueEvent =
  | {
      kind: 'reserve';
      job: string;
      label: string;
      actor: string;
      line: number;
      /** MONITOR's time of the pop, in seconds. */
      t: number;
      /** The reservation's end (the score of the ZADD to :reserved), on the worker's clock. */
      until: number | null;
      /** Whether the worker's clock is Redis' (until - t is retry_after): timings are only read then. */
      redisClock: boolean;
      attempts: number | null;
      /** The payload's maxTries (8.x; null when the job sets none, or older payloads). */
      maxTries: number | null;
      /** The payload's retryUntil (or timeoutAt), on the app's clock; null or absent when it has none. */
      retryUntil?: number | null;
      /** The `now` its poll's migrates carried (the worker's clock), when the capture has them. */
      now?: number | null;
    }
  | {
      kind: 'delete' | 'release';
      job: string;
      label: string;
      actor: string;
      line: number;
      t: number;
      /** The attempts of the copy it names (the reserved copy its worker holds). */
      attempts?: number | null;
    }
  | {
      kind: 'migrate';
      moved: number;
      line: number;
      from: string;
      /** Who polled, and the `now` its script carries (the worker's clock); absent on bare events. */
      actor?: string;
      now?: number | null;
    }
  | { kind: 'block-ready'; actor: string; line: number; key: string }
  /** A queue lock (explain/cache-locks.ts): taken, refused (`shownBy` the line that showed it), or untold (null). */
  | {
      kind: 'lock';
      lock: 'overlap' | 'unique';
      actor: string;
      line: number;
      /** Laravel's name of the lock ("laravel-queue-overlap:App\\Jobs\\X:order-1"). */
      key: string;
      taken: boolean | null;
      shownBy?: number;
      /** Refused as far as the capture goes: the job's end, then no lock release before it ended. */
      likely?: boolean;
      /** A unique lock's connection sent nothing more for this many seconds of the capture (no push). */
      silentFor?: number;
      /** Refused because the capture shows it taken at this line and not released since. */
      heldSince?: number;
      heldBy?: string;
    }
  /** A worker's restart check (Worker::stopIfNecessary, after each job): its loop went on past the job. */
  | { kind: 'restart-check'; worker: string; line: number }
  /**
   * A rate limiter refused the job (explain/cache-story.ts): RateLimited's or ThrottlesExceptions'
   * tooManyAttempts found the count at the max with its timer alive (`has`), then read the timer
   * again (availableIn): the release that follows is the middleware's, handle() not run.
   */
  | { kind: 'limited'; middleware: 'RateLimited' | 'ThrottlesExceptions'; actor: string; line: number; key: string }
  /** A worker's restart check that read another value than at its start (explain/cache-story.ts). */
  | {
      kind: 'restart-read';
      /** The cache connection that read it, and the worker it belongs to (configuration.ts), if told. */
      actor: string;
      worker: string | undefined;
      line: number;
      t: number;
      written: { line: number; value: string };
      /** What it read at its start: the write before it, or undefined (set before the capture, or never). */
      start: { line: number; value: string } | undefined;
    }
  /** A command of an actor that says whether its process went on (explain/liveness.ts); `t` MONITOR's. */
  | { kind: 'heard'; actor: string; line: number; what: Heard; t: number };

type Reserve = Extract<QueueEvent, { kind: 'reserve' }>;
type Delete = Extract<QueueEvent, { kind: 'delete' | 'release' }>;

/** A finding's story, by a stable name (json's `kind`). */
export type FindingKind =
  | 'ran-twice'
  | 'max-attempts-exceeded'
  | 'killed-mid-job'
  | 'timed-out'
  | 'reservation-expired'
  | 'big-migration'
  | 'blocking-pop-before-notify'
  /** An orderly exit after a job: --once, --max-jobs, --max-time, queue:restart. */
  | 'worker-exited'
  /** The capture ended before the rest of the story. */
  | 'capture-ended'
  /** The job ran again on its next attempt and finished (succeeded, or failed by an exception). */
  | 'ran-again'
  /** Failed with MaxAttemptsExceeded, its attempts spent by job middleware releasing it (a refused WithoutOverlapping lock). */
  | 'attempts-spent-by-middleware'
  /** A ShouldBeUnique dispatch whose lock was held: nothing pushed. */
  | 'unique-dispatch-dropped'
  /** A daemon read a new `queue:restart` signal: it stops after its current job. */
  | 'restart-signal-read'
  /** A cluster capture's queue whose keys hash to several slots: its scripts never reach Redis (explain/cluster-findings.ts). */
  | 'keys-span-slots'
  /** The same, refused by the node (CROSSSLOT) rather than by the client. */
  | 'cross-slot-refused-by-server';

/** `certain`: the capture proves it; `likely`: evidence points to it (`because` says which); `possible`: one reading of several. */
export type Certainty = 'certain' | 'likely' | 'possible';

/** Another story the same traffic may tell, and what decides it. */
export interface Alternative {
  kind: FindingKind;
  when: string;
}

export interface Finding {
  kind: FindingKind;
  certainty: Certainty;
  /** The evidence a finding rests on (always for `likely`; a `possible` one may say what points its way). */
  because?: string;
  title: string;
  /** Capture lines it rests on. */
  lines: number[];
  /** The other stories of the same traffic. */
  alternatives: Alternative[];
  /** The delete this finding reads as a failure (the job's life says it there), how, and how sure. */
  failed?: { line: number; how: string; certainty: Certainty };
}

/** A migrate that moves at least this many due jobs at once is worth saying. */
const LARGE_MIGRATION = 1000;

/** A delete this soon after the pop did not run a job of any weight (the max-attempts path). */
const AT_ONCE = 1;

/** A daemon polls within milliseconds of finishing a job: silence longer than this after a delete is an exit. */
const QUIET = 1;

const seconds = (s: number): string => `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
const ms = (s: number): string => (s < 1 ? `${Math.round(s * 1000)} ms` : seconds(s));

/** What queue:work's --tries is when the worker gives none. */
const TRIES_DEFAULT = "queue:work's default from 6.0; before, 0 sets no limit";

/** The --tries under which attempt k is past the limit: "--tries=1", "--tries from 1 to 2". */
export function underTries(k: number): string {
  return k <= 2 ? '--tries=1' : `--tries from 1 to ${k - 1}`;
}

const EXITED: Alternative = {
  kind: 'worker-exited',
  when: 'the worker runs with --once, or reached --max-jobs or --max-time, or saw queue:restart: it finishes the job (deleted whether it succeeded or failed), then exits the same way',
};

/** The findings of a capture's events (with `heard` events for liveness), all at once. */
export function findings(events: readonly QueueEvent[]): Finding[] {
  const rules = new FindingRules();
  for (const e of events) rules.add(e);
  return rules.finish();
}

/** A delete some time into a job, watched for what its worker does next. */
interface SlowDelete {
  h: Reserve;
  del: Delete;
  watch: Watch;
  firstJob: boolean;
}

/** A poll is up to three queue commands (two migrates and the pop), then the delete. */
const FIRST_JOB = 4;

/** Beyond this many processes that each worked one job and went quiet, one finding says them all. */
const ONCE_WORKERS = 3;

/** The silent-after-delete findings of many one-job processes, as one. */
/**
 * Reserved past its limit and deleted: Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts fails it
 * before handle(). The limit is its tries when the payload has no retryUntil (certain); with one
 * (5.5+), retryUntil alone, whatever the attempts: certain once the poll's clock has passed it,
 * else only possible (the worker runs it while its clock has not).
 */
function reservedPastItsLimit(
  over: Reserve,
  del: Delete,
  /** Lines where handle() released the job itself under a WithoutOverlapping lock it had taken (explain/cache-findings.ts). */
  selfReleased: readonly number[] = [],
): Finding {
  const path =
    selfReleased.length > 0
      ? `its earlier attempts released from inside handle() (lines ${selfReleased.join(', ')}: each after its WithoutOverlapping lock was taken, the lock released after the job), not by a middleware refusal`
      : 'the path of a job whose earlier attempt timed out or was killed';
  if (over.retryUntil === undefined || over.retryUntil === null)
    return {
      kind: 'max-attempts-exceeded',
      certainty: 'certain',
      title: `${del.label} reserved for attempt ${over.attempts} of ${over.maxTries} and deleted at once: failed with MaxAttemptsExceededException without running (markJobAsFailedIfAlreadyExceedsMaxAttempts, ${path})`,
      lines: [over.line, del.line],
      alternatives: [],
      failed: {
        line: del.line,
        how: 'failed with MaxAttemptsExceededException without running (markJobAsFailedIfAlreadyExceedsMaxAttempts)',
        certainty: 'certain',
      },
    };
  const quick = del.t - over.t < AT_ONCE;
  // The worker checks after its pop, on the clock its poll's migrates carried: later, never earlier.
  const passed = over.now !== undefined && over.now !== null && over.now > over.retryUntil;
  if (passed)
    return {
      kind: 'max-attempts-exceeded',
      certainty: 'certain',
      title: `${del.label} reserved for attempt ${over.attempts}${over.maxTries === null ? '' : ` of ${over.maxTries}`} after its retryUntil (${over.retryUntil}; the poll's now was ${over.now}) and deleted: failed with MaxAttemptsExceededException without running (markJobAsFailedIfAlreadyExceedsMaxAttempts)`,
      lines: [over.line, del.line],
      alternatives: [],
      failed: {
        line: del.line,
        how: 'failed with MaxAttemptsExceededException without running, its retryUntil passed (markJobAsFailedIfAlreadyExceedsMaxAttempts)',
        certainty: 'certain',
      },
    };
  return {
    kind: 'max-attempts-exceeded',
    certainty: 'possible',
    because: `attempt ${over.attempts} of ${over.maxTries}, but its payload has retryUntil ${over.retryUntil}: Laravel fails a job before handle() by its tries only when it has no retryUntil; with one, only once the worker's clock has passed it${over.now === undefined || over.now === null ? " (the capture has no poll that says the worker's clock)" : ` (its poll's now was ${over.now}, not past it, and the check comes after)`}`,
    title: `${del.label} reserved for attempt ${over.attempts} of ${over.maxTries} (past its tries) and deleted ${quick ? 'at once' : `${ms(del.t - over.t)} later`}: failed with MaxAttemptsExceededException without running if the worker's clock had passed its retryUntil (${over.retryUntil}); else it ran`,
    lines: [over.line, del.line],
    alternatives: [
      {
        kind: 'ran-again',
        when: `the worker's clock had not passed retryUntil ${over.retryUntil}: handle() ran${quick ? ' and returned at once' : ''} (it succeeded, or failed by an exception)`,
      },
    ],
    failed: {
      line: del.line,
      how: `failed with MaxAttemptsExceededException without running if the worker's clock had passed retryUntil ${over.retryUntil}; else it ran`,
      certainty: 'possible',
    },
  };
}

function onceWorkers(each: readonly Finding[]): Finding {
  return {
    kind: 'worker-exited',
    certainty: 'likely',
    because: `${each.length} processes each polled once, deleted the job it got some time in and went quiet, the life of a queue:work --once worker (which runs no timeout: only the daemon registers the SIGALRM handler)`,
    title: `${each.length} workers each deleted one job and exited: --once workers (or daemons that each exited after their first job); no $tries in the payloads, so each delete is a success or a failure by the worker's --tries`,
    lines: each.slice(0, 3).flatMap((f) => f.lines),
    alternatives: [
      {
        kind: 'timed-out',
        when: 'they are daemons whose --timeout ran out on their first job, on its last try by --tries: the SIGALRM handler fails the job (deleting it) and ends the worker',
      },
    ],
  };
}

/** A reservation, with the watch on its worker and how it ended, if it did. */
interface Held {
  r: Reserve;
  watch: Watch;
  end?: Delete;
}

/**
 * The rules fed a capture as it is read: `heard` for every command of an actor, `add` for each
 * queue event, `finish` at the end. What is held is bounded by what is undecided: the reservations
 * not yet deleted, and the few candidates whose reading waits on a worker's later silence.
 */
export class FindingRules {
  private readonly out: Finding[] = [];
  private readonly live = new Liveness();
  /** The cache store's findings (explain/cache-findings.ts). */
  private readonly cache = new CacheFindings(this.live);
  // The reservations each job is under, oldest first, until their worker deletes or releases them.
  private readonly held = new Map<string, Held[]>();
  // A reservation taken while another worker held the job: ran twice, or taken from a killed one.
  private readonly pairs: Array<{ h: Held; e: Held }> = [];
  private readonly paired = new Set<Reserve>();
  // A quick delete after a take-over: MaxAttemptsExceeded under --tries 1, if the holder was killed.
  private readonly quickDeletes: Array<{ from: Held; to: Reserve; del: Delete }> = [];
  // Each actor's last delete some time into a job, with the watch on what it did next.
  private readonly slowDeletes = new Map<string, SlowDelete>();
  // A job finished on a clock that is not Redis', waiting for its worker's next poll's `now`.
  private readonly nextPoll = new Map<string, { h: Reserve; del: Delete }>();
  // A pop past the payload's maxTries, waiting for its delete.
  private readonly overTries = new Map<string, Reserve>();
  private blpopSaid = false;

  /**
   * @param shared actors that are many connections MONITOR cannot tell apart (a unix socket's):
   *   their silence and their identity prove nothing.
   */
  constructor(
    private readonly shared: ReadonlySet<string> = new Set(),
    /** Whether the capture's Laravel fails a job on its worker's timeout (recognise.ts timeoutFailsJob). */
    private readonly timeoutFailsJob: boolean | undefined = undefined,
  ) {}

  /** An actor sent a command on this line (what it tells of its process: explain/liveness.ts). */
  heard(actor: string, line: number, what: Heard, t: number): void {
    this.live.heard(actor, line, what, t);
  }

  add(e: QueueEvent): void {
    switch (e.kind) {
      case 'heard':
        this.heard(e.actor, e.line, e.what, e.t);
        break;
      case 'lock':
        this.cache.lock(e);
        break;
      case 'restart-read':
        this.cache.restartRead(e);
        break;
      case 'restart-check':
        this.cache.restartCheck(e.worker, e.line);
        break;
      case 'limited':
        this.cache.limited(e);
        break;
      case 'reserve': {
        this.cache.reserved(e);
        const earlier = this.held.get(e.job) ?? [];
        const mine: Held = { r: e, watch: this.live.watch(e.actor, e.line) };
        // It follows the latest reservation still held: the one whose end let the job go again.
        // An earlier one was followed by that one, and is told with it (not once per later pop).
        const before = earlier.at(-1);
        if (before !== undefined) {
          this.pairs.push({ h: before, e: mine });
          this.paired.add(before.r);
        }
        this.held.set(e.job, [...earlier, mine]);
        // Past its tries: Worker fails it before handle() (markJobAsFailedIfAlreadyExceedsMaxAttempts),
        // unless the payload has a retryUntil, which decides instead (5.5+): then once the worker's
        // clock has passed it, whatever the attempts (and not before).
        const pastTries = e.attempts !== null && e.maxTries !== null && e.maxTries > 0 && e.attempts > e.maxTries;
        const pastUntil =
          e.retryUntil !== undefined &&
          e.retryUntil !== null &&
          e.now !== undefined &&
          e.now !== null &&
          e.now > e.retryUntil;
        if (pastTries || pastUntil) this.overTries.set(`${e.job}@${e.actor}`, e);
        break;
      }
      case 'delete':
      case 'release':
        this.ended(e);
        break;
      case 'migrate':
        if (e.actor !== undefined) this.polled(e.actor, e.line, e.now ?? null);
        if (e.moved >= LARGE_MIGRATION)
          this.out.push({
            kind: 'big-migration',
            certainty: 'certain',
            title: `${e.moved} due jobs moved from ${e.from} back to the queue in one migrate: ${
              e.from.endsWith(':reserved')
                ? 'as many reservations ended at once (their workers killed, or running past retry_after)'
                : e.from.endsWith(':delayed')
                  ? 'as many delayed jobs fell due at once (dispatched with one delay, or released to one time, or no worker polled while they fell due)'
                  : 'as many at once'
            }`,
            lines: [e.line],
            alternatives: [],
          });
        break;
      case 'block-ready':
        if (!this.blpopSaid) {
          this.blpopSaid = true;
          this.out.push({
            kind: 'blocking-pop-before-notify',
            certainty: 'certain',
            title: `BLPOP on the ready list ${e.key} (block_for, Laravel 5.6-5.7): the job is popped, then ZADDed to :reserved from PHP; a worker killed in between loses it (5.8 blocks on :notify and reserves in the pop script)`,
            lines: [e.line],
            alternatives: [],
          });
        }
        break;
    }
  }

  /** A delete or release: the reservation it ends, and what it may mean. */
  private ended(e: Delete): void {
    const list = this.held.get(e.job) ?? [];
    // The reservation whose copy it names (its attempts), else the one its actor took.
    const byCopy =
      e.attempts === undefined || e.attempts === null ? -1 : list.findIndex((h) => h.r.attempts === e.attempts);
    const index = byCopy >= 0 ? byCopy : list.findIndex((h) => h.r.actor === e.actor);
    const held = index >= 0 ? list.splice(index, 1)[0]! : undefined;
    if (list.length === 0) this.held.delete(e.job);
    if (held !== undefined) held.end = e; // kept by `pairs` when a pair needs it
    const h = held?.r;
    const key = `${e.job}@${e.actor}`;
    const over = this.overTries.get(key);
    this.overTries.delete(key);
    const { byMiddleware, selfReleased } = this.cache.ended(e);
    if (over !== undefined && e.kind === 'delete') {
      // Its earlier attempts released by WithoutOverlapping (no retryUntil: the tries decided).
      this.out.push(
        byMiddleware.length > 0 && (over.retryUntil ?? null) === null
          ? spentByMiddleware(over, e, byMiddleware)
          : reservedPastItsLimit(over, e, selfReleased),
      );
    } else if (h !== undefined && e.kind === 'delete' && h.maxTries === null && e.t - h.t < AT_ONCE) {
      // Taken over from a holder: read in finish, once the holder's fate is known.
      const pair = this.pairs.find((p) => p.e.r === h);
      if (pair !== undefined) this.quickDeletes.push({ from: pair.h, to: h, del: e });
    }
    // MONITOR's time says how long a job ran only on Redis' clock; on another, any delete may be a timeout's.
    if (h !== undefined && !h.redisClock && h.until !== null) this.nextPoll.set(e.actor, { h, del: e });
    if (
      h !== undefined &&
      e.kind === 'delete' &&
      (!h.redisClock || e.t - h.t >= AT_ONCE) &&
      // The alarm fails the job on its last try; with a retryUntil, once that has passed (from
      // 8.15, whatever the tries: markJobAsFailedIfWillExceedMaxAttempts).
      (h.maxTries === null || lastAttempt(h) || (h.retryUntil ?? null) !== null)
    )
      this.slowDeletes.set(e.actor, {
        h,
        del: e,
        watch: this.live.watch(e.actor, e.line),
        // Its process's first poll and this delete, nothing between: a --once worker's whole life, or a daemon's first job.
        firstJob: this.live.queueSinceStart(e.actor) <= FIRST_JOB,
      });
    // Finished after its reservation ended: the worker let the job run past retry_after.
    if (h !== undefined && h.until !== null && h.redisClock && e.t >= h.until + 1)
      this.out.push({
        kind: 'reservation-expired',
        certainty: 'certain',
        title: `${e.actor} ${e.kind === 'delete' ? 'finished' : 'released'} ${e.label}${attemptsOf(h)} ${seconds(e.t - h.t)} after its pop, past its reservation (retry_after ${h.until - Math.floor(h.t)} s): the worker's timeout is not shorter than retry_after (or is 0), so the job was free to be reserved again while it ran; Laravel asks for timeout a few seconds shorter than retry_after`,
        lines: [h.line, e.line],
        alternatives: [],
      });
  }

  /**
   * A worker's poll: on a clock that is not Redis', the `now` of the poll right after a job's
   * delete or release says whether the job ended past its reservation.
   */
  private polled(actor: string, line: number, now: number | null): void {
    const done = this.nextPoll.get(actor);
    if (done === undefined) return;
    this.nextPoll.delete(actor);
    const { h, del } = done;
    if (now === null || h.until === null || now <= h.until) return;
    this.out.push({
      kind: 'reservation-expired',
      certainty: 'likely',
      because: `the poll right after it (line ${line}) carries now ${now} on the worker's clock, past the reservation's end ${h.until}; a worker polls at once after a job`,
      title: `${del.actor} ${del.kind === 'delete' ? 'finished' : 'released'} ${del.label}${attemptsOf(h)} past its reservation (by its next poll's time, ${now - h.until} s past it on the worker's clock): the worker's timeout is not shorter than retry_after (or is 0), so the job was free to be reserved again while it ran`,
      lines: [h.line, del.line],
      alternatives: [],
    });
  }

  /** Every finding, in the order of the lines they rest on, now that who fell silent is known. */
  finish(): Finding[] {
    const out = [...this.out, ...this.cache.finish()];
    for (const pair of this.pairs) {
      out.push(this.pairFinding(pair));
      const expired = this.stillRan(pair);
      if (expired === undefined) continue;
      // It proves what the next poll's clock only pointed to.
      const same = out.findIndex(
        (f) => f.kind === 'reservation-expired' && f.lines.join() === expired.lines.join() && f.certainty !== 'certain',
      );
      if (same >= 0) out.splice(same, 1);
      out.push(expired);
    }
    for (const q of this.quickDeletes) {
      const f = this.quickDelete(q);
      if (f !== undefined) out.push(f);
    }
    // Many processes that each worked one job (no $tries in it) and went quiet are --once workers
    // (one finding for them all, the timeout beside it), not as many timeouts.
    const once: Finding[] = [];
    for (const d of this.slowDeletes.values()) {
      const f = this.silentAfterDelete(d);
      if (f === undefined) continue;
      if (d.firstJob && d.h.maxTries === null) once.push(f);
      else out.push(f);
    }
    if (once.length > ONCE_WORKERS) out.push(onceWorkers(once));
    else out.push(...once);
    for (const [, list] of this.held) for (const h of list) if (!this.paired.has(h.r)) out.push(this.unfinished(h));
    return out.sort(byLines);
  }

  /**
   * On a clock that is not Redis' (no timing finding), a job its first worker finished after
   * another reserved it: its reservation certainly ended while it ran.
   */
  private stillRan({ h, e }: { h: Held; e: Held }): Finding | undefined {
    const [a, b] = [h.r, e.r];
    if (a.redisClock || h.end === undefined || h.end.line < b.line || this.shared.has(a.actor)) return undefined;
    return {
      kind: 'reservation-expired',
      certainty: 'certain',
      title: `${a.actor} ${h.end.kind === 'delete' ? 'finished' : 'released'} ${a.label}${attemptsOf(a)} after ${b.actor} had reserved it again: its reservation ended while it ran (the worker's timeout is not shorter than retry_after, or is 0)`,
      lines: [a.line, h.end.line],
      alternatives: [],
    };
  }

  /** A job reserved again while another reservation of it was held. */
  private pairFinding({ h, e }: { h: Held; e: Held }): Finding {
    const [a, b] = [h.r, e.r];
    const lines = [a.line, b.line];
    if (this.shared.has(a.actor))
      return {
        kind: 'reservation-expired',
        certainty: 'certain',
        title: `${b.label} reserved again${attemptsOf(b)} while its reservation${attemptsOf(a)} had not been deleted or released: retry_after gave it to another pop (its connections share one address on the unix socket, so whether the first worker still ran it or was killed cannot be told)`,
        lines,
        alternatives: [
          { kind: 'ran-twice', when: 'the first worker still ran it: it ran twice at once' },
          { kind: 'killed-mid-job', when: 'the first worker was killed (its timeout, a deploy, the OOM killer)' },
        ],
      };
    const k = b.attempts ?? 2;
    const belowTries = `${b.actor} runs with ${underTries(k)} (${TRIES_DEFAULT}): it failed the job with MaxAttemptsExceededException without running handle() (markJobAsFailedIfAlreadyExceedsMaxAttempts), deleting it within milliseconds of the pop`;
    if (h.end !== undefined && h.end.line > b.line) {
      // The first worker finished it after the second reserved it: both held it at once.
      const head = `${b.label} reserved again by ${b.actor}${attemptsOf(b)} while ${a.actor} still ran it${attemptsOf(a)} (${a.actor}'s reservation ended${retryAfterOf(a)} before the job did, and ${a.actor} ${h.end.kind === 'delete' ? 'deleted' : 'released'} it after; a job must finish within retry_after)`;
      if (b.maxTries !== null && b.attempts !== null && b.attempts > b.maxTries)
        return {
          kind: 'reservation-expired',
          certainty: 'certain',
          title: `${head}: attempt ${b.attempts} is past the payload's maxTries (${b.maxTries}), so ${b.actor} did not run it`,
          lines,
          alternatives: [],
        };
      const first = h.end.t - a.t;
      const second = e.end === undefined ? undefined : e.end.t - b.t;
      const ranTwice = (certainty: Certainty, because?: string): Finding => ({
        kind: 'ran-twice',
        certainty,
        ...(because === undefined ? {} : { because }),
        title: `${head}: it ran twice at once`,
        lines,
        alternatives:
          b.maxTries === null
            ? [{ kind: 'max-attempts-exceeded', when: belowTries }]
            : [{ kind: 'max-attempts-exceeded', when: "the job's retryUntil had passed at the second pop" }],
      });
      if (b.maxTries !== null)
        return ranTwice(
          'likely',
          `the payload's maxTries (${b.maxTries}) allows attempt ${k}, so ${b.actor} ran handle()`,
        );
      if (!a.redisClock || e.end?.kind !== 'delete' || second === undefined) return ranTwice('possible');
      // Only possible, though the timing points that way: a job whose second run returns at once
      // (one that finds its work already done) sends the very same traffic
      // (test/fixtures/explain: laravel8-ran-twice-quick against laravel8-max-attempts-tries1).
      if (second < AT_ONCE && first >= AT_ONCE && first >= 10 * second)
        return {
          kind: 'max-attempts-exceeded',
          certainty: 'possible',
          because: `${b.actor} deleted it ${ms(second)} after its pop, where the run of ${a.actor} took ${seconds(first)}; a second run that returns at once looks the same`,
          title: `${head}: ${b.actor} deleted it at once, the path of MaxAttemptsExceededException (the worker's ${underTries(k)}), the job failed without running a second time`,
          lines: [...lines, e.end.line],
          alternatives: [
            {
              kind: 'ran-twice',
              when: `${b.actor} runs with --tries of ${k} or more (or 0, no limit): handle() ran again and returned within ${ms(second)}`,
            },
          ],
          failed: {
            line: e.end.line,
            how: `failed with MaxAttemptsExceededException without running (deleted ${ms(second)} after the pop) if --tries is below ${k}; if it is ${k} or more (or 0), it ran and succeeded`,
            certainty: 'possible',
          },
        };
      if (second >= AT_ONCE)
        return ranTwice(
          'likely',
          `${b.actor} deleted it ${seconds(second)} after its pop (the run of ${a.actor} took ${seconds(first)}): handle() ran; MaxAttemptsExceededException deletes within milliseconds`,
        );
      return ranTwice('possible');
    }
    if (h.watch.next?.what === 'queue' && h.end === undefined)
      return {
        kind: 'reservation-expired',
        certainty: 'certain',
        title: `${b.label} reserved again by ${b.actor}${attemptsOf(b)}: ${a.actor} went on to other queue commands without deleting or releasing it${attemptsOf(a)}, so retry_after gave it back`,
        lines,
        alternatives: [],
      };
    // The first worker never finished it: its process ended, or it ran on past the capture.
    const restarted = h.watch.next?.what === 'start' ? h.watch.next : undefined;
    return {
      kind: 'killed-mid-job',
      certainty: restarted === undefined ? 'possible' : 'likely',
      ...(restarted === undefined
        ? {}
        : {
            because: `a new process started on the address of ${a.actor} (line ${restarted.line}): the one that popped the job had ended`,
          }),
      title: `${a.actor} popped ${a.label}${attemptsOf(a)} and was never heard from again (no delete, release or poll): killed mid-job (a deploy, the OOM killer, SIGKILL); the job stayed reserved until retry_after ended, then ${b.actor} reserved it${attemptsOf(b)}`,
      lines,
      alternatives: [
        {
          kind: 'timed-out',
          when: `its --timeout (or the job's $timeout) ran out: the SIGALRM handler ends the worker, and below its tries sends nothing (on the last try it would delete the job first)`,
        },
        ...(restarted === undefined
          ? [
              {
                kind: 'capture-ended' as const,
                when: `${a.actor} still ran it when the capture ended: its delete would follow, and the job ran twice at once`,
              },
            ]
          : []),
      ],
    };
  }

  /** A delete within a second of a take-over from a holder that never finished, no $tries in the payload. */
  private quickDelete({ from, to, del }: { from: Held; to: Reserve; del: Delete }): Finding | undefined {
    if (this.shared.has(from.r.actor) || from.end !== undefined || from.watch.next?.what === 'queue') return undefined;
    const k = to.attempts ?? 2;
    return {
      kind: 'max-attempts-exceeded',
      certainty: 'possible',
      title: `${del.label} deleted ${ms(del.t - to.t)} after ${del.actor} reserved it${attemptsOf(to)} from ${from.r.actor} (silent since its pop): with ${underTries(k)} (${TRIES_DEFAULT}) that is MaxAttemptsExceededException, the job failed without running (markJobAsFailedIfAlreadyExceedsMaxAttempts)`,
      lines: [to.line, del.line],
      alternatives: [
        {
          kind: 'ran-again',
          when: `${del.actor} runs with --tries of ${k} or more (or 0, no limit): handle() ran and returned at once`,
        },
      ],
      failed: {
        line: del.line,
        how: `if ${underTries(k)}, failed with MaxAttemptsExceededException without running; else it ran and succeeded`,
        certainty: 'possible',
      },
    };
  }

  /**
   * A delete some time into a job, then silence from its worker: its timeout's SIGALRM fails the
   * job (deleting it) and ends the worker when the attempt is its last (the payload's maxTries,
   * else the worker's --tries); an orderly exit after a job looks the same.
   */
  private silentAfterDelete({ h, del, watch }: SlowDelete): Finding | undefined {
    if (this.shared.has(del.actor) || watch.next?.what === 'queue') return undefined;
    // Its restart check after the job: the loop went on (stopIfNecessary), no alarm killed it mid-job.
    if (this.cache.checkedRestartAfter(del.actor, del.line)) return undefined;
    // Before 5.8.28 the alarm kills the worker and deletes nothing: a delete is never its doing.
    if (this.timeoutFailsJob === false) return undefined;
    const quietFor = this.live.lastT - del.t;
    // MONITOR's time measures the run only when the worker's clock is Redis'.
    const took = h.redisClock ? seconds(del.t - h.t) : undefined;
    const attempt =
      (h.retryUntil ?? null) !== null
        ? `attempt ${h.attempts ?? '?'}${h.maxTries === null ? '' : ` of ${h.maxTries}`} (the payload has retryUntil ${h.retryUntil}: the timeout fails the job once that has passed, from Laravel 8.15 whatever the tries)`
        : h.maxTries === null
          ? `attempt ${h.attempts ?? '?'} (the last if the worker runs with ${underTries((h.attempts ?? 1) + 1)}: the payload sets no $tries; ${TRIES_DEFAULT})`
          : `attempt ${h.attempts} of ${h.maxTries}`;
    const ended =
      watch.next?.what === 'start'
        ? 'its process ended (a new one started on its address)'
        : `was never heard from again (${seconds(Math.max(0, quietFor))} to the capture's end)`;
    return {
      kind: 'timed-out',
      certainty: 'possible',
      title: `${del.actor} deleted ${del.label} ${took === undefined ? 'some time' : took} into ${attempt} and ${ended}: its timeout${took === undefined ? '' : ` (about ${took})`} may have failed the job with MaxAttemptsExceededException (TimeoutExceededException from Laravel 10.10; markJobAsFailedIfWillExceedMaxAttempts) and ended the worker`,
      lines: [h.line, del.line],
      alternatives: [
        EXITED,
        ...(watch.next === undefined && quietFor < QUIET
          ? [{ kind: 'capture-ended' as const, when: 'the capture ended before its next poll' }]
          : []),
        {
          kind: 'killed-mid-job' as const,
          when: 'the worker was killed right after the job (a deploy, the OOM killer)',
        },
      ],
      failed: {
        line: del.line,
        how: `if its timeout ended it, failed by the worker's timeout with MaxAttemptsExceededException (markJobAsFailedIfWillExceedMaxAttempts); else it succeeded, or failed by an exception on its last try`,
        certainty: 'possible',
      },
    };
  }

  /** A reservation no delete or release ends, and that no other worker took. */
  private unfinished({ r: h, watch }: Held): Finding {
    const lines = [h.line];
    const timedOut: Alternative = {
      kind: 'timed-out',
      when: "its --timeout (or the job's $timeout) ran out: the SIGALRM handler ends the worker, and below its tries sends nothing",
    };
    if (this.shared.has(h.actor))
      return {
        kind: 'killed-mid-job',
        certainty: 'possible',
        title: `${h.label}${attemptsOf(h)} was popped and no delete or release of it follows: its worker was killed, or the capture ended while it ran`,
        lines,
        alternatives: [{ kind: 'capture-ended', when: 'it still ran when the capture ended' }, timedOut],
      };
    if (watch.next?.what === 'queue')
      return {
        kind: 'killed-mid-job',
        certainty: 'possible',
        title: `${h.actor} popped ${h.label}${attemptsOf(h)} and never sent its delete or release, though it sent queue commands after`,
        lines,
        alternatives: [],
      };
    const restarted = watch.next?.what === 'start' ? watch.next : undefined;
    // Within its reservation or past it, a capture that ends while a job runs looks the same as a
    // kill or a timeout (real captures of all three: test/fixtures/explain/pairs.ts).
    const pastReservation = h.redisClock && h.until !== null && this.live.lastT >= h.until;
    const ranOn: Alternative = {
      kind: 'capture-ended',
      when: `it still ran when the capture ended${pastReservation ? ', past its reservation (another worker may then reserve it again and run it twice)' : ''}`,
    };
    return {
      kind: 'killed-mid-job',
      certainty: restarted === undefined ? 'possible' : 'likely',
      ...(restarted === undefined
        ? {}
        : {
            because: `a new process started on its address (line ${restarted.line}): the one that popped the job had ended`,
          }),
      title: `${h.actor} popped ${h.label}${attemptsOf(h)} and was never heard from again: killed mid-job${restarted === undefined ? ', or the capture ended while it ran' : ''}`,
      lines,
      alternatives: [...(restarted === undefined ? [ranOn] : []), timedOut],
    };
  }
}

/** By the lines cited, first line first, then the next ([13] before [13, 25] before [13, 27]). */
function byLines(a: Finding, b: Finding): number {
  for (let i = 0; i < Math.min(a.lines.length, b.lines.length); i++)
    if (a.lines[i] !== b.lines[i]) return a.lines[i]! - b.lines[i]!;
  return a.lines.length - b.lines.length;
}

/** The payload's own last attempt (a timeout then fails the job). */
function lastAttempt(r: Reserve): boolean {
  return r.maxTries !== null && r.attempts !== null && r.attempts >= r.maxTries;
}

/** " after retry_after (3 s)" when the worker's clock is Redis', else "". */
function retryAfterOf(r: Reserve): string {
  return r.until !== null && r.redisClock ? ` after retry_after (${r.until - Math.floor(r.t)} s)` : '';
}

function attemptsOf(r: Reserve): string {
  return r.attempts === null ? '' : ` (attempt ${r.attempts})`;
}
