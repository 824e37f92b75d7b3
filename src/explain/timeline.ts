// A capture as lqsim's own timeline (DESIGN "Explain runs the pipeline backwards"), so the views
// that print a scenario's run print a real app's capture too: its connections become actors
// (dispatcher-N, worker-N, by what they send), its commands steps as Laravel groups them (a
// worker's poll is its migrates and its pop, with what the scripts ran inside; a dispatch is its
// push), each titled with Laravel's operation and the job it moved. MONITOR shows no replies, so
// whether a pop got a job is read from what the pop script ran (its ZADD to :reserved).
// The state of each step is empty here: rebuilding it means replaying the capture.
import { basename } from 'node:path';
import { describePayload, relTime, utcTime } from '../output/describe.ts';
import type { JobInstance, Step, Timeline, TraceCommand } from '../scenarios/timeline.ts';
import type { StepKind } from '../sim/state.ts';
import { joinNames } from '../sim/profiles/index.ts';
import type { CaptureProblem, CapturedLine } from './capture.ts';
import { NDJSON_CLIENT } from './capture.ts';
import type { CaptureConfiguration, Role } from './configuration.ts';
import { isRetryAfter } from './configuration.ts';
import type { Finding, QueueEvent } from './findings.ts';
import { FindingRules } from './findings.ts';
import { LIVES_SHOWN } from './lives.ts';
import type { Operation, QueueKey, Recognised } from './recognise.ts';
import {
  attemptOfReservedCopy,
  parseQueueKey,
  recogniseCommand,
  releasesName,
  releasesSendingAll,
} from './recognise.ts';

interface Group {
  client: string;
  kind: StepKind | 'other';
  lines: Array<{ entry: CapturedLine; r: Recognised | undefined }>;
}

/** Operations that begin a step of their connection; the rest join the step before. */
const STARTS: ReadonlySet<Operation> = new Set([
  'push',
  'later',
  'migrate delayed',
  'delete',
  'release',
  'size',
  'clear',
]);

const KIND: Partial<Record<Operation, StepKind>> = {
  push: 'dispatch',
  later: 'dispatch',
  'migrate delayed': 'pop',
  'migrate reserved': 'pop',
  pop: 'pop',
  block: 'pop',
  reserve: 'pop',
  delete: 'delete',
  release: 'release',
  size: 'size',
  clear: 'size',
};

/** The capture as a timeline, and what it points out (explain/findings.ts). */
export interface Explained {
  timeline: Timeline;
  findings: Finding[];
  /** Each job's life as the capture shows it. */
  lives: JobLife[];
  /** Quiet lives (pushed, reserved once, deleted) counted instead of kept (a long capture's text). */
  quietLives: number;
}

/** One thing that happened to a job: the capture line, MONITOR's time (seconds), what. */
export interface LifeEvent {
  line: number;
  t: number;
  what: string;
}

export interface JobLife {
  job: string;
  events: LifeEvent[];
  /** More than pushed, reserved once, deleted: reserved again, released, failed, a ZREM that removed nothing, unfinished. */
  eventful: boolean;
}

/** What the trace reads of a job payload, parsed once: its id (uuid, else 5.x's id), attempts, $tries. */
interface PayloadFacts {
  id: string | undefined;
  attempts: number | null;
  maxTries: number | null;
}

type LifeKind = 'push' | 'reserve' | 'due' | 'expired' | 'release' | 'delete';

/** A job's life so far, with what decides whether it is worth printing. */
interface LifeRecord {
  events: LifeEvent[];
  reserves: number;
  deleted: boolean;
  /** Released, or a ZREM of a copy :reserved no longer holds. */
  unusual: boolean;
}

/** The whole capture at once (tests, the library); the CLI streams with CaptureExplainer. */
export function captureTimeline(
  lines: Iterable<CapturedLine>,
  config: CaptureConfiguration,
  o: { file: string; problems?: readonly CaptureProblem[] },
): Explained {
  const explainer = new CaptureExplainer(config, { ...o, keepSteps: true });
  for (const entry of lines) explainer.add(entry);
  return explainer.finish();
}

/**
 * The capture as a timeline, built line by line (the second pass over a capture, once the first
 * has read its configuration): each step is handed to `onStep` as soon as the next begins and,
 * unless `keepSteps`, not kept, so a capture of any size is held one step at a time; what
 * stays is one small record per job and what the findings still wait on.
 */
export class CaptureExplainer {
  /** The timeline's header (no steps unless kept), ready before the first line. */
  readonly timeline: Timeline;
  private readonly actors: Map<string, string>;
  private readonly start: number;
  private readonly rules: FindingRules;
  private readonly jobs = new Map<string, JobInstance>();
  private readonly perClass = new Map<string, number>();
  private readonly keepSteps: boolean;
  private readonly onStep: ((step: Step, lines: { first: number; last: number }) => void) | undefined;
  private current: Group | undefined;
  private selectPending: Group['lines'] = [];
  private index = 0;
  /** A :reserved copy's facts, its attempts as Laravel numbers the attempt (5.3 counts one lower). */
  private readonly copyFacts: (raw: string) => PayloadFacts | undefined;

  constructor(
    config: CaptureConfiguration,
    o: {
      file: string;
      problems?: readonly CaptureProblem[];
      /** How many lines were not MONITOR's in all (problems may hold only the first). */
      problemCount?: number;
      keepSteps?: boolean;
      /** Every job's life kept (default: when the steps are); else a long capture's quiet ones are counted. */
      allLives?: boolean;
      /** Each step once it has ended, with the first and last capture line it holds. */
      onStep?: (step: Step, lines: { first: number; last: number }) => void;
    },
  ) {
    this.actors = actorNames(config);
    // Every connection over a unix socket has one address in MONITOR: one actor for many processes.
    this.rules = new FindingRules(
      false,
      new Set(config.connections.filter((c) => c.client.startsWith('unix:')).map((c) => this.actors.get(c.client)!)),
    );
    this.start = config.span === null ? 0 : Math.floor(Number(config.span.first));
    this.keepSteps = o.keepSteps ?? false;
    this.allLives = o.allLives ?? this.keepSteps;
    this.onStep = o.onStep;
    const releases = releasesSendingAll(config.scripts.map((s) => s.value));
    this.copyFacts = (raw) => {
      const facts = payloadFacts(raw);
      if (facts === undefined || facts.attempts === null) return facts;
      return { ...facts, attempts: attemptOfReservedCopy(facts.attempts, releases) };
    };
    // The profile that models the capture (its releases are in the description's Laravel line).
    // Without a script (a capture of dispatches only) the version cannot be told: said as a sentence.
    const versions =
      config.scripts.length === 0
        ? 'Laravel version not told by this capture (no script)'
        : config.profiles.length === 0
          ? "Laravel version not told by this capture (no known version's script)"
          : joinNames(config.profiles, 'or');
    const problems = o.problems ?? [];
    const more = (o.problemCount ?? problems.length) - problems.length;
    this.timeline = {
      scenario: {
        name: basename(o.file),
        title: `a MONITOR capture of ${config.commands} command${config.commands === 1 ? '' : 's'}, explained`,
        description: configurationLines(config).join('\n\n'),
        file: o.file,
      },
      profile: versions,
      start: this.start,
      server: { kind: 'capture', version: '', describe: `capture ${o.file}` },
      steps: [],
      jobs: [],
      failed: [],
      warnings: [
        ...problems.map((p) => `line ${p.lineNo}: ${p.problem}`),
        ...(more > 0 ? [`${more} more lines that are not MONITOR's`] : []),
      ],
      ...(config.clockApart.length > 0 ? { appClockApart: true } : {}),
    };
  }

  /** The capture's next command. */
  add(entry: CapturedLine): void {
    const r = recogniseCommand(entry.line.args, entry.line.client);
    // A SELECT waits for its connection's next call only while no other line comes between:
    // steps print in the capture's order.
    const held = this.selectPending[0];
    if (held !== undefined && held.entry.line.client !== entry.line.client) this.releaseSelects();
    if (entry.line.client === 'lua') {
      // Redis runs a script whole: its lines come right after its EVAL. Without one (a capture
      // that begins mid-script), they are a step of their own.
      if (this.current === undefined) this.current = { client: 'lua', kind: 'other', lines: [] };
      this.current.lines.push({ entry, r });
      return;
    }
    const client = entry.line.client;
    this.rules.seen(this.actors.get(client) ?? client, entry.lineNo);
    if (r?.op === 'select') {
      // phpredis selects the db as it connects: part of the call that follows (or of a run of other traffic).
      if (this.current !== undefined && this.current.client !== client && this.current.kind !== 'other') this.close();
      this.selectPending.push({ entry, r });
      return;
    }
    const kind: Group['kind'] = r === undefined ? 'other' : (KIND[r.op] ?? 'other');
    const current = this.current;
    // Other traffic is summarised: a run of it is one step, whichever clients sent it.
    const joins =
      current !== undefined &&
      (kind === 'other'
        ? current.kind === 'other'
        : this.selectPending.length === 0 &&
          current.client === client &&
          current.kind !== 'other' &&
          !STARTS.has(r!.op));
    if (!joins) {
      this.close();
      this.current = { client, kind, lines: [] };
    }
    // Any SELECT held is this connection's (another's was let go above).
    this.current!.lines.push(...this.selectPending, { entry, r });
    this.selectPending = [];
  }

  /** The SELECTs held for their connection's next call go out as other traffic: another line came first. */
  private releaseSelects(): void {
    const held = this.selectPending;
    this.selectPending = [];
    if (this.current === undefined || this.current.kind !== 'other' || this.current.client === 'lua') {
      this.close();
      this.current = { client: held[0]!.entry.line.client, kind: 'other', lines: [] };
    }
    this.current.lines.push(...held);
  }

  /** The last step out, and the timeline with its jobs and findings. */
  finish(): Explained {
    if (this.selectPending.length > 0) this.releaseSelects();
    this.close();
    const findings = this.rules.finish();
    return { timeline: this.timeline, findings, lives: this.jobLives(findings), quietLives: this.quietLives };
  }

  /** The group being built becomes a step. */
  private close(): void {
    const g = this.current;
    this.current = undefined;
    if (g === undefined || g.lines.length === 0) return;
    const index = this.index++;
    const t = Number(g.lines[0]!.entry.line.time);
    const actor = this.actors.get(g.client) ?? g.client;
    const commands: TraceCommand[] = g.lines.map(({ entry, r }) => ({
      step: index,
      t,
      actor: entry.line.client === 'lua' ? actor : (this.actors.get(entry.line.client) ?? entry.line.client),
      process: 1,
      source: entry.line.client === 'lua' ? 'lua' : 'client',
      db: entry.line.db,
      args: entry.line.args,
      ...(entry.line.binaryArgs ? { binaryArgs: entry.line.binaryArgs } : {}),
      ...(r?.script ? { script: r.script.name } : {}),
      ...operationOf(entry, r),
      time: entry.line.time,
    }));
    let title = titleOf(g, t, this.start, this.jobOf, actor, (e) => this.rules.add(e), this.lifeEvent, this.copyFacts);
    const senders = [...new Set(commands.filter((c) => c.source === 'client').map((c) => c.actor))];
    if (senders.length > 1) title += ` from ${senders.slice(0, 3).join(', ')}${senders.length > 3 ? ', ...' : ''}`;
    const step: Step = {
      index,
      t,
      actor,
      kind: g.kind === 'other' ? 'process' : g.kind,
      title,
      methods: [],
      commands,
      state: { t, queues: [], workers: [], failed: [], executions: {} },
    };
    if (this.keepSteps) this.timeline.steps.push(step);
    this.onStep?.(step, { first: g.lines[0]!.entry.lineNo, last: g.lines.at(-1)!.entry.lineNo });
  }

  /** The label of the job a payload belongs to (as the trace names it), and its attempts: for the state pane. */
  labelOfPayload(raw: string): { job: string | null; attempts: number | null } {
    const facts = payloadFacts(raw);
    const job = facts?.id === undefined ? null : (this.jobs.get(facts.id)?.label ?? null);
    return { job, attempts: facts?.attempts ?? null };
  }

  /** What happened to each job, by job id, in order. */
  private readonly lives = new Map<string, LifeRecord>();
  /** Keep every job's life (json, the library), or count the quiet ones of a long capture. */
  private readonly allLives: boolean;
  private quietLives = 0;
  /** The attempts of the copy each job has in :reserved (a ZREM of another copy removes nothing). */
  private readonly reservedCopy = new Map<string, number | null>();

  private readonly lifeEvent = (
    job: JobInstance,
    at: CapturedLine,
    kind: LifeKind,
    what: string,
    copy?: PayloadFacts,
  ): void => {
    let life = this.lives.get(job.id);
    if (life === undefined)
      this.lives.set(job.id, (life = { events: [], reserves: 0, deleted: false, unusual: false }));
    const attempts = copy?.attempts ?? null;
    let said = what;
    if (kind === 'reserve') {
      life.reserves++;
      this.reservedCopy.set(job.id, attempts);
    } else if (kind === 'expired') this.reservedCopy.delete(job.id);
    else if (kind === 'delete' || kind === 'release') {
      if (kind === 'delete') life.deleted = true;
      else life.unusual = true;
      if (!this.reservedCopy.has(job.id)) {
        said += ' (no copy of it is in :reserved now: the ZREM removes nothing)';
        life.unusual = true;
      } else if (this.reservedCopy.get(job.id) !== attempts) {
        said += ` (attempt ${attempts ?? '?'}'s copy; :reserved holds attempt ${this.reservedCopy.get(job.id) ?? '?'}'s, so the ZREM removes nothing)`;
        life.unusual = true;
      } else this.reservedCopy.delete(job.id);
    }
    life.events.push({ line: at.lineNo, t: Number(at.line.time), what: said });
    // A long capture's quiet lives (pushed, reserved once, deleted) are counted, not kept, unless
    // every life is asked for: the text names them by count. A last attempt's delete may yet be
    // read as a timeout's failure, so it is kept.
    if (
      !this.allLives &&
      kind === 'delete' &&
      this.jobs.size > LIVES_SHOWN &&
      !eventful(life, false) &&
      !(copy !== undefined && isLastAttempt(copy))
    ) {
      this.lives.delete(job.id);
      this.quietLives++;
    }
  };

  /** Each job's life, in the order the jobs appeared; a failure read by a finding's rule is said at its delete. */
  private jobLives(findings: readonly Finding[]): JobLife[] {
    const failedAt = new Map<number, string>();
    for (const f of findings) if (f.failed !== undefined) failedAt.set(f.failed.line, f.failed.how);
    return this.timeline.jobs.flatMap((job) => {
      const life = this.lives.get(job.id);
      if (life === undefined) return []; // a quiet life, counted
      let failed = false;
      const events = life.events.map((e) => {
        const how = failedAt.get(e.line);
        if (how === undefined) return e;
        failed = true;
        if (!how.startsWith('if ')) job.outcome = 'failed';
        return { ...e, what: `${e.what}: ${how}` };
      });
      return { job: job.label, events, eventful: eventful(life, failed) };
    });
  }

  private readonly jobOf = (
    raw: string,
    t: number,
    queue: string,
    facts = payloadFacts(raw),
  ): JobInstance | undefined => {
    const id = facts?.id;
    if (id === undefined) return undefined;
    let job = this.jobs.get(id);
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
      this.jobs.set(id, job);
      // Known from here on: the commands of this step and later ones name it by its label.
      this.timeline.jobs.push(job);
    }
    return job;
  };
}

/** The configuration, one line per figure, each citing its first lines. */
export function configurationLines(config: CaptureConfiguration): string[] {
  const cite = (lines: number[]): string => `line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}`;
  const list = <T>(label: string, items: Array<{ value: T; lines: number[] }>, show: (v: T) => string): string =>
    `${label}: ${items.length === 0 ? 'not seen' : items.map((i) => `${show(i.value)} (${cite(i.lines)})`).join('; ')}`;
  return [
    ...(config.span === null ? [] : [spanLine(config.span)]),
    config.scripts.length === 0
      ? 'Laravel: not told (no script of Laravel in the capture)'
      : `Laravel: ${laravelOf(config)} (by the text of ${config.scripts
          .map((s) => `${s.value.method} ${cite(s.lines)}`)
          .join('; ')})`,
    // 5.3 numbers an attempt one lower than the copy the trace shows (recognise.ts).
    ...(releasesSendingAll(config.scripts.map((s) => s.value))?.to === '5.3'
      ? [
          "attempts: as Laravel 5.3 counts them (RedisJob::attempts() reads the payload it popped, dispatched with attempts 1), one less than the :reserved copy's, which the pop script raised",
        ]
      : []),
    list('key prefix', config.prefixes, (p) => (p === '' ? '(none)' : p)),
    list('db', config.dbs, String),
    list('queues', config.queues, (q) => q),
    list('retry_after', config.retryAfter, (s) => `${s} s`),
    list('block_for', config.blockFor, (s) => `${s} s`),
    ...unixLine(config),
    ...(config.clockApart.length === 0
      ? []
      : [
          `app clock: ${config.clockApart
            .map((c) => `${Math.abs(c.value)} s ${c.value < 0 ? 'behind' : 'ahead of'} Redis' (${cite(c.lines)})`)
            .join(
              '; ',
            )}: a simulated clock or a skewed host, so the times the app sent are shown as the dates they name and no timing is read against MONITOR's`,
        ]),
  ];
}

/** Connections over a unix socket: MONITOR gives them all the socket's path, so they are one to it. */
function unixLine(config: CaptureConfiguration): string[] {
  const unix = config.connections.filter((c) => c.client.startsWith('unix:'));
  if (unix.length === 0) return [];
  return [
    `unix socket: ${unix.map((c) => `${c.client} (from line ${c.firstLine})`).join('; ')}: MONITOR shows every connection over a socket as its path, so the processes behind it (web requests, workers) are one actor here, and no finding rests on a worker's silence or identity there`,
  ];
}

/** "9.23 to 13.x, profile 13": the releases that send every script seen, and the profiles that model them. */
function laravelOf(config: CaptureConfiguration): string {
  const releases = releasesSendingAll(config.scripts.map((s) => s.value));
  if (releases === null || releases === undefined) return 'no Laravel release sends all these scripts together';
  const profiles = config.profiles.length === 0 ? '' : `, profile ${joinNames(config.profiles, 'or')}`;
  return `${releasesName(releases)}${profiles}`;
}

/** When the capture was made, absolute (UTC) and how long; every t+ in the trace counts from its first whole second. */
function spanLine(span: { first: string; last: string }): string {
  const first = Number(span.first);
  const last = Number(span.last);
  const utc = (s: number): string => {
    const when = utcTime(s);
    return when === null ? String(s) : `${when} UTC`;
  };
  return `captured: ${utc(first)} to ${utc(last)} (${(last - first).toFixed(3)} s); t+0s is ${utc(Math.floor(first))}`;
}

/** dispatcher-1, worker-1..., in order of first appearance; other traffic is other-N. */
function actorNames(config: CaptureConfiguration): Map<string, string> {
  const counts = new Map<Role, number>();
  const names = new Map<string, string>();
  const word: Record<Role, string> = { dispatcher: 'dispatcher', worker: 'worker', both: 'app', other: 'other' };
  for (const c of config.connections) {
    // lqsim's own ndjson names its actors: worker-1, and its restarted process "worker-1 (process 2)".
    if (c.client.startsWith(NDJSON_CLIENT)) {
      const [actor, process] = [
        c.client.slice(NDJSON_CLIENT.length, c.client.lastIndexOf(':')),
        c.client.slice(c.client.lastIndexOf(':') + 1),
      ];
      names.set(c.client, process === '1' ? actor : `${actor} (process ${process})`);
      continue;
    }
    const n = (counts.get(c.role) ?? 0) + 1;
    counts.set(c.role, n);
    names.set(c.client, `${word[c.role]}-${n}`);
  }
  return names;
}

function titleOf(
  g: Group,
  t: number,
  start: number,
  jobOf: (raw: string, t: number, queue: string, facts?: PayloadFacts) => JobInstance | undefined,
  actor: string,
  event: (e: QueueEvent) => void,
  life: (job: JobInstance, at: CapturedLine, kind: LifeKind, what: string, copy?: PayloadFacts) => void,
  copyFacts: (raw: string) => PayloadFacts | undefined,
): string {
  // What the findings are read from: every migrate's count, a BLPOP on the ready list.
  for (let i = 0; i < g.lines.length; i++) {
    const { entry, r } = g.lines[i]!;
    if (r?.op === 'block' && r.key?.kind === 'ready')
      event({ kind: 'block-ready', actor, line: entry.lineNo, key: entry.line.args[1]! });
    if (r?.op !== 'migrate delayed' && r?.op !== 'migrate reserved') continue;
    let moved = 0;
    const from = r.op === 'migrate reserved' ? ':reserved, its reservation over' : ':delayed, due';
    for (let j = i + 1; j < g.lines.length && g.lines[j]!.entry.line.client === 'lua'; j++) {
      const l = g.lines[j]!.entry;
      const a = l.line.args;
      if (a[0]?.toLowerCase() !== 'rpush' || parseQueueKeyKind(a[1]) !== 'ready') continue;
      moved += a.length - 2;
      for (const payload of a.slice(2)) {
        const job = jobOf(payload, t, r.key?.queue ?? '?');
        if (job !== undefined)
          life(
            job,
            l,
            r.op === 'migrate reserved' ? 'expired' : 'due',
            `moved back onto ${job.queue} by ${actor}'s migrate (from ${from})`,
          );
      }
    }
    event({ kind: 'migrate', moved, line: entry.lineNo, from: entry.line.args[3] ?? '?' });
  }
  const first = g.lines.find((l) => l.r !== undefined && l.r.op !== 'select' && l.entry.line.client !== 'lua');
  const r = first?.r;
  const args = first?.entry.line.args ?? [];
  const queue = (k: QueueKey | undefined): string => k?.queue ?? '?';
  const at = (unix: string | undefined): string => appTime(unix, start);
  switch (g.kind) {
    case 'dispatch': {
      if (r?.op === 'later') {
        const [score, payload] = r.script ? [args[4], args[5]] : [args[2], args[3]];
        const job = payload === undefined ? undefined : jobOf(payload, t, queue(r.key));
        if (job !== undefined && first !== undefined)
          life(job, first.entry, 'push', `pushed onto ${queue(r.key)}:delayed until ${at(score)} by ${actor}`);
        return `later: ${job?.label ?? 'a job'} onto ${queue(r.key)}:delayed until ${at(score)}`;
      }
      const payload = r?.script ? args[5] : args[2];
      const job = payload === undefined ? undefined : jobOf(payload, t, queue(r?.key));
      if (job !== undefined && first !== undefined)
        life(job, first.entry, 'push', `pushed onto ${queue(r?.key)} by ${actor}`);
      return `push: ${job?.label ?? 'a job'} onto ${queue(r?.key)}`;
    }
    case 'pop': {
      // The pop script's ZADD to :reserved (or, 5.6-5.7 with block_for, PHP's ZADD) is the reservation.
      const reserve = g.lines.find(
        ({ entry, r }) =>
          entry.line.args[0]?.toLowerCase() === 'zadd' && (r?.key?.kind === 'reserved' || r?.op === 'reserve'),
      );
      const blocked = g.lines.find((l) => l.r?.op === 'block');
      const onQueue = queue(g.lines.find((l) => l.r?.key !== undefined)?.r?.key);
      if (reserve === undefined) {
        return blocked === undefined
          ? `pop: no job on ${onQueue}`
          : `pop: no job on ${onQueue}; blocked in BLPOP up to ${blocked.entry.line.args.at(-1)} s`;
      }
      const [, , score, payload] = reserve.entry.line.args;
      const facts = payload === undefined ? undefined : copyFacts(payload);
      const job = payload === undefined ? undefined : jobOf(payload, t, onQueue, facts);
      const attempts = facts?.attempts ?? null;
      if (job !== undefined) {
        job.executions++;
        life(
          job,
          reserve.entry,
          'reserve',
          `reserved by ${actor}${attempts === null ? '' : ` for attempt ${attempts}`} until ${at(score)}`,
          facts,
        );
        const popped = Number(reserve.entry.line.time);
        const until = score === undefined || !Number.isFinite(Number(score)) ? null : Number(score);
        event({
          kind: 'reserve',
          job: job.id,
          label: job.label,
          actor,
          line: reserve.entry.lineNo,
          t: popped,
          until,
          redisClock: until !== null && isRetryAfter(until - Math.floor(popped)),
          attempts,
          maxTries: facts?.maxTries ?? null,
        });
      }
      return `pop: reserved ${job?.label ?? 'a job'}${attempts === null ? '' : ` (attempts ${attempts})`} until ${at(score)}`;
    }
    case 'delete': {
      const facts = args[2] === undefined ? undefined : copyFacts(args[2]);
      const job = args[2] === undefined ? undefined : jobOf(args[2], t, queue(r?.key), facts);
      if (job !== undefined) job.outcome = 'deleted';
      if (job !== undefined && first !== undefined) {
        life(job, first.entry, 'delete', `deleted by ${actor}`, facts);
        event({
          kind: 'delete',
          job: job.id,
          label: job.label,
          actor,
          line: first.entry.lineNo,
          t: Number(first.entry.line.time),
          attempts: facts?.attempts ?? null,
        });
      }
      return `delete: ${job?.label ?? 'a job'} (ZREM of its reserved copy)`;
    }
    case 'release': {
      const [payload, until] = [args[5], args[6]];
      const facts = payload === undefined ? undefined : copyFacts(payload);
      const job = payload === undefined ? undefined : jobOf(payload, t, queue(r?.key), facts);
      if (job !== undefined && first !== undefined) {
        life(job, first.entry, 'release', `released by ${actor} to ${queue(r?.key)}:delayed until ${at(until)}`, facts);
        event({
          kind: 'release',
          job: job.id,
          label: job.label,
          actor,
          line: first.entry.lineNo,
          t: Number(first.entry.line.time),
          attempts: facts?.attempts ?? null,
        });
      }
      return `release: ${job?.label ?? 'a job'} back to ${queue(r?.key)}:delayed until ${at(until)}`;
    }
    case 'size':
      return `${r?.op === 'clear' ? 'clear' : 'size'}: ${queue(r?.key)}`;
    default: {
      if (g.client === 'lua')
        return `script lines whose EVAL is not in the capture: ${g.lines.length} command${g.lines.length === 1 ? '' : 's'}`;
      const names = [...new Set(g.lines.map((l) => l.entry.line.args[0]?.toUpperCase() ?? '?'))];
      return `other traffic: ${g.lines.length} command${g.lines.length === 1 ? '' : 's'} (${names.slice(0, 4).join(', ')}${names.length > 4 ? ', ...' : ''})`;
    }
  }
}

/**
 * A time the app sent (a score, a pop's until) relative to the capture's start, or, when it is
 * more than 30 days off MONITOR's clock (a simulated clock, a skewed host), as the date it names.
 */
function appTime(unix: string | undefined, start: number): string {
  const t = Number(unix);
  if (unix === undefined || !Number.isFinite(t)) return '?';
  if (Math.abs(t - start) <= 30 * 86_400) return relTime(t, start);
  const when = utcTime(t);
  return when === null ? unix : `${when.replace(/\.000$/, '')} UTC (the app's clock, not Redis')`;
}

function parseQueueKeyKind(key: string | undefined): string | undefined {
  return key === undefined ? undefined : parseQueueKey(key)?.kind;
}

/** A payload's id, attempts and $tries, from one parse (undefined for what is no JSON object). */
function payloadFacts(raw: string): PayloadFacts | undefined {
  if (raw[0] !== '{') return undefined;
  let p: Record<string, unknown>;
  try {
    p = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  return {
    id: typeof p.uuid === 'string' ? p.uuid : typeof p.id === 'string' ? p.id : undefined,
    attempts: typeof p.attempts === 'number' && Number.isFinite(p.attempts) ? p.attempts : null,
    maxTries: typeof p.maxTries === 'number' ? p.maxTries : null,
  };
}

/** The job's last attempt by its own $tries (a timeout may yet fail it). */
function isLastAttempt(f: PayloadFacts): boolean {
  return f.maxTries !== null && f.attempts !== null && f.attempts >= f.maxTries;
}

/** Whether a life is worth printing in a long capture: more than pushed, reserved once, deleted. */
function eventful(life: LifeRecord, failed: boolean): boolean {
  return life.reserves !== 1 || !life.deleted || life.unusual || failed;
}

/** The operation a captured command carries out, as the trace labels it; a script's own commands only on :notify. */
function operationOf(entry: CapturedLine, r: Recognised | undefined): { operation?: string } {
  if (r === undefined || r.op === 'select') return {};
  if (entry.line.client === 'lua') return r.key?.kind === 'notify' ? { operation: 'notify' } : {};
  return { operation: r.op };
}
