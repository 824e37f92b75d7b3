// The `config` timeline entry (src/scenarios/entries/config.ts): its schema, the loader's errors
// at line:column, and what a connection reads after it (RedisConnector::connect's `retry_after ?? 60`).
import { describe, expect, it } from 'vitest';
import { ENTRY_KINDS, kindOf, startOrder } from '../../src/scenarios/entries/index.ts';
import { changedConfig, configEntry, connectionChange } from '../../src/scenarios/entries/config.ts';
import type { ConfigEntry } from '../../src/scenarios/entries/config.ts';
import { ScenarioError } from '../../src/scenarios/errors.ts';
import { parseScenario } from '../../src/scenarios/load.ts';
import { scenario } from '../../src/scenarios/builder.ts';
import { getProfile } from '../../src/sim/profiles/index.ts';
import type { QueueConfig } from '../../src/sim/redis-queue.ts';

/** A scenario whose timeline (from line 9 on) is `entries`, one per line. */
function source(entries: string[], o: { laravel?: string; workers?: string } = {}): string {
  return [
    'name: cfg', // 1
    'title: cfg', // 2
    `laravel: "${o.laravel ?? '8'}"`, // 3
    'connections:', // 4
    '  redis: { retry_after: 90 }', // 5
    `workers: [${o.workers ?? '{ name: worker-1 }'}]`, // 6
    'jobs: { J: { class: App\\Jobs\\J } }', // 7
    'timeline:', // 8
    ...entries.map((e) => `  - ${e}`), // 9...
    '',
  ].join('\n');
}

function errorOf(yaml: string): ScenarioError {
  try {
    parseScenario(yaml, 'cfg.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('config entry: schema', () => {
  it('is a kind of its own, told apart by its `config` key', () => {
    const { spec } = parseScenario(
      source(['{ at: 30, config: redis, retry_after: 120 }', '{ at: 30, config: redis, block_for: null }']),
      'cfg.yaml',
    );
    expect(spec.timeline.map((e) => e.kind)).toEqual(['config', 'config']);
    expect(kindOf(spec.timeline[0]!)).toBe(ENTRY_KINDS.config);
    expect(spec.timeline[1]).toEqual({ kind: 'config', at: 30, config: 'redis', block_for: null });
  });

  it('starts with the dispatches (phase 0), as written, before the size calls of its instant', () => {
    const { spec } = parseScenario(
      source(['{ at: 5, size: default }', '{ at: 5, dispatch: J }', '{ at: 5, config: redis, queue: mail }']),
      'cfg.yaml',
    );
    expect(startOrder(spec.timeline).map((e) => e.kind)).toEqual(['dispatch', 'config', 'size']);
  });

  it('names the queue it makes the default (snapshotted and watched), and dispatches nothing', () => {
    const e = configEntry.schema.parse({ at: 0, config: 'redis', queue: 'mail' });
    expect(configEntry.queues(e)).toEqual(['mail']);
    expect(configEntry.dispatches(e)).toBe(0);
    expect(configEntry.queues(configEntry.schema.parse({ at: 0, config: 'redis', retry_after: 5 }))).toEqual([]);
  });

  it('the builder writes the same entry', () => {
    const spec = scenario('cfg', 'cfg')
      .laravel('8')
      .worker('worker-1')
      .config('redis', { at: 30, retry_after: 120 })
      .build();
    expect(spec.timeline).toEqual([{ kind: 'config', at: 30, config: 'redis', retry_after: 120 }]);
  });
});

describe('config entry: errors at line:column', () => {
  it('an unknown connection, with did-you-mean', () => {
    // line 9 `  - { at: 10, config: rdis, retry_after: 30 }`: `rdis` at column 23.
    const e = errorOf(source(['{ at: 10, config: rdis, retry_after: 30 }']));
    expect([e.line, e.column, e.field]).toEqual([9, 23, 'timeline.0.config']);
    expect(e.detail).toBe('unknown connection "rdis" (did you mean "redis"?)');
    expect(e.message).toBe('cfg.yaml:9:23: timeline.0.config: unknown connection "rdis" (did you mean "redis"?)');
  });

  it('nothing to change', () => {
    // line 10 `  - { at: 10, config: redis }`: `redis` at column 23.
    const e = errorOf(source(['{ at: 0, dispatch: J }', '{ at: 10, config: redis }']));
    expect([e.line, e.column, e.field]).toEqual([10, 23, 'timeline.1.config']);
    expect(e.detail).toBe('say what changes in redis: retry_after, block_for or queue');
  });

  it('a misspelt field is the config entry’s unknown field, not another kind’s', () => {
    // line 9 `  - { at: 10, config: redis, retry_afer: 30 }`: the key `retry_afer` at column 30.
    const e = errorOf(source(['{ at: 10, config: redis, retry_afer: 30 }']));
    expect([e.line, e.column, e.field]).toEqual([9, 30, 'timeline.0.retry_afer']);
    expect(e.detail).toBe('unknown field "retry_afer" (did you mean "retry_after"?)');
  });

  it('a value out of range, as in connections', () => {
    // line 9 `  - { at: 10, config: redis, block_for: -1 }`: `-1` at column 41.
    const e = errorOf(source(['{ at: 10, config: redis, block_for: -1 }']));
    expect([e.line, e.column, e.field]).toEqual([9, 41, 'timeline.0.block_for']);
    expect(e.detail).toBe('expected a whole number >= 0, got -1');
  });

  it('retry_after is one definition: a connection and a config entry refuse alike, with one message', () => {
    for (const bad of ['-1', '86401', '1.5', '"90"']) {
      const inConnection = errorOf(
        source(['{ at: 0, dispatch: J }']).replace('retry_after: 90', `retry_after: ${bad}`),
      );
      const inEntry = errorOf(source([`{ at: 10, config: redis, retry_after: ${bad} }`]));
      expect([inConnection.line, inConnection.field]).toEqual([5, 'connections.redis.retry_after']);
      expect([inEntry.line, inEntry.field]).toEqual([9, 'timeline.0.retry_after']);
      expect(inEntry.detail).toBe(inConnection.detail);
    }
    // Both take null and the limits themselves.
    for (const ok of ['null', '0', '86400']) {
      expect(() => parseScenario(source([`{ at: 10, config: redis, retry_after: ${ok} }`]), 'cfg.yaml')).not.toThrow();
      const conn = source(['{ at: 0, dispatch: J }']).replace('retry_after: 90', `retry_after: ${ok}`);
      expect(() => parseScenario(conn, 'cfg.yaml')).not.toThrow();
    }
  });

  it('a list of queues where the connection has one', () => {
    // line 9 `  - { at: 10, config: redis, queue: "a,b" }`: `"a,b"` at column 37.
    const e = errorOf(source(['{ at: 10, config: redis, queue: "a,b" }']));
    expect([e.line, e.column, e.field]).toEqual([9, 37, 'timeline.0.queue']);
    expect(e.detail).toBe('expected one queue name without commas or spaces, got "a,b"');
  });

  it('block_for in a version without it (5.3), with the release that brought it', () => {
    // line 9 `  - { at: 10, config: redis, block_for: 5 }`: `5` at column 41.
    const e = errorOf(source(['{ at: 10, config: redis, block_for: 5 }'], { laravel: '5.3' }));
    expect([e.line, e.column, e.field]).toEqual([9, 41, 'timeline.0.block_for']);
    expect(e.detail).toBe(
      'block_for arrived in Laravel 5.6.0 (RedisConnector.php@v5.6.0:49); this scenario is Laravel 5.3',
    );
    // Turning it off, or retry_after, is fine in 5.3.
    expect(() =>
      parseScenario(
        source(['{ at: 10, config: redis, block_for: null, retry_after: null }'], { laravel: '5.3' }),
        'cfg.yaml',
      ),
    ).not.toThrow();
  });

  it('a worker named like the actor a config change is shown as', () => {
    // line 9 `  - { at: 10, config: redis, retry_after: 30 }`: `redis` at column 23.
    const e = errorOf(source(['{ at: 10, config: redis, retry_after: 30 }'], { workers: '{ name: config }' }));
    expect([e.line, e.column, e.field]).toEqual([9, 23, 'timeline.0.config']);
    expect(e.detail).toMatch(/shown as the actor "config", which is also a worker's name/);
  });
});

describe('config entry: what a process started afterwards reads', () => {
  const before: QueueConfig = {
    connectionName: 'redis',
    default: 'default',
    retryAfter: 90,
    blockFor: null,
    prefix: 'p_',
  };
  const entry = (fields: Partial<ConfigEntry>): ConfigEntry =>
    configEntry.schema.parse({ at: 0, config: 'redis', ...fields });

  it('replaces only the fields given', () => {
    expect(changedConfig(before, entry({ retry_after: 30 }), getProfile('8'))).toEqual({ ...before, retryAfter: 30 });
    expect(changedConfig(before, entry({ block_for: 5, queue: 'mail' }), getProfile('8'))).toEqual({
      ...before,
      blockFor: 5,
      default: 'mail',
    });
    expect(connectionChange(entry({ block_for: null, queue: 'mail' }))).toEqual({ block_for: null, queue: 'mail' });
  });

  it("retry_after null: RedisConnector's `?? 60` from 5.5 on; 5.3's Arr::get keeps null", () => {
    expect(changedConfig(before, entry({ retry_after: null }), getProfile('8')).retryAfter).toBe(60);
    expect(changedConfig(before, entry({ retry_after: null }), getProfile('5.7')).retryAfter).toBe(60);
    expect(changedConfig(before, entry({ retry_after: null }), getProfile('5.3')).retryAfter).toBeNull();
  });

  it('is not comparable with a stop of a worker it gives block_for (a SIGTERM during BLPOP is not modelled)', () => {
    const { spec } = parseScenario(
      source(['{ at: 10, config: redis, block_for: 5 }', '{ at: 20, stop: worker-1 }']),
      'cfg.yaml',
    );
    expect(configEntry.notComparable(spec.timeline[0] as ConfigEntry, spec)).toMatch(
      /worker-1 is stopped while it may wait in BLPOP/,
    );
    const off = parseScenario(
      source(['{ at: 10, config: redis, retry_after: 5 }', '{ at: 20, stop: worker-1 }']),
      'cfg.yaml',
    ).spec;
    expect(configEntry.notComparable(off.timeline[0] as ConfigEntry, off)).toBeNull();
  });
});
