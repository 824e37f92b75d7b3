// The N-job scenario of the bench, built in code (no builder): one request dispatches N jobs that
// succeed at once, one worker works through them. Every job takes the full path: RPUSH, a poll
// (two migrates and the pop script), handle(), ZREM.
import { parseScenario } from '../src/scenarios/load.ts';
import type { ScenarioSpec } from '../src/scenarios/schema.ts';

export function bigScenario(jobs: number): ScenarioSpec {
  const yaml = [
    `name: bench-${jobs}`,
    `title: ${jobs} jobs through one worker`,
    'laravel: "5.7"',
    'workers:',
    '  - { name: worker-1, sleep: 3 }',
    'jobs:',
    '  SendInvoice: { class: App\\Jobs\\SendInvoice, properties: { invoice: 4711 }, attempts: [{ run: 0 }] }',
    'timeline:',
    `  - { at: 0, dispatch: SendInvoice, count: ${jobs} }`,
    '',
  ].join('\n');
  return parseScenario(yaml, `bench-${jobs}.yaml`).spec;
}
