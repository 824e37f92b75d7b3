// The builder yields the same validated spec as the YAML loader, and reports problems the way
// the loader does (field path and message), as ScenarioError.
import { describe, expect, it } from 'vitest';
import { buildScenario, scenario } from '../../src/scenarios/builder.ts';
import { ScenarioError } from '../../src/scenarios/errors.ts';
import { parseScenario } from '../../src/scenarios/load.ts';

const YAML = String.raw`
name: retry-flow
title: one job, released once
laravel: "8"
until: 120
connections:
  redis: { queue: default, retry_after: 90 }
workers:
  - { name: worker-1, tries: 3, timeout: 60, delay: 10 }
jobs:
  ImportCsv:
    class: App\Jobs\ImportCsv
    backoff: [10, 30]
    attempts: [{ run: 5, throw: API down }, succeed]
timeline:
  - { at: 0, dispatch: ImportCsv, note: first }
  - { at: 100, size: default }
  - { at: 110, stop: worker-1 }
  - { at: 0, note: the pop, actor: worker-1, on: pop }
`;

describe('scenario builder', () => {
  it('builds exactly the spec the loader reads from the equivalent YAML', () => {
    const built = scenario('retry-flow', 'one job, released once')
      .laravel('8')
      .until(120)
      .connection('redis', { queue: 'default', retry_after: 90 })
      .worker('worker-1', { tries: 3, timeout: 60, delay: 10 })
      .job('ImportCsv', {
        class: 'App\\Jobs\\ImportCsv',
        backoff: [10, 30],
        attempts: [{ run: 5, throw: 'API down' }, 'succeed'],
      })
      .dispatch('ImportCsv', { at: 0, note: 'first' })
      .size('default', { at: 100 })
      .stop('worker-1', { at: 110 })
      .note('the pop', { at: 0, actor: 'worker-1', on: 'pop' })
      .build();
    expect(built).toEqual(parseScenario(YAML, 'retry-flow.yaml').spec);
    // Defaults are the schema's: sleep 3, once false, restart true; seed 1; start 1700000000.
    expect(built.workers[0]).toMatchObject({ sleep: 3, once: false, restart: true });
    expect(built.start).toBe(1_700_000_000);
  });

  it('builds the cache store, limiters, middleware and queue:restart as the YAML would', () => {
    const built = scenario('cache-flow', 'a cache on Redis')
      .laravel('8')
      .cache({ store: 'redis', prefix: 'app' })
      .limiter('orders', { per_minute: 2 })
      .worker('worker-1')
      .job('Sync', {
        class: 'App\\Jobs\\Sync',
        middleware: [{ without_overlapping: 'order-1' }, { rate_limited: 'orders' }],
        unique: { id: 42 },
      })
      .dispatch('Sync')
      .artisan('queue:restart', { at: 5 })
      .build();
    const yaml = `name: cache-flow
title: a cache on Redis
laravel: "8"
cache: { store: redis, prefix: app }
limiters: { orders: { per_minute: 2 } }
workers: [{ name: worker-1 }]
jobs:
  Sync:
    class: App\\Jobs\\Sync
    middleware: [{ without_overlapping: order-1 }, { rate_limited: orders }]
    unique: { id: 42 }
timeline:
  - { at: 0, dispatch: Sync }
  - { at: 5, artisan: queue:restart }
`;
    expect(built).toEqual(parseScenario(yaml, 'cache-flow.yaml').spec);
  });

  it('defaults a dispatch to t+0 and the connection to the schema default', () => {
    const spec = scenario('tiny', 'tiny').job('Ping', { class: 'App\\Jobs\\Ping' }).dispatch('Ping').build();
    expect(spec.timeline).toEqual([{ kind: 'dispatch', at: 0, dispatch: 'Ping', count: 1 }]);
    expect(spec.connections).toEqual({ redis: { queue: 'default', retry_after: 90, block_for: null } });
  });

  it('reports a schema problem with its field path, as the loader would', () => {
    const bad = () =>
      scenario('bad', 'bad')
        .worker('worker-1', { tries: -1 })
        .job('Ping', { class: 'App\\Jobs\\Ping' })
        .dispatch('Ping')
        .build();
    expect(bad).toThrow(ScenarioError);
    expect(bad).toThrow(/^bad: workers\.0\.tries: /);
  });

  it('reports cross references (an unknown job) like the loader', () => {
    const b = scenario('xref', 'xref').job('Ping', { class: 'App\\Jobs\\Ping' }).dispatch('Pong');
    expect(() => b.build()).toThrow('xref: timeline.0.dispatch: unknown job "Pong" (did you mean "Ping"?)');
  });

  it('buildScenario takes the YAML shape as a plain object', () => {
    expect(buildScenario({ name: 'x', title: 'x', timeline: [{ at: 0, note: 'n' }] }).jobs).toEqual({});
    expect(() => buildScenario({ name: 'x', title: 'x', timeline: [{ at: 0, dispatch: 'J' }] })).toThrow(
      /^x: timeline\.0\.dispatch: unknown job "J" \(no job is defined\)/,
    );
  });

  it('chains: ->chain() through dispatch options, Bus::chain() through chain(), and the version check', () => {
    const b = scenario('chains', 'chains')
      .laravel('8')
      .job('A', { class: 'App\\Jobs\\A' })
      .job('B', { class: 'App\\Jobs\\B' })
      .dispatch('A', { chain: ['B'] })
      .chain(['A', { job: 'B', queue: 'later' }], { at: 5, queue: 'pod' });
    expect(b.build().timeline).toEqual([
      { kind: 'dispatch', at: 0, dispatch: 'A', count: 1, chain: ['B'] },
      { kind: 'chain', at: 5, chain: ['A', { job: 'B', queue: 'later' }], queue: 'pod' },
    ]);
    expect(() => b.laravel('5.7').build()).toThrow(
      /^chains: timeline\.1\.chain: Bus::chain\(\) arrived in Laravel 8\.0; the 5\.7 profile chains with ->chain\(\) only/,
    );
  });

  it('toInput gives the YAML-shaped object, a copy', () => {
    const b = scenario('copy', 'copy').job('Ping', { class: 'App\\Jobs\\Ping' }).dispatch('Ping', { at: 5 });
    const input = b.toInput();
    input.timeline.push({ at: 9, note: 'later' });
    expect(b.toInput().timeline).toEqual([{ at: 5, dispatch: 'Ping' }]);
  });
});
