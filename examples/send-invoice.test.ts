// docs/library.md's "Use it as a library" example, verbatim (test/unit/readme-example.test.ts keeps
// the two identical): a whole Vitest file as a team would write it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acquireRedis, runScenario, scenario, type RedisServer, type Timeline } from 'laravel-queue-sim';
import { lua, payload, same, scoreAt, script } from 'laravel-queue-sim/testing';
import 'laravel-queue-sim/vitest'; // registers the matchers and their types

const sendInvoice = scenario('send-invoice', 'SendInvoice succeeds on its first try')
  .laravel('5.7')
  .connection('redis', { queue: 'default', retry_after: 90 })
  .worker('worker-1', { tries: 3, timeout: 60 })
  .job('SendInvoice', { class: 'App\\Jobs\\SendInvoice', attempts: [{ run: 2 }] })
  .dispatch('SendInvoice', { at: 0 })
  .build(); // the same validated spec a YAML file gives; a ScenarioError names the bad field

let redis: RedisServer | undefined; // unset when acquireRedis failed: afterAll must not throw too
let trace: Timeline;
beforeAll(async () => {
  const server = (redis = await acquireRedis());
  trace = await runScenario(sendInvoice, { redis: server });
});
afterAll(() => redis?.stop());

it('sends what Laravel 5.7 sends', () => {
  expect(trace).toMatchRedisCommands([
    'SELECT 0',                                              // the web request's new connection
    ['RPUSH', 'queues:default', payload({ attempts: 0 })],
    'SELECT 0',                                              // queue:work's own connection
    ['EVAL', script('migrateExpiredJobs'), 2, 'queues:default:delayed', 'queues:default', scoreAt(0)],
    lua('zrangebyscore', 'queues:default:delayed', '-inf', scoreAt(0)),
    ['EVAL', script('migrateExpiredJobs'), 2, 'queues:default:reserved', 'queues:default', scoreAt(0)],
    lua('zrangebyscore', 'queues:default:reserved', '-inf', scoreAt(0)),
    ['EVAL', script('pop'), 2, 'queues:default', 'queues:default:reserved', scoreAt(90)],
    lua('lpop', 'queues:default'),
    lua('zadd', 'queues:default:reserved', scoreAt(90), payload({ attempts: 1 }, 'reserved')),
    ['ZREM', 'queues:default:reserved', same('reserved')],  // the very string the pop wrote
  ]);
  expect(trace).toHaveExecuted('SendInvoice#1', 1);
});
