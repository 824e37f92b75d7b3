// Where a trace to compare comes from. An operand is `<prefix>:<rest>` for a registered prefix
// (golden: and ndjson: here, and whatever other modules register: scenario: from
// src/scenarios/trace-source.ts, laravel: for a real Laravel capture), or, without one, detected:
// an existing file holding a golden trace or ndjson from `lqsim run --format ndjson`, else the
// registered fallback (src/scenarios/trace-source.ts: a scenario name or YAML file, with
// `@<profile>` to pick the Laravel profile, `dispatch@8`). This module reads files only; sources
// that run scenarios do it on the Redis the caller provides.
import { open, readFile } from 'node:fs/promises';
import { isFile } from '../files.ts';
import { isNdjsonRecord } from '../output/ndjson.ts';
import type { RedisTarget } from '../scenarios/runner.ts';
import { isGoldenText } from './golden-text.ts';
import { readGoldenFile } from './golden-file.ts';
import type { NormalisedTrace } from './normalise.ts';
import { normaliseTrace } from './normalise.ts';
import type { TraceCommand } from '../scenarios/timeline.ts';
import type { TraceLikeStep } from './trace-like.ts';
import { inferPrefix } from './trace-like.ts';

/** Bad operand (unknown profile, unreadable or malformed file): the CLI's exit 2. */
export class TraceSourceError extends Error {}

export interface SourceContext {
  /** A Redis to run scenarios on; the caller acquires it (lazily) and stops it. */
  redis(): Promise<RedisTarget>;
  /** A Redis Cluster, for a scenario that says `redis.cluster` (none: such a scenario is refused). */
  cluster?(): Promise<RedisTarget>;
  /** Compare the db a run claimed on a shared server as it is, not as the scenario's (database.ts). */
  exactDb?: boolean;
}

export interface ResolvedTrace {
  /** How the operand is shown in a diff header (`dispatch@5.7`). */
  label: string;
  trace: NormalisedTrace;
}

export type TraceResolver = (rest: string, ctx: SourceContext) => Promise<ResolvedTrace>;

/** Prefix (with its colon) → resolver. Add to it with registerTraceResolver(). */
export const TRACE_RESOLVERS = new Map<string, TraceResolver>();

export function registerTraceResolver(prefix: string, resolver: TraceResolver): void {
  TRACE_RESOLVERS.set(prefix.endsWith(':') ? prefix : `${prefix}:`, resolver);
}

/** What an operand is when no prefix names it and it is no golden or ndjson file (the whole operand). */
let fallbackResolver: TraceResolver | undefined;

/** Sets the resolver for operands without a prefix that are not golden or ndjson files. */
export function registerFallbackTraceResolver(resolver: TraceResolver): void {
  fallbackResolver = resolver;
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw new TraceSourceError(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

async function readHead(file: string): Promise<string> {
  try {
    const handle = await open(file, 'r');
    try {
      const buf = Buffer.alloc(4096);
      const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
      return buf.toString('utf8', 0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (e) {
    throw new TraceSourceError(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

export async function goldenTrace(file: string): Promise<ResolvedTrace> {
  try {
    return { label: file, trace: await readGoldenFile(file) };
  } catch (e) {
    throw new TraceSourceError((e as Error).message);
  }
}

/** A row of `lqsim run --format ndjson`: a trace command, as the ndjson view writes it. */
type NdjsonRow = Pick<TraceCommand, 'step' | 't' | 'actor' | 'source' | 'db' | 'args' | 'script' | 'node' | 'slot'>;

function isRow(v: unknown): v is NdjsonRow {
  const r = v as Partial<NdjsonRow>;
  return (
    typeof v === 'object' &&
    v !== null &&
    Number.isInteger(r.step) &&
    typeof r.t === 'number' &&
    typeof r.actor === 'string' &&
    (r.source === 'client' || r.source === 'lua') &&
    Number.isInteger(r.db) &&
    Array.isArray(r.args) &&
    r.args.every((a) => typeof a === 'string')
  );
}

/** ndjson from `lqsim run --format ndjson`: rows grouped by step; T+0 is the earliest step time. */
export async function ndjsonTrace(file: string): Promise<ResolvedTrace> {
  const steps = new Map<number, TraceLikeStep>();
  let start = Infinity;
  (await readText(file)).split('\n').forEach((line, n) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new TraceSourceError(`${file}:${n + 1}: not JSON`);
    }
    if (isNdjsonRecord(row)) return; // explain's settings, lives and findings after its commands
    if (!isRow(row))
      throw new TraceSourceError(`${file}:${n + 1}: not an lqsim ndjson row (step, t, actor, source, db, args)`);
    // A Redis Cluster's rows: kept, and compared as a golden's are.
    if (row.node !== undefined && typeof row.node !== 'string')
      throw new TraceSourceError(`${file}:${n + 1}: node: expected a node's name ("node2")`);
    if (row.slot !== undefined && !(Number.isInteger(row.slot) && row.slot >= 0 && row.slot < 16384))
      throw new TraceSourceError(`${file}:${n + 1}: slot: expected a slot, 0 to 16383`);
    start = Math.min(start, row.t);
    let step = steps.get(row.step);
    if (!step) steps.set(row.step, (step = { actor: row.actor, index: row.step, t: row.t, commands: [] }));
    step.commands.push({
      source: row.source,
      actor: row.actor,
      db: row.db,
      args: row.args,
      ...(row.script !== undefined ? { script: row.script } : {}),
      ...(row.node !== undefined ? { node: row.node } : {}),
      ...(row.slot !== undefined ? { slot: row.slot } : {}),
    });
  });
  if (steps.size === 0) throw new TraceSourceError(`${file}: no commands`);
  const list = [...steps.values()].sort((a, b) => a.index! - b.index!);
  return { label: file, trace: normaliseTrace({ start, prefix: inferPrefix(list), steps: list }) };
}

registerTraceResolver('golden:', (rest) => goldenTrace(rest));
registerTraceResolver('ndjson:', (rest) => ndjsonTrace(rest));

/** The trace an operand names (see the top of this file). */
export async function resolveTrace(operand: string, ctx: SourceContext): Promise<ResolvedTrace> {
  for (const [prefix, resolver] of TRACE_RESOLVERS) {
    if (operand.startsWith(prefix)) return resolver(operand.slice(prefix.length), ctx);
  }
  if (await isFile(operand)) {
    // The kind is in the first line: a file is read whole only by the reader of its kind.
    const text = await readHead(operand);
    if (isGoldenText(text)) return goldenTrace(operand);
    if (text.trimStart().startsWith('{')) return ndjsonTrace(operand);
  }
  if (fallbackResolver === undefined)
    throw new TraceSourceError(`${operand}: not a golden or ndjson file, and no other trace source is registered`);
  return fallbackResolver(operand, ctx);
}
