// The lab's promises, against a real redis-server (issue 25): a save replays what the lab showed,
// made mid-instant too, and after any mix of actions, forks, undos and version switches (a
// property test); quitting with actions not saved asks; a version switch and an undo keep the
// clock; a save is whole or says why not.
import fc from 'fast-check';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyLab } from '../../src/lab/script.ts';
import { loadScenarioFile, readScenarioInput } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Step } from '../../src/scenarios/timeline.ts';
import { LabSession } from '../../src/tui/lab-session.ts';
import type { ScenarioInput } from '../../src/scenarios/schema.ts';
import { act, essence } from '../helpers/lab.ts';
import { useRedis } from '../helpers/run.ts';

const redis = useRedis();
const dir = mkdtempSync(join(tmpdir(), 'lqsim-lab-trust-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function newLab(input: ScenarioInput = emptyLab('5.7')): LabSession {
  return new LabSession(
    input,
    (spec, onOpen) => (onStep) => runScenario(spec, { redis: redis(), onStep, open: true, onOpen }),
    {
      defaultFile: () => join(dir, `lab-${Math.random().toString(36).slice(2)}.yaml`),
    },
  );
}

/**
 * The saved file as `lqsim run` runs it, and reopened as `lqsim lab <file>` opens it: both must be
 * what the lab showed. The lab is stopped first (one run at a time on the test's server).
 */
async function expectReplays(lab: LabSession, file: string): Promise<void> {
  const shown = lab.getSnapshot().steps;
  await lab.stop();
  const { spec } = await loadScenarioFile(file);
  const run = await runScenario(spec, { redis: redis(), file });
  expect(run.error).toBeUndefined();
  expect(run.steps.map(essence), `lqsim run ${file}`).toEqual(shown.map(essence));
  const reopened = newLab(await readScenarioInput(file));
  try {
    await reopened.start({ played: true });
    expect(reopened.getSnapshot().steps.map(essence), `lqsim lab ${file}`).toEqual(shown.map(essence));
  } finally {
    await reopened.stop();
  }
}

/** Resolves once `ok()` holds (checked at every turn of the event loop, for up to 5 s). */
async function until(ok: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!ok() && Date.now() < end) await new Promise((r) => setImmediate(r));
  expect(ok()).toBe(true);
}

/** Whether the lab stands mid-instant: the next step is at the instant of the last one shown. */
function midInstant(lab: LabSession): boolean {
  const { steps, nextAt } = lab.getSnapshot();
  const last = steps[steps.length - 1];
  return last !== undefined && nextAt !== null && nextAt !== undefined && nextAt <= last.t;
}

describe('lqsim lab: what it says is true', () => {
  it('a save made mid-instant replays as the lab shows it: the lab runs the rest of the instant first, and says so', async () => {
    const lab = newLab();
    await lab.start();
    try {
      // Two workers polling at the same instants: stepping shows one poll of an instant at a time.
      await act(lab, 'worker');
      await act(lab, 'dispatch Foo');
      await act(lab, 'next');
      // Step on until the lab stands between two steps of one instant.
      for (let i = 0; i < 20 && !midInstant(lab); i++) await act(lab, 'next');
      expect(midInstant(lab), 'the setup stands mid-instant').toBe(true);
      const before = lab.getSnapshot().steps.length;
      const file = join(dir, 'mid-instant.yaml');
      const said = await act(lab, `save ${file}`);
      expect(said).toMatch(/with the \d+ steps? left at t\+[\d.]+s \(a file runs whole instants\)/);
      expect(lab.getSnapshot().steps.length).toBeGreaterThan(before);
      expect(midInstant(lab)).toBe(false);
      await expectReplays(lab, file);
    } finally {
      await lab.stop();
    }
  });

  it('any mix of actions, steps, waits, forks, undos and version switches saves as a file that replays it', async () => {
    const action = fc.oneof(
      fc.constantFrom('next', 'next', 'wait 3', 'wait 31', 'undo', 'redo', 'laravel 8', 'laravel 5.7'),
      fc.constantFrom(
        'dispatch Quick',
        'dispatch Slow run=40',
        'dispatch Later delay=5',
        'dispatch Twice count=2 release=5',
        'worker',
        'kill worker-1',
        'stop worker-1',
        'set redis retry_after=30',
        'set worker-1 tries=2',
      ),
      fc.record({ back: fc.integer({ min: 1, max: 4 }), line: fc.constantFrom('dispatch Fork', 'worker') }),
    );
    let run = 0;
    // Which way the lab ran the actions: the live run took them on, or it replayed from t+0 (and why).
    let takenOn = 0;
    const replayed = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 2, maxLength: 7 }), async (actions) => {
        const lab = newLab();
        await lab.start();
        try {
          for (const a of actions) {
            const steps = lab.getSnapshot().steps.length;
            // Acting on a past step (a fork), or where the view stands; refusals (nothing to undo,
            // no such worker now) are the lab's to say and change nothing.
            if (typeof a === 'string') await lab.execute(a, lab.getStatus().focus?.step ?? steps - 1);
            else await lab.execute(a.line, Math.max(0, steps - 1 - a.back));
          }
          const file = join(dir, `property-${run++}.yaml`);
          await lab.execute(`save ${file}`, lab.getStatus().focus?.step ?? 0);
          expect(lab.getStatus().message?.error, lab.getStatus().message?.text).not.toBe(true);
          takenOn += lab.counts.takenOn;
          for (const why of lab.counts.replayed) replayed.add(why.replace(/\d+(\.\d+)?/g, 'N'));
          await expectReplays(lab, file);
        } finally {
          await lab.stop();
        }
      }),
      { numRuns: 25 },
    );
    // Both ways were tried, so what the files replayed held for both.
    expect(takenOn).toBeGreaterThan(10);
    expect([...replayed].length, [...replayed].join('; ')).toBeGreaterThan(0);
  }, 240_000);

  it('a run that cannot get past an instant (a job retried at once, for ever) is shown where it stands and said, never hung', async () => {
    const lab = newLab();
    await lab.start();
    try {
      // On 5.7 queue:work has no --tries by default and a job that throws is released with no
      // delay: with a second worker at t+0 both pop Loop again and again within t+0.
      await act(lab, 'dispatch Loop count=2 throw');
      await act(lab, 'wait 3');
      await lab.execute('worker', 0);
      const said = lab.getStatus().message;
      expect(said?.error).toBe(true);
      expect(said?.text).toBe('the run does not get past t+0s: 10,000 steps at that instant, shown where it stands');
      expect(said?.more?.join(' ')).toMatch(/a job that throws is released with no delay.*u undoes the (last )?action/);
      expect(lab.getStatus().busy).toBeNull();
      // Nothing half-done: a save is refused for the same reason, and undo goes back.
      await lab.execute(`save ${join(dir, 'loop.yaml')}`, lab.getSnapshot().steps.length - 1);
      expect(lab.getStatus().message?.text).toMatch(/^the run does not get past t\+0s/);
      expect(existsSync(join(dir, 'loop.yaml'))).toBe(false);
      await act(lab, 'undo');
      expect(lab.getSnapshot().steps.length).toBeLessThan(10);
    } finally {
      await lab.stop();
    }
  }, 60_000);

  it('a scenario opened in the lab that cannot get past an instant opens where it stands and says so', async () => {
    const lab = newLab({
      name: 'loop',
      title: 'A job that throws, retried at once for ever',
      laravel: '5.7',
      until: 10,
      connections: { redis: { queue: 'default', retry_after: 90 } },
      workers: [{ name: 'worker-1' }],
      jobs: { Boom: { class: 'App\\Jobs\\Boom', attempts: [{ throw: 'no' }] } },
      timeline: [{ at: 0, dispatch: 'Boom' }],
    });
    try {
      // Opening never rejects (nothing awaits a key's or the start's promise): the lab says it.
      await lab.start({ played: true });
      expect(lab.getStatus().message?.text).toMatch(/^the run does not get past t\+0s/);
      expect(lab.getSnapshot().steps.length).toBeGreaterThanOrEqual(10_000);
    } finally {
      await lab.stop();
    }
  }, 60_000);

  it('a version switch keeps the clock, and the save holds every job the lab had run', async () => {
    const lab = newLab();
    await lab.start();
    try {
      await act(lab, 'dispatch Later delay=60');
      await act(lab, 'wait 81');
      const clock = lab.now(lab.getSnapshot().steps.length - 1);
      expect(clock).toBeGreaterThanOrEqual(81);
      await act(lab, 'laravel 8');
      expect(lab.now(lab.getSnapshot().steps.length - 1)).toBe(clock);
      // Every step up to the clock has run under 8, and none after it (8 polls otherwise than 5.7,
      // so as many steps as before would stand at another time).
      const { steps, timeline, nextAt } = lab.getSnapshot();
      const at = (timeline?.start ?? 0) + clock;
      expect(steps[steps.length - 1]!.t).toBeLessThanOrEqual(at);
      expect(nextAt ?? Infinity).toBeGreaterThan(at);
      // The delayed job came due at t+60 and ran under 8 as it did under 5.7.
      expect(
        lab
          .getSnapshot()
          .steps.map((s) => s.title)
          .join('\n'),
      ).toMatch(/reserved Later#1/);
      const file = join(dir, 'switched.yaml');
      await act(lab, `save ${file}`);
      // It stops where the lab stands: at the clock or after it, before the next step.
      const until = Number(/^until: (.+)$/m.exec(readFileSync(file, 'utf8'))?.[1]);
      expect(until).toBeGreaterThanOrEqual(clock);
      await expectReplays(lab, file);
    } finally {
      await lab.stop();
    }
  });

  it('undo takes back one action and keeps the clock where the lab had gone', async () => {
    const lab = newLab();
    await lab.start();
    try {
      await act(lab, 'dispatch Quick');
      await act(lab, 'dispatch Other');
      await act(lab, 'wait 30');
      const clock = lab.now(lab.getSnapshot().steps.length - 1);
      expect(await act(lab, 'undo')).toContain('undone');
      expect(lab.getStatus().input.timeline?.map((e) => (e as { dispatch?: string }).dispatch)).toContain('Quick');
      expect(lab.getStatus().input.timeline?.map((e) => (e as { dispatch?: string }).dispatch)).not.toContain('Other');
      expect(lab.now(lab.getSnapshot().steps.length - 1)).toBe(clock);
    } finally {
      await lab.stop();
    }
  });

  it('acting on a past step says what the fork dropped', async () => {
    const lab = newLab();
    await lab.start();
    try {
      await act(lab, 'wait 5');
      await act(lab, 'dispatch First');
      await act(lab, 'wait 5');
      await act(lab, 'worker');
      await act(lab, 'next');
      const said = await act(lab, 'dispatch Fork', 0);
      expect(said).toMatch(
        /at step #0, t\+0s: the steps after it replayed with the change; dropped 1 later entry and 1 later worker/,
      );
      // What happens at the instant acted on stays, and the action comes after it (late).
      expect(lab.getStatus().input.timeline?.at(-1)).toEqual({ at: 0, late: true, dispatch: 'Fork' });
    } finally {
      await lab.stop();
    }
  });

  it('quitting with actions not saved asks; s saves them and quits, and the exit line stays true', async () => {
    const lab = newLab();
    await lab.start();
    try {
      expect(lab.askToQuit(), 'nothing done: quits at once').toBe(true);
      await act(lab, 'dispatch Alpha');
      const file = join(dir, 'alpha.yaml');
      await act(lab, `save ${file}`);
      expect(lab.getStatus().unsaved).toBe(false);
      expect(lab.askToQuit()).toBe(true);
      await act(lab, 'dispatch Beta');
      expect(lab.getStatus().unsaved).toBe(true);
      expect(lab.askToQuit()).toBe(false);
      expect(lab.getStatus().question).toBe('quit');
      expect(lab.getStatus().confirm).toContain(`1 action not saved · s save to ${file} & quit · d discard & quit`);
      // Esc stays; the question goes.
      expect(await lab.answerQuit('stay')).toBe(false);
      expect(lab.getStatus().confirm).toBeNull();
      // Undoing back to what was saved leaves nothing unsaved.
      await act(lab, 'undo');
      expect(lab.getStatus().unsaved).toBe(false);
      await act(lab, 'redo');
      expect(lab.askToQuit()).toBe(false);
      // s writes the session over the file this lab saved, then says to quit.
      expect(await lab.answerQuit('save')).toBe(true);
      const yaml = readFileSync(file, 'utf8');
      expect(yaml).toContain('dispatch: Alpha');
      expect(yaml).toContain('dispatch: Beta');
      expect(lab.getStatus().unsaved).toBe(false);
    } finally {
      await lab.stop();
    }
  });

  it('a command given while the lab works waits its turn, is counted, and runs where the lab then stands', async () => {
    const lab = newLab();
    await lab.start();
    try {
      const waiting = lab.execute('wait 900', 0);
      await until(() => lab.getStatus().busy !== null);
      expect(lab.getStatus().busy).toContain('running to t+900s');
      const queued = lab.execute('dispatch Queued', 0);
      expect(lab.getStatus().busy).toContain('1 command waiting');
      await Promise.all([waiting, queued]);
      expect(lab.getStatus().busy).toBeNull();
      // Run after the wait, at the lab's clock then (t+900s), not at step #0 where it was typed.
      const entry = lab.getStatus().input.timeline?.find((e) => (e as { dispatch?: string }).dispatch === 'Queued');
      expect(entry).toMatchObject({ at: 900 });
    } finally {
      await lab.stop();
    }
  });

  it('Ctrl-C during a day-long wait stops it at its next step; the lab stays there and goes on', async () => {
    const lab = newLab();
    await lab.start();
    try {
      expect(lab.cancel(), 'nothing to stop: Ctrl-C means quitting').toBe(false);
      const waiting = lab.execute('wait 86400', 0);
      await until(() => lab.getStatus().stoppable);
      expect(lab.getStatus().busy).toContain('(Ctrl-C stops)');
      await until(() => lab.getSnapshot().steps.length > 20);
      const t0 = Date.now();
      expect(lab.cancel()).toBe(true);
      await waiting;
      expect(Date.now() - t0).toBeLessThan(5_000);
      const { steps, timeline } = lab.getSnapshot();
      const at = steps.at(-1)!.t - timeline!.start;
      expect(at).toBeLessThan(86_400);
      expect(lab.getStatus().message?.text).toBe(`stopped at t+${at}s (Ctrl-C): the wait to t+86400s was not finished`);
      expect(lab.getStatus().busy).toBeNull();
      expect(lab.getStatus().stoppable).toBe(false);
      // The lab's clock is where it stopped: the next action happens there.
      await act(lab, 'dispatch After');
      expect(lab.getStatus().input.timeline?.at(-1)).toEqual({ at, late: true, dispatch: 'After' });
    } finally {
      await lab.stop();
    }
  });

  it('quitting during a day-long wait ends it at once, and what waited its turn is not run', async () => {
    const lab = newLab();
    await lab.start();
    const waiting = lab.execute('wait 86400', 0);
    await until(() => lab.getStatus().busy !== null);
    void lab.execute('dispatch Never', 0);
    const before = lab.getStatus().input;
    const t0 = Date.now();
    await lab.stop();
    await waiting;
    // A day of polls takes tens of seconds to run; quitting takes one step.
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(lab.getStatus().input).toBe(before);
  });

  it("exports the trace shown as lqsim run --format writes it, the format from the file's name", async () => {
    const lab = newLab();
    await lab.start();
    try {
      await act(lab, 'dispatch Report run=5');
      await act(lab, 'wait 10');
      const json = join(dir, 'trace.json');
      expect(await act(lab, `export ${json}`)).toMatch(/exported the \d+ steps shown to .*trace\.json \(json\)/);
      const written = JSON.parse(readFileSync(json, 'utf8')) as { steps: Step[] };
      expect(written.steps.map(essence)).toEqual(lab.getSnapshot().steps.map(essence));
      const md = join(dir, 'trace.md');
      await act(lab, `export ${md}`);
      expect(readFileSync(md, 'utf8')).toContain('dispatch Report\\#1');
      await lab.execute(`export ${join(dir, 'trace.txt')}`, 0);
      expect(lab.getStatus().message?.text).toContain('say format=json|markdown|mermaid|resp');
      // Over an existing file only when the person says yes.
      await lab.execute(`export ${md} format=mermaid`, 0);
      expect(lab.getStatus().question).toBe('overwrite');
      await lab.answer(true);
      expect(readFileSync(md, 'utf8')).toMatch(/^sequenceDiagram/m);
    } finally {
      await lab.stop();
    }
  });

  it('a save onto a directory says so and asks nothing; a save is whole or not at all', async () => {
    const lab = newLab();
    await lab.start();
    try {
      await act(lab, 'dispatch Alpha');
      const folder = join(dir, 'a-folder.yaml');
      mkdirSync(folder);
      await lab.execute(`save ${folder}`, 0);
      expect(lab.getStatus().confirm).toBeNull();
      expect(lab.getStatus().message).toEqual({ text: `cannot save to ${folder}: it is a directory`, error: true });
      expect(lab.getStatus().unsaved).toBe(true);
      // Overwriting a file that cannot be written (its folder is gone) says why, and leaves no temporary file.
      const gone = join(dir, 'gone', 'x.yaml');
      await lab.execute(`save ${gone}`, 0);
      expect(lab.getStatus().message?.error).toBe(true);
      expect(lab.getStatus().message?.text).toContain(`cannot save to ${gone}`);
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      // A folder in the path that is a file: the path named, not the temporary file beside it.
      const plain = join(dir, 'plain-file');
      writeFileSync(plain, 'not a folder');
      const through = join(plain, 'x.yaml');
      await lab.execute(`save ${through}`, 0);
      expect(lab.getStatus().message).toEqual({ text: `cannot save to ${through} (ENOTDIR)`, error: true });
      expect(lab.getStatus().unsaved).toBe(true);
      // An overwrite the person said yes to, when it cannot be done, is said too (it was silent).
      const file = join(dir, 'taken.yaml');
      await act(lab, `save ${file}`);
      await act(lab, 'dispatch Beta');
      rmSync(file);
      mkdirSync(file);
      await lab.execute(`save ${file}`, 0);
      expect(lab.getStatus().message?.text).toContain('it is a directory');
    } finally {
      await lab.stop();
    }
  });
});
