// The shape of an expected trace, as a test writes it, and how one expected command is compared
// with one captured command. Pure: no Redis, no test framework.
import type { StepKind } from '../scenarios/schema.ts';
import type { Timeline, TraceCommand } from '../scenarios/timeline.ts';
import { quoteArg } from '../output/terminal-safe.ts';
import type { Arg, MatchContext } from './patterns.ts';
import { isArgPattern } from './patterns.ts';
import type { DbOptions } from '../trace/database.ts';

/** One expected command with who sent it: `lua('lpop', 'queues:default')`, `{ args, actor }`. */
export interface CommandSpec {
  args: readonly Arg[];
  /** 'lua' for a command a script ran ([lua] lines); 'client' for one a connection sent. Unset: either. */
  source?: 'client' | 'lua';
  /** The actor that caused it (dispatcher, worker-1...). Unset: any. */
  actor?: string;
}

/**
 * One expected command: `'SELECT 0'` (split on blanks: exact arguments without spaces),
 * `['RPUSH', 'queues:default', anyPayload()]`, or a CommandSpec.
 */
export type ExpectedCommand = string | readonly Arg[] | CommandSpec;

/** One expected step: who, when (seconds after the start), what kind, and its commands. */
export interface ExpectedStep {
  actor?: string;
  /** Virtual seconds after the start (t+N). */
  at?: number;
  kind?: StepKind;
  commands: readonly ExpectedCommand[];
}

/** Passes over steps of the trace in the step-by-step form: `skipSteps(2)`, or `skipSteps()` for the rest. */
export interface SkipSteps {
  readonly skip: number | 'rest';
}

/**
 * Passes over `count` steps of the trace, whatever they did; with no count, every step left (only
 * as the last entry). The step-by-step form otherwise needs one entry per step, in order.
 */
export function skipSteps(count?: number): SkipSteps {
  if (count !== undefined && (!Number.isInteger(count) || count < 1))
    throw new TypeError(`skipSteps(${String(count)}): a whole number of steps, 1 or more (none: every step left)`);
  return { skip: count ?? 'rest' };
}

export function isSkip(e: ExpectedStep | SkipSteps): e is SkipSteps {
  return 'skip' in e;
}

/**
 * Every command in order, or step by step: one entry per step of the trace, in order (steps
 * that sent nothing, a kill or a handle() running, included: `{ commands: [] }`), or
 * skipSteps(n) to pass over n of them.
 */
export type ExpectedTrace = readonly ExpectedCommand[] | { steps: readonly (ExpectedStep | SkipSteps)[] };

export interface TraceOptions extends DbOptions {
  /** Compare the commands Lua scripts ran ([lua] lines) too. Default true. */
  lua?: boolean;
  /** Only the commands of this actor (or these actors). */
  actor?: string | readonly string[];
}

/**
 * What assertTrace() reads: a Timeline (jobs, when present, label payloads in the diff; a run
 * error fails it; database reads a claimed db as the scenario's).
 */
export type TraceSubject = Pick<Timeline, 'steps' | 'start' | 'profile'> &
  Partial<Pick<Timeline, 'jobs' | 'error' | 'database'>>;

export const lua = (...args: Arg[]): CommandSpec => ({ source: 'lua', args });
export const client = (...args: Arg[]): CommandSpec => ({ source: 'client', args });

export function toSpec(c: ExpectedCommand): CommandSpec {
  if (typeof c === 'string') return { args: c.trim().split(/\s+/) };
  if (Array.isArray(c)) return { args: c as readonly Arg[] };
  return c as CommandSpec;
}

export function isStepwise(e: ExpectedTrace): e is { steps: readonly (ExpectedStep | SkipSteps)[] } {
  return !Array.isArray(e);
}

export function keep(cmd: TraceCommand, o: TraceOptions): boolean {
  if (o.lua === false && cmd.source === 'lua') return false;
  if (o.actor !== undefined) {
    const actors = typeof o.actor === 'string' ? [o.actor] : o.actor;
    if (!actors.includes(cmd.actor)) return false;
  }
  return true;
}

/** Same command name and source/actor as the spec asks: the key the alignment pairs commands on. */
export function sameKind(cmd: TraceCommand, spec: CommandSpec): boolean {
  const name = spec.args[0];
  if (typeof name !== 'string' || cmd.args[0]?.toLowerCase() !== name.toLowerCase()) return false;
  return (
    (spec.source === undefined || spec.source === cmd.source) && (spec.actor === undefined || spec.actor === cmd.actor)
  );
}

/** Every way `cmd` differs from `spec` (empty when it matches); binds same() names in `ctx.bound`. */
export function commandProblems(cmd: TraceCommand, spec: CommandSpec, ctx: Omit<MatchContext, 'command'>): string[] {
  const problems: string[] = [];
  if (spec.source !== undefined && spec.source !== cmd.source)
    problems.push(
      `sent by ${cmd.source === 'lua' ? 'a Lua script' : 'a client'}, expected ${spec.source === 'lua' ? 'a Lua script' : 'a client'}`,
    );
  if (spec.actor !== undefined && spec.actor !== cmd.actor)
    problems.push(`actor is ${cmd.actor}, expected ${spec.actor}`);
  if (cmd.args.length !== spec.args.length) problems.push(`${cmd.args.length} arguments, expected ${spec.args.length}`);
  const n = Math.min(cmd.args.length, spec.args.length);
  for (let i = 0; i < n; i++) {
    const want = spec.args[i]!;
    const got = cmd.args[i]!;
    let why: string | null;
    if (isArgPattern(want)) why = want.test(got, { ...ctx, command: cmd });
    else if (i === 0)
      why =
        String(want).toLowerCase() === got.toLowerCase()
          ? null
          : `is ${quoteArg(got)}, expected ${quoteArg(String(want))}`;
    else why = String(want) === got ? null : `is ${clip(quoteArg(got))}, expected ${clip(quoteArg(String(want)))}`;
    if (why !== null) problems.push(i === 0 ? `command ${why}` : `arg ${i} ${why}`);
  }
  return problems;
}

/** An expected command for display: patterns by their description, strings quoted and clipped. */
export function showSpec(spec: CommandSpec): string {
  const args = spec.args.map((a, i) =>
    isArgPattern(a) ? a.description : i === 0 ? String(a) : clip(quoteArg(String(a))),
  );
  return `${spec.source === 'lua' ? '[lua] ' : ''}${args.join(' ')}`;
}

export function clip(s: string, max = 60): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…(${s.length} chars)`;
}
