// What `lqsim explain` points out in a capture: rules over the queue events read from it, each
// finding citing the capture lines it rests on. Pure.
//
// MONITOR shows commands, never processes, so a worker's death is read from its silence: a
// Laravel worker that finishes a job deletes or releases it and polls again at once, and polls
// every --sleep seconds while idle, so a connection that pops a job and sends nothing more was
// killed (its timeout's SIGALRM, a deploy, the OOM killer), or the capture ended while it ran.

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
  | { kind: 'migrate'; moved: number; line: number; from: string }
  | { kind: 'block-ready'; actor: string; line: number; key: string };

type Reserve = Extract<QueueEvent, { kind: 'reserve' }>;

export interface Finding {
  title: string;
  /** Capture lines it rests on. */
  lines: number[];
  /** The delete this finding reads as a failure (the job's life says it there), and how it failed. */
  failed?: { line: number; how: string };
}

/** A migrate that moves at least this many due jobs at once is worth saying. */
const LARGE_MIGRATION = 1000;

/** A delete this soon after the pop did not run a job of any weight (the max-attempts path). */
const AT_ONCE = 1;

const seconds = (s: number): string => `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;

/**
 * The findings of a capture's events, all at once. `lastLine` is each actor's last command line
 * in the capture (a worker heard from after its pop was alive then); without it every actor
 * counts as alive.
 */
export function findings(events: readonly QueueEvent[], lastLine?: ReadonlyMap<string, number>): Finding[] {
  const rules = new FindingRules(lastLine === undefined);
  for (const [actor, line] of lastLine ?? []) rules.seen(actor, line);
  for (const e of events) rules.add(e);
  return rules.finish();
}

type Delete = Extract<QueueEvent, { kind: 'delete' | 'release' }>;

/**
 * The rules fed a capture as it is read: `seen` for every command of an actor, `add` for each
 * queue event, `finish` at the end. What is held is bounded by what is undecided: the reservations
 * not yet deleted, and the few candidates whose reading waits on a worker's later silence.
 */
export class FindingRules {
  private readonly out: Finding[] = [];
  private readonly lastSeen = new Map<string, number>();
  // The reservations each job is under, oldest first, until their worker deletes or releases them.
  private readonly held = new Map<string, Reserve[]>();
  // A reservation taken while another worker held the job: ran twice, or taken from a killed one.
  private readonly pairs: Array<{ h: Reserve; e: Reserve }> = [];
  private readonly paired = new Set<Reserve>();
  // The reservations that took a job from a holder, by job@actor, until their delete.
  private readonly takers = new Map<string, { from: Reserve; to: Reserve }>();
  // A quick delete after a take-over: MaxAttemptsExceeded under --tries 1, if the holder was killed.
  private readonly quickDeletes: Array<{ from: Reserve; to: Reserve; del: Delete }> = [];
  // Each actor's last delete of a last attempt, some time in: its timeout's, if nothing follows.
  private readonly lastAttemptDeletes = new Map<string, { h: Reserve; del: Delete }>();
  // A pop past the payload's maxTries, waiting for its delete.
  private readonly overTries = new Map<string, Reserve>();
  private blpopSaid = false;

  /**
   * @param everyoneAlive with no record of who was seen when (bare events), count every actor as heard from later.
   * @param shared actors that are many connections MONITOR cannot tell apart (a unix socket's):
   *   their silence and their identity prove nothing.
   */
  constructor(
    private readonly everyoneAlive = false,
    private readonly shared: ReadonlySet<string> = new Set(),
  ) {}

  /** An actor sent a command on this line. */
  seen(actor: string, line: number): void {
    this.lastSeen.set(actor, line);
  }

  private alive(actor: string, after: number): boolean {
    return this.everyoneAlive || (this.lastSeen.get(actor) ?? -Infinity) > after;
  }

  add(e: QueueEvent): void {
    switch (e.kind) {
      case 'reserve': {
        const earlier = this.held.get(e.job) ?? [];
        for (const h of earlier) {
          this.pairs.push({ h, e });
          this.paired.add(h);
          this.takers.set(`${e.job}@${e.actor}`, { from: h, to: e });
        }
        this.held.set(e.job, [...earlier, e]);
        if (e.attempts !== null && e.maxTries !== null && e.maxTries > 0 && e.attempts > e.maxTries)
          this.overTries.set(`${e.job}@${e.actor}`, e);
        break;
      }
      case 'delete':
      case 'release': {
        const list = this.held.get(e.job) ?? [];
        // The reservation whose copy it names (its attempts), else the one its actor took.
        const byCopy =
          e.attempts === undefined || e.attempts === null ? -1 : list.findIndex((h) => h.attempts === e.attempts);
        const mine = byCopy >= 0 ? byCopy : list.findIndex((h) => h.actor === e.actor);
        const h = mine >= 0 ? list.splice(mine, 1)[0]! : undefined;
        if (list.length === 0) this.held.delete(e.job);
        const key = `${e.job}@${e.actor}`;
        const over = this.overTries.get(key);
        this.overTries.delete(key);
        const taken = this.takers.get(key);
        this.takers.delete(key);
        if (over !== undefined && e.kind === 'delete') {
          this.out.push({
            title: `${e.label} reserved for attempt ${over.attempts} of ${over.maxTries} and deleted at once: failed with MaxAttemptsExceededException without running (markJobAsFailedIfAlreadyExceedsMaxAttempts, the path of a job whose earlier attempt timed out or was killed)`,
            lines: [over.line, e.line],
            failed: {
              line: e.line,
              how: 'failed with MaxAttemptsExceededException without running (markJobAsFailedIfAlreadyExceedsMaxAttempts)',
            },
          });
        } else if (
          taken !== undefined &&
          e.kind === 'delete' &&
          taken.to.maxTries === null &&
          e.t - taken.to.t < AT_ONCE
        ) {
          this.quickDeletes.push({ ...taken, del: e });
        }
        if (
          h !== undefined &&
          e.kind === 'delete' &&
          h.maxTries !== null &&
          h.attempts !== null &&
          h.attempts >= h.maxTries &&
          e.t - h.t >= AT_ONCE
        )
          this.lastAttemptDeletes.set(e.actor, { h, del: e });
        // Finished after its reservation ended: the worker let the job run past retry_after.
        if (h !== undefined && h.until !== null && h.redisClock && e.t >= h.until + 1)
          this.out.push({
            title: `${e.actor} ${e.kind === 'delete' ? 'finished' : 'released'} ${e.label}${attemptsOf(h)} ${seconds(e.t - h.t)} after its pop, past its reservation (retry_after ${h.until - Math.floor(h.t)} s): the worker's timeout is not shorter than retry_after (or is 0), so the job was free to be reserved again while it ran; Laravel asks for timeout a few seconds shorter than retry_after`,
            lines: [h.line, e.line],
          });
        break;
      }
      case 'migrate':
        if (e.moved >= LARGE_MIGRATION)
          this.out.push({
            title: `${e.moved} due jobs moved from ${e.from} back to the queue in one migrate: a backlog (or a retry_after expiry of many reserved jobs) at once`,
            lines: [e.line],
          });
        break;
      case 'block-ready':
        if (!this.blpopSaid) {
          this.blpopSaid = true;
          this.out.push({
            title: `BLPOP on the ready list ${e.key} (block_for, Laravel 5.6-5.7): the job is popped, then ZADDed to :reserved from PHP; a worker killed in between loses it (5.8 blocks on :notify and reserves in the pop script)`,
            lines: [e.line],
          });
        }
        break;
    }
  }

  /** Every finding, in the order of the lines they rest on, now that who fell silent is known. */
  finish(): Finding[] {
    const out = [...this.out];
    for (const { h, e } of this.pairs) {
      if (this.shared.has(h.actor)) {
        out.push({
          title: `${e.label} reserved again${attemptsOf(e)} while its reservation${attemptsOf(h)} had not been deleted or released: retry_after gave it to another pop (its connections share one address on the unix socket, so whether the first worker still ran it or was killed cannot be told)`,
          lines: [h.line, e.line],
        });
        continue;
      }
      out.push(
        this.alive(h.actor, h.line)
          ? {
              title: `${e.label} reserved again by ${e.actor}${attemptsOf(e)} while ${h.actor} still ran it${attemptsOf(h)}: it ran twice at once (${h.actor}'s reservation ended${retryAfterOf(h)} before the job did; a job must finish within retry_after)`,
              lines: [h.line, e.line],
            }
          : {
              title: `${h.actor} popped ${h.label}${attemptsOf(h)} and was never heard from again: killed mid-job (its timeout, a deploy, the OOM killer); the job stayed reserved until retry_after ended, then ${e.actor} reserved it${attemptsOf(e)}`,
              lines: [h.line, e.line],
            },
      );
    }
    // No $tries in the payload: the worker's --tries decides, and MONITOR does not show it.
    for (const { from, to, del } of this.quickDeletes)
      if (!this.shared.has(from.actor) && !this.alive(from.actor, from.line))
        out.push({
          title: `${del.label} deleted ${Math.round((del.t - to.t) * 1000)} ms after ${del.actor} reserved it${attemptsOf(to)} from killed ${from.actor}: with --tries below ${to.attempts ?? 2} (queue:work's default is 1) that is MaxAttemptsExceededException, the job failed without running (markJobAsFailedIfAlreadyExceedsMaxAttempts); with more tries it ran and succeeded at once`,
          lines: [to.line, del.line],
          failed: {
            line: del.line,
            how: `if --tries is below ${to.attempts ?? 2}, failed with MaxAttemptsExceededException without running; else it ran and succeeded`,
          },
        });
    // The last attempt deleted some time into it by a worker that then fell silent: the worker's
    // timeout (Worker::registerTimeoutHandler) failed the job, then killed the worker.
    for (const { h, del } of this.lastAttemptDeletes.values())
      if (!this.shared.has(del.actor) && !this.alive(del.actor, del.line))
        out.push({
          title: `${del.actor} deleted ${del.label} ${seconds(del.t - h.t)} into attempt ${h.attempts} of ${h.maxTries} and was never heard from again: its timeout (about ${seconds(del.t - h.t)}) failed the job with MaxAttemptsExceededException (TimeoutExceededException from Laravel 10.10; markJobAsFailedIfWillExceedMaxAttempts) and killed the worker`,
          lines: [h.line, del.line],
          failed: {
            line: del.line,
            how: "failed by its worker's timeout with MaxAttemptsExceededException (TimeoutExceededException from Laravel 10.10; markJobAsFailedIfWillExceedMaxAttempts)",
          },
        });
    for (const [, list] of this.held)
      for (const h of list) {
        if (this.paired.has(h)) continue; // said with the reservation that took the job
        out.push({
          title: this.shared.has(h.actor)
            ? `${h.label}${attemptsOf(h)} was popped and no delete or release of it follows: its worker was killed, or the capture ended while it ran`
            : this.alive(h.actor, h.line)
              ? `${h.actor} popped ${h.label}${attemptsOf(h)} and never sent its delete or release, though it sent other commands after`
              : `${h.actor} popped ${h.label}${attemptsOf(h)} and was never heard from again: killed mid-job, or the capture ended while it ran`,
          lines: [h.line],
        });
      }
    return out.sort(byLines);
  }
}

/** By the lines cited, first line first, then the next ([13] before [13, 25] before [13, 27]). */
function byLines(a: Finding, b: Finding): number {
  for (let i = 0; i < Math.min(a.lines.length, b.lines.length); i++)
    if (a.lines[i] !== b.lines[i]) return a.lines[i]! - b.lines[i]!;
  return a.lines.length - b.lines.length;
}

/** " after retry_after (3 s)" when the worker's clock is Redis', else "". */
function retryAfterOf(r: Reserve): string {
  return r.until !== null && r.redisClock ? ` after retry_after (${r.until - Math.floor(r.t)} s)` : '';
}

function attemptsOf(r: Reserve): string {
  return r.attempts === null ? '' : ` (attempt ${r.attempts})`;
}
