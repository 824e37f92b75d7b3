// The trace pane's rows: for every step up to the cursor, a header row and one row per MONITOR
// command, lua lines under their EVAL. Arguments are abbreviated for reading (scripts by name,
// payloads by job and attempts with the changed field marked, unix times as t+Ns, EVAL without its
// numkeys); the raw view shows every argument verbatim. Pure; which steps' rows are built, and
// kept, is trace-window.ts' concern.
import { describePayload, fullArgs, isEval, payloadRun, relTime } from '../output/describe.ts';
import { quoteArg, quoteBytes, terminalSafe } from '../output/terminal-safe.ts';
import type { Step, TraceCommand } from '../scenarios/timeline.ts';
import type { FieldChange, ParsedPayload } from './payload-diff.ts';
import { parsePayload, payloadChanges } from './payload-diff.ts';
import type { Line, Segment } from './segments.ts';
import { actorSeg, clip, seg } from './segments.ts';

export interface TraceRow {
  kind: 'step' | 'command';
  step: number;
  /** Index in step.commands (command rows). */
  command?: number;
  source?: TraceCommand['source'];
  actor: string;
  t: number;
  /** On a Redis Cluster: the node whose MONITOR saw the command, and its keys' slot. */
  node?: string;
  slot?: number;
  segments: Line;
}

export interface TraceContext {
  start: number;
  /** job id -> label (jobLabels()). */
  labels: Map<string, string>;
}

/** A plain argument longer than this is cut in the abbreviated view (the detail view has it all). */
const MAX_ARG = 48;
/** Numbers within this many seconds of the start are read as virtual unix times. */
const TIME_RANGE = 10_000_000;

const KILL_KINDS: ReadonlySet<Step['kind']> = new Set(['kill', 'fail']);

/** The script's short name, as the trace shows it: migrateExpiredJobs → migrate. */
export function scriptLabel(name: string | undefined): string {
  if (name === undefined) return 'lua script';
  return name === 'migrateExpiredJobs' ? 'migrate' : name;
}

/** True when `arg` is a unix time of this run (so t+Ns reads better than 1700000090). */
export function isVirtualTime(arg: string, start: number): boolean {
  return /^\d{1,12}$/.test(arg) && Math.abs(Number(arg) - start) <= TIME_RANGE && start > TIME_RANGE;
}

/**
 * What the trace last showed of each job's payload (by label), for the diff of its next one
 * (payload-diff.ts). A Map serves; so does anything with its get and set.
 */
export interface PayloadHistory {
  get(label: string): ParsedPayload | undefined;
  set(label: string, payload: ParsedPayload): unknown;
}

export interface StepRows {
  rows: TraceRow[];
  raw: TraceRow[];
  /**
   * The payloads this step's rows recorded in the history, in order: applying them to the history
   * before the step gives the history after it, without building its rows again.
   */
  sets: Array<[string, ParsedPayload]>;
  /** The context the rows were built for (a run's start never changes; a cache hit checks it). */
  start: number;
}

/** Rows for steps 0..upTo (inclusive), built afresh: the whole trace, for tests and exports. */
export function buildTraceRows(steps: readonly Step[], upTo: number, ctx: TraceContext, raw = false): TraceRow[] {
  const out: TraceRow[] = [];
  const history = new Map<string, ParsedPayload>();
  for (let i = 0; i <= upTo && i < steps.length; i++) {
    const entry = rowsOfStep(steps[i]!, ctx, history);
    // A loop, not push(...rows): a step of many thousand commands would overflow the call stack.
    for (const row of raw ? entry.raw : entry.rows) out.push(row);
  }
  return out;
}

/**
 * Records in `history` the payloads step's rows would show, without building the rows: the same
 * walk as commandSegments, for the commands that can hold one (an argument that is a JSON
 * object: parsePayload reads nothing else), so an idle poll costs a glance at its arguments.
 */
export function advanceHistory(step: Step, ctx: TraceContext, history: PayloadHistory): void {
  for (const cmd of step.commands) if (mayHoldPayload(cmd)) commandSegments(cmd, ctx, history);
}

function mayHoldPayload(cmd: TraceCommand): boolean {
  for (let i = 1; i < cmd.args.length; i++) if (cmd.args[i]!.charCodeAt(0) === 0x7b /* { */) return true;
  return false;
}

export function stepHeader(step: Step, start: number): Line {
  const title = terminalSafe(step.title);
  return [
    seg(`#${step.index} `, 'dim'),
    seg(`${relTime(step.t, start)} `, 'time'),
    actorSeg(terminalSafe(step.actor)),
    seg(' '),
    seg(title, KILL_KINDS.has(step.kind) ? 'bad' : 'heading'),
  ];
}

/** A step's rows; records the payloads they show in `history` (which it changes) and in `sets`. */
export function rowsOfStep(step: Step, ctx: TraceContext, history: PayloadHistory): StepRows {
  const sets: StepRows['sets'] = [];
  const recording: PayloadHistory = {
    get: (label) => history.get(label),
    set: (label, payload) => {
      sets.push([label, payload]);
      return history.set(label, payload);
    },
  };
  const header: TraceRow = {
    kind: 'step',
    step: step.index,
    actor: step.actor,
    t: step.t,
    segments: stepHeader(step, ctx.start),
  };
  const rows: TraceRow[] = [header];
  const raw: TraceRow[] = [header];
  step.commands.forEach((cmd, i) => {
    const base = {
      kind: 'command' as const,
      step: step.index,
      command: i,
      source: cmd.source,
      actor: cmd.actor,
      t: cmd.t,
      ...(cmd.node === undefined ? {} : { node: cmd.node }),
      ...(cmd.slot === undefined ? {} : { slot: cmd.slot }),
    };
    rows.push({ ...base, segments: commandSegments(cmd, ctx, recording) });
    raw.push({ ...base, segments: rawSegments(cmd) });
  });
  return { rows, raw, sets, start: ctx.start };
}

function lead(cmd: TraceCommand, name: string): Segment[] {
  if (cmd.source === 'lua') return [seg('  [lua] ', 'lua'), seg(name, 'plain')];
  return [seg(name, 'command')];
}

/** The abbreviated form; records each payload it shows in `history` (by job label). */
function commandSegments(cmd: TraceCommand, ctx: TraceContext, history: PayloadHistory): Line {
  const binary = new Set(cmd.binaryArgs ?? []);
  const evalCmd = isEval(cmd);
  const out: Segment[] = lead(cmd, quoteArg(cmd.args[0] ?? ''));
  let skipUntil = 0;
  cmd.args.slice(1).forEach((arg, j) => {
    const i = j + 1;
    if (i < skipUntil) return; // inside a run of payloads already shown as one tag
    if (i === 2 && evalCmd) return; // numkeys: the raw view and the details show it
    out.push(seg(' '));
    const run = evalCmd && i === 1 ? null : payloadRun(cmd.args, i, ctx.labels);
    if (run) {
      // A migrate's rpush of up to 100 payloads: one tag; the details view lists them all.
      for (const p of cmd.args.slice(i, run.end)) payloadSegments(p, ctx, history);
      out.push(seg(run.tag, 'payload'));
      skipUntil = run.end;
      return;
    }
    if (i === 1 && evalCmd) out.push(seg(`‹${terminalSafe(scriptLabel(cmd.script))}›`, 'script'));
    else if (binary.has(i)) out.push(seg(clip(quoteBytes(arg), MAX_ARG)));
    else if (isVirtualTime(arg, ctx.start)) out.push(seg(relTime(Number(arg), ctx.start), 'time'));
    else {
      const payload = payloadSegments(arg, ctx, history, isZrem(cmd));
      out.push(...(payload ?? [seg(clip(quoteArg(arg), MAX_ARG))]));
    }
  });
  return out;
}

/** `‹ImportCsv#1 attempts:0→1›` with `0→1` marked, or null when `arg` is not a job payload. */
function payloadSegments(arg: string, ctx: TraceContext, history: PayloadHistory, removal = false): Segment[] | null {
  const summary = describePayload(arg, ctx.labels);
  if (summary === null) return null;
  const parsed = parsePayload(arg);
  const previous = history.get(summary.label);
  // A ZREM names the copy its worker reserved, not a new state of the job: one older than the
  // trace last showed (another worker re-reserved the job since) matches nothing, and is no
  // "attempts 2→1".
  const stale = removal ? staleCopy(previous, parsed) : null;
  if (stale !== null)
    return [
      seg(`‹${terminalSafe(summary.label)} attempts:${stale.attempts}`, 'payload'),
      seg(` stale copy (now ${stale.now})`, 'warn'),
      seg('›', 'payload'),
    ];
  const changes: FieldChange[] = previous !== undefined && parsed !== null ? payloadChanges(previous, parsed) : [];
  if (parsed !== null) history.set(summary.label, parsed);
  const out: Segment[] = [seg(`‹${terminalSafe(summary.label)}`, 'payload')];
  const attempts = changes.find((c) => c.field === 'attempts');
  if (attempts !== undefined) out.push(seg(' attempts:', 'payload'), seg(`${attempts.from}→${attempts.to}`, 'changed'));
  else if (summary.attempts !== null) out.push(seg(` attempts:${summary.attempts}`, 'payload'));
  for (const c of changes.filter((c) => c.field !== 'attempts'))
    out.push(seg(' '), seg(`${terminalSafe(c.field)} changed`, 'changed'));
  out.push(seg('›', 'payload'));
  return out;
}

/** ZREM, from a client or a script: it removes the member it names. */
export function isZrem(cmd: TraceCommand): boolean {
  return (cmd.args[0] ?? '').toUpperCase() === 'ZREM';
}

/** The attempts of a copy older than the last one shown (fewer attempts), or null. */
export function staleCopy(
  previous: ParsedPayload | undefined | null,
  parsed: ParsedPayload | null,
): { attempts: number; now: number } | null {
  const then = parsed?.attempts;
  const now = previous?.attempts;
  return typeof then === 'number' && typeof now === 'number' && then < now ? { attempts: then, now } : null;
}

function rawSegments(cmd: TraceCommand): Line {
  const [name = '', ...rest] = fullArgs(cmd);
  return [...lead(cmd, name), ...rest.flatMap((a) => [seg(' '), seg(a)])];
}
