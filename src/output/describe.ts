// Pure helpers that turn timeline data into short display strings, shared by the text view and
// the TUI. Everything returned here is already terminal-safe.
import type { JobInstance, Timeline, TraceCommand } from '../scenarios/timeline.ts';
import { relativeTime } from '../sim/clock.ts';
import { shortClass } from '../sim/exceptions.ts';
import { quoteArg, quoteBytes, terminalSafe } from './terminal-safe.ts';
import { commandName } from '../sim/command-name.ts';

export interface PayloadSummary {
  /** The job instance's label (SendEmail#1), or ShortClass#first-6-of-id when the timeline does not know it. */
  label: string;
  attempts: number | null;
}

/** job id -> label (SendEmail#1), for describePayload(). */
export function jobLabels(timeline: Pick<Timeline, 'jobs'>): Map<string, string> {
  return new Map(timeline.jobs.map((j) => [j.id, j.label]));
}

/**
 * If `raw` is a Laravel job payload (a JSON object with a string `job` and a string `id` or
 * `uuid`), its label and `attempts`; otherwise null. The label is raw (not terminal-safe).
 * Both the dispatched payload and cjson's re-encoded reserved copy (keys reordered) match.
 */
export function describePayload(raw: string, labels: Map<string, string>): PayloadSummary | null {
  const p = parsedObject(raw);
  if (p === null || typeof p.job !== 'string') return null;
  const id = typeof p.id === 'string' ? p.id : undefined;
  const uuid = typeof p.uuid === 'string' ? p.uuid : undefined;
  const key = id ?? uuid;
  if (key === undefined) return null;
  const known = (id !== undefined ? labels.get(id) : undefined) ?? (uuid !== undefined ? labels.get(uuid) : undefined);
  const attempts = typeof p.attempts === 'number' && Number.isFinite(p.attempts) ? p.attempts : null;
  return { label: known ?? `${shortClass(payloadClass(p))}#${key.slice(0, 6)}`, attempts };
}

/**
 * A step's payloads, parsed (a push's in its EVAL and in the script's RPUSH, each read for the
 * job, its attempts and its tag), newest first: so few that they die young (a larger cache's
 * entries lived long enough to be promoted, and the old generation grew with them). Found by
 * comparing texts, which differ within a few characters (their uuids) unless equal: no hash of a
 * 1 KB text each time, as a Map's lookup of a new string has.
 */
const PARSED: Array<{ raw: string; object: Readonly<Record<string, unknown>> | null }> = [];
const PARSED_KEPT = 8;

/**
 * `raw` as a JSON object, or null when it is none; never to be changed (it is shared). A payload
 * is read several times over: parsed once.
 */
export function parsedObject(raw: string): Readonly<Record<string, unknown>> | null {
  if (raw.length < 2 || raw.charCodeAt(0) !== 0x7b /* { */) return null; // cheap reject before JSON.parse
  for (const p of PARSED) if (p.raw === raw) return p.object;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = null;
  }
  const object =
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  if (PARSED.length >= PARSED_KEPT) PARSED.pop();
  PARSED.unshift({ raw, object });
  return object;
}

/** displayName, else data.commandName, else `job` (Illuminate\Queue\CallQueuedHandler@call). */
function payloadClass(p: Readonly<Record<string, unknown>>): string {
  if (typeof p.displayName === 'string' && p.displayName !== '') return p.displayName;
  const data = p.data;
  if (typeof data === 'object' && data !== null) {
    const commandName = (data as Record<string, unknown>).commandName;
    if (typeof commandName === 'string' && commandName !== '') return commandName;
  }
  return p.job as string;
}

/** `‹SendEmail#1 attempts:1›`, or `‹SendEmail#1›` when the payload has no attempts. */
export function payloadTag(p: PayloadSummary): string {
  return `‹${terminalSafe(p.label)}${p.attempts === null ? '' : ` attempts:${p.attempts}`}›`;
}

/** A client EVAL (its args[1] is the script text). */
export function isEval(cmd: TraceCommand): boolean {
  return cmd.source === 'client' && cmd.args.length > 1 && commandName(cmd.args[0]!) === 'EVAL';
}

/**
 * The args for display, abbreviated: the command name as sent (EVAL, RPUSH; lua lines lower case);
 * for EVAL the script text becomes `‹pop›` (its profile name) or `‹lua script›`; a job payload
 * becomes `‹SendEmail#1 attempts:1›`; a non-UTF-8 arg is shown as bytes; the rest via quoteArg(),
 * cut after ARG_SHOWN characters (a 10 MB value another client sets, in a capture's other traffic).
 */
export function summarizeArgs(cmd: TraceCommand, labels: Map<string, string>): string[] {
  const binary = cmd.binaryArgs === undefined ? NO_BINARY : new Set(cmd.binaryArgs);
  const evalScript = isEval(cmd);
  const out: string[] = [];
  for (let i = 0; i < cmd.args.length; i++) {
    const arg = cmd.args[i]!;
    if (i === 1 && evalScript) out.push(`‹${terminalSafe(cmd.script ?? 'lua script')}›`);
    else if (binary.has(i)) out.push(cutArg(arg, true));
    else {
      const payload = i > 0 ? describePayload(arg, labels) : null;
      if (payload === null) out.push(cutArg(arg, false));
      else {
        const run = payloadRun(cmd.args, i, labels);
        if (run) {
          out.push(run.tag);
          i = run.end - 1;
        } else out.push(payloadTag(payload));
      }
    }
  }
  return out;
}

const NO_BINARY: ReadonlySet<number> = new Set();

/** Characters of an argument a summary shows; the rest is cut, and how many bytes were cut is said. */
export const ARG_SHOWN = 200;

/** `arg` quoted (as bytes when `binary`: one byte per char), cut after ARG_SHOWN characters: `xxx…‹10485560 bytes cut›`. */
function cutArg(arg: string, binary: boolean): string {
  const quote = binary ? quoteBytes : quoteArg;
  if (arg.length <= ARG_SHOWN) return quote(arg);
  const code = arg.charCodeAt(ARG_SHOWN - 1);
  const end = !binary && code >= 0xd800 && code <= 0xdbff ? ARG_SHOWN - 1 : ARG_SHOWN; // never half an emoji
  const rest = arg.slice(end);
  return `${quote(arg.slice(0, end))}…‹${binary ? rest.length : Buffer.byteLength(rest, 'utf8')} bytes cut›`;
}

/** More consecutive payloads than this (a migrate's rpush of up to 100) are shown as one tag. */
export const PAYLOAD_RUN_MAX = 3;

/**
 * A run of more than PAYLOAD_RUN_MAX consecutive job payloads starting at `from`, as one tag
 * (`‹100 jobs: SendInvoice#136 … SendInvoice#57›`) and the index after the run; else null.
 */
export function payloadRun(
  args: readonly string[],
  from: number,
  labels: Map<string, string>,
): { tag: string; end: number } | null {
  const found: string[] = [];
  let end = from;
  for (; end < args.length; end++) {
    const p = describePayload(args[end]!, labels);
    if (p === null) break;
    found.push(p.label);
  }
  if (found.length <= PAYLOAD_RUN_MAX) return null;
  return { tag: `‹${found.length} jobs: ${terminalSafe(found[0]!)} … ${terminalSafe(found[found.length - 1]!)}›`, end };
}

/** Every arg verbatim (quoted where needed), for people who want the raw wire. */
export function fullArgs(cmd: TraceCommand): string[] {
  const binary = new Set(cmd.binaryArgs ?? []);
  return cmd.args.map((arg, i) => (binary.has(i) ? quoteBytes(arg) : quoteArg(arg)));
}

/**
 * A step's time relative to the scenario start, in seconds: `t+0s`, `t+61s`, `t+3725s`, and
 * `t+0.5s` for an instant within a second (to the millisecond, as scenarios write it). Seconds,
 * not h/m/s, because scenarios (`at:`), `retry_after`, `--timeout` and `--sleep` are all written
 * in seconds: a learner compares t+60s with retry_after 90 directly.
 */
export function relTime(t: number, start: number): string {
  return relativeTime(t, start);
}

/**
 * A wall-clock instant (unix seconds) as "2026-11-25 01:37:59.052", UTC, to the millisecond as
 * t+ is; null for seconds that name no date.
 */
export function utcTime(t: number): string | null {
  const ms = Math.round(t * 1000);
  const second = Math.floor(ms / 1000);
  // A capture's steps come many to a second: its date and time are made once per second.
  if (second !== dated.second) {
    const d = new Date(second * 1000);
    if (Number.isNaN(d.getTime())) return null;
    dated.second = second;
    dated.text = d.toISOString().slice(0, -5).replace('T', ' '); // without ".000Z"
  }
  return `${dated.text}.${String(ms - second * 1000).padStart(3, '0')}`;
}

/** The last second utcTime dated, and its text. */
const dated = { second: NaN, text: '' };

/** "Laravel 8" for a profile name ("8"); a profile that already says Laravel as it is. */
export function laravelProfile(profile: string): string {
  const safe = terminalSafe(profile);
  return /^laravel\b/i.test(safe) ? safe : `Laravel ${safe}`;
}

/**
 * "Laravel 8 profile" for a header line; a profile that is a sentence of its own ("Laravel version
 * not told by this capture (no script)", from lqsim explain) as it is.
 */
export function profileLabel(profile: string): string {
  const named = laravelProfile(profile);
  // Version names ("8", or explain's "5.3, 5.7 or 8") get " profile"; a sentence stays as it is.
  return /^laravel [\d.x]+((, | or )[\d.x]+)*$/i.test(named) ? `${named} profile` : named;
}

/** `1 succeeded, 2 failed`: the jobs by outcome, in a fixed order. */
export function outcomeCounts(jobs: readonly JobInstance[]): string {
  const counts = new Map<string, number>();
  for (const j of jobs) counts.set(j.outcome, (counts.get(j.outcome) ?? 0) + 1);
  return (['succeeded', 'failed', 'deleted', 'pending', 'not-queued'] as const)
    .filter((o) => counts.has(o))
    .map((o) => `${counts.get(o)} ${o}`)
    .join(', ');
}

/**
 * Who sent a client command, for the human-readable exports: the actor, and which of its processes
 * once there has been more than one (a worker after a supervisor restart, the dispatcher's second
 * web request): `worker-1 (process 2)`.
 */
export function senderLabel(cmd: Pick<TraceCommand, 'actor' | 'process'>): string {
  return cmd.process > 1 ? `${cmd.actor} (process ${cmd.process})` : cmd.actor;
}

/** "1 step", "2 steps". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
