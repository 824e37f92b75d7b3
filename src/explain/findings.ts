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
  | { kind: 'delete' | 'release'; job: string; label: string; actor: string; line: number; t: number }
  | { kind: 'migrate'; moved: number; line: number; from: string }
  | { kind: 'block-ready'; actor: string; line: number; key: string };

type Reserve = Extract<QueueEvent, { kind: 'reserve' }>;

export interface Finding {
  title: string;
  /** Capture lines it rests on. */
  lines: number[];
}

/** A migrate that moves at least this many due jobs at once is worth saying. */
const LARGE_MIGRATION = 1000;

/** A delete this soon after the pop did not run a job of any weight (the max-attempts path). */
const AT_ONCE = 1;

const seconds = (s: number): string => `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;

/**
 * The findings of a capture's events. `lastLine` is each actor's last command line in the capture
 * (a worker heard from after its pop was alive then); without it every actor counts as alive.
 */
export function findings(events: readonly QueueEvent[], lastLine?: ReadonlyMap<string, number>): Finding[] {
  const out: Finding[] = [];
  const alive = (actor: string, after: number): boolean => (lastLine?.get(actor) ?? Infinity) > after;
  // The reservations each job is under, oldest first, until their worker deletes or releases them.
  const held = new Map<string, Reserve[]>();
  // A reservation taken over from a silent (killed) worker, waiting for what its new worker does.
  const takenOver = new Map<string, { from: Reserve; to: Reserve }>();
  // A pop past the payload's maxTries, waiting for its delete.
  const overTries = new Map<string, Reserve>();
  let blpopSaid = false;
  for (const e of events) {
    switch (e.kind) {
      case 'reserve': {
        const earlier = held.get(e.job) ?? [];
        for (const h of earlier) {
          if (alive(h.actor, h.line))
            out.push({
              title: `${e.label} reserved again by ${e.actor}${attemptsOf(e)} while ${h.actor} still ran it${attemptsOf(h)}: it ran twice at once (${h.actor}'s reservation ended${retryAfterOf(h)} before the job did; a job must finish within retry_after)`,
              lines: [h.line, e.line],
            });
          else {
            out.push({
              title: `${h.actor} popped ${h.label}${attemptsOf(h)} and was never heard from again: killed mid-job (its timeout, a deploy, the OOM killer); the job stayed reserved until retry_after ended, then ${e.actor} reserved it${attemptsOf(e)}`,
              lines: [h.line, e.line],
            });
            takenOver.set(`${e.job}@${e.actor}`, { from: h, to: e });
          }
        }
        // What is not taken over is still held (a worker alive may yet delete its copy).
        held.set(e.job, [...earlier.filter((h) => alive(h.actor, h.line)), e]);
        if (e.attempts !== null && e.maxTries !== null && e.maxTries > 0 && e.attempts > e.maxTries)
          overTries.set(`${e.job}@${e.actor}`, e);
        break;
      }
      case 'delete':
      case 'release': {
        const list = held.get(e.job) ?? [];
        const mine = list.findIndex((h) => h.actor === e.actor);
        const h = mine >= 0 ? list.splice(mine, 1)[0]! : undefined;
        const key = `${e.job}@${e.actor}`;
        const over = overTries.get(key);
        overTries.delete(key);
        const taken = takenOver.get(key);
        takenOver.delete(key);
        if (over !== undefined && e.kind === 'delete') {
          out.push({
            title: `${e.label} reserved for attempt ${over.attempts} of ${over.maxTries} and deleted at once: failed with MaxAttemptsExceededException without running (markJobAsFailedIfAlreadyExceedsMaxAttempts, the path of a job whose earlier attempt timed out or was killed)`,
            lines: [over.line, e.line],
          });
        } else if (
          taken !== undefined &&
          e.kind === 'delete' &&
          taken.to.maxTries === null &&
          e.t - taken.to.t < AT_ONCE
        ) {
          // No $tries in the payload: the worker's --tries decides, and MONITOR does not show it.
          out.push({
            title: `${e.label} deleted ${Math.round((e.t - taken.to.t) * 1000)} ms after ${e.actor} reserved it${attemptsOf(taken.to)} from killed ${taken.from.actor}: with --tries below ${taken.to.attempts ?? 2} (queue:work's default is 1) that is MaxAttemptsExceededException, the job failed without running (markJobAsFailedIfAlreadyExceedsMaxAttempts); with more tries it ran and succeeded at once`,
            lines: [taken.to.line, e.line],
          });
        }
        // The last attempt deleted some time into it by a worker that then fell silent: the worker's
        // timeout (Worker::registerTimeoutHandler) failed the job, then killed the worker.
        if (
          h !== undefined &&
          e.kind === 'delete' &&
          h.maxTries !== null &&
          h.attempts !== null &&
          h.attempts >= h.maxTries &&
          e.t - h.t >= AT_ONCE &&
          !alive(e.actor, e.line)
        )
          out.push({
            title: `${e.actor} deleted ${e.label} ${seconds(e.t - h.t)} into attempt ${h.attempts} of ${h.maxTries} and was never heard from again: its timeout (about ${seconds(e.t - h.t)}) failed the job with MaxAttemptsExceededException (markJobAsFailedIfWillExceedMaxAttempts) and killed the worker`,
            lines: [h.line, e.line],
          });
        // Finished after its reservation ended: the worker let the job run past retry_after.
        if (h !== undefined && h.until !== null && h.redisClock && e.t >= h.until + 1)
          out.push({
            title: `${e.actor} ${e.kind === 'delete' ? 'finished' : 'released'} ${e.label}${attemptsOf(h)} ${seconds(e.t - h.t)} after its pop, past its reservation (retry_after ${h.until - Math.floor(h.t)} s): the worker's timeout is not shorter than retry_after (or is 0), so the job was free to be reserved again while it ran; Laravel asks for timeout a few seconds shorter than retry_after`,
            lines: [h.line, e.line],
          });
        break;
      }
      case 'migrate':
        if (e.moved >= LARGE_MIGRATION)
          out.push({
            title: `${e.moved} due jobs moved from ${e.from} back to the queue in one migrate: a backlog (or a retry_after expiry of many reserved jobs) at once`,
            lines: [e.line],
          });
        break;
      case 'block-ready':
        if (!blpopSaid) {
          blpopSaid = true;
          out.push({
            title: `BLPOP on the ready list ${e.key} (block_for, Laravel 5.6-5.7): the job is popped, then ZADDed to :reserved from PHP; a worker killed in between loses it (5.8 blocks on :notify and reserves in the pop script)`,
            lines: [e.line],
          });
        }
        break;
    }
  }
  for (const [, list] of held)
    for (const h of list)
      out.push({
        title: alive(h.actor, h.line)
          ? `${h.actor} popped ${h.label}${attemptsOf(h)} and never sent its delete or release, though it sent other commands after`
          : `${h.actor} popped ${h.label}${attemptsOf(h)} and was never heard from again: killed mid-job, or the capture ended while it ran`,
        lines: [h.line],
      });
  return out.sort((a, b) => a.lines[0]! - b.lines[0]! || a.lines.length - b.lines.length);
}

/** " after retry_after (3 s)" when the worker's clock is Redis', else "". */
function retryAfterOf(r: Reserve): string {
  return r.until !== null && r.redisClock ? ` after retry_after (${r.until - Math.floor(r.t)} s)` : '';
}

function attemptsOf(r: Reserve): string {
  return r.attempts === null ? '' : ` (attempt ${r.attempts})`;
}
