// Which steps are idle polls: a worker's poll that found nothing and changed nothing (its
// migrates moved nothing, the pop popped nothing, it goes to sleep). Presenters skip them (N).
// Pure; decided from the step and the one before it, never from what the UI shows.
import { isDeepStrictEqual } from 'node:util';
import type { Step } from '../scenarios/timeline.ts';

/**
 * A pop step after which its worker sleeps (--sleep, not --rest) and the queues, the failed jobs
 * and the handle() counts are as the step before left them. A BLPOP that blocks is not one: the
 * worker waits inside Redis there, which is worth seeing; the step where it times out is.
 */
export function isIdlePoll(step: Step, previous: Step | undefined): boolean {
  if (step.kind !== 'pop' || previous === undefined) return false;
  const worker = step.state.workers.find((w) => w.name === step.actor);
  if (worker === undefined || worker.status.kind !== 'idle' || worker.status.why !== undefined) return false;
  const before = previous.state;
  const after = step.state;
  return (
    isDeepStrictEqual(before.queues, after.queues) &&
    before.failed.length === after.failed.length &&
    isDeepStrictEqual(before.executions, after.executions)
  );
}

/**
 * isIdlePoll of steps[i]. Not remembered per step (a day of polls would keep an entry each): N
 * looks at each step once (ui-state.ts skipIdle).
 */
export function idleAt(steps: readonly Step[], i: number): boolean {
  const step = steps[i];
  return step !== undefined && isIdlePoll(step, steps[i - 1]);
}
