// `redis: { cluster: true }`: what a scenario on a Redis Cluster may say. The cluster is modelled
// as phpredis' RedisCluster behind Laravel 8's PhpRedisConnector::connectToCluster, which real
// Laravel 8.83 was checked against; what lies outside that is refused, naming why.
import type { ClusterNode, RedisClusterServer } from '../redis/cluster-nodes.ts';
import type { AcquireRedisClusterOptions } from '../redis/cluster-server.ts';
import { acquireRedisCluster } from '../redis/cluster-server.ts';
import type { LaravelProfile } from '../sim/profiles/index.ts';
import type { RedisTarget } from './run-resources.ts';
import { usesRedisCache } from './cache-config.ts';
import type { Problem } from './schema-issues.ts';
import type { ScenarioSpec } from './schema.ts';

/** What a cluster scenario sets that the model does not cover. */
export function clusterProblems(spec: ScenarioSpec, profile: LaravelProfile, as: string): Problem[] {
  if (!spec.redis.cluster) return [];
  const problems: Problem[] = [];
  const at = (field: string, detail: string) => problems.push({ path: ['redis', field], detail });
  const client = spec.redis.client ?? profile.defaultClient;
  if (profile.name !== '8')
    at('cluster', `a cluster is modelled for Laravel 8 (phpredis' RedisCluster, checked against real 8.83); ${as}`);
  else if (client !== 'phpredis')
    at('client', `a cluster is modelled for phpredis' RedisCluster, not ${client}'s cluster connection`);
  if (spec.redis.database !== 0)
    at(
      'database',
      `a Redis Cluster has db 0 alone (Laravel's cluster connection sends no SELECT); remove redis.database`,
    );
  if (usesRedisCache(spec))
    problems.push({
      path: ['cache', 'store'],
      detail: `the cache store on a cluster is not modelled yet: keep the file store (the skeleton's) with redis.cluster`,
    });
  return problems;
}

/** A cluster as a run's target: Laravel's seed (node1 for the tool's own) is its url. */
export function clusterTarget(cluster: RedisClusterServer): RedisTarget {
  return {
    url: cluster.seed.url,
    owned: cluster.owned,
    kind: cluster.kind === 'local-binary' ? 'local-cluster' : 'external-cluster',
    version: cluster.version,
    describe: () => cluster.describe(),
    cluster: { nodes: cluster.nodes, seed: cluster.seed },
  };
}

/** A cluster ready to run scenarios on: runScenario's `redis`, with its masters and a stop(). */
export type RedisClusterTarget = RedisTarget & {
  nodes: readonly ClusterNode[];
  stop(): Promise<void>;
};

/**
 * The library's cluster: REDIS_CLUSTER_URL's, or three local masters it starts (stop() ends them,
 * as it does on every way out of the process).
 */
export async function acquireClusterTarget(opts: AcquireRedisClusterOptions = {}): Promise<RedisClusterTarget> {
  const cluster = await acquireRedisCluster(opts);
  return { ...clusterTarget(cluster), nodes: cluster.nodes, stop: () => cluster.stop() };
}
