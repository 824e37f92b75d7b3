// The state pane's lines for one step's snapshot: each queue's ready list, :delayed and :reserved
// (scores as virtual time and as "due in"/"expires in"), each worker's status and options, the
// failed jobs, and how often each job's handle() started. Lines too wide for the pane wrap; when
// they do not fit its height, denser forms are tried (see Density) before the pane scrolls. Pure.
import { relTime, utcTime } from '../output/describe.ts';
import { formatSeconds, secondsBetween } from '../sim/clock.ts';
import { shortClass } from '../sim/exceptions.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import { displayWidth, wrap } from '../output/wrap.ts';
import type {
  CacheKeyState,
  FailedJob,
  JobInstance,
  ListEntry,
  QueueState,
  StateSnapshot,
  WorkerState,
  ZsetEntry,
} from '../scenarios/timeline.ts';
import type { Line, Segment } from './segments.ts';
import { actorSeg, clip, kept, lineWidth, pad, seg, wrapAll } from './segments.ts';
import { runningTwiceLines } from './running-twice.ts';
import type { QueueKeyLines } from './cluster-queue-lines.ts';
import { clusterQueueLines } from './cluster-queue-lines.ts';
import { timeStrips } from './time-strip.ts';

/**
 * How much room each part gets: `full` lists everything; `medium` merges empty keys, drops the
 * "workers" label and the worker's queue; `compact` also puts options and failure messages on
 * one line each and lists fewer entries per key.
 */
export type Density = 'full' | 'medium' | 'compact';

export interface StateContext {
  start: number;
  /**
   * The steps are a capture's (lqsim explain): its scores are times the app sent, on the app's
   * clock, which may be far from MONITOR's (a simulated clock, a skewed host).
   */
  capture?: boolean;
  /** The capture's app clock is apart from MONITOR's (Timeline.appClockApart): every score is the app's. */
  appClock?: boolean;
  /** The run's jobs (Timeline.jobs): those whose push threw are listed as not queued, from their dispatch on. */
  jobs?: readonly JobInstance[];
}

/**
 * A capture's score further than this from the step's instant is on another clock than MONITOR's:
 * shown as the date it names, never as due or expired (explain's titles read it the same way).
 */
const CLOCK_APART = 30 * 86_400;

/** Entries listed per key; the rest are counted. */
const ENTRY_LIMIT: Record<Density, number> = { full: 6, medium: 6, compact: 3 };
const KEY_COLUMN = 10;

/**
 * The pane's parts, always in this order (a learner stepping through must find each where it was
 * the step before): the running-twice alert, the workers, the queues, the failed jobs, how often
 * each handle() ran. The workers come first because they are what a step is about, and they must
 * stay in view when the queues are long (twenty invoices in :delayed, Laravel 8's prefixed keys).
 */
export function stateLines(state: StateSnapshot, ctx: StateContext, width: number, density: Density): Line[] {
  // A job in handle() on two workers at once comes first: it is what the step is about.
  const out: Line[] = runningTwiceLines(state.workers, width);
  if (state.workers.length > 0 && density === 'full') out.push([seg('workers', 'dim')]);
  const strips = timeStrips(state, ctx.start, width);
  for (const w of state.workers) out.push(...workerLines(w, ctx, width, density, strips.get(w.name) ?? []));
  for (const q of state.queues) out.push(...queueLines(q, state.t, ctx, width, density));
  out.push(...notQueuedLines(state.t, ctx, density));
  out.push(...cacheLines(state.cache ?? [], ctx, density));
  out.push(...failedLines(state.failed, ctx, width, density));
  out.push(...executionLines(state.executions, density));
  // Nothing is cut: a line too wide continues below, indented under its own text.
  return wrapAll(out, width);
}

/**
 * The fullest that fits `rows`. When even compact does not, the queues' entries are cut (their
 * counts stay, "… N more") and the workers' options move to the end; the order of the parts
 * never changes (see stateLines). The pane scrolls for the rest.
 */
export function fittedStateLines(state: StateSnapshot, ctx: StateContext, width: number, rows: number): Line[] {
  for (const density of ['full', 'medium', 'compact'] as const) {
    const lines = stateLines(state, ctx, width, density);
    if (lines.length <= rows) return lines;
  }
  const alert = runningTwiceLines(state.workers, width);
  const strips = timeStrips(state, ctx.start, width);
  const workers = state.workers.flatMap((w) =>
    workerLines(w, ctx, width, 'compact', strips.get(w.name) ?? [], { options: false }),
  );
  const rest = [
    ...notQueuedLines(state.t, ctx, 'compact'),
    ...cacheLines(state.cache ?? [], ctx, 'compact'),
    ...failedLines(state.failed, ctx, width, 'compact'),
    ...executionLines(state.executions, 'compact'),
    ...optionLines(state.workers),
  ];
  const top = (limit: number): Line[] =>
    wrapAll(
      [...alert, ...workers, ...state.queues.flatMap((q) => queueLines(q, state.t, ctx, width, 'compact', limit))],
      width,
    );
  const one = top(1);
  return [...(one.length <= rows ? one : top(0)), ...wrapAll(rest, width)];
}

/** The workers' options, one line each, at the end of a pane too short to show them by the workers. */
function optionLines(workers: readonly WorkerState[]): Line[] {
  return workers.map((w): Line => [
    actorSeg(terminalSafe(w.name)),
    seg(` ${optionParts(w, 'compact').join(' ')}`, 'dim'),
  ]);
}

function queueLines(
  q: QueueState,
  now: number,
  ctx: StateContext,
  width: number,
  density: Density,
  limit: number = ENTRY_LIMIT[density],
): Line[] {
  const name = terminalSafe(q.keys.ready);
  const empty = q.sizes.ready === 0 && q.sizes.delayed === 0 && q.sizes.reserved === 0;
  // A prefixed key ("laravel_database_queues:default") may fill a narrow pane: "empty" goes under it
  // then, rather than being wrapped into the middle of the name.
  const emptyHead: Line[] =
    displayWidth(name) + '  empty'.length <= width
      ? [[seg(name, 'heading'), seg('  empty', 'dim')]]
      : [[seg(name, 'heading')], [seg('  empty', 'dim')]];
  // On a Redis Cluster the keys are listed under the node that holds them (cluster-queue-lines.ts).
  const clustered = (keys: readonly QueueKeyLines[]): Line[] =>
    clusterQueueLines(
      q,
      keys.map((k) => ({ ...k, entries: empty ? [] : k.entries })),
      { merge: density !== 'full', empty },
    );
  const keyFields: Array<QueueKeyLines['field']> = ['ready', 'delayed', 'reserved', 'notify'];
  if (empty && q.nodes === undefined) return emptyHead;
  if (empty) {
    const fields = keyFields.filter((f) => f !== 'notify' || q.sizes.notify !== undefined);
    return [
      ...emptyHead,
      ...clustered(fields.map((field) => ({ field, label: keyLabel(field), size: 0, entries: [] }))),
    ];
  }
  const out: Line[] = [[seg(name, 'heading')]];
  const keys: Array<[string, number, Line[]]> = [
    ['ready', q.sizes.ready, listEntries(q.ready, q.sizes.ready, limit)],
    [':delayed', q.sizes.delayed, zsetEntries(q.delayed, q.sizes.delayed, now, 'delayed', ctx, width, limit)],
    [':reserved', q.sizes.reserved, zsetEntries(q.reserved, q.sizes.reserved, now, 'reserved', ctx, width, limit)],
  ];
  // 5.8+: one "1" per job pushed or migrated and not yet popped (what BLPOP with block_for waits on).
  if (q.sizes.notify !== undefined) keys.push([':notify', q.sizes.notify, []]);
  if (q.nodes !== undefined)
    return [
      ...out,
      ...clustered(keys.map(([label, size, entries], i) => ({ field: keyFields[i]!, label, size, entries }))),
    ];
  if (density !== 'full') {
    const empties = keys.filter(([, n]) => n === 0).map(([k]) => k);
    if (empties.length > 0) out.push([seg(`  ${empties.join(' · ')}: empty`, 'dim')]);
  }
  for (const [key, size, entries] of keys) {
    if (density !== 'full' && size === 0) continue;
    out.push([
      seg(`  ${pad(key, KEY_COLUMN)}`, size === 0 ? 'dim' : 'plain'),
      seg(size === 0 ? 'empty' : String(size), size === 0 ? 'dim' : 'bold'),
    ]);
    out.push(...entries);
  }
  return out;
}

/** `ready`, `:delayed`...: how the pane names a queue's key. */
function keyLabel(field: QueueKeyLines['field']): string {
  return field === 'ready' ? 'ready' : `:${field}`;
}

function jobSegments(e: ListEntry): Segment[] {
  const label = e.job === null ? seg('(not a job payload)', 'dim') : seg(terminalSafe(e.job), 'payload');
  return e.attempts === null ? [label] : [label, seg(' '), kept(`attempts ${e.attempts}`, 'dim')];
}

/** `… N more` under the entries shown; none when no entry is (the count above says it). */
function more(shown: number, size: number): Line[] {
  return size > shown && shown > 0 ? [[seg(`    … ${size - shown} more`, 'dim')]] : [];
}

function listEntries(entries: ListEntry[], size: number, limit: number): Line[] {
  const shown = entries.slice(0, limit);
  return [...shown.map((e): Line => [seg('    '), ...jobSegments(e)]), ...more(shown.length, size)];
}

/**
 * `due in 30s` / `due 5s ago` for :delayed (waiting for a migrate), `expires in 30s` / `expired
 * 10s ago` for :reserved (retry_after running out).
 */
export function dueText(score: number, now: number, key: 'delayed' | 'reserved'): string {
  // `now` is the step's exact instant: a score of t+90 seen at t+0.5 expires in 89.5s.
  const d = secondsBetween(now, score);
  const n = formatSeconds(Math.abs(d));
  if (key === 'delayed') return d > 0 ? `due in ${n}s` : d === 0 ? 'due now' : `due ${n}s ago`;
  return d > 0 ? `expires in ${n}s` : d === 0 ? 'expires now' : `expired ${n}s ago`;
}

function zsetEntries(
  entries: ZsetEntry[],
  size: number,
  now: number,
  key: 'delayed' | 'reserved',
  ctx: StateContext,
  width: number,
  limit: number,
): Line[] {
  const shown = entries.slice(0, limit);
  const lines = shown.flatMap((e): Line[] => {
    const when: Segment[] =
      ctx.appClock === true || (ctx.capture === true && Math.abs(e.score - now) > CLOCK_APART)
        ? [
            kept(`${utcTime(e.score)?.replace(/\.000$/, '') ?? e.score} UTC`, 'time'),
            seg(' · '),
            kept("app's clock", 'dim'),
          ]
        : [
            seg(relTime(e.score, ctx.start), 'time'),
            seg(' · '),
            kept(dueText(e.score, now, key), e.score <= now ? 'warn' : 'plain'),
          ];
    const job = [seg('    '), ...jobSegments(e)];
    const oneLine = [...job, seg('  '), ...when];
    if (lineWidth(oneLine) <= width) return [oneLine];
    return [job, [seg('      '), ...when]];
  });
  return [...lines, ...more(shown.length, size)];
}

/** The status in words: idle, polling, running job X since t, killed, restarting, stopped. */
export function workerStatus(w: WorkerState, start: number): Segment[] {
  const s = w.status;
  switch (s.kind) {
    case 'starting':
      return w.generation === 0 ? [seg('not started yet', 'dim')] : [seg('restarting: new process', 'warn')];
    case 'idle':
      return [
        seg('idle', 'dim'),
        ...(s.until === undefined
          ? []
          : [seg(` (${s.why ?? '--sleep'}) `, 'dim'), kept(`until ${relTime(s.until, start)}`, 'dim')]),
      ];
    case 'polling':
      return [seg('polling')];
    case 'reserved':
      return [
        seg('holds '),
        seg(terminalSafe(s.job), 'payload'),
        seg(' '),
        kept(`(attempt ${s.attempt})`),
        seg(': handle() next', 'dim'),
      ];
    case 'done':
      return [
        seg('done with '),
        seg(terminalSafe(s.job), 'payload'),
        seg(w.options.once ? ': exits next (--once)' : ': polls next', 'dim'),
      ];
    case 'blocked':
      return [
        seg('BLPOP '),
        seg(terminalSafe(s.queue)),
        seg(s.until === null ? ' (no timeout)' : ` until ${relTime(s.until, start)}`, 'dim'),
      ];
    case 'woken':
      // 5.6-5.7: BLPOP handed the payload to PHP; only its ZADD puts it in :reserved (not atomic).
      return s.job === null
        ? [seg('BLPOP answered', 'warn'), seg(' (:notify): pop script next', 'dim')]
        : [
            seg('BLPOP answered:', 'warn'),
            seg(' '),
            seg(terminalSafe(s.job), 'payload'),
            seg(' in PHP memory; ZADD :reserved next', 'dim'),
          ];
    case 'running':
      return [
        seg('running ', 'bold'),
        seg(terminalSafe(s.job), 'payload'),
        seg(' '),
        kept(`since ${relTime(s.since, start)}`),
        seg(' '),
        kept(`(attempt ${s.attempt})`),
      ];
    case 'killed':
      return [
        seg('killed', 'bad'),
        ...(s.job === undefined ? [] : [seg(' while running '), seg(terminalSafe(s.job), 'payload')]),
      ];
    case 'stopped':
      return [seg(`stopped (${terminalSafe(s.reason)})`, 'dim')];
  }
}

/** `parts` joined by `sep`, packed into lines of at most `width` columns, never splitting a part. */
export function packParts(parts: readonly string[], sep: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const p of parts) {
    if (line !== '' && displayWidth(line + sep + p) > width) {
      lines.push(line);
      line = p;
    } else line = line === '' ? p : line + sep + p;
  }
  if (line !== '') lines.push(line);
  return lines;
}

function workerLines(
  w: WorkerState,
  ctx: StateContext,
  width: number,
  density: Density,
  strip: readonly Line[],
  o = { options: true },
): Line[] {
  // `↻ process 2` is one label: never `↻ process` on one line and `2` on the next.
  const restarted = w.generation > 1 ? [seg(' '), kept(`↻ process ${w.generation}`, 'warn')] : [];
  const [status, ...rest] =
    !o.options && w.status.kind === 'running' && width < 40
      ? // Short of rows: the strip below shows since when; the attempt stays.
        [
          seg('running', 'bold'),
          seg(' '),
          seg(terminalSafe(w.status.job), 'payload'),
          seg(' '),
          kept(`attempt ${w.status.attempt}`),
        ]
      : workerStatus(w, ctx.start);
  const name = actorSeg(terminalSafe(w.name));
  const oneLine: Line = [name, seg(' '), status!, ...rest, ...restarted];
  // Too wide: the status word stays beside the name, the rest (job, since when) goes below.
  const head: Line[] =
    lineWidth(oneLine) <= width || rest.length === 0
      ? [oneLine]
      : [
          [name, seg(' '), status!, ...restarted],
          [seg('  '), ...trimStart(rest)],
        ];
  // Not started or stopped: the options can wait for a larger pane.
  const idle = (w.status.kind === 'starting' && w.generation === 0) || w.status.kind === 'stopped';
  if ((density !== 'full' && idle) || !o.options) return [...head, ...strip];
  const parts = optionParts(w, density);
  const options =
    density === 'compact'
      ? [parts.join(' ')]
      : packParts(parts, density === 'full' ? ' · ' : ' ', Math.max(10, width - 2));
  return [...head, ...strip, ...options.map((l): Line => [seg(`  ${l}`, 'dim')])];
}

/** queue:work's options and the connection's retry_after/block_for, as the pane lists them. */
function optionParts(w: WorkerState, density: Density): string[] {
  const o = w.options;
  return [
    // Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts returns at once when $maxTries === 0, and
    // markJobAsFailedIfWillExceedMaxAttempts needs $maxTries > 0 (every version): 0 is no limit.
    o.tries === 0 ? 'tries 0 (no limit)' : `tries ${o.tries}`,
    `timeout ${o.timeout}`,
    `sleep ${o.sleep}`,
    o.backoff !== undefined ? `backoff ${o.backoff}` : `delay ${o.delay}`,
    ...(o.once ? ['--once'] : []),
    ...(o.stopWhenEmpty ? ['--stop-when-empty'] : []),
    ...(o.maxJobs ? [`max-jobs ${o.maxJobs}`] : []),
    ...(o.maxTime ? [`max-time ${o.maxTime}`] : []),
    ...(o.rest ? [`rest ${o.rest}`] : []),
    `retry_after ${w.retryAfter ?? '-'}`,
    ...(w.blockFor !== null ? [`block_for ${w.blockFor}`] : []),
    ...(w.queue.includes(',') || density === 'full' ? [`queue ${terminalSafe(w.queue)}`] : []),
  ];
}

function trimStart(line: Segment[]): Segment[] {
  const [first, ...rest] = line;
  return first === undefined ? [] : [{ ...first, text: first.text.trimStart() }, ...rest];
}

/** Where a cache key's own name starts, after the connection's and the cache's prefixes. */
const CACHE_NAMES = [
  'laravel-queue-overlap:',
  'laravel_unique_job:',
  'illuminate:',
  'job-exceptions:',
  'laravel_throttles_exceptions:',
];
/** A rate limiter's key: md5($limiterName.$key), maybe its `:timer`. */
const LIMITER_KEY = /[0-9a-f]{32}(:timer)?$/;

/** A cache key as the pane names it: its own name (the prefixes are the same for every key). */
export function cacheName(key: string): string {
  const at = Math.min(...CACHE_NAMES.map((n) => key.indexOf(n)).filter((i) => i >= 0));
  if (Number.isFinite(at)) return key.slice(at);
  const limiter = LIMITER_KEY.exec(key);
  return limiter === null ? key : key.slice(limiter.index);
}

/** The cache store's keys on Redis: locks (who holds them, until when), the restart signal, counters. */
function cacheLines(cache: readonly CacheKeyState[], ctx: StateContext, density: Density): Line[] {
  if (cache.length === 0) return [];
  const out: Line[] = [[seg(`cache on Redis: ${cache.length} key${cache.length === 1 ? '' : 's'}`, 'dim')]];
  const shown = cache.slice(0, ENTRY_LIMIT[density] + 2);
  for (const c of shown) {
    const until = c.expires === null ? 'no expiry' : `expires ${relTime(c.expires, ctx.start)}`;
    const name = terminalSafe(cacheName(c.key));
    if (c.lock !== undefined) {
      out.push([
        seg('  lock ', 'warn'),
        seg(name, 'payload'),
        seg(` held by `, 'dim'),
        actorSeg(c.lock.actor),
        seg(` (${terminalSafe(c.lock.what)}) since ${relTime(c.lock.since, ctx.start)}, ${until}`, 'dim'),
      ]);
    } else if (c.fields !== undefined) {
      const f = c.fields;
      out.push([
        seg(`  window ${name} `, 'payload'),
        seg(`count ${f.count ?? '?'} until ${relTime(Number(f.end), ctx.start)}`),
        seg(`, ${until} (db ${c.db})`, 'dim'),
      ]);
    } else if (name === 'illuminate:queue:restart') {
      out.push([seg('  restart signal ', 'warn'), seg(terminalSafe(c.value)), seg(` (db ${c.db})`, 'dim')]);
    } else {
      out.push([
        seg(`  ${name} `, 'payload'),
        seg(`= ${terminalSafe(c.value)}`),
        seg(`, ${until} (db ${c.db})`, 'dim'),
      ]);
    }
  }
  return [...out, ...more(shown.length, cache.length)];
}

/**
 * `not queued: SendInvoice#1 (its push threw)`: a dispatch a Redis Cluster client refused is in no
 * key, so without this line the pane would not show it at all. Listed from its dispatch's instant on.
 */
function notQueuedLines(now: number, ctx: StateContext, density: Density): Line[] {
  const jobs = (ctx.jobs ?? []).filter((j) => j.outcome === 'not-queued' && j.dispatchedAt <= now);
  if (jobs.length === 0) return [];
  const shown = jobs.slice(0, ENTRY_LIMIT[density]);
  const line: Line = [seg('not queued: ', 'bad')];
  shown.forEach((j, i) => {
    if (i > 0) line.push(seg(', '));
    line.push(seg(terminalSafe(j.label), 'payload'));
  });
  if (jobs.length > shown.length) line.push(seg(`, … ${jobs.length - shown.length} more`, 'dim'));
  line.push(seg(` (${jobs.length === 1 ? 'its push' : 'their pushes'} threw)`, 'dim'));
  return [line];
}

function failedLines(failed: FailedJob[], ctx: StateContext, width: number, density: Density): Line[] {
  if (failed.length === 0) return [];
  const out: Line[] = [[seg(`failed jobs: ${failed.length}`, 'bad')]];
  const shown = failed.slice(0, ENTRY_LIMIT[density]);
  for (const f of shown) {
    out.push([seg('  '), seg(terminalSafe(f.job), 'payload'), seg(` at ${relTime(f.failedAt, ctx.start)}`, 'dim')]);
    const message = `${shortClass(terminalSafe(f.exception))}: ${terminalSafe(f.message)}`;
    // Compact: one line, cut with an ellipsis (a bare cut reads as the whole class name).
    const lines =
      density === 'compact' ? [clip(message, Math.max(10, width - 4))] : wrap(message, Math.max(10, width - 4));
    out.push(...lines.map((l): Line => [seg(`    ${l}`, 'bad')]));
  }
  return [...out, ...more(shown.length, failed.length)];
}

/** `handle() ran: ImportCsv#1 ×1`, a job that started more than once marked (wrapped later). */
function executionLines(executions: Record<string, number>, density: Density): Line[] {
  const entries = Object.entries(executions);
  if (entries.length === 0) return [];
  const shown = entries.slice(0, ENTRY_LIMIT[density]);
  const line: Line = [seg('handle() ran: ', 'dim')];
  shown.forEach(([job, n], i) => {
    if (i > 0) line.push(seg(', '));
    line.push(seg(`${terminalSafe(job)} ×${n}`, n > 1 ? 'warn' : 'plain'));
  });
  if (entries.length > shown.length) line.push(seg(`, … ${entries.length - shown.length} more`, 'dim'));
  return [line];
}
