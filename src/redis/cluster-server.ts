// Finds a Redis Cluster to replay against, the cluster counterpart of acquireRedis (server.ts):
//   1. REDIS_CLUSTER_URL: someone else's cluster, named by one seed node or several
//      (`redis://h1:p1,redis://h2:p2`); used as it is and never stopped, and refused unless every
//      slot is served and every master answers;
//   2. otherwise three masters of the local redis-server binary (local-cluster.ts). There is no
//      Docker path: a cluster in containers announces addresses the host often cannot reach.
import { shortLivedClient } from './connections.ts';
import { clusterTrouble, clusterView } from './cluster-state.ts';
import { nodesFromClusterSlots, type ClusterNode, type RedisClusterServer } from './cluster-nodes.ts';
import {
  HOW_TO_GET_REDIS_CLUSTER,
  LocalRedisError,
  loginDenial,
  RedisConnectError,
  RedisRefusedError,
  RedisSettingError,
  RedisUnavailableError,
} from './errors.ts';
import { startLocalRedisCluster } from './local-cluster.ts';
import { redisServerBinary } from './local-server.ts';
import { parseRedisUrl, redactUrl } from './url.ts';

export interface AcquireRedisClusterOptions {
  env?: NodeJS.ProcessEnv;
  log?: (msg: string) => void;
}

const VARIABLE = 'REDIS_CLUSTER_URL';
const CONNECT_TIMEOUT_MS = 3000;

export async function acquireRedisCluster(opts: AcquireRedisClusterOptions = {}): Promise<RedisClusterServer> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});
  if (env.REDIS_CLUSTER_URL) return external(env.REDIS_CLUSTER_URL, log);

  const mode = env.LQSIM_REDIS || undefined;
  if (mode === 'docker')
    throw new RedisSettingError(
      `LQSIM_REDIS=docker: lqsim has no Docker path for a Redis Cluster; it starts one from the local redis-server binary (unset LQSIM_REDIS or set it to local), or set ${VARIABLE} to use an existing cluster`,
    );
  if (mode !== undefined && mode !== 'local')
    throw new RedisSettingError(`LQSIM_REDIS=${mode}: expected "local" or "docker" (or unset)`);
  let cluster: RedisClusterServer;
  try {
    cluster = await startLocalRedisCluster({ env });
  } catch (err) {
    if (!(err instanceof LocalRedisError)) throw err;
    throw new RedisUnavailableError(
      [`local ${redisServerBinary(env)} (a cluster of three masters): ${err.message}`],
      'no Redis Cluster available.',
      HOW_TO_GET_REDIS_CLUSTER,
    );
  }
  log(`using ${cluster.describe()}`);
  return cluster;
}

interface Seed {
  raw: string;
  shown: string;
  host: string;
  port: number;
}

/**
 * REDIS_CLUSTER_URL's seeds, each checked as REDIS_URL is (url.ts), plus what a cluster asks: no db
 * but 0 (a cluster has no other), one scheme and login for all (every node gets the seeds' login).
 */
export function parseClusterUrls(value: string): { seeds: Seed[]; nodeUrl: (host: string, port: number) => string } {
  const entries = value.split(',').map((e) => e.trim());
  // A comma in a password splits it in two: the piece with the "@" has no scheme, and the piece
  // before it holds the password's beginning, so the value is shown as one URL, redacted whole.
  const cut = entries.find((e) => e.includes('@') && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(e));
  if (cut !== undefined)
    throw new RedisSettingError(
      `${VARIABLE}=${redactUrl(value)}: "${redactUrl(cut)}" is not a URL; seeds are separated by commas, so a comma in a password must be percent-encoded (%2C)`,
    );
  const shownAll = entries.map(redactUrl).join(',');
  const seeds = entries.map((raw, i): Seed => {
    const which =
      entries.length === 1
        ? `${VARIABLE}=${shownAll}`
        : `${VARIABLE} seed ${i + 1} of ${entries.length} (${redactUrl(raw)})`;
    if (raw === '')
      throw new RedisSettingError(
        `${VARIABLE}=${shownAll}: seed ${i + 1} is empty (expected redis://host:port, or several separated by commas)`,
      );
    let parsed;
    try {
      parsed = parseRedisUrl(raw);
    } catch (e) {
      if (!(e instanceof RedisSettingError)) throw e;
      // url.ts names REDIS_URL and the URL; this is one seed of REDIS_CLUSTER_URL.
      throw new RedisSettingError(`${which}: ${e.message.replace(/^REDIS_URL=.*?: /, '')}`);
    }
    if (parsed.db !== undefined && parsed.db !== 0)
      throw new RedisSettingError(`${which}: a Redis Cluster has only db 0; drop the /${parsed.db}`);
    return { raw, shown: redactUrl(raw), host: parsed.host, port: parsed.port };
  });
  const logins = new Set(entries.map((raw) => login(raw)));
  if (logins.size > 1)
    throw new RedisSettingError(
      `${VARIABLE}=${shownAll}: the seeds differ in scheme, user or password; a cluster's nodes share one login, and lqsim uses it for every node`,
    );
  const first = new URL(entries[0]!);
  const userinfo =
    first.username || first.password ? `${first.username}${first.password ? `:${first.password}` : ''}@` : '';
  return {
    seeds,
    nodeUrl: (host, port) => `${first.protocol}//${userinfo}${host.includes(':') ? `[${host}]` : host}:${port}`,
  };
}

function login(raw: string): string {
  const u = new URL(raw);
  return `${u.protocol}${u.username}:${u.password}`;
}

async function external(value: string, log: (msg: string) => void): Promise<RedisClusterServer> {
  const { seeds, nodeUrl } = parseClusterUrls(value);
  const shownAll = seeds.map((s) => s.shown).join(',');
  const unreachable: string[] = [];
  for (const seed of seeds) {
    let answer: { version: string; enabled: boolean; view: Awaited<ReturnType<typeof clusterView>> | null };
    try {
      answer = await ask(seed.raw, async (c) => {
        const server = String(await c.sendCommand(['INFO', 'server']));
        const cluster = String(await c.sendCommand(['INFO', 'cluster']));
        const enabled = /^cluster_enabled:1/m.test(cluster);
        return {
          version: /^redis_version:(\S+)/m.exec(server)?.[1] ?? 'unknown',
          enabled,
          view: enabled ? await clusterView(c) : null,
        };
      });
    } catch (err) {
      const refused = refusal(err, seed.shown);
      if (refused !== null) throw refused;
      unreachable.push(`${VARIABLE} seed ${seed.shown}: ${reason(err)}`);
      continue;
    }
    const { version, enabled, view } = answer;
    if (!enabled || view === null)
      throw new RedisSettingError(
        `${VARIABLE}=${shownAll}: ${seed.shown} is not in cluster mode (INFO cluster: cluster_enabled:0); REDIS_URL is for a single server`,
      );
    const trouble = clusterTrouble(view);
    if (trouble !== '')
      throw new RedisRefusedError(
        `${VARIABLE}=${shownAll}: the cluster is not whole, as ${seed.shown} sees it: ${trouble}`,
      );
    // '' or '?' as a master's host: "the address you reached me at" (Redis 7's CLUSTER SLOTS).
    const slots = (view.slots as unknown[][]).map(([a, b, m, ...rest]) => {
      const [host, ...more] = m as unknown[];
      return [a, b, [host === '' || host === '?' ? seed.host : host, ...more], ...rest];
    });
    const nodes = nodesFromClusterSlots(slots, nodeUrl);
    await everyMasterAnswers(nodes, shownAll);
    const describe = (): string => `${VARIABLE} ${shownAll} (${nodes.length} masters)`;
    log(`using ${describe()} (Redis ${version})`);
    const seedNode = nodes.find((n) => n.host === seed.host && n.port === seed.port) ?? nodes[0]!;
    return { kind: 'external', nodes, seed: seedNode, version, owned: false, describe, stop: async () => {} };
  }
  // The user named this cluster; starting a local one instead would be a surprise.
  throw new RedisUnavailableError(unreachable, `${VARIABLE} is not reachable.`, HOW_TO_GET_REDIS_CLUSTER);
}

/**
 * Every master as CLUSTER SLOTS announces it must answer from here and agree the cluster is whole:
 * a cluster inside containers often announces addresses only its own network reaches.
 */
async function everyMasterAnswers(nodes: readonly ClusterNode[], shownAll: string): Promise<void> {
  for (const node of nodes) {
    const where = `${node.label} at ${node.host}:${node.port}, as the cluster announces it`;
    let trouble: string;
    try {
      trouble = clusterTrouble(await ask(node.url, clusterView));
    } catch (err) {
      const refused = refusal(err, shownAll);
      if (refused !== null) throw refused;
      throw new RedisConnectError(`${VARIABLE}=${shownAll}: ${where}, does not answer from here (${reason(err)})`);
    }
    if (trouble !== '')
      throw new RedisRefusedError(`${VARIABLE}=${shownAll}: the cluster is not whole, as ${where} sees it: ${trouble}`);
  }
}

/** A login or permission the server turned down, as one line naming the variable. */
function refusal(err: unknown, shown: string): Error | null {
  const denied = loginDenial(err);
  if (denied !== null)
    return new RedisRefusedError(
      `${VARIABLE}=${shown}: the server turned the login down (${denied}); check the user and password in the URL`,
    );
  const noperm = /\bNOPERM\b.*/.exec(reason(err))?.[0];
  if (noperm !== undefined)
    return new RedisRefusedError(`${VARIABLE}=${shown}: the user may not run what lqsim asks first (${noperm})`);
  return null;
}

/** `fn` over a short-lived RESP2 connection that never reconnects, bounded in time. */
async function ask<T>(
  url: string,
  fn: (c: { sendCommand(args: string[]): Promise<unknown> }) => Promise<T>,
): Promise<T> {
  const client = shortLivedClient(url, CONNECT_TIMEOUT_MS);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
  });
  const work = (async () => {
    await client.connect();
    return fn(client);
  })();
  work.catch(() => {}); // a late rejection after the timeout must not become unhandled
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    client.destroy();
  }
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
