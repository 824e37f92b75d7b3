// The detail view of one trace line: the command in full, argument by argument, with what each
// one is (KEYS/ARGV of Laravel's script, a virtual time, a job payload pretty-printed with the
// field that changed marked), and the Lua source on demand. For a step line: its whole narration.
// Pure; every string goes through terminalSafe (JSON.stringify escapes controls but not bidi).
import { describePayload, relTime } from '../output/describe.ts';
import { quoteArg, quoteBytes, terminalSafe } from '../output/terminal-safe.ts';
import { wrap } from '../output/wrap.ts';
import type { Step, TraceCommand } from '../scenarios/timeline.ts';
import type { LuaScript } from '../sim/lua.ts';
import type { NarrationContext } from './narration-lines.ts';
import { narrationLines } from './narration-lines.ts';
import type { ParsedPayload } from './payload-diff.ts';
import { parsePayload, payloadChanges } from './payload-diff.ts';
import type { Line } from './segments.ts';
import { actorSeg, seg, wrapAll } from './segments.ts';
import { nodeAndSlot } from '../output/node-label.ts';
import { isVirtualTime, isZrem, scriptLabel, staleCopy, stepHeader } from './trace-rows.ts';

export interface DetailContext {
  timeline: { start: number; steps: readonly Step[] };
  labels: Map<string, string>;
  /** The profile's scripts by name, null where it has none (for KEYS/ARGV descriptions and the method name). */
  scripts: Partial<Record<string, LuaScript | null>>;
  narration: NarrationContext;
}

/** The lines, wrapped to `width` (continuations indented under their line's text). */
export function detailLines(
  at: { step: number; command: number | null },
  ctx: DetailContext,
  width: number,
  showScript: boolean,
): Line[] {
  return wrapAll(unwrapped(at, ctx, width, showScript), width);
}

function unwrapped(
  at: { step: number; command: number | null },
  ctx: DetailContext,
  width: number,
  showScript: boolean,
): Line[] {
  const step = ctx.timeline.steps[at.step];
  if (step === undefined) return [[seg('(no such step)', 'dim')]];
  if (at.command === null) return [...narrationLines(step, ctx.narration, width), ...migrateTwiceLines(step)];
  const cmd = step.commands[at.command];
  if (cmd === undefined) return [[seg('(no such command)', 'dim')]];
  const out: Line[] = [stepHeader(step, ctx.timeline.start), []];
  // On a Redis Cluster: the node whose MONITOR saw it, and its keys' slot (there is no db but 0).
  const on = cmd.node === undefined ? `db ${cmd.db}` : `on ${terminalSafe(nodeAndSlot(cmd))}`;
  const where =
    cmd.source === 'lua'
      ? `run by the Lua script of the EVAL above it, ${on}`
      : `sent by ${terminalSafe(cmd.actor)}'s connection, ${on}`;
  out.push([
    actorSeg(terminalSafe(cmd.actor)),
    seg(` ${cmd.source === 'lua' ? '[lua] ' : ''}`, 'dim'),
    seg(quoteArg(cmd.args[0] ?? ''), 'command'),
    seg(`  ${where}`, 'dim'),
  ]);
  out.push([]);
  const isEval = cmd.source === 'client' && (cmd.args[0] ?? '').toUpperCase() === 'EVAL' && cmd.args.length > 2;
  if (isEval) out.push(...evalLines(cmd, ctx, width, showScript));
  else cmd.args.slice(1).forEach((arg, j) => out.push(...argLines(cmd, j + 1, `arg ${j + 1}`, arg, ctx, width)));
  // A [lua] line runs inside the nearest EVAL above it: s shows that script.
  const parent = cmd.source === 'lua' ? enclosingEval(step.commands, at.command) : undefined;
  if (parent !== undefined) {
    out.push([]);
    out.push(
      ...sourceLines(
        parent,
        showScript,
        `the Lua source of ‹${terminalSafe(scriptLabel(parent.script))}›, the EVAL this runs in`,
      ),
    );
  }
  return out;
}

/**
 * Why a poll sends the migrate script twice (RedisQueue::migrate): once per source key. Only for a
 * step that does, in the `i` view, where the learner asks why.
 */
export function migrateTwiceLines(step: Step): Line[] {
  const migrates = step.commands.filter((c) => c.source === 'client' && c.script === 'migrateExpiredJobs');
  if (migrates.length < 2) return [];
  return [
    [],
    [
      seg('migrate twice: ', 'dim'),
      seg(
        'RedisQueue::migrate calls migrateExpiredJobs, for each queue it polls, once for :delayed (delayed jobs now due) and once for :reserved (reservations whose retry_after ran out); both move jobs back onto the ready list before the pop.',
      ),
    ],
  ];
}

function enclosingEval(commands: readonly TraceCommand[], index: number): TraceCommand | undefined {
  for (let i = index - 1; i >= 0; i--) {
    const c = commands[i]!;
    if (c.source === 'client') return (c.args[0] ?? '').toUpperCase() === 'EVAL' ? c : undefined;
  }
  return undefined;
}

/** `s shows ...`, or the script's source when shown. */
function sourceLines(evalCmd: TraceCommand, showScript: boolean, what: string): Line[] {
  if (!showScript) return [[seg('s', 'key'), seg(` shows ${what}`, 'dim')]];
  return [
    [seg('Lua source (s hides it):', 'dim')],
    ...(evalCmd.args[1] ?? '')
      .split('\n')
      .map((l): Line => [seg(`  ${terminalSafe(l.replace(/\t/g, '    '))}`, 'script')]),
  ];
}

function evalLines(cmd: TraceCommand, ctx: DetailContext, width: number, showScript: boolean): Line[] {
  const script = cmd.script === undefined ? undefined : ctx.scripts[cmd.script];
  const numKeys = Number(cmd.args[2]);
  const out: Line[] = [
    [
      seg('script   ', 'dim'),
      seg(`‹${terminalSafe(scriptLabel(cmd.script))}›`, 'script'),
      seg(script ? `  ${terminalSafe(script.method)}` : '', 'plain'),
    ],
    [seg('numkeys  ', 'dim'), seg(terminalSafe(cmd.args[2] ?? ''))],
  ];
  cmd.args.slice(3).forEach((arg, j) => {
    const isKey = j < numKeys;
    const n = isKey ? j + 1 : j - numKeys + 1;
    const label = `${isKey ? 'KEYS' : 'ARGV'}[${n}]`;
    const doc = isKey ? script?.keys[n - 1] : script?.argv[n - 1];
    out.push(...argLines(cmd, j + 3, label, arg, ctx, width));
    if (doc !== undefined)
      out.push(...wrap(terminalSafe(doc), width - 11).map((l): Line => [seg(`           ${l}`, 'dim')]));
  });
  out.push([]);
  out.push(...sourceLines(cmd, showScript, 'the Lua source sent with this EVAL'));
  return out;
}

function argLines(cmd: TraceCommand, i: number, label: string, arg: string, ctx: DetailContext, width: number): Line[] {
  const head = seg(label.padEnd(9), 'dim');
  if (cmd.binaryArgs?.includes(i))
    return [[head, seg(quoteBytes(arg)), seg(`  (${arg.length} bytes, not UTF-8)`, 'dim')]];
  if (isVirtualTime(arg, ctx.timeline.start))
    return [[head, seg(arg), seg('  = ', 'dim'), seg(relTime(Number(arg), ctx.timeline.start), 'time')]];
  const payload = describePayload(arg, ctx.labels);
  const parsed = payload === null ? null : parsePayload(arg);
  if (payload === null || parsed === null) {
    return wrap(quoteArg(arg), width - 9).map((l, k): Line => [k === 0 ? head : seg(' '.repeat(9)), seg(l)]);
  }
  const previous = previousPayload(ctx.timeline.steps, cmd, i, payload.label, ctx.labels);
  const stale = isZrem(cmd) ? staleCopy(previous, parsed) : null;
  const changes = previous === null || stale !== null ? [] : payloadChanges(previous, parsed);
  const changed = new Set(changes.map((c) => c.field));
  const summary =
    stale !== null
      ? `a stale copy: the one this worker reserved (attempts ${stale.attempts}); the job has been re-reserved since (attempts ${stale.now}), so this copy is no longer in the set and the ZREM removes nothing`
      : previous === null
        ? 'first time in the trace'
        : changes.length === 0
          ? 'no field changed since the trace last showed it' +
            (reordered(previous, parsed) ? ' (keys re-ordered by cjson)' : '')
          : changes.map((c) => `${c.field} ${c.from}→${c.to}`).join(', ');
  const out: Line[] = [
    [
      head,
      seg(`job payload of ${terminalSafe(payload.label)}, ${arg.length} bytes: `, 'payload'),
      seg(summary, stale !== null ? 'warn' : changes.length > 0 ? 'changed' : 'dim'),
    ],
  ];
  for (const l of JSON.stringify(parsed, null, 2).split('\n')) {
    const field = /^ {2}"([^"]+)":/.exec(l)?.[1];
    const tone = field !== undefined && changed.has(field) ? 'changed' : 'plain';
    const indent = l.length - l.trimStart().length;
    // Long strings (the serialized command) are cut into pieces under their key.
    for (const [k, w] of wrap(terminalSafe(l.trimStart()), width - 4 - indent).entries()) {
      out.push([seg(' '.repeat(2 + indent + (k === 0 ? 0 : 2))), seg(w, tone)]);
    }
  }
  return out;
}

function reordered(a: ParsedPayload, b: ParsedPayload): boolean {
  return Object.keys(a).join(',') !== Object.keys(b).join(',');
}

/**
 * The same job's payload as the trace last showed it before `cmd` (argument `argIndex`): the
 * nearest one above it, looked for backwards from its own step (a day-long session is not walked
 * from step 0 for a payload shown a step before).
 */
function previousPayload(
  steps: readonly Step[],
  cmd: TraceCommand,
  argIndex: number,
  label: string,
  labels: Map<string, string>,
): ParsedPayload | null {
  // Its step is the one it names (a capture's too); searched for if not.
  let step = steps[cmd.step]?.commands.includes(cmd) === true ? cmd.step : -1;
  for (let s = 0; step < 0 && s < steps.length; s++) if (steps[s]!.commands.includes(cmd)) step = s;
  if (step < 0) return null;
  const at = steps[step]!.commands.indexOf(cmd);
  const match = (c: TraceCommand, to: number): ParsedPayload | null | undefined => {
    for (let i = to; i >= 1; i--) {
      const arg = c.args[i]!;
      if (describePayload(arg, labels)?.label === label) return parsePayload(arg);
    }
    return undefined;
  };
  for (let s = step; s >= 0; s--) {
    const commands = steps[s]!.commands;
    for (let k = s === step ? at : commands.length - 1; k >= 0; k--) {
      const c = commands[k]!;
      const found = match(c, c === cmd ? argIndex - 1 : c.args.length - 1);
      if (found !== undefined) return found;
    }
  }
  return null;
}
