// Bad input for the cache store on Redis: each refusal names the file, line and field, and a
// feature the scenario's version lacks names the release it arrived in (research/cache-store.md:
// WithoutOverlapping 8.11.0, ShouldBeUnique 8.14.0, lock_connection 8.20.0).
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/scenarios/errors.ts';
import { parseScenario } from '../../src/scenarios/load.ts';

function errorOf(yaml: string): ScenarioError {
  try {
    parseScenario(yaml, 'cache.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('no error');
}

const scenario = (o: { laravel?: string; cache?: string; job?: string }) => `name: c
title: c
laravel: "${o.laravel ?? '8'}"
cache: ${o.cache ?? '{ store: redis }'}
jobs:
  Sync:
    class: App\\Jobs\\Sync
${o.job ?? ''}
timeline:
  - { at: 0, dispatch: Sync }
`;

describe('the cache store in a scenario', () => {
  it('takes the store, its connections, the prefix and the cache db, with the version skeleton as default', () => {
    const { spec } = parseScenario(
      scenario({ cache: '{ store: redis, lock_connection: cache, prefix: app }' }),
      'c.yaml',
    );
    expect(spec.cache).toEqual({ store: 'redis', lock_connection: 'cache', prefix: 'app' });
    expect(spec.redis.cache_database).toBe(1);
  });

  it('refuses job middleware before 8.11, naming the release and the version', () => {
    const e = errorOf(scenario({ laravel: '5.7', job: '    middleware: [{ without_overlapping: order-1 }]' }));
    expect([e.line, e.field]).toEqual([8, 'jobs.Sync.middleware']);
    expect(e.detail).toBe(
      'job middleware arrived in Laravel 6.0.0 and WithoutOverlapping in 8.11.0; this scenario is Laravel 5.7',
    );
  });

  it('refuses a unique job before 8.14; 13 takes it, and every middleware', () => {
    const e = errorOf(scenario({ laravel: '5.3', job: '    unique: true' }));
    expect([e.line, e.field, e.detail]).toEqual([
      8,
      'jobs.Sync.unique',
      'ShouldBeUnique arrived in Laravel 8.14.0; this scenario is Laravel 5.3',
    ]);
    expect(() => parseScenario(scenario({ laravel: '13', job: '    unique: true' }), 'c.yaml')).not.toThrow();
    const job = '    middleware: [{ throttles_exceptions: {} }, { rate_limited: orders }]';
    expect(() =>
      parseScenario(scenario({ laravel: '13', job }).replace('jobs:', 'limiters: { orders: none }\njobs:'), 'c.yaml'),
    ).not.toThrow();
  });

  it('refuses WithoutOverlapping::shared() before 9.32 (13 takes it)', () => {
    const job = '    middleware: [{ without_overlapping: { key: k, shared: true } }]';
    const e = errorOf(scenario({ job }));
    expect([e.field, e.detail]).toEqual([
      'jobs.Sync.middleware.0.without_overlapping.shared',
      'WithoutOverlapping::shared() arrived in Laravel 9.32.0; this scenario is Laravel 8',
    ]);
    expect(() => parseScenario(scenario({ laravel: '13', job }), 'c.yaml')).not.toThrow();
  });

  it('refuses lock_connection before 8.20', () => {
    const e = errorOf(scenario({ laravel: '5.7', cache: '{ store: redis, lock_connection: default }' }));
    expect([e.line, e.field, e.detail]).toEqual([
      4,
      'cache.lock_connection',
      'lock_connection arrived in Laravel 8.20.0 (CacheManager reads it); this scenario is Laravel 5.7',
    ]);
  });

  it('refuses dont_release with a release_after, and a uniqueId() property the class does not declare', () => {
    const both = errorOf(
      scenario({ job: '    middleware: [{ without_overlapping: { key: a, release_after: 5, dont_release: true } }]' }),
    );
    expect(both.field).toBe('jobs.Sync.middleware.0.without_overlapping.dont_release');
    expect(both.detail).toMatch(/dont_release drops a refused job; release_after would release it/);
    const unknown = errorOf(
      scenario({ job: '    properties: { orderId: 1 }\n    unique: { id: { property: orderID } }' }),
    );
    expect([unknown.line, unknown.field]).toEqual([9, 'jobs.Sync.unique.id.property']);
    expect(unknown.detail).toMatch(
      /uniqueId\(\) returns \$this->orderID, which jobs.Sync does not declare.*did you mean "orderId"/,
    );
  });

  it('refuses a worker named artisan (the actor of php artisan commands) and an artisan command it does not know', () => {
    expect(errorOf(scenario({}).replace('timeline:', 'workers: [{ name: artisan }]\ntimeline:')).detail).toMatch(
      /"artisan" is the actor that runs php artisan commands/,
    );
    expect(errorOf(scenario({}).replace('dispatch: Sync', 'artisan: queue:flush')).field).toBe('timeline.0.artisan');
  });
});
