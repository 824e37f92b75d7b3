// The stable text form of a normalised trace, the one golden files store: a header of `# key:
// value` lines, then `step <index> <T+N> <actor>  # <title>` and one command per line under it.
//   step 1 T+0 worker-1  # pop: reserved ImportCsv#1 (attempts 1) until t+90s
//     EVAL "<script>" 2 queues:default queues:default:reserved T+90
//     [lua] zadd queues:default:reserved T+90 {"attempts":1,...}
// On a Redis Cluster each command says its node and slot after [lua]: `[node2 slot 5718] EVAL ...`,
// `[node1] CLUSTER SLOTS` (no key). No argument written bare starts with `[`, so these read back.
// An argument is bare when that is unambiguous, a JSON object as itself (it is read back by
// matching braces), anything else a JSON string. Terminal-unsafe characters are \u escapes, so a
// golden file is safe to `cat`. Parsing gives back exactly what was formatted.
import { replaceUnsafe, isTerminalSafe, terminalSafe } from '../output/terminal-safe.ts';
import { sortedJson } from './json-edits.ts';
import type { NormalisedCommand, NormalisedStep, NormalisedTrace } from './normalise.ts';

export const GOLDEN_MAGIC = '# lqsim normalised trace v1';
/** The first line of a golden of any format version (v1 is the one this lqsim reads and writes). */
const ANY_MAGIC = /^# lqsim normalised trace v(\d+)\r?$/;
/**
 * The last line formatGolden writes: a golden without it, or whose counts differ, is reported as
 * possibly truncated (older goldens have none; lines starting with # after the first step are
 * comments to a v1 reader, so adding it kept the format v1).
 */
const END = /^# end of trace: (\d+) steps?, (\d+) commands?$/;
const NOTE =
  '# Written by lqsim: times are T+N from the start, job ids ID1..., uuids UUID1..., cjson-encoded JSON has its keys sorted.';

const BARE = /^[^\s"{\\#[][^\s"\\]*$/u;

function escapeUnits(m: string): string {
  let out = '';
  for (let i = 0; i < m.length; i++) out += `\\u${m.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** One argument in golden form. */
export function formatArg(arg: string): string {
  if (BARE.test(arg) && isTerminalSafe(arg)) return arg;
  if (arg.startsWith('{') && !/[\r\n]/.test(arg) && isTerminalSafe(arg) && isJsonObject(arg)) return arg;
  return replaceUnsafe(JSON.stringify(arg), escapeUnits);
}

function isJsonObject(s: string): boolean {
  try {
    const v: unknown = JSON.parse(s);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

export function formatCommand(c: NormalisedCommand): string {
  const db = c.db !== 0 ? `[db ${c.db}] ` : '';
  return `${c.source === 'lua' ? '[lua] ' : ''}${nodePart(c)}${db}${c.args.map(formatArg).join(' ')}`;
}

/** `[node2 slot 5718] `, `[node1] `; nothing on a single server. */
function nodePart(c: NormalisedCommand): string {
  if (c.node === undefined) return '';
  return `[${terminalSafe(c.node)}${c.slot !== undefined ? ` slot ${c.slot}` : ''}] `;
}

function oneLine(s: string): string {
  return terminalSafe(s.replace(/\s*\n\s*/g, ' '));
}

export function formatGolden(trace: NormalisedTrace): string {
  const lines = [GOLDEN_MAGIC, NOTE];
  // A value that one line cannot carry as it is (a key prefix with a tab) is written quoted, as an
  // argument is, and read back exactly.
  for (const [k, v] of Object.entries(trace.meta))
    lines.push(`# ${oneLine(k)}: ${v === oneLine(v) && !v.startsWith('"') ? v : formatQuoted(v)}`);
  for (const s of trace.steps) {
    lines.push(
      `step ${s.index} ${s.t ?? '-'} ${formatArg(s.actor)}${s.title !== undefined ? `  # ${oneLine(s.title)}` : ''}`,
    );
    for (const c of s.commands) lines.push(`  ${formatCommand(c)}`);
  }
  lines.push(endLine(trace.steps.length, countCommands(trace)));
  return lines.join('\n') + '\n';
}

function endLine(steps: number, commands: number): string {
  return `# end of trace: ${steps} step${steps === 1 ? '' : 's'}, ${commands} command${commands === 1 ? '' : 's'}`;
}

function countCommands(trace: NormalisedTrace): number {
  return trace.steps.reduce((n, s) => n + s.commands.length, 0);
}

/** An argument always quoted (JSON string escapes, unsafe characters as escapes). */
function formatQuoted(arg: string): string {
  return replaceUnsafe(JSON.stringify(arg), escapeUnits);
}

export class GoldenParseError extends Error {}

/** Whether the text's first line is a golden's (of any format version: parseGolden says which it reads). */
export function isGoldenText(text: string): boolean {
  return ANY_MAGIC.test(firstLine(text));
}

function firstLine(text: string): string {
  const nl = text.indexOf('\n');
  return nl < 0 ? text : text.slice(0, nl);
}

export function parseGolden(text: string): NormalisedTrace {
  const magic = ANY_MAGIC.exec(firstLine(text));
  if (magic === null) throw new GoldenParseError(`line 1: not a golden trace (expected "${GOLDEN_MAGIC}")`);
  if (magic[1] !== '1')
    throw new GoldenParseError(
      `line 1: a golden trace of format v${magic[1]}; this lqsim reads v1${Number(magic[1]) > 1 ? ' (written by a newer lqsim: upgrade it, or write the golden again with this one)' : ''}`,
    );
  const trace: NormalisedTrace = { meta: {}, steps: [] };
  const reencoded = new Set<string>();
  let step: NormalisedStep | undefined;
  let end: { steps: number; commands: number; line: number } | undefined;
  // A checkout with CRLF line ends (git autocrlf) reads the same.
  const lines = text.split(/\r?\n/);
  // The last line with content: a parse error there, in a file with no end line, is likely a cut.
  let last = lines.length - 1;
  while (last > 0 && lines[last] === '') last--;
  // Cut by size (not by lines): the text does not end with a newline.
  const cut = !text.endsWith('\n') && !END.test(lines[last]!);
  lines.forEach((line, n) => {
    const fail = (msg: string): never => {
      const hint =
        n === last && cut ? ' (the file ends on this line without its "# end of trace" line: truncated?)' : '';
      throw new GoldenParseError(`line ${n + 1}: ${msg}${hint}`);
    };
    if (line === '') return;
    if (line.startsWith('#')) {
      const e = END.exec(line);
      if (e) {
        end = { steps: Number(e[1]), commands: Number(e[2]), line: n + 1 };
        return;
      }
      const m = /^# ([^:\s]+): (.*)$/.exec(line);
      if (m && !step) {
        const value = m[2]!.startsWith('"') ? readArgs(m[2]!, fail) : [m[2]!];
        trace.meta[m[1]!] = value.length === 1 ? value[0]! : m[2]!;
      }
      return;
    }
    if (line.startsWith('step ')) {
      const m = /^step (\d+) (\S+) (.*?)(?: {2}# (.*))?$/.exec(line);
      if (!m) fail('expected "step <index> <time> <actor>"');
      const actor = readArgs(m![3]!, fail);
      if (actor.length !== 1) fail('expected one actor name');
      step = { index: Number(m![1]), actor: actor[0]!, commands: [] };
      if (m![2] !== '-') step.t = m![2]!;
      if (m![4] !== undefined) step.title = m![4];
      trace.steps.push(step);
      return;
    }
    if (!line.startsWith('  ')) fail('expected a step header, a command (indented) or a # comment');
    if (!step) fail('a command before the first step');
    let rest = line.slice(2);
    let source: 'client' | 'lua' = 'client';
    if (rest.startsWith('[lua] ')) {
      source = 'lua';
      rest = rest.slice(6);
    }
    const nodem = /^\[(?!db )([^\s\]]+)(?: slot (\d+))?\] /.exec(rest);
    if (nodem) rest = rest.slice(nodem[0].length);
    let db = 0;
    const dbm = /^\[db (\d+)\] /.exec(rest);
    if (dbm) {
      db = Number(dbm[1]);
      rest = rest.slice(dbm[0].length);
    }
    const args = readArgs(rest, fail);
    if (args.length === 0) fail('a command with no arguments');
    step!.commands.push({
      source,
      db,
      ...(nodem ? { node: nodem[1]! } : {}),
      ...(nodem?.[2] !== undefined ? { slot: Number(nodem[2]) } : {}),
      args: reencodedSorted(source, args, reencoded),
    });
  });
  const has = `${trace.steps.length} step${trace.steps.length === 1 ? '' : 's'} and ${countCommands(trace)} command${countCommands(trace) === 1 ? '' : 's'}`;
  if (end === undefined)
    trace.notes = [
      `the golden has no "# end of trace" line (${has}): it may be truncated, or written by an older lqsim`,
    ];
  else if (end.steps !== trace.steps.length || end.commands !== countCommands(trace))
    trace.notes = [
      `line ${end.line} says the golden holds ${end.steps} steps and ${end.commands} commands, but it has ${has}: truncated or edited by hand?`,
    ];
  return trace;
}

/**
 * cjson-encoded JSON is compared with its keys sorted, as the normaliser writes it; a golden
 * edited by hand, or written when cjson ordered keys another way, is read the same way (a [lua]
 * JSON argument, and a client argument with the same bytes as one before it).
 */
function reencodedSorted(source: 'client' | 'lua', args: string[], reencoded: Set<string>): string[] {
  return args.map((arg, i) => {
    if (i === 0 || arg[0] !== '{') return arg;
    if (source === 'lua') reencoded.add(arg);
    else if (!reencoded.has(arg)) return arg;
    return sortedJson(arg) ?? arg;
  });
}

/** The arguments of one command line (the inverse of formatArg joined by spaces). */
function readArgs(s: string, fail: (msg: string) => never): string[] {
  const args: string[] = [];
  let i = 0;
  while (i < s.length) {
    let end: number;
    if (s[i] === '"') {
      end = i + 1;
      while (end < s.length && s[end] !== '"') end += s[end] === '\\' ? 2 : 1;
      if (end >= s.length) fail(`unterminated string at column ${i + 3}`);
      end++;
      try {
        args.push(JSON.parse(s.slice(i, end)) as string);
      } catch (e) {
        fail(`bad string at column ${i + 3}: ${(e as Error).message}`);
      }
    } else if (s[i] === '{') {
      end = matchBrace(s, i);
      if (end < 0) fail(`unbalanced JSON object at column ${i + 3}`);
      args.push(s.slice(i, end));
    } else {
      end = s.indexOf(' ', i);
      if (end < 0) end = s.length;
      args.push(s.slice(i, end));
    }
    if (end < s.length && s[end] !== ' ') fail(`expected a space at column ${end + 3}`);
    i = end + 1;
  }
  return args;
}

/** The index after the JSON object opening at `open` (strings skipped), or -1. */
function matchBrace(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === '"') {
      for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === '\\') i++;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
