// Patterns for one argument of an expected Redis command, for assertTrace() and the matchers.
// An expected argument is an exact string (or number), or one of these: any string, any job
// payload, a payload with given fields, a time relative to the virtual clock, one of the
// profile's Lua scripts, a regular expression, or "the same string as before" (a binding).
import { isDeepStrictEqual } from 'node:util';
import { phpTime } from '../sim/clock.ts';
import type { LaravelProfile } from '../sim/profiles/types.ts';
import type { ScriptName } from '../sim/lua.ts';
import type { TraceCommand } from '../scenarios/timeline.ts';

/** What a pattern may look at besides the argument itself. */
export interface MatchContext {
  /** Virtual unix time of t+0s (the timeline's start). */
  start: number;
  /** The command the argument belongs to. */
  command: TraceCommand;
  /** The timeline's Laravel profile, when it is known. */
  profile: LaravelProfile | undefined;
  /** Strings bound by same(name), in command order. */
  bound: Map<string, string>;
}

const PATTERN = Symbol.for('laravel-queue-sim.arg-pattern');

export interface ArgPattern {
  readonly [PATTERN]: true;
  /** How the pattern reads in a diff: `‹payload attempts:2›`, `t+90`. */
  readonly description: string;
  /** null when `arg` matches, else a short reason ("payload.attempts is 1"). */
  test(arg: string, ctx: MatchContext): string | null;
}

/** One expected argument: an exact string, a number (its decimal text), or a pattern. */
export type Arg = string | number | ArgPattern;

export function isArgPattern(value: unknown): value is ArgPattern {
  return typeof value === 'object' && value !== null && (value as Partial<ArgPattern>)[PATTERN] === true;
}

/** A pattern of your own: `description` is shown in diffs, `test` returns null or why not. */
export function argPattern(description: string, test: (arg: string, ctx: MatchContext) => string | null): ArgPattern {
  return { [PATTERN]: true, description, test };
}

/** Any argument at all. */
export function anyString(): ArgPattern {
  return argPattern('‹any›', () => null);
}

/** An argument matching the regular expression. */
export function matching(re: RegExp): ArgPattern {
  return argPattern(`‹${String(re)}›`, (arg) => (re.test(arg) ? null : `does not match ${String(re)}`));
}

/** Any Laravel job payload: a JSON object with a string `job` (Illuminate\Queue\CallQueuedHandler@call). */
export function anyPayload(): ArgPattern {
  return argPattern('‹payload›', (arg) => {
    const p = parsePayload(arg);
    return typeof p === 'string' ? p : null;
  });
}

/** A JSON value, as JSON.parse gives it. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * An expected payload field: a JSON value (compared as a value), or a pattern, at any depth of
 * it. A pattern reads the field as text: a string as it is, anything else as its JSON
 * (`retryUntil: scoreAt(90)`, `uuid: matching(/^[0-9a-f-]{36}$/)`, `id: same('job-id')`).
 */
export type PayloadField =
  string | number | boolean | null | ArgPattern | readonly PayloadField[] | { readonly [key: string]: PayloadField };

/**
 * A Laravel job payload whose listed fields have these values, compared as JSON values (not
 * bytes, since the pop script's cjson re-encodes the reserved copy with its keys in another
 * order). Dotted paths reach into it: `payload({ attempts: 2, 'data.commandName': 'App\\Jobs\\X' })`.
 * A field's value may be a pattern, or hold patterns. With `bind`, the first match binds the exact
 * string and later uses require the same bytes (see same()).
 */
export function payload(fields: Readonly<Record<string, PayloadField>>, bind?: string): ArgPattern {
  const shown = Object.entries(fields)
    .map(([k, v]) => `${k}:${showField(v)}`)
    .join(' ');
  const sameAs = bind === undefined ? undefined : same(bind);
  return argPattern(
    `‹payload${shown === '' ? '' : ` ${shown}`}${bind === undefined ? '' : ` as ${bind}`}›`,
    (arg, ctx) => {
      const p = parsePayload(arg);
      if (typeof p === 'string') return p;
      for (const [path, want] of Object.entries(fields)) {
        const got = path
          .split('.')
          .reduce<unknown>(
            (o, k) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined),
            p,
          );
        const why = fieldProblem(got, want, `payload.${path}`, ctx);
        if (why !== null) return why;
      }
      return sameAs === undefined ? null : sameAs.test(arg, ctx);
    },
  );
}

/** A field as a diff shows it: strings bare, patterns by their description, the rest as JSON. */
function showField(v: PayloadField): string {
  if (typeof v === 'string') return v;
  if (isArgPattern(v)) return v.description;
  if (Array.isArray(v)) return `[${v.map(showField).join(',')}]`;
  if (typeof v === 'object' && v !== null)
    return `{${Object.entries(v)
      .map(
        ([k, x]) => `${JSON.stringify(k)}:${typeof x === 'string' ? JSON.stringify(x) : showField(x as PayloadField)}`,
      )
      .join(',')}}`;
  return JSON.stringify(v);
}

function hasPattern(v: PayloadField): boolean {
  if (isArgPattern(v)) return true;
  if (Array.isArray(v)) return v.some(hasPattern);
  if (typeof v === 'object' && v !== null) return Object.values(v).some((x) => hasPattern(x as PayloadField));
  return false;
}

/** null when the payload's value `got` at `path` is what `want` says, else why not. */
function fieldProblem(got: unknown, want: PayloadField, path: string, ctx: MatchContext): string | null {
  const is = () => (got === undefined ? 'missing' : JSON.stringify(got));
  if (isArgPattern(want)) {
    if (got === undefined) return `${path} is missing, expected ${want.description}`;
    const why = want.test(typeof got === 'string' ? got : JSON.stringify(got), ctx);
    return why === null ? null : `${path} ${why}`;
  }
  if (!hasPattern(want))
    return isDeepStrictEqual(got, want) ? null : `${path} is ${is()}, expected ${JSON.stringify(want)}`;
  // Patterns inside: the same shape (keys, length), then each part.
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length)
      return `${path} is ${is()}, expected an array of ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      const why = fieldProblem(got[i], want[i] as PayloadField, `${path}[${i}]`, ctx);
      if (why !== null) return why;
    }
    return null;
  }
  const obj = want as { readonly [key: string]: PayloadField };
  if (typeof got !== 'object' || got === null || Array.isArray(got)) return `${path} is ${is()}, expected an object`;
  const extra = Object.keys(got).filter((k) => !(k in obj));
  if (extra.length > 0) return `${path} has ${extra.map((k) => JSON.stringify(k)).join(', ')}, not expected`;
  for (const [k, v] of Object.entries(obj)) {
    const why = fieldProblem((got as Record<string, unknown>)[k], v, `${path}.${k}`, ctx);
    if (why !== null) return why;
  }
  return null;
}

/**
 * A unix time `seconds` after the scenario's start (t+0s), as Laravel passes times and scores:
 * `scoreAt(90)` is 1700000090 when the scenario starts at 1700000000. The trace shows the same
 * virtual time as `t+90s`.
 */
export function scoreAt(seconds: number): ArgPattern {
  return argPattern(`t+${seconds}`, (arg, ctx) => {
    const want = ctx.start + seconds;
    if (arg === String(want)) return null;
    return /^-?\d+$/.test(arg) ? `is ${arg} (t+${Number(arg) - ctx.start}), expected ${want}` : `is not a unix time`;
  });
}

/**
 * A unix time `seconds` after the time of the command's own step ("now" for Laravel when it sent
 * it): the pop script's `now + retry_after` is `afterNow(90)` at every poll. Laravel's now is
 * PHP's time(), a whole second: at a step at t+0.5 it is t+0.
 */
export function afterNow(seconds: number): ArgPattern {
  return argPattern(`now+${seconds}`, (arg, ctx) => {
    const now = phpTime(ctx.command.t);
    const want = now + seconds;
    if (arg === String(want)) return null;
    return /^-?\d+$/.test(arg) ? `is ${arg} (now+${Number(arg) - now}), expected ${want}` : `is not a unix time`;
  });
}

/** The exact text of the timeline profile's Lua script `name` (the body of an EVAL). */
export function script(name: ScriptName): ArgPattern {
  return argPattern(`‹${name}›`, (arg, ctx) => {
    const source = ctx.profile?.scripts[name]?.source;
    if (source === undefined) return `the profile has no ${name} script`;
    if (arg === source) return null;
    return ctx.command.script !== undefined ? `is the ${ctx.command.script} script` : 'is another script text';
  });
}

/** Binds the argument the first time it is seen; every later use must be byte-identical. */
export function same(name: string): ArgPattern {
  return argPattern(`‹same ${name}›`, (arg, ctx) => {
    const prev = ctx.bound.get(name);
    if (prev === undefined) {
      ctx.bound.set(name, arg);
      return null;
    }
    return prev === arg ? null : `differs from ${name} bound earlier`;
  });
}

function parsePayload(arg: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(arg);
  } catch {
    return 'is not a JSON payload';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not a JSON object';
  if (typeof (value as Record<string, unknown>).job !== 'string') return 'is not a Laravel job payload (no "job")';
  return value as Record<string, unknown>;
}
