// The lab against a real redis-server: every kind of action, then `save`, then the saved file run
// as `lqsim run` runs it. The lab's trace must be the file's, step for step (DESIGN.md: a lab
// session is a scenario); and each action must do what Laravel would, checked on the wire.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyLab } from '../../src/lab/script.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { LabSession } from '../../src/tui/lab-session.ts';
import { act, essence } from '../helpers/lab.ts';
import { useRedis } from '../helpers/run.ts';

const redis = useRedis();
const dir = mkdtempSync(join(tmpdir(), 'lqsim-lab-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function newLab(): LabSession {
  return new LabSession(
    emptyLab('5.7'),
    (spec, onOpen) => (onStep) => runScenario(spec, { redis: redis(), onStep, open: true, onOpen }),
  );
}

describe('lqsim lab', () => {
  it('saves a session that used every kind of action as a scenario that lqsim run replays to the same trace', async () => {
    const lab = newLab();
    await lab.start();
    try {
      await act(lab, 'laravel 8');
      await act(lab, 'dispatch Report run=100');
      await act(lab, 'next');
      await act(lab, 'next');
      await act(lab, 'worker queue=default timeout=30 tries=2 block_for=2');
      await act(lab, 'wait 10');
      await act(lab, 'set redis retry_after=45');
      await act(lab, 'dispatch SendEmail run=1 throw=Mailer_down');
      await act(lab, 'set worker-2 sleep=1');
      await act(lab, 'next');
      // set restarts a worker under its own name (SIGTERM, then supervisord starts it again).
      await act(lab, 'kill worker-1 restart=no');
      await act(lab, 'wait 5'); // worker-2's new process (set's restart) is up by then
      await act(lab, 'stop worker-2');
      await act(lab, 'play');
      const whole = join(dir, 'every-action.yaml');
      expect(await act(lab, `save ${whole}`)).toContain('saved');
      const wholeSteps = lab.getSnapshot().steps;
      // Back to step #1 (t+0s) and another action there: the session forks at that instant,
      // dropping what came after it (worker-2 started at t+3, the config change, the kill and the
      // stop); what happened at t+0s stays, and the action comes after it.
      await act(lab, 'dispatch Fork run=2', 1);
      const forked = lab.getStatus().input;
      expect(forked.workers?.map((w) => w.name)).toEqual(['worker-1']);
      await act(lab, 'undo');
      expect(lab.getStatus().input).not.toEqual(forked);
      await act(lab, 'redo');
      expect(lab.getStatus().input).toEqual(forked);
      await act(lab, 'wait 70');
      const fork = join(dir, 'fork.yaml');
      await act(lab, `save ${fork}`);
      const forkSteps = lab.getSnapshot().steps;
      await lab.stop();

      for (const [file, shown] of [
        [whole, wholeSteps],
        [fork, forkSteps],
      ] as const) {
        const { spec } = await loadScenarioFile(file);
        const replayed = await runScenario(spec, { redis: redis(), file });
        expect(replayed.error).toBeUndefined();
        expect(replayed.steps.map(essence), file).toEqual(shown.map(essence));
      }
      // Every kind of action left its mark in the saved session.
      const yaml = readFileSync(whole, 'utf8');
      for (const piece of [
        'laravel: "8"',
        'dispatch: Report',
        'block_for: 2',
        'config: redis, retry_after: 45',
        'stop: worker-1, restart: {}',
        'stop: worker-2, restart: { sleep: 1 }',
        'kill: worker-1, restart: false',
        'throw: Mailer_down',
      ])
        expect(yaml).toContain(piece);
      // The last stop is a plain SIGTERM: worker-2 is not restarted.
      expect(yaml).toMatch(/stop: worker-2 \}/);
      expect(wholeSteps.length).toBeGreaterThan(20);
      // The fork: Fork dispatched at t+0s after Report (late), then the alarm at t+63 kills
      // worker-1 (--timeout 60 from t+3) and supervisord's new process pops Fork#1.
      expect(forkSteps.map((s) => s.title).join('\n')).toMatch(/dispatch Fork#1[\s\S]*SIGALRM[\s\S]*reserved Fork#1/);
    } finally {
      await lab.stop();
    }
  });

  it('writes one entry per action at the lab clock, after the step shown, and never overwrites a file', async () => {
    const lab = newLab();
    await lab.start();
    try {
      // Step #0 is worker-1's poll at t+0: an action now comes after it, at t+0 itself (`late`:
      // entries run first at their instant, so plainly at t+0 the dispatch would come before the
      // poll already shown).
      await act(lab, 'dispatch SendEmail');
      expect(lab.getSnapshot().steps[lab.getStatus().focus!.step]!.title).toMatch(/dispatch SendEmail#1/);
      await act(lab, 'wait 5');
      await act(lab, 'kill worker-1');
      const file = join(dir, 'entries.yaml');
      await act(lab, `save ${file}`);
      const yaml = readFileSync(file, 'utf8');
      expect(yaml).toContain('- { at: 0, late: true, dispatch: SendEmail }');
      // The view stands on the dispatch (t+0); five seconds on is t+5, where no step is: no `late`.
      expect(yaml).toContain('- { at: 5, kill: worker-1 }');
      expect(yaml).not.toMatch(/at: \d+\.001/);
      expect(yaml).toMatch(/^name: entries$/m);
      expect(yaml).toMatch(/^laravel: "5.7"$/m);

      await lab.execute(`save ${file}`, 0);
      expect(lab.getStatus().confirm).toContain('exists');
      await lab.answer(false);
      expect(readFileSync(file, 'utf8')).toBe(yaml);
    } finally {
      await lab.stop();
    }
  });

  it('refuses bad input with a one-line message and changes nothing', async () => {
    const lab = newLab();
    await lab.start();
    try {
      const before = lab.getStatus().input;
      for (const [line, says] of [
        ['kill worker-9', 'kill: no worker named worker-9; the worker is worker-1'],
        ['dispatch', 'give a job class name'],
        ['dispatch A count=0', 'count=0: a whole number from 1'],
        ['dsipatch A', 'did you mean "dispatch"'],
        ['set redis retry_after=soon', 'retry_after=soon'],
        // 5.7 has no --backoff: refused, naming the option 5.7's queue:work has.
        ['worker backoff=1,5', 'Laravel 5.7 has --delay, not --backoff (8.0+)'],
      ] as const) {
        await lab.execute(line, 0);
        const m = lab.getStatus().message;
        expect(m?.error, line).toBe(true);
        expect(m?.text, line).toContain(says);
        expect(m?.text.includes('\n'), line).toBe(false);
        expect(lab.getStatus().input, line).toBe(before);
      }
    } finally {
      await lab.stop();
    }
  });
});
