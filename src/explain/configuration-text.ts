// The configuration a capture shows (explain/configuration.ts reads it), as the lines of the
// timeline's description: one line per figure, each citing the capture lines it rests on.
import { utcTime } from '../output/describe.ts';
import { joinNames } from '../sim/profiles/index.ts';
import type { CaptureConfiguration } from './configuration.ts';
import { NDJSON_CLIENT } from './capture.ts';
import { actorNames } from './grouping.ts';
import { releasesName, releasesSendingAll } from './recognise.ts';
import { clusterLines } from './cluster-text.ts';

/** The configuration, one line per figure, each citing its first lines. */
export function configurationLines(config: CaptureConfiguration): string[] {
  const cite = (lines: number[]): string => `line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}`;
  const list = <T>(label: string, items: Array<{ value: T; lines: number[] }>, show: (v: T) => string): string =>
    `${label}: ${items.length === 0 ? 'not seen' : items.map((i) => `${show(i.value)} (${cite(i.lines)})`).join('; ')}`;
  return [
    ...(config.span === null ? [] : [spanLine(config.span)]),
    ...clusterLines(config.cluster),
    config.scripts.length === 0
      ? 'Laravel: not told (no script of Laravel in the capture)'
      : `Laravel: ${laravelOf(config)} (by the text of ${config.scripts
          .map((s) => `${s.value.method} ${cite(s.lines)}`)
          .join('; ')})`,
    // 5.3 numbers an attempt one lower than the copy the trace shows (recognise.ts).
    ...(releasesSendingAll(config.scripts.map((s) => s.value))?.to === '5.3'
      ? [
          "attempts: as Laravel 5.3 counts them (RedisJob::attempts() reads the payload it popped, dispatched with attempts 1), one less than the :reserved copy's, which the pop script raised",
        ]
      : []),
    list('key prefix', config.prefixes, (p) => (p === '' ? '(none)' : p)),
    list('db', config.dbs, String),
    list('queues', config.queues, (q) => q),
    list('retry_after', config.retryAfter, (s) => `${s} s`),
    list('block_for', config.blockFor, (s) => `${s} s`),
    ...cacheLines(config),
    ...unixLine(config),
    ...(config.clockApart.length === 0
      ? []
      : [
          `app clock: ${config.clockApart
            .map((c) => `${Math.abs(c.value)} s ${c.value < 0 ? 'behind' : 'ahead of'} Redis' (${cite(c.lines)})`)
            .join(
              '; ',
            )}: a simulated clock or a skewed host, so the times the app sent are shown as the dates they name and no timing is read against MONITOR's`,
        ]),
  ];
}

/** The profile that models the capture, or why none is told (a capture of dispatches only has no script). */
export function versionsLine(config: CaptureConfiguration): string {
  return config.scripts.length === 0
    ? 'Laravel version not told by this capture (no script)'
    : config.profiles.length === 0
      ? "Laravel version not told by this capture (no known version's script)"
      : joinNames(config.profiles, 'or');
}

/** Connections over a unix socket: MONITOR gives them all the socket's path, so they are one to it. */
function unixLine(config: CaptureConfiguration): string[] {
  const unix = config.connections.filter((c) => c.client.startsWith('unix:'));
  if (unix.length === 0) return [];
  return [
    `unix socket: ${unix.map((c) => `${c.client} (from line ${c.firstLine})`).join('; ')}: MONITOR shows every connection over a socket as its path, so the processes behind it (web requests, workers) are one actor here, and no finding rests on a worker's silence or identity there`,
  ];
}

/** "9.23 to 13.x, profile 13": the releases that send every script seen, and the profiles that model them. */
function laravelOf(config: CaptureConfiguration): string {
  const releases = releasesSendingAll(config.scripts.map((s) => s.value));
  if (releases === null || releases === undefined) return 'no Laravel release sends all these scripts together';
  const profiles = config.profiles.length === 0 ? '' : `, profile ${joinNames(config.profiles, 'or')}`;
  return `${releasesName(releases)}${profiles}`;
}

/** When the capture was made, absolute (UTC) and how long; every t+ in the trace counts from its first whole second. */
function spanLine(span: { first: string; last: string }): string {
  const first = Number(span.first);
  const last = Number(span.last);
  const utc = (s: number): string => {
    const when = utcTime(s);
    return when === null ? String(s) : `${when} UTC`;
  };
  return `captured: ${utc(first)} to ${utc(last)} (${(last - first).toFixed(3)} s); t+0s is ${utc(Math.floor(first))}`;
}

/**
 * The cache store, when the capture shows it (explain/cache-store.ts): its prefix over the
 * connection's, its db, and which connection carries the queue's locks (config/cache.php's
 * stores.redis.lock_connection), each citing its lines; each cache connection read as a worker's.
 */
export function cacheLines(config: CaptureConfiguration): string[] {
  const { cache } = config;
  if (cache.prefixes.length === 0 && cache.dbs.length === 0 && cache.locks.length === 0) return [];
  const cite = (lines: number[]): string => `line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}`;
  const queuePrefixes = config.prefixes.map((p) => p.value).filter((p) => p !== '');
  const prefix = (p: string): string => {
    const cp = queuePrefixes.find((q) => p.startsWith(q));
    if (cp === undefined) return p === '' ? '(none)' : p;
    const sp = p.slice(cp.length);
    return `${p} (the connection's ${cp}, then the cache's ${sp === '' ? '(none)' : sp})`;
  };
  const selects = (db: number): string => {
    // The connections that send the cache's own commands (no queue command): their SELECT as they connect.
    const lines = config.connections
      .filter((c) => c.selectLine !== undefined && c.role === 'other' && (c.cacheStore ?? 0) > 0)
      .map((c) => c.selectLine!)
      .slice(0, 3);
    return lines.length === 0 ? '' : `; SELECT ${db} as each cache connection connects: ${cite(lines)}`;
  };
  const on = {
    queue: "the queue's own connection",
    cache: 'the cache connection',
    other: 'a connection that sends no queue command',
  };
  const lockWhy = {
    queue:
      "lock_connection 'default' (the 8.x skeleton from v8.5.6, and 11+): the same TCP connection as the queue's commands",
    cache:
      "no lock_connection (a store before 8.20, a config before skeleton v8.5.6), or 'cache': locks go where the cache goes",
    other: 'a connection of its own',
  };
  const paired = config.connections.filter((c) => c.cacheOf !== undefined);
  // A store on the queue's connection (5.3's skeleton: `connection => 'default'`): the workers' own.
  // lqsim's own ndjson names each actor's process, not its TCP connections: the db tells them apart.
  const ndjson = config.connections.some((c) => c.client.startsWith(NDJSON_CLIENT));
  const onQueue = ndjson ? [] : config.connections.filter((c) => c.role !== 'other' && (c.cacheStore ?? 0) > 0);
  const names = actorNames(config);
  return [
    `cache prefix: ${cache.prefixes.length === 0 ? 'not seen' : cache.prefixes.map((p) => `${prefix(p.value)} (${cite(p.lines)})`).join('; ')}`,
    `cache db: ${cache.dbs.length === 0 ? 'not seen' : cache.dbs.map((d) => `${d.value} (${cite(d.lines)}${selects(d.value)})`).join('; ')}`,
    `lock connection: ${cache.locks.length === 0 ? 'not seen (no queue lock in the capture)' : ndjson ? cache.locks.map((l) => `db ${l.value.db} (${cite(l.lines)})`).join('; ') + ": lqsim's ndjson names each actor's process, not its connections: the db tells which" : cache.locks.map((l) => `${on[l.value.on]}, db ${l.value.db} (${cite(l.lines)}): ${lockWhy[l.value.on]}`).join('; ')}`,
    ...(onQueue.length === 0
      ? []
      : [
          `cache on the queue's connection: ${onQueue
            .slice(0, 5)
            .map((c) => `${names.get(c.client) ?? c.client} (${c.client}, from line ${c.firstLine})`)
            .join(
              '; ',
            )} sends the cache's commands over its queue connection: the store's connection is the queue's ('default', as 5.3's skeleton has it)`,
        ]),
    ...(paired.length === 0
      ? []
      : [
          `cache connections: ${paired
            .slice(0, 5)
            .map(
              (c) =>
                `${c.client} is ${names.get(c.cacheOf!.client) ?? c.cacheOf!.client}'s (${c.cacheOf!.client}): its commands follow that worker's (${cite(c.cacheOf!.lines)})`,
            )
            .join('; ')}${paired.length > 5 ? `; ${paired.length - 5} more` : ''}`,
        ]),
  ];
}
