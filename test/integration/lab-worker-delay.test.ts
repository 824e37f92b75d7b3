// The lab's `worker delay=N` on Laravel 5.7 (the lab's default) is queue:work --delay=N: a job
// that throws is released with that delay. Derived by hand from 5.7's Worker::handleJobException
// (`$job->release($options->delay)`), RedisJob::release → RedisQueue::deleteAndRelease (EVAL
// release: ZREM :reserved, ZADD :delayed now+delay) and Worker::daemon's --sleep after an empty poll.
import { describe, expect, it } from 'vitest';
import { applyCommand } from '../../src/lab/actions.ts';
import { parseCommand } from '../../src/lab/commands.ts';
import { checkLab, emptyLab } from '../../src/lab/script.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { ScenarioInput } from '../../src/scenarios/schema.ts';
import { useRedis } from '../helpers/run.ts';
import {
  c,
  emptyPoll,
  expectSteps,
  migrate,
  payload,
  popDue,
  popScript,
  queue,
  releaseScript,
  same,
} from '../helpers/trace.ts';

const redis = useRedis();
const Q = queue('default');
const SELECT = c('SELECT', '0');

describe('lab: worker delay=N on 5.7', () => {
  it('releases a job that threw for N seconds (--delay), and the next try comes after it is due', async () => {
    // A 5.7 lab with no worker yet; the person types two commands at t+0.
    let input: ScenarioInput = { ...emptyLab('5.7'), workers: [] };
    const vocabulary = { jobs: [], workers: [], running: [], connections: ['redis'], laravel: '5.7' };
    const clock = { now: 0, late: false, workers: [] };
    for (const line of ['worker delay=5 tries=2', 'dispatch J throw'])
      input = applyCommand(input, parseCommand(line, vocabulary), clock).input;
    input = { ...input, until: 6 };
    const checked = checkLab(input);
    if (!('spec' in checked)) throw new Error(checked.problem);
    const t = await runScenario(checked.spec, { redis: redis() });
    expectSteps(t, [
      { actor: 'dispatcher', t: 0, commands: [SELECT, c('RPUSH', Q.ready, payload({ attempts: 0 }))] },
      {
        actor: 'worker-1',
        t: 0,
        kind: 'pop',
        commands: [
          SELECT,
          ...migrate(Q.delayed, Q.ready, 0),
          ...migrate(Q.reserved, Q.ready, 0),
          ...popScript(Q, 0, 90, payload({ attempts: 1 }, 'r1')),
        ],
      },
      // attempts 1 < --tries 2: release($options->delay), due at t+5.
      { actor: 'worker-1', t: 0, kind: 'release', commands: releaseScript(Q, 'r1', 5) },
      // Not due yet at t+0 and t+3 (--sleep 3); at t+6 it is migrated back and popped as attempts 2.
      { actor: 'worker-1', t: 0, kind: 'pop', commands: emptyPoll(Q, 0) },
      { actor: 'worker-1', t: 3, kind: 'pop', commands: emptyPoll(Q, 3) },
      { actor: 'worker-1', t: 6, kind: 'pop', commands: popDue(Q, 6, 'r1', 'r2', 2) },
      // It throws again: attempts 2 >= --tries 2 fails it (ZREM only).
      { actor: 'worker-1', t: 6, kind: 'fail', commands: [c('ZREM', Q.reserved, same('r2'))] },
      // The daemon loops at once: an empty poll at t+6 (until: 6 takes in that instant).
      { actor: 'worker-1', t: 6, kind: 'pop', commands: emptyPoll(Q, 6) },
    ]);
    expect(t.steps.at(-1)!.state.workers[0]!.options).toMatchObject({ delay: 5, tries: 2 });
  });
});
