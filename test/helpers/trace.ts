// Step-by-step expectations for the integration tests, written by hand from Laravel's behaviour.
// A pattern names the command and the arguments that matter: keys exactly, times relative to the
// virtual clock, payload fields, and bindings ("the same string the pop ZADDed"). The argument
// patterns are the public ones (src/testing/patterns.ts), as plain functions so a test can call
// them inside its own matchers; what is left here is the step structure and Laravel's call shapes.
import type { ScriptName } from '../../src/sim/lua.ts';
import type { LaravelProfile } from '../../src/sim/profiles/types.ts';
import { exactInstant, relativeTime, secondsBetween } from '../../src/sim/clock.ts';
import { laravel57 } from '../../src/sim/profiles/laravel-5.7.ts';
import type { Step, Timeline, TraceCommand } from '../../src/scenarios/timeline.ts';
import type { ArgPattern, MatchContext } from '../../src/testing/patterns.ts';
import * as patterns from '../../src/testing/patterns.ts';

export type { MatchContext } from '../../src/testing/patterns.ts';

/** Returns null when the argument matches, else why not. */
export type ArgMatcher = (arg: string, ctx: MatchContext) => string | null;
export type Arg = string | ArgMatcher;

export interface CmdPattern {
  source: 'client' | 'lua';
  args: Arg[];
}

export interface StepPattern {
  actor: string;
  /** Virtual seconds after the start (to the millisecond: 0.5). */
  t: number;
  kind?: Step['kind'];
  commands: CmdPattern[];
}

export const c = (...args: Arg[]): CmdPattern => ({ source: 'client', args });
export const lua = (...args: Arg[]): CmdPattern => ({ source: 'lua', args });

/** The public pattern behind each matcher made here; a test's own function has none. */
const PATTERNS = new WeakMap<ArgMatcher, ArgPattern>();

function matcher(pattern: ArgPattern): ArgMatcher {
  const m: ArgMatcher = (arg, ctx) => pattern.test(arg, ctx);
  PATTERNS.set(m, pattern);
  return m;
}

function patternOf(m: ArgMatcher): ArgPattern {
  return PATTERNS.get(m) ?? patterns.argPattern('‹custom›', m);
}

/** The unix time `seconds` after the scenario start, as Laravel passes it (scoreAt). */
export const at = (seconds: number): ArgMatcher => matcher(patterns.scoreAt(seconds));

/** The whole text of one of the profile's scripts (their texts are checked in scripts.test.ts). */
export const script = (name: ScriptName): ArgMatcher => matcher(patterns.script(name));

/** A JSON job payload whose listed fields have these values (dotted paths allowed); optionally bound. */
export const payload = (fields: Readonly<Record<string, patterns.PayloadField>>, bind?: string): ArgMatcher =>
  matcher(patterns.payload(fields, bind));

/** Binds the argument on first use; later uses must be byte-identical. */
export const same = (name: string): ArgMatcher => matcher(patterns.same(name));

export const any: ArgMatcher = matcher(patterns.anyString());

/** The number of keys the profile's script `name` takes (EVAL's numkeys). */
const numKeys = (name: ScriptName): ArgMatcher =>
  matcher(
    patterns.argPattern(`‹numkeys of ${name}›`, (arg, ctx) => {
      const n = ctx.profile?.scripts[name]?.numberOfKeys;
      if (n === undefined) return `the profile has no ${name} script`;
      return arg === String(n) ? null : `is ${arg}, expected ${n}`;
    }),
  );

/** EVAL <script> <numkeys> <keys...> <argv...>, followed by the script's own commands. */
export function evalScript(name: ScriptName, keys: string[], argv: Arg[], inner: CmdPattern[] = []): CmdPattern[] {
  return [c('EVAL', script(name), numKeys(name), ...keys, ...argv), ...inner];
}

export interface QueueNames {
  ready: string;
  delayed: string;
  reserved: string;
}
export const queue = (name: string, prefix = ''): QueueNames => ({
  ready: `${prefix}queues:${name}`,
  delayed: `${prefix}queues:${name}:delayed`,
  reserved: `${prefix}queues:${name}:reserved`,
});

/** migrateExpiredJobs(from, to) at t; `moved` lists the rpush chunks when jobs were due. */
export function migrate(from: string, to: string, t: number, moved?: Arg[][]): CmdPattern[] {
  const inner = [lua('zrangebyscore', from, '-inf', at(t))];
  if (moved) {
    const n = moved.reduce((s, chunk) => s + chunk.length, 0);
    inner.push(lua('zremrangebyrank', from, '0', String(n - 1)));
    for (const chunk of moved) inner.push(lua('rpush', to, ...chunk));
  }
  return evalScript('migrateExpiredJobs', [from, to], [at(t)], inner);
}

/** The pop script at t with retry_after; `reserved` is the zadd'ed copy when a job was there. */
export function popScript(q: QueueNames, t: number, retryAfter: number, reserved?: Arg): CmdPattern[] {
  const inner = [lua('lpop', q.ready)];
  if (reserved) inner.push(lua('zadd', q.reserved, at(t + retryAfter), reserved));
  return evalScript('pop', [q.ready, q.reserved], [at(t + retryAfter)], inner);
}

/** The release script moving the bound reserved copy `r` to :delayed, due at t+due. */
export function releaseScript(q: QueueNames, r: string, due: number): CmdPattern[] {
  return evalScript(
    'release',
    [q.delayed, q.reserved],
    [same(r), at(due)],
    [lua('zrem', q.reserved, same(r)), lua('zadd', q.delayed, at(due), same(r))],
  );
}

/** A poll at t that finds the released copy `from` due on :delayed and reserves it as `to`. */
export function popDue(
  q: QueueNames,
  t: number,
  from: string,
  to: string,
  attempts: number,
  retryAfter = 90,
): CmdPattern[] {
  return [
    ...migrate(q.delayed, q.ready, t, [[same(from)]]),
    ...migrate(q.reserved, q.ready, t),
    ...popScript(q, t, retryAfter, payload({ attempts }, to)),
  ];
}

/** RedisQueue::pop that finds nothing: migrate :delayed, migrate :reserved, pop script. */
export function emptyPoll(q: QueueNames, t: number, retryAfter = 90): CmdPattern[] {
  return [...migrate(q.delayed, q.ready, t), ...migrate(q.reserved, q.ready, t), ...popScript(q, t, retryAfter)];
}

/**
 * Asserts the timeline's steps match, step by step and command by command. Throws one error
 * listing every mismatch, with the actual commands of the first differing step.
 */
export function expectSteps(timeline: Timeline, expected: StepPattern[], profile: LaravelProfile = laravel57): void {
  const ctx: Omit<MatchContext, 'command'> = { start: timeline.start, bound: new Map(), profile };
  const problems: string[] = [];
  if (timeline.error) problems.push(`run error: ${timeline.error}`);
  const n = Math.max(expected.length, timeline.steps.length);
  for (let i = 0; i < n && problems.length < 10; i++) {
    const want = expected[i];
    const got = timeline.steps[i];
    if (!want || !got) {
      problems.push(
        `step ${i}: expected ${want ? describeStep(want) : 'no step'}, got ${got ? `${got.actor} ${relativeTime(got.t, timeline.start)} "${got.title}"` : 'no step'}`,
      );
      continue;
    }
    const where = `step ${i} (${got.actor} ${relativeTime(got.t, timeline.start)} "${got.title}")`;
    if (got.actor !== want.actor) problems.push(`${where}: actor ${want.actor}`);
    if (secondsBetween(timeline.start, got.t) !== exactInstant(want.t)) problems.push(`${where}: time t+${want.t}s`);
    if (want.kind && got.kind !== want.kind) problems.push(`${where}: kind ${want.kind}, got ${got.kind}`);
    const cmdProblems = matchCommands(got.commands, want.commands, ctx);
    if (cmdProblems.length)
      problems.push(`${where}:\n    ${cmdProblems.join('\n    ')}\n  actual:\n${render(got.commands)}`);
  }
  if (problems.length) throw new Error(`trace mismatch:\n- ${problems.join('\n- ')}`);
}

function matchCommands(got: TraceCommand[], want: CmdPattern[], ctx: Omit<MatchContext, 'command'>): string[] {
  const out: string[] = [];
  if (got.length !== want.length) out.push(`expected ${want.length} commands, got ${got.length}`);
  for (let i = 0; i < Math.min(got.length, want.length); i++) {
    const g = got[i]!;
    const w = want[i]!;
    if (g.source !== w.source) out.push(`command ${i}: source ${w.source}, got ${g.source}`);
    if (g.args.length !== w.args.length) {
      out.push(`command ${i} (${g.args[0]}): expected ${w.args.length} args, got ${g.args.length}`);
      continue;
    }
    w.args.forEach((a, j) => {
      const arg = g.args[j]!;
      const where = `command ${i} (${g.args[0]}) arg ${j}`;
      if (typeof a === 'string') {
        if (a !== arg) out.push(`${where}: expected ${short(a)}, got ${short(arg)}`);
        return;
      }
      const pattern = patternOf(a);
      const why = pattern.test(arg, { ...ctx, command: g });
      if (why !== null) out.push(`${where}: expected ${pattern.description}, got ${short(arg)}: ${why}`);
    });
  }
  return out;
}

function describeStep(s: StepPattern): string {
  return `${s.actor} t+${s.t}s with ${s.commands.length} commands`;
}

function short(s: string): string {
  return s.length > 80 ? `${JSON.stringify(s.slice(0, 77))}...` : JSON.stringify(s);
}

function render(cmds: TraceCommand[]): string {
  return cmds.map((c) => `    ${c.source === 'lua' ? '  [lua] ' : ''}${c.args.map(short).join(' ')}`).join('\n');
}
