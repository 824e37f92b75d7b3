// The README's first library example, verbatim but for these comment lines
// (test/unit/readme-example.test.ts keeps the two identical): the shortest whole Vitest file.
import { afterAll, expect, it } from 'vitest';
import { acquireRedis, runScenario, scenario } from 'laravel-queue-sim';
import { payload } from 'laravel-queue-sim/testing';
import 'laravel-queue-sim/vitest'; // registers the matchers

const redis = await acquireRedis(); // a redis-server on PATH, Docker, or the server at REDIS_URL
afterAll(() => redis.stop());

it('SendInvoice::dispatch() sends what Laravel 5.7 sends', async () => {
  const spec = scenario('send-invoice', 'SendInvoice is dispatched')
    .job('SendInvoice', { class: 'App\\Jobs\\SendInvoice' })
    .dispatch('SendInvoice', { at: 0 })
    .build();
  const trace = await runScenario(spec, { redis });
  expect(trace).toMatchRedisCommands(['SELECT 0', ['RPUSH', 'queues:default', payload({ attempts: 0 })]]);
});
