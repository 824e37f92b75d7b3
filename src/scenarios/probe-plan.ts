// Which of a run's keys it uses how, for the permission probe (redis/permission-probe.ts) and for
// what a run on someone else's server marks as its own and deletes at the end: the ready list and
// (5.8+) :notify are lists, :delayed and :reserved sorted sets; a worker BLPOPs the ready list
// (5.6-5.7) or :notify (5.8+) when its connection has block_for, from the start or from a config
// entry on.
import type { ProbePlan } from '../redis/permission-probe.ts';
import type { QueueKeys } from '../sim/keys.ts';
import type { LaravelProfile } from '../sim/profiles/types.ts';
import type { ScenarioSpec } from './schema.ts';

export function probePlan(
  spec: Pick<ScenarioSpec, 'connections' | 'timeline'>,
  profile: Pick<LaravelProfile, 'queue' | 'worker'>,
  queues: readonly QueueKeys[],
): ProbePlan {
  const blocks =
    Object.values(spec.connections).some((c) => c.block_for !== null && c.block_for !== undefined) ||
    spec.timeline.some((e) => e.kind === 'config' && (e as { block_for?: number | null }).block_for != null);
  const mode = profile.worker.blockingPop;
  return {
    lists: queues.flatMap((q) => (profile.queue.notify ? [q.ready, q.notify] : [q.ready])),
    zsets: queues.flatMap((q) => [q.delayed, q.reserved]),
    blpop: !blocks || mode === null ? [] : queues.map((q) => (mode === 'list' ? q.ready : q.notify)),
  };
}

/** Every key the plan's run may create. */
export function plannedKeys(plan: ProbePlan): string[] {
  return [...plan.lists, ...plan.zsets];
}
