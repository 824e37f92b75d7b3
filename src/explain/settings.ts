// What `lqsim explain` read of the app's setup, as data: the configuration's header in a structure
// json and ndjson carry (each figure with the capture lines it rests on), bounded whatever the
// capture's size: the connections are counted per role, with the first few named.
import type { CaptureConfiguration, Role } from './configuration.ts';
import { releasesName, releasesSendingAll } from './recognise.ts';
import type { ClusterConfiguration } from './cluster-configuration.ts';

/** Connections named per role; the rest are counted. */
const NAMED = 5;

export interface Cited<T> {
  value: T;
  lines: number[];
}

export interface CaptureSettings {
  laravel: {
    /** The releases that send every script seen ("5.8 to 9.22"), or null (no script, or none fits). */
    releases: string | null;
    /** The modelling profiles whose scripts are all the capture's. */
    profiles: string[];
    scripts: Array<Cited<string>>;
  };
  prefixes: Array<Cited<string>>;
  dbs: Array<Cited<number>>;
  queues: Array<Cited<string>>;
  /** Seconds. */
  retryAfter: Array<Cited<number>>;
  /** Seconds. */
  blockFor: Array<Cited<number>>;
  /** Seconds the workers' clock is from Redis', where more than one. */
  clockApart: Array<Cited<number>>;
  roles: Record<Role, { connections: number; first: Array<{ client: string; line: number }> }>;
  /** The cache store, as the capture shows it (configuration.ts CacheConfiguration). */
  cache: {
    prefixes: Array<Cited<string>>;
    dbs: Array<Cited<number>>;
    locks: Array<Cited<{ on: 'queue' | 'cache' | 'other'; db: number }>>;
    /** Cache connections read as a worker's (the first few). */
    connections: Array<{ client: string; of: string; lines: number[] }>;
  };
  commands: number;
  span: { first: string; last: string } | null;
  /** A Redis Cluster's capture: its nodes, cluster clients, and each queue's slots and nodes. */
  cluster?: ClusterConfiguration;
}

export function captureSettings(config: CaptureConfiguration): CaptureSettings {
  const range = releasesSendingAll(config.scripts.map((s) => s.value));
  const roles: CaptureSettings['roles'] = {
    dispatcher: { connections: 0, first: [] },
    worker: { connections: 0, first: [] },
    both: { connections: 0, first: [] },
    other: { connections: 0, first: [] },
  };
  for (const c of config.connections) {
    const r = roles[c.role];
    if (r.connections++ < NAMED) r.first.push({ client: c.client, line: c.firstLine });
  }
  const cited = <T>(list: ReadonlyArray<{ value: T; lines: number[] }>): Array<Cited<T>> =>
    list.map((e) => ({ value: e.value, lines: [...e.lines] }));
  return {
    laravel: {
      releases: range === null || range === undefined ? null : releasesName(range),
      profiles: config.scripts.length === 0 ? [] : [...config.profiles],
      scripts: config.scripts.map((s) => ({ value: s.value.method, lines: [...s.lines] })),
    },
    prefixes: cited(config.prefixes),
    dbs: cited(config.dbs),
    queues: cited(config.queues),
    retryAfter: cited(config.retryAfter),
    blockFor: cited(config.blockFor),
    clockApart: cited(config.clockApart),
    roles,
    cache: {
      prefixes: cited(config.cache.prefixes),
      dbs: cited(config.cache.dbs),
      locks: config.cache.locks.map((l) => ({ value: { ...l.value }, lines: [...l.lines] })),
      connections: config.connections
        .filter((c) => c.cacheOf !== undefined)
        .slice(0, NAMED)
        .map((c) => ({ client: c.client, of: c.cacheOf!.client, lines: [...c.cacheOf!.lines] })),
    },
    commands: config.commands,
    span: config.span,
    ...(config.cluster === undefined ? {} : { cluster: config.cluster }),
  };
}
