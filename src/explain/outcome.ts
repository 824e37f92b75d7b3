// How a job's life ends, as far as the capture shows it, said with what decides it: a delete is
// a success or Laravel's fail() alike (fail() deletes the reserved copy with the same ZREM), so
// only a finding's proof makes it "failed", and only a try the job had left makes it "succeeded".
// A life whose first sight is not its push began before the capture; one not deleted by its end
// continues after it.

import { underTries } from './findings.ts';

/** What happened to a job by the capture's end. */
export type LifeOutcome =
  'succeeded' | 'failed' | 'succeeded-or-failed' | 'pending' | 'delayed' | 'reserved' | 'released';

export type LifeMark = 'began-before-capture' | 'continues-after-capture';

/** One thing done to a job, as the outcome needs it. */
export type LifeStep = 'push' | 'later' | 'reserve' | 'due' | 'expired' | 'release' | 'delete';

/** What the outcome is read from: the life's first and last step, its releases, its last copy's attempts and $tries. */
export interface LifeFacts {
  first: LifeStep;
  last: LifeStep;
  releases: number;
  attempts: number | null;
  maxTries: number | null;
  /** The payload's retryUntil (or timeoutAt): with one, it and not the tries decides a failure after an exception (8.15+). */
  retryUntil?: number | null;
  /** The payload's maxExceptions: that many exceptions fail the job with tries left. */
  maxExceptions?: number | null;
  /** A finding's reading of its last delete as a failure, and how sure it is. */
  failed?: { how: string; certainty: 'certain' | 'likely' | 'possible' };
}

export interface LifeEnd {
  outcome: LifeOutcome;
  /** The rule of a failure, or the condition between success and failure. */
  when?: string;
  marks: LifeMark[];
}

export function lifeEnd(f: LifeFacts): LifeEnd {
  const marks: LifeMark[] = f.first === 'push' || f.first === 'later' ? [] : ['began-before-capture'];
  const going = (outcome: LifeOutcome): LifeEnd => ({ outcome, marks: [...marks, 'continues-after-capture'] });
  switch (f.last) {
    case 'push':
    case 'due':
    case 'expired':
      return going('pending');
    case 'later':
      return going('delayed');
    case 'reserve':
      return going('reserved');
    case 'release':
      return going('released');
    case 'delete':
      break;
  }
  if (f.failed !== undefined)
    return f.failed.certainty === 'certain'
      ? { outcome: 'failed', when: f.failed.how, marks }
      : { outcome: 'succeeded-or-failed', when: f.failed.how, marks };
  const attempt = f.attempts === null ? 'its last attempt' : `attempt ${f.attempts}`;
  const retryUntil = f.retryUntil ?? null;
  // What fails a job whose handle() threw, so that it is deleted as a success is: its last try;
  // a retryUntil passed (Worker::markJobAsFailedIfWillExceedMaxAttempts, which from 8.15 ignores
  // the tries when the job has a retryUntil); its maxExceptions reached.
  let byTries: string | null =
    f.maxTries === null
      ? `handle() threw on ${attempt} and the worker runs with ${underTries((f.attempts ?? 1) + 1)} (the payload sets no $tries; queue:work's default from 6.0; before, 0 sets no limit)`
      : f.attempts !== null && f.attempts >= f.maxTries
        ? `handle() threw on ${attempt} of ${f.maxTries}, its last`
        : null;
  if (byTries !== null && retryUntil !== null)
    byTries = `(before Laravel 8.15, which ignores the tries for a job with a retryUntil) ${byTries}`;
  const ways = [
    ...(retryUntil === null ? [] : [`handle() threw after its retryUntil (${retryUntil}, the app's clock) had passed`]),
    ...(f.maxExceptions === null || f.maxExceptions === undefined
      ? []
      : [
          `handle() threw and that made ${f.maxExceptions} exception${f.maxExceptions === 1 ? '' : 's'} in all (its maxExceptions)`,
        ]),
    ...(byTries === null ? [] : [byTries]),
  ];
  if (ways.length > 0)
    return {
      outcome: 'succeeded-or-failed',
      when: `failed if ${ways.join(', or if ')}: fail() deletes the job with the same ZREM${byTries === null ? `; else it succeeded on ${attempt} of ${f.maxTries}` : ''}`,
      marks,
    };
  if (f.releases > 0)
    return {
      outcome: 'succeeded-or-failed',
      when: `failed if the job failed itself ($this->fail(), maxExceptions, retryUntil) after its releases; else it succeeded on ${attempt} of ${f.maxTries}`,
      marks,
    };
  // A try left: an exception would have released it, not deleted it. Only the job itself can
  // fail it now ($this->fail()), and that is its code's choice, which the capture cannot see.
  return {
    outcome: 'succeeded',
    when: `deleted with tries left (${attempt} of ${f.maxTries}): an exception would have released it; unless the job failed itself ($this->fail())`,
    marks,
  };
}
