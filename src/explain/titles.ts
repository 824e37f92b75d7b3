// A step's words: the title of a group of captured commands (explain/grouping.ts) in Laravel's
// terms ("pop: reserved SendEmail#2 (attempts 1) until t+90s"), read off what the commands sent.
// MONITOR shows no replies, so whether a pop got a job is read from what the pop script ran (its
// ZADD to :reserved). Reading a step also tells the job's life (explain/job-life.ts) and the
// findings (explain/findings.ts) what happened in it.
import { relTime, utcTime } from '../output/describe.ts';
import { isClusterSlots } from './cluster-configuration.ts';
import { isRetryAfter } from './configuration.ts';
import type { QueueEvent } from './findings.ts';
import type { Group } from './grouping.ts';
import type { JobInstance } from '../scenarios/timeline.ts';
import type { JobLives, PayloadFacts } from './job-life.ts';
import { ownCopy } from '../redis/own-string.ts';
import type { QueueKey } from './recognise.ts';
import { parseQueueKey } from './recognise.ts';
import { commandName } from '../sim/command-name.ts';

/**
 * The title of a step: `g` at time `t` (MONITOR's, of its first command), sent by `actor`; times
 * the app sent are told against `start`, the capture's first whole second.
 */
export function titleOf(
  g: Group,
  t: number,
  start: number,
  jobs: Pick<JobLives, 'jobOf' | 'event'>,
  actor: string,
  event: (e: QueueEvent) => void,
  /** A :reserved copy's facts, its attempts as Laravel numbers the attempt (5.3 counts one lower). */
  copyFacts: (raw: string) => PayloadFacts | undefined,
): string {
  const { jobOf, event: life } = jobs;
  // What a job, its life or a finding keeps of the commands is copied out of the read chunk.
  const queue = (k: QueueKey | undefined): string => (k === undefined ? '?' : ownCopy(k.queue));
  // What the findings are read from: every migrate's count, a BLPOP on the ready list.
  /** The `now` the poll's migrates carry (the worker's clock), for its pop. */
  let pollNow: number | null = null;
  for (let i = 0; i < g.lines.length; i++) {
    const { entry, r } = g.lines[i]!;
    if (r?.op === 'block' && r.key?.kind === 'ready')
      event({ kind: 'block-ready', actor, line: entry.lineNo, key: ownCopy(entry.line.args[1]!) });
    if (r?.op !== 'migrate delayed' && r?.op !== 'migrate reserved') continue;
    let moved = 0;
    const from = r.op === 'migrate reserved' ? ':reserved, its reservation over' : ':delayed, due';
    for (let j = i + 1; j < g.lines.length && g.lines[j]!.entry.line.client === 'lua'; j++) {
      const l = g.lines[j]!.entry;
      const a = l.line.args;
      if (a[0] === undefined || commandName(a[0]) !== 'RPUSH' || parseQueueKeyKind(a[1]) !== 'ready') continue;
      moved += a.length - 2;
      for (const payload of a.slice(2)) {
        const job = jobOf(payload, t, queue(r.key));
        if (job !== undefined)
          life(
            job,
            l,
            r.op === 'migrate reserved' ? 'expired' : 'due',
            `moved back onto ${job.queue} by ${actor}'s migrate (from ${from})`,
          );
      }
    }
    // The script's ARGV[1] after its keys: the worker's `now`, on its own clock.
    const now = Number(entry.line.args[3 + Number(entry.line.args[2])]);
    if (Number.isFinite(now)) pollNow = now;
    event({
      kind: 'migrate',
      moved,
      line: entry.lineNo,
      from: ownCopy(entry.line.args[3] ?? '?'),
      actor,
      now: Number.isFinite(now) ? now : null,
    });
  }
  const first = g.lines.find((l) => l.r !== undefined && l.r.op !== 'select' && l.entry.line.client !== 'lua');
  const r = first?.r;
  const args = first?.entry.line.args ?? [];
  const at = (unix: string | undefined): string => appTime(unix, start);
  /** A delete or release of the reserved copy `payload`: its job, the life's entry and the finding rules' event. */
  const ended = (kind: 'delete' | 'release', payload: string | undefined, what: string): JobInstance | undefined => {
    const facts = payload === undefined ? undefined : copyFacts(payload);
    const job = payload === undefined ? undefined : jobOf(payload, t, queue(r?.key), facts);
    if (job !== undefined && first !== undefined) {
      life(job, first.entry, kind, what, facts);
      event({
        kind,
        job: job.id,
        label: job.label,
        actor,
        line: first.entry.lineNo,
        t: Number(first.entry.line.time),
        attempts: facts?.attempts ?? null,
      });
    }
    return job;
  };
  switch (g.kind) {
    case 'dispatch': {
      if (r?.op === 'later') {
        const [score, payload] = r.script ? [args[4], args[5]] : [args[2], args[3]];
        const job = payload === undefined ? undefined : jobOf(payload, t, queue(r.key));
        if (job !== undefined && first !== undefined)
          life(job, first.entry, 'later', `pushed onto ${queue(r.key)}:delayed until ${at(score)} by ${actor}`);
        return `later: ${job?.label ?? 'a job'} onto ${queue(r.key)}:delayed until ${at(score)}`;
      }
      const payload = r?.script ? args[5] : args[2];
      const job = payload === undefined ? undefined : jobOf(payload, t, queue(r?.key));
      if (job !== undefined && first !== undefined)
        life(job, first.entry, 'push', `pushed onto ${queue(r?.key)} by ${actor}`);
      return `push: ${job?.label ?? 'a job'} onto ${queue(r?.key)}`;
    }
    case 'pop': {
      // The pop script's ZADD to :reserved (or, 5.6-5.7 with block_for, PHP's ZADD) is the reservation.
      const reserve = g.lines.find(
        ({ entry, r }) =>
          entry.line.args[0] !== undefined &&
          commandName(entry.line.args[0]) === 'ZADD' &&
          (r?.key?.kind === 'reserved' || r?.op === 'reserve'),
      );
      const blocked = g.lines.find((l) => l.r?.op === 'block');
      const onQueue = queue(g.lines.find((l) => l.r?.key !== undefined)?.r?.key);
      if (reserve === undefined) {
        return blocked === undefined
          ? `pop: no job on ${onQueue}`
          : `pop: no job on ${onQueue}; blocked in BLPOP up to ${blocked.entry.line.args.at(-1)} s`;
      }
      const [, , score, payload] = reserve.entry.line.args;
      const facts = payload === undefined ? undefined : copyFacts(payload);
      const job = payload === undefined ? undefined : jobOf(payload, t, onQueue, facts);
      const attempts = facts?.attempts ?? null;
      if (job !== undefined) {
        job.executions++;
        life(
          job,
          reserve.entry,
          'reserve',
          `reserved by ${actor}${attempts === null ? '' : ` for attempt ${attempts}`} until ${at(score)}`,
          facts,
          pollNow,
        );
        const popped = Number(reserve.entry.line.time);
        const until = score === undefined || !Number.isFinite(Number(score)) ? null : Number(score);
        event({
          kind: 'reserve',
          job: job.id,
          label: job.label,
          actor,
          line: reserve.entry.lineNo,
          t: popped,
          until,
          redisClock: until !== null && isRetryAfter(until - Math.floor(popped)),
          attempts,
          maxTries: facts?.maxTries ?? null,
          retryUntil: facts?.retryUntil ?? null,
          now: pollNow,
        });
      }
      return `pop: reserved ${job?.label ?? 'a job'}${attempts === null ? '' : ` (attempts ${attempts})`} until ${at(score)}`;
    }
    case 'delete': {
      const job = ended('delete', args[2], `deleted by ${actor}`);
      if (job !== undefined) job.outcome = 'deleted';
      return `delete: ${job?.label ?? 'a job'} (ZREM of its reserved copy)`;
    }
    case 'release': {
      const until = args[6];
      const job = ended('release', args[5], `released by ${actor} to ${queue(r?.key)}:delayed until ${at(until)}`);
      return `release: ${job?.label ?? 'a job'} back to ${queue(r?.key)}:delayed until ${at(until)}`;
    }
    case 'size':
      return `${r?.op === 'clear' ? 'clear' : 'size'}: ${queue(r?.key)}`;
    default: {
      if (g.client === 'lua')
        return `script lines whose EVAL is not in the capture: ${g.lines.length} command${g.lines.length === 1 ? '' : 's'}`;
      const names = [
        ...new Set(g.lines.map((l) => (l.entry.line.args[0] === undefined ? '?' : commandName(l.entry.line.args[0])))),
      ];
      if (g.lines.every((l) => isClusterSlots(l.entry.line.args)))
        return `cluster client${g.lines.length === 1 ? '' : 's'} connecting: CLUSTER SLOTS${g.lines.length === 1 ? '' : ` × ${g.lines.length}`} (phpredis' RedisCluster maps the slots to their nodes on its seed)`;
      return `other traffic: ${g.lines.length} command${g.lines.length === 1 ? '' : 's'} (${names.slice(0, 4).join(', ')}${names.length > 4 ? ', ...' : ''})`;
    }
  }
}

/**
 * A time the app sent (a score, a pop's until) relative to the capture's start, or, when it is
 * more than 30 days off MONITOR's clock (a simulated clock, a skewed host), as the date it names.
 */
function appTime(unix: string | undefined, start: number): string {
  const t = Number(unix);
  if (unix === undefined || !Number.isFinite(t)) return '?';
  if (Math.abs(t - start) <= 30 * 86_400) return relTime(t, start);
  const when = utcTime(t);
  return when === null ? unix : `${when.replace(/\.000$/, '')} UTC (the app's clock, not Redis')`;
}

function parseQueueKeyKind(key: string | undefined): string | undefined {
  return key === undefined ? undefined : parseQueueKey(key)?.kind;
}
