// Each job a capture moved, and its life as the capture shows it (pushed; reserved for attempt N;
// moved back by a migrate; released; deleted, with a ZREM of a copy no longer in :reserved called
// out), built step by step as explain/titles.ts reads them. explain/lives.ts prints them.
import { describePayload, parsedObject } from '../output/describe.ts';
import type { FailedJob, JobInstance } from '../scenarios/timeline.ts';
import type { CapturedLine } from './capture.ts';
import type { FailableDelete } from './failed-jobs.ts';
import { failedJob } from './failed-jobs.ts';
import type { Finding } from './findings.ts';
import { LIVES_SHOWN } from './lives.ts';
import type { LifeEnd, LifeStep } from './outcome.ts';
import { lifeEnd } from './outcome.ts';
import { ownCopy } from '../redis/own-string.ts';
import type { Releases } from './recognise.ts';
import { attemptOfReservedCopy } from './recognise.ts';

/** One thing that happened to a job: the capture line, MONITOR's time (seconds), what. */
export interface LifeEvent {
  line: number;
  t: number;
  what: string;
}

export interface JobLife extends LifeEnd {
  job: string;
  events: LifeEvent[];
  /** More than pushed, reserved once, deleted: reserved again, released, failed, a ZREM that removed nothing, unfinished. */
  eventful: boolean;
}

/** What the trace reads of a job payload, parsed once: its id (uuid, else 5.x's id), attempts, $tries. */
export interface PayloadFacts {
  id: string | undefined;
  attempts: number | null;
  maxTries: number | null;
  /**
   * The payload's retryUntil (5.5-8.14: timeoutAt; Job::retryUntil() reads either), unix
   * seconds on the app's clock, or null. Set, it and not maxTries decides the pre-run failure.
   */
  retryUntil?: number | null;
  /** The payload's maxExceptions (8.x), or null: that many exceptions fail the job with tries left. */
  maxExceptions?: number | null;
}

export type LifeKind = LifeStep;

/** A job's life so far, with what decides whether it is worth printing. */
interface LifeRecord {
  events: LifeEvent[];
  reserves: number;
  deleted: boolean;
  /** Released, or a ZREM of a copy :reserved no longer holds. */
  unusual: boolean;
  first: LifeKind;
  last: LifeKind;
  releases: number;
  /** The last copy's attempts and $tries. */
  copy: PayloadFacts | undefined;
  /**
   * The copy on the ready list, when its next pop is past its $tries (a failure the capture
   * proves): the payload failed_jobs would log (getRawBody is what the pop took). Then the copy
   * that pop took, until its delete.
   */
  ready?: RawBody;
  popped?: RawBody;
  /** Its last reservation's poll carried a `now` past the payload's retryUntil: its delete is a failure. */
  pastUntil?: boolean;
}

/** A copy of a job's payload as it was on the ready list, and the attempt its pop makes it. */
interface RawBody {
  attempt: number;
  raw: string;
}

/**
 * The jobs of a capture, named as the trace names them (class#n, in order of first appearance),
 * and what happened to each. A long capture's quiet lives are counted instead of kept unless
 * `allLives`.
 */
export class JobLives {
  private readonly byId = new Map<string, JobInstance>();
  private readonly perClass = new Map<string, number>();
  /** What happened to each job, by job id, in order. */
  private readonly lives = new Map<string, LifeRecord>();
  /** The attempts of the copy each job has in :reserved (a ZREM of another copy removes nothing). */
  private readonly reservedCopy = new Map<string, number | null>();
  private quiet = 0;
  /** The payload the last jobOf() read, and its job: the command event() is told of next (explain/titles.ts reads them in that order). */
  private readonly read: { raw: string; facts: PayloadFacts | undefined; job: JobInstance | undefined } = {
    raw: '',
    facts: undefined,
    job: undefined,
  };
  /** Deletes of a copy past its $tries, by capture line: what failed_jobs would hold if a finding proves the failure. */
  private readonly failable = new Map<number, FailableDelete>();

  /**
   * `jobs`: the timeline's list, each job appended as it is first seen; `failed`: the timeline's
   * failed_jobs, filled at the end with the failures the findings prove; `releases`: the
   * capture's (how Laravel numbers an attempt, and words its exceptions).
   */
  constructor(
    private readonly jobs: JobInstance[],
    private readonly allLives: boolean,
    private readonly failed: FailedJob[] = [],
    private readonly releases: Releases | null | undefined = undefined,
  ) {}

  /** The label of the job with this id (its uuid), if the capture showed its payload. */
  labelOfId(id: string): string | undefined {
    return this.byId.get(id)?.label;
  }

  /** Quiet lives (pushed, reserved once, deleted) counted instead of kept. */
  get quietLives(): number {
    return this.quiet;
  }

  /** The job a payload belongs to, first seen at `t` on `queue`; undefined for what is no job payload. */
  readonly jobOf = (raw: string, t: number, queue: string, facts = payloadFacts(raw)): JobInstance | undefined => {
    const id = facts?.id;
    if (id === undefined) return undefined;
    let job = this.byId.get(id);
    if (job === undefined) {
      const summary = describePayload(raw, new Map());
      const cls = summary?.label.replace(/#.*$/, '') ?? 'Job';
      const n = (this.perClass.get(cls) ?? 0) + 1;
      this.perClass.set(cls, n);
      job = {
        label: `${cls}#${n}`,
        id,
        class: cls,
        dispatchedAt: t,
        queue,
        connection: 'redis',
        outcome: 'pending',
        executions: 0,
      };
      this.byId.set(id, job);
      // Known from here on: the commands of this step and later ones name it by its label.
      this.jobs.push(job);
    }
    // Only until the next payload is read: a slice of the read chunk is not kept beyond.
    this.read.raw = raw;
    this.read.facts = facts;
    this.read.job = job;
    return job;
  };

  /** One thing that happened to `job` at a capture line; `copy`: the payload the command sent. */
  readonly event = (
    job: JobInstance,
    at: CapturedLine,
    kind: LifeKind,
    what: string,
    copy?: PayloadFacts,
    /** A reservation's: the `now` its poll's migrates carried (the worker's clock), when in the capture. */
    now?: number | null,
  ): void => {
    let life = this.lives.get(job.id);
    if (life === undefined)
      this.lives.set(
        job.id,
        (life = {
          events: [],
          reserves: 0,
          deleted: false,
          unusual: false,
          first: kind,
          last: kind,
          releases: 0,
          copy,
        }),
      );
    life.last = kind;
    if (copy !== undefined) life.copy = copy;
    const attempts = copy?.attempts ?? null;
    if (kind === 'reserve')
      life.pastUntil = copy?.retryUntil != null && now !== undefined && now !== null && now > copy.retryUntil;
    this.rawBody(job, life, at, kind, copy);
    let said = what;
    if (kind === 'reserve') {
      life.reserves++;
      this.reservedCopy.set(job.id, attempts);
    } else if (kind === 'expired') this.reservedCopy.delete(job.id);
    else if (kind === 'delete' || kind === 'release') {
      if (kind === 'delete') life.deleted = true;
      else {
        life.unusual = true;
        life.releases++;
      }
      if (life.events.length === 0) {
        // Its pop is not in the capture: reserved before the capture began.
        said += ' (reserved before the capture began: its pop is not in it)';
        life.unusual = true;
      } else if (!this.reservedCopy.has(job.id)) {
        said += ' (no copy of it is in :reserved now: the ZREM removes nothing)';
        life.unusual = true;
      } else if (this.reservedCopy.get(job.id) !== attempts) {
        said += ` (attempt ${attempts ?? '?'}'s copy; :reserved holds attempt ${this.reservedCopy.get(job.id) ?? '?'}'s, so the ZREM removes nothing)`;
        life.unusual = true;
      } else this.reservedCopy.delete(job.id);
    }
    // Kept to the end (json keeps every job's): one flat string, not the tree of pieces it was built from.
    life.events.push({ line: at.lineNo, t: Number(at.line.time), what: ownCopy(said) });
    // A long capture's quiet lives (pushed, reserved once, deleted) are counted, not kept, unless
    // every life is asked for: the text names them by count. A last attempt's delete may yet be
    // read as a timeout's failure, so it is kept.
    if (
      !this.allLives &&
      kind === 'delete' &&
      this.byId.size > LIVES_SHOWN &&
      !eventful(life, false) &&
      !(copy !== undefined && isLastAttempt(copy)) &&
      !this.failable.has(at.lineNo)
    ) {
      this.lives.delete(job.id);
      this.quiet++;
    }
  };

  /**
   * What failed_jobs would log of a job failed past its $tries, kept from the commands that show
   * it, and only for such a job: the copy the ready list holds when its next pop is past its
   * $tries (a push, or a migrate that moved it back), the copy that pop took, and at its delete
   * the payload's id and name. A payload with a retryUntil may fail at any attempt, once the
   * worker's clock passes it (markJobAsFailedIfAlreadyExceedsMaxAttempts, 5.5+): its copy is kept
   * while it waits on the ready list, as Redis keeps it, and its delete is failable when its
   * reservation's poll was past retryUntil.
   */
  private rawBody(job: JobInstance, life: LifeRecord, at: CapturedLine, kind: LifeKind, copy?: PayloadFacts): void {
    const read = this.read.job === job ? this.read : undefined;
    if (kind === 'push' || kind === 'due' || kind === 'expired') {
      const f = read?.facts;
      // The pop raises the copy's attempts by one; 5.3 numbers that attempt one lower.
      const next = f === undefined || f.attempts === null ? null : attemptOfReservedCopy(f.attempts + 1, this.releases);
      life.ready =
        read !== undefined && next !== null && (pastTries(next, f?.maxTries ?? null) || f?.retryUntil != null)
          ? { attempt: next, raw: ownCopy(read.raw) }
          : undefined;
    } else if (kind === 'reserve') {
      life.popped = life.ready !== undefined && life.ready.attempt === copy?.attempts ? life.ready : undefined;
      life.ready = undefined;
    } else if (kind === 'delete' && copy !== undefined && (pastTries(copy.attempts, copy.maxTries) || life.pastUntil)) {
      const p = read === undefined ? undefined : payloadName(read.raw);
      this.failable.set(at.lineNo, {
        id: p?.id ?? job.id,
        name: p?.name ?? job.class,
        payload: life.popped?.attempt === copy.attempts ? life.popped.raw : undefined,
      });
      life.popped = undefined;
    } else if (kind === 'delete' || kind === 'release') {
      // Not a failure (a retryUntil not yet passed): its copy is not kept beyond the reservation.
      life.popped = undefined;
    }
  }

  /** The label of the job a payload belongs to (as the trace names it), and its attempts: for the state pane. */
  labelOfPayload(raw: string): { job: string | null; attempts: number | null } {
    const facts = payloadFacts(raw);
    const job = facts?.id === undefined ? null : (this.byId.get(facts.id)?.label ?? null);
    return { job, attempts: facts?.attempts ?? null };
  }

  /**
   * Each job's life, in the order the jobs appeared; a failure read by a finding's rule is said at
   * its delete. Each life that ends `failed` (proven) has its failed_jobs row in `failed`, in the
   * order of the deletes.
   */
  finish(findings: readonly Finding[]): JobLife[] {
    this.read.raw = '';
    this.read.job = undefined;
    const failedAt = new Map<number, Finding & { failed: NonNullable<Finding['failed']> }>();
    for (const f of findings)
      if (f.failed !== undefined)
        failedAt.set(f.failed.line, f as typeof f & { failed: NonNullable<Finding['failed']> });
    const rows: Array<{ line: number; row: FailedJob }> = [];
    const lives = this.jobs.flatMap((job) => {
      const life = this.lives.get(job.id);
      if (life === undefined) return []; // a quiet life, counted
      let failed: { finding: Finding; how: NonNullable<Finding['failed']>; at: LifeEvent } | undefined;
      const events = life.events.map((e) => {
        const f = failedAt.get(e.line);
        if (f === undefined) return e;
        failed = { finding: f, how: f.failed, at: e };
        // Only a failure the capture proves counts the job as failed; else the life says both.
        if (f.failed.certainty === 'certain') job.outcome = 'failed';
        return { ...e, what: `${e.what}: ${f.failed.how}` };
      });
      const end = lifeEnd({
        first: life.first,
        last: life.last,
        releases: life.releases,
        attempts: life.copy?.attempts ?? null,
        maxTries: life.copy?.maxTries ?? null,
        retryUntil: life.copy?.retryUntil ?? null,
        maxExceptions: life.copy?.maxExceptions ?? null,
        ...(failed === undefined || life.last !== 'delete' ? {} : { failed: failed.how }),
      });
      if (end.outcome === 'failed' && failed !== undefined)
        rows.push({
          line: failed.at.line,
          row: failedJob({
            label: job.label,
            jobId: job.id,
            queue: job.queue,
            kind: failed.finding.kind,
            t: failed.at.t,
            releases: this.releases,
            kept: this.failable.get(failed.at.line),
          }),
        });
      return { job: job.label, events, eventful: eventful(life, failed !== undefined), ...end };
    });
    for (const { row } of rows.sort((a, b) => a.line - b.line)) this.failed.push(row);
    return lives;
  }
}

/** A payload's id, attempts and $tries, from one parse (undefined for what is no JSON object). */
export function payloadFacts(raw: string): PayloadFacts | undefined {
  const p = parsedObject(raw);
  if (p === null) return undefined;
  return {
    // A copy: JSON.parse gives a slice of the payload, which a job kept to the end would keep whole.
    id: typeof p.uuid === 'string' ? ownCopy(p.uuid) : typeof p.id === 'string' ? ownCopy(p.id) : undefined,
    attempts: typeof p.attempts === 'number' && Number.isFinite(p.attempts) ? p.attempts : null,
    maxTries: typeof p.maxTries === 'number' ? p.maxTries : null,
    retryUntil: retryUntilOf(p),
    maxExceptions: typeof p.maxExceptions === 'number' && p.maxExceptions > 0 ? p.maxExceptions : null,
  };
}

/** `retryUntil ?? timeoutAt`, as Job::retryUntil() reads them and the Worker tests them (a number of seconds, not 0; else null). */
function retryUntilOf(p: Readonly<Record<string, unknown>>): number | null {
  const v = p.retryUntil ?? p.timeoutAt;
  // `if ($retryUntil && ...)`: 0 is no retryUntil to Laravel.
  return typeof v === 'number' && Number.isFinite(v) && v !== 0 ? v : null;
}

/** Attempt `attempt` is past the payload's $tries: Worker fails it before handle() (markJobAsFailedIfAlreadyExceedsMaxAttempts). */
function pastTries(attempt: number | null, maxTries: number | null): boolean {
  return attempt !== null && maxTries !== null && maxTries > 0 && attempt > maxTries;
}

/** RedisJob::getJobId() (the payload's id; its uuid when it has none) and Job::resolveName() (displayName, else job). */
function payloadName(raw: string): { id: string | undefined; name: string | undefined } | undefined {
  const p = parsedObject(raw);
  if (p === null) return undefined;
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  return { id: text(p.id) ?? text(p.uuid), name: text(p.displayName) ?? text(p.job) };
}

/** The job's last attempt by its own $tries (a timeout may yet fail it). */
function isLastAttempt(f: PayloadFacts): boolean {
  return f.maxTries !== null && f.attempts !== null && f.attempts >= f.maxTries;
}

/** Whether a life is worth printing in a long capture: more than pushed, reserved once, deleted. */
function eventful(life: LifeRecord, failed: boolean): boolean {
  return life.reserves !== 1 || !life.deleted || life.unusual || failed;
}
