// A reply (or a queue's size) that contradicts the model: the run stops, because the trace is no
// longer Laravel's alone. The message names the command, what the model expected, what Redis
// answered and the likely cause, in the run's terms (jobs by label, times as t+Ns).
import type { Origin } from './keyspace.ts';

export class ModelMismatchError extends Error {
  constructor(
    /** Who sent it and what: "worker-1's pop (EVAL ‹pop› 3 queues:default …)". */
    readonly command: string,
    /** What the model expected, as a clause: "queues:default should hold SendInvoice#1 (…)". */
    readonly expected: string,
    /** What Redis answered: "nothing", "SendInvoice#2 (attempts 0)", "0"... */
    readonly actual: string,
    /** The likely cause: "another client took it (an app's queue:work on this server?)". */
    readonly likelyCause: string,
    /**
     * What the actor had under way on the reply the model foresaw (a reply compared when it came,
     * not awaited: check.ts' foresee), said last: "worker-1 had gone on with … its next 3 commands …".
     */
    readonly wentOn?: string,
  ) {
    super(
      `${command} returned ${actual}, but ${expected}: ${likelyCause}; the trace is no longer Laravel's alone, so the run stops${wentOn === undefined ? '' : ` (${wentOn})`}`,
    );
    this.name = 'ModelMismatchError';
  }

  /** What the run saw, without a cause: "worker-1's pop (…) returned nothing, but queues:default should hold …". */
  get observed(): string {
    return `${this.command} returned ${this.actual}, but ${this.expected}${this.wentOn === undefined ? '' : ` (${this.wentOn})`}`;
  }

  /**
   * The same difference, for a reply the actor did not wait for: `underWay` of its commands had
   * been issued on the reply the model foresaw when this one came (none: nothing is added).
   */
  foreseenBy(actor: string, underWay: number): ModelMismatchError {
    if (underWay === 0) return this;
    const next = underWay === 1 ? 'its next command' : `its next ${underWay} commands`;
    return new ModelMismatchError(
      this.command,
      this.expected,
      this.actual,
      this.likelyCause,
      `${actor} had gone on with the reply the model foresaw: ${next} had been issued before this reply came`,
    );
  }
}

/** How messages name payloads and times (the runner's registry and clock). */
export interface Describer {
  /** The job a payload is, "SendInvoice#1", or null for one this run did not dispatch. */
  labelOf(payload: string): { job: string | null; attempts: number | null };
  /** A virtual instant as views show it: "t+5s". */
  when(instant: number): string;
}

/** A payload in a message: "SendInvoice#1 (attempts 1)", or an excerpt when it is no job of the run's. */
export function describePayload(d: Describer, payload: string): string {
  const { job, attempts } = d.labelOf(payload);
  if (job === null) {
    const excerpt = payload.length > 48 ? `${payload.slice(0, 47)}…` : payload;
    return `a payload this run did not dispatch (${JSON.stringify(excerpt)})`;
  }
  return attempts === null ? job : `${job} (attempts ${attempts})`;
}

/** A list entry in a message: a job, or a :notify entry as the notification of its job's push. */
export function describeEntry(d: Describer, value: string, o: Origin): string {
  return o.of === undefined
    ? describePayload(d, value)
    : `the notification ${JSON.stringify(value)} of ${describePayload(d, o.of)}`;
}

/** "pushed at t+0s by dispatcher". */
export function describeOrigin(d: Describer, o: Origin): string {
  return `${o.how} at ${d.when(o.at)} by ${o.actor}`;
}

/** A reply as a message shows it. */
export function describeReply(d: Describer, reply: unknown): string {
  if (reply === null || reply === undefined) return 'nil';
  if (typeof reply === 'number') return String(reply);
  if (typeof reply === 'string') return describePayload(d, reply);
  if (Array.isArray(reply)) {
    if (reply.length === 0) return 'an empty array';
    const shown = reply.slice(0, 3).map((r) => describeReply(d, r));
    return `[${shown.join(', ')}${reply.length > 3 ? `, … ${reply.length} in all` : ''}]`;
  }
  if (reply instanceof Error) return `the error ${JSON.stringify(reply.message)}`;
  return typeof reply;
}

/** A count of jobs: "1 job", "3 jobs". */
export function jobs(n: number): string {
  return `${n} ${n === 1 ? 'job' : 'jobs'}`;
}
