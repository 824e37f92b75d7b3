// The bench's scenario, built in code: one request dispatches N jobs that succeed at once, one
// worker (--sleep=0 --stop-when-empty, Laravel 8) works through them and exits. Every job takes the
// full path: the push script, a poll (two migrates and the pop script), handle(), ZREM. Real
// Laravel plays the same flow in bench/laravel.php (the same job class and properties).
import { parseScenario } from '../src/scenarios/load.ts';
import type { ScenarioSpec } from '../src/scenarios/schema.ts';

export function bigScenarioYaml(jobs: number): string {
  return [
    `name: bench-${jobs}`,
    `title: ${jobs} jobs through one worker`,
    'laravel: "8"',
    'workers:',
    '  - { name: worker-1, sleep: 0, stop_when_empty: true }',
    'jobs:',
    '  SendInvoice: { class: App\\Jobs\\SendInvoice, properties: { invoice: 4711 }, attempts: [{ run: 0 }] }',
    'timeline:',
    `  - { at: 0, dispatch: SendInvoice, count: ${jobs} }`,
    '',
  ].join('\n');
}

export function bigScenario(jobs: number): ScenarioSpec {
  return parseScenario(bigScenarioYaml(jobs), `bench-${jobs}.yaml`).spec;
}
