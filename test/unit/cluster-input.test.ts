// Bad input for `redis.cluster`: each refusal names the file, line and field, and says why the
// model does not cover it (the cluster client is phpredis' RedisCluster behind Laravel 8's
// connector, checked against real 8.83; a cluster has db 0 alone).
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/scenarios/errors.ts';
import { parseScenario } from '../../src/scenarios/load.ts';

function errorOf(yaml: string): ScenarioError {
  try {
    parseScenario(yaml, 'cluster.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('no error');
}

const scenario = (o: { laravel?: string; redis?: string; cache?: string }) => `name: c
title: c
laravel: "${o.laravel ?? '8'}"
redis:
  cluster: true
${o.redis ?? ''}${o.cache ?? ''}timeline:
  - { at: 0, note: n }
`;

describe('redis.cluster', () => {
  it('is taken on Laravel 8 with phpredis, and absent means one server', () => {
    expect(parseScenario(scenario({}), 'c.yaml').spec.redis.cluster).toBe(true);
    expect(
      parseScenario('name: c\ntitle: c\ntimeline:\n  - { at: 0, note: n }\n', 'c.yaml').spec.redis.cluster,
    ).toBeUndefined();
  });

  it('refuses another version, naming the field and the version', () => {
    const e = errorOf(scenario({ laravel: '5.7' }));
    expect(e.message).toBe(
      "cluster.yaml:5:12: redis.cluster: a cluster is modelled for Laravel 8 (phpredis' RedisCluster, checked against real 8.83); this scenario is Laravel 5.7",
    );
  });

  it('refuses Predis on 8', () => {
    expect(errorOf(scenario({ redis: '  client: predis\n' })).message).toMatch(
      /^cluster\.yaml:6:11: redis\.client: a cluster is modelled for phpredis' RedisCluster, not predis's cluster connection$/,
    );
  });

  it('refuses a db other than 0', () => {
    expect(errorOf(scenario({ redis: '  database: 3\n' })).message).toMatch(
      /^cluster\.yaml:6:13: redis\.database: a Redis Cluster has db 0 alone/,
    );
  });

  it('refuses the cache store on Redis, which is not modelled on a cluster', () => {
    expect(errorOf(scenario({ cache: 'cache:\n  store: redis\n' })).message).toMatch(
      /^cluster\.yaml:7:10: cache\.store: the cache store on a cluster is not modelled yet/,
    );
  });
});
