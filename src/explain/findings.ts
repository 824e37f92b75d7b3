// What `lqsim explain` points out in a capture: rules over the queue events read from it, each
// finding citing the capture lines it rests on. Pure.

/** What happened to a job (or a queue), as the capture shows it; `line` is the capture's line number. */
export type QueueEvent =
  | {
      kind: 'reserve';
      job: string;
      label: string;
      actor: string;
      line: number;
      attempts: number | null;
      /** The payload's maxTries (8.x; null when the job sets none, or older payloads). */
      maxTries: number | null;
    }
  | { kind: 'delete' | 'release'; job: string; label: string; actor: string; line: number }
  | { kind: 'migrate'; moved: number; line: number; from: string }
  | { kind: 'block-ready'; actor: string; line: number; key: string };

export interface Finding {
  title: string;
  /** Capture lines it rests on. */
  lines: number[];
}

/** A migrate that moves at least this many due jobs at once is worth saying. */
const LARGE_MIGRATION = 1000;

export function findings(events: readonly QueueEvent[]): Finding[] {
  const out: Finding[] = [];
  // The reservation each job is under, per worker, until that worker deletes or releases it.
  const held = new Map<string, Array<Extract<QueueEvent, { kind: 'reserve' }>>>();
  const maxAttempts = new Map<string, Extract<QueueEvent, { kind: 'reserve' }>>();
  let blpopSaid = false;
  for (const e of events) {
    switch (e.kind) {
      case 'reserve': {
        const earlier = held.get(e.job) ?? [];
        for (const h of earlier)
          out.push({
            title: `${e.label} reserved again by ${e.actor} while ${h.actor} still had it from its pop: it may run twice (retry_after shorter than the job, or ${h.actor} was killed)`,
            lines: [h.line, e.line],
          });
        held.set(e.job, [...earlier, e]);
        if (e.attempts !== null && e.maxTries !== null && e.maxTries > 0 && e.attempts > e.maxTries)
          maxAttempts.set(`${e.job}@${e.actor}`, e);
        break;
      }
      case 'delete':
      case 'release': {
        const list = held.get(e.job) ?? [];
        const mine = list.findIndex((h) => h.actor === e.actor);
        if (mine >= 0) list.splice(mine, 1);
        const over = maxAttempts.get(`${e.job}@${e.actor}`);
        if (over !== undefined && e.kind === 'delete') {
          out.push({
            title: `${e.label} reserved for attempt ${over.attempts} of ${over.maxTries} and deleted at once: failed with MaxAttemptsExceededException without running (markJobAsFailedIfAlreadyExceedsMaxAttempts, the path of a job whose earlier attempt timed out or was killed)`,
            lines: [over.line, e.line],
          });
          maxAttempts.delete(`${e.job}@${e.actor}`);
        }
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
        title: `${h.actor} popped ${h.label} and never sent its delete or release: killed mid-job, or the capture ended while it ran`,
        lines: [h.line],
      });
  return out.sort((a, b) => a.lines[0]! - b.lines[0]!);
}
