// Every queue a scenario touches: each connection's default, each queue a worker polls
// (--queue=a,b), each queue a timeline entry names (a dispatch's ->onQueue). The runner snapshots these keys and the conformance
// coordinator watches them; both read the list from here.
import type { QueueKeys } from '../sim/keys.ts';
import { queueKeys } from '../sim/keys.ts';
import type { ScenarioSpec } from './schema.ts';
import { kindOf } from './entries/index.ts';

export function scenarioQueues(
  spec: Pick<ScenarioSpec, 'connections' | 'workers' | 'timeline'>,
  prefix: string,
): QueueKeys[] {
  const names = new Set<string>();
  const connections = Object.values(spec.connections);
  for (const c of connections) names.add(c.queue);
  for (const w of spec.workers) {
    const c = spec.connections[w.connection ?? ''] ?? connections[0]!;
    for (const q of (w.queue ?? c.queue).split(',')) names.add(q);
  }
  for (const e of spec.timeline) for (const q of kindOf(e).queues(e)) names.add(q);
  return [...names].map((n) => queueKeys(n, prefix));
}
