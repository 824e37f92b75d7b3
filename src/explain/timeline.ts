// A capture as lqsim's own timeline (DESIGN "Explain runs the pipeline backwards"), so the views
// that print a scenario's run print a real app's capture too. CaptureExplainer puts the parts
// together: explain/grouping.ts groups the commands into steps as Laravel sends them and names the
// connections as actors, explain/titles.ts words each step, explain/job-life.ts keeps each job's
// life, explain/configuration-text.ts writes the header, explain/findings.ts reads what stands out.
// The state of each step is empty here: rebuilding it means replaying the capture.
import { basename } from 'node:path';
import type { Step, Timeline, TraceCommand } from '../scenarios/timeline.ts';
import type { CaptureProblem, CapturedLine } from './capture.ts';
import type { CaptureConfiguration } from './configuration.ts';
import { configurationLines, versionsLine } from './configuration-text.ts';
import type { Finding } from './findings.ts';
import { FindingRules } from './findings.ts';
import type { Group } from './grouping.ts';
import { actorNames, CommandGrouper } from './grouping.ts';
import type { JobLife, PayloadFacts } from './job-life.ts';
import { JobLives, payloadFacts } from './job-life.ts';
import { heardOf } from './liveness.ts';
import type { Recognised } from './recognise.ts';
import { attemptOfReservedCopy, recogniseCommand, releasesSendingAll, timeoutFailsJob } from './recognise.ts';
import { titleOf } from './titles.ts';
import { LockLookahead } from './cache-locks.ts';
import { CacheStory } from './cache-story.ts';
import { clusterFindings } from './cluster-findings.ts';
import { commandSlot } from '../redis/slot.ts';

export { configurationLines } from './configuration-text.ts';
export type { JobLife, LifeEvent } from './job-life.ts';

/** The capture as a timeline, and what it points out (explain/findings.ts). */
export interface Explained {
  timeline: Timeline;
  findings: Finding[];
  /** Each job's life as the capture shows it. */
  lives: JobLife[];
  /** Quiet lives (pushed, reserved once, deleted) counted instead of kept (a long capture's text). */
  quietLives: number;
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
  private readonly jobs: JobLives;
  private readonly grouper = new CommandGrouper((g) => this.close(g));
  private readonly keepSteps: boolean;
  private readonly onStep: ((step: Step, lines: { first: number; last: number }) => void) | undefined;
  private index = 0;
  /** The last address named, and its actor: a step's lines come from one connection. */
  private named = { client: '', actor: '' };
  /** A :reserved copy's facts, its attempts as Laravel numbers the attempt (5.3 counts one lower). */
  private readonly copyFacts: (raw: string) => PayloadFacts | undefined;
  /** Lines read but not yet explained: held while a lock's outcome waits on what its connection sends next. */
  private readonly held: Array<{ entry: CapturedLine; r: Recognised | undefined }> = [];
  private readonly locks: LockLookahead;
  private readonly limiters: ReadonlySet<string>;
  private readonly cacheStory: CacheStory;
  /** The worker each cache connection belongs to (configuration.ts), by address. */
  private readonly workerOfCache = new Map<string, string>();
  /** A cluster capture's facts: its lines then carry their slot (and node, from a file per node). */
  private readonly cluster: CaptureConfiguration['cluster'];

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
    this.cluster = config.cluster;
    this.limiters = config.cache.limiters;
    const processOf = new Map(
      config.connections.flatMap((c) => (c.cacheOf === undefined ? [] : [[c.client, c.cacheOf.client] as const])),
    );
    this.locks = new LockLookahead((client) => processOf.get(client) ?? client);
    for (const c of config.connections) {
      // A cache connection read as a worker's; or a worker's own connection carrying its cache
      // (a store on the queue's connection: 5.3's skeleton, `connection => 'default'`).
      if (c.cacheOf !== undefined)
        this.workerOfCache.set(c.client, this.actors.get(c.cacheOf.client) ?? c.cacheOf.client);
      else if (c.role === 'worker' && (c.cacheStore ?? 0) > 0)
        this.workerOfCache.set(c.client, this.actors.get(c.client) ?? c.client);
    }
    // Every connection over a unix socket has one address in MONITOR: one actor for many processes.
    this.rules = new FindingRules(
      new Set(config.connections.filter((c) => c.client.startsWith('unix:')).map((c) => this.actors.get(c.client)!)),
      timeoutFailsJob(releasesSendingAll(config.scripts.map((s) => s.value))),
    );
    this.start = config.span === null ? 0 : Math.floor(Number(config.span.first));
    this.keepSteps = o.keepSteps ?? false;
    this.onStep = o.onStep;
    const problems = o.problems ?? [];
    const more = (o.problemCount ?? problems.length) - problems.length;
    this.timeline = {
      scenario: {
        name: basename(o.file),
        title: `a MONITOR capture of ${config.commands} command${config.commands === 1 ? '' : 's'}, explained`,
        description: configurationLines(config).join('\n\n'),
        file: o.file,
      },
      // The profile that models the capture (its releases are in the description's Laravel line).
      profile: versionsLine(config),
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
    const releases = releasesSendingAll(config.scripts.map((s) => s.value));
    this.jobs = new JobLives(this.timeline.jobs, o.allLives ?? this.keepSteps, this.timeline.failed, releases);
    this.cacheStory = new CacheStory((id) => this.jobs.labelOfId(id));
    this.copyFacts = (raw) => {
      const facts = payloadFacts(raw);
      if (facts === undefined || facts.attempts === null) return facts;
      return { ...facts, attempts: attemptOfReservedCopy(facts.attempts, releases) };
    };
  }

  /** The capture's next command. */
  add(entry: CapturedLine): void {
    let r = recogniseCommand(entry.line.args, entry.line.client);
    // A bare md5 key is a limiter's only when the capture shows it as one.
    const key = r?.cache?.key;
    if (key?.kind === 'limiter' && !key.timer && !this.limiters.has(key.name)) r = undefined;
    this.locks.read(entry, r);
    this.held.push({ entry, r });
    this.explainHeld(false);
  }

  /**
   * The lines held, explained in order up to the first lock whose outcome its connection has not
   * told yet (all of them at the capture's end, or once HELD lines wait: then it is told as untold).
   */
  private explainHeld(all: boolean): void {
    while (this.held.length > 0) {
      const { entry, r } = this.held[0]!;
      if (!all && this.held.length < HELD && this.locks.decided(entry.lineNo) === false) return;
      this.held.shift();
      const client = entry.line.client;
      if (client !== 'lua')
        this.rules.heard(this.actorOf(client), entry.lineNo, heardOf(r?.op, entry.line.args), Number(entry.line.time));
      this.grouper.add(entry, r);
    }
  }

  /** The actor of an address (the address itself when it is not a connection the configuration named). */
  private actorOf(client: string): string {
    if (client === this.named.client) return this.named.actor;
    const actor = this.actors.get(client) ?? client;
    this.named = { client, actor };
    return actor;
  }

  /** The last step out, and the timeline with its jobs and findings. */
  finish(): Explained {
    this.explainHeld(true);
    this.grouper.finish();
    const findings = [...this.rules.finish(), ...clusterFindings(this.cluster)];
    return { timeline: this.timeline, findings, lives: this.jobs.finish(findings), quietLives: this.jobs.quietLives };
  }

  /** The label of the job a payload belongs to (as the trace names it), and its attempts: for the state pane. */
  labelOfPayload(raw: string): { job: string | null; attempts: number | null } {
    return this.jobs.labelOfPayload(raw);
  }

  /** A group of commands becomes a step. */
  private close(g: Group): void {
    const index = this.index++;
    const t = Number(g.lines[0]!.entry.line.time);
    const actor = this.actorOf(g.client);
    const commands: TraceCommand[] = g.lines.map(({ entry, r }) => {
      const lua = entry.line.client === 'lua';
      // One shape for every command, its optional members undefined where absent (JSON leaves
      // them out): spreads of optional members made a dictionary of each, at every line.
      return {
        step: index,
        t,
        actor: lua ? actor : this.actorOf(entry.line.client),
        process: 1,
        source: lua ? 'lua' : 'client',
        db: entry.line.db,
        args: entry.line.args,
        binaryArgs: entry.line.binaryArgs,
        script: r?.script?.name,
        operation: operationOf(lua, r),
        time: entry.line.time,
        node: entry.node,
        slot: this.cluster === undefined ? undefined : slotOf(entry.line.args),
      };
    });
    const first = g.lines.find((l) => l.r?.cache !== undefined);
    let title =
      g.kind === 'cache' && first !== undefined
        ? this.cacheStory.title(
            first,
            first.r!.cache!,
            actor,
            this.workerOfCache.get(g.client),
            g.lines.some((l) => l.r?.op === 'select'),
            this.locks.take(first.entry.lineNo),
            (e) => this.rules.add(e),
          )
        : titleOf(g, t, this.start, this.jobs, actor, (e) => this.rules.add(e), this.copyFacts);
    const senders = [...new Set(commands.filter((c) => c.source === 'client').map((c) => c.actor))];
    if (senders.length > 1) title += ` from ${senders.slice(0, 3).join(', ')}${senders.length > 3 ? ', ...' : ''}`;
    const step: Step = {
      index,
      t,
      actor,
      kind: g.kind === 'other' || g.kind === 'cache' ? 'process' : g.kind,
      title,
      methods: [],
      commands,
      state: { t, queues: [], workers: [], failed: [], executions: {} },
    };
    if (this.keepSteps) this.timeline.steps.push(step);
    this.onStep?.(step, { first: g.lines[0]!.entry.lineNo, last: g.lines.at(-1)!.entry.lineNo });
  }
}

/** The operation a captured command carries out, as the trace labels it; a script's own commands only on :notify. */
function operationOf(lua: boolean, r: Recognised | undefined): string | undefined {
  if (r === undefined || r.op === 'select') return undefined;
  if (lua) return r.key?.kind === 'notify' ? 'notify' : undefined;
  return r.cache !== undefined ? `cache ${r.cache.action}` : r.op;
}

/** The one slot of a command's keys (a script's own command too), where it has keys. */
function slotOf(args: readonly string[]): number | undefined {
  const slot = commandSlot(args);
  return typeof slot === 'number' ? slot : undefined;
}

/** Lines held at most while a lock's outcome is awaited (a worker killed mid-job tells it never). */
const HELD = 10_000;
