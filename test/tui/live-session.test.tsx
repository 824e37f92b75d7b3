// The gate between a live run and the UI: the run is held between steps until the person asks
// for the next one; going back and forward over steps already run never runs anything again;
// quitting ends the run at the next step boundary and closes its connections.
import { render } from 'ink-testing-library';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Step, Timeline } from '../../src/scenarios/timeline.ts';
import { App } from '../../src/tui/App.tsx';
import type { OnStep } from '../../src/tui/live-session.ts';
import { LiveSession, SessionStopped } from '../../src/tui/live-session.ts';
import { useRedis } from '../helpers/run.ts';
import { KEYS, settle, waitForFrame } from './fake-terminal.ts';
import { recordScenarios } from './recorded.ts';
import { flat, region } from './screen.ts';

const recorded = recordScenarios('timeout-max-attempts');
const redis = useRedis();

/** A run that replays recorded steps through the gate, counting the steps it has "run". */
function replay(source: Timeline): {
  run: (onStep: OnStep) => Promise<Timeline>;
  ran: () => number;
  thrown: () => unknown;
} {
  let ran = 0;
  let thrown: unknown;
  const run = async (onStep: OnStep): Promise<Timeline> => {
    const timeline: Timeline = { ...source, steps: [] };
    try {
      for (const step of source.steps) {
        ran++;
        timeline.steps.push(step);
        await onStep(step, timeline);
      }
    } catch (e) {
      thrown = e;
      timeline.error = e instanceof Error ? e.message : String(e);
    }
    return timeline;
  };
  return { run, ran: () => ran, thrown: () => thrown };
}

async function until(test: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error('timed out');
    await settle(10);
  }
}

describe('LiveSession', () => {
  it('holds the run after each step until more are requested', async () => {
    const r = replay(recorded('timeout-max-attempts'));
    const session = new LiveSession(r.run);
    const ended = session.start();
    await until(() => session.getSnapshot().status === 'waiting');
    expect(session.getSnapshot().steps).toHaveLength(1);
    await settle(50);
    expect(r.ran()).toBe(1);

    session.request(3);
    await until(() => session.getSnapshot().steps.length === 3 && session.getSnapshot().status === 'waiting');
    expect(r.ran()).toBe(3);
    session.request(2); // fewer than there are: nothing runs
    await settle(30);
    expect(r.ran()).toBe(3);

    session.request(Infinity);
    const timeline = await ended;
    expect(timeline.steps).toHaveLength(10);
    expect(session.getSnapshot()).toMatchObject({ status: 'finished', error: undefined });
  });

  it('stop() makes the waiting onStep throw, so the runner ends; the snapshot says stopped', async () => {
    const r = replay(recorded('timeout-max-attempts'));
    const session = new LiveSession(r.run);
    void session.start();
    await until(() => session.getSnapshot().status === 'waiting');
    await session.stop();
    expect(r.thrown()).toBeInstanceOf(SessionStopped);
    expect(session.getSnapshot()).toMatchObject({ status: 'stopped', error: undefined });
    expect(r.ran()).toBe(1);
  });

  it('a run that fails is reported as an error, with the steps it made', async () => {
    const session = new LiveSession(async () => {
      throw new Error('Redis went away');
    });
    await session.start().catch(() => undefined);
    expect(session.getSnapshot()).toMatchObject({ status: 'finished', error: 'Redis went away', steps: [] });
  });
});

describe('the App over a live run against real Redis', () => {
  it('runs a step per →, re-runs nothing on ← and → over steps already run, and q ends the run', async () => {
    const file = await resolveScenario('timeout-max-attempts');
    const { spec } = await loadScenarioFile(file);
    const runs: Step[] = [];
    const session = new LiveSession((onStep) =>
      runScenario(spec, {
        redis: redis(),
        file,
        onStep: async (step, timeline) => {
          runs.push(step);
          await onStep(step, timeline);
        },
      }),
    );
    const ended = session.start();
    const app = render(<App session={session} scenario="timeout-max-attempts" colour={false} />);
    const see = (which: 'header' | 'state'): string => flat(region(app.lastFrame() ?? '', which, 100, 24));
    const press = async (key: string, header: string): Promise<void> => {
      app.stdin.write(key);
      await waitForFrame(
        () => app.lastFrame(),
        (f) => flat(region(f, 'header', 100, 24)).includes(header),
      );
    };

    await waitForFrame(
      () => app.lastFrame(),
      (f) => f.includes('step #0'),
    );
    await settle(100);
    expect(runs).toHaveLength(1); // held after the first step
    expect(see('header')).toContain('● live · 1 step run');

    await press(KEYS.right, 'step #1');
    await press('n', 'step #2');
    expect(runs).toHaveLength(3);
    await press(KEYS.left, 'step #1');
    await press('p', 'step #0');
    await press('n', 'step #1');
    await press('n', 'step #2');
    expect(runs).toHaveLength(3); // the record, not a re-run
    await press('n', 'step #3');
    expect(runs).toHaveLength(4);
    expect(see('state')).toContain('worker-1 killed while running ImportCsv#1');

    app.stdin.write('q');
    await settle();
    await session.stop();
    const timeline = await ended;
    expect(timeline.error).toBe(new SessionStopped().message);
    expect(runs).toHaveLength(4);
    expect(session.getSnapshot().status).toBe('stopped');

    // Every connection the run opened is closed: only our own client is left on the server.
    const client = createClient({ url: redis().url, RESP: 2, disableClientInfo: true });
    await client.connect();
    try {
      const clients = String(await client.sendCommand(['CLIENT', 'LIST']))
        .trim()
        .split('\n');
      expect(clients).toHaveLength(1);
    } finally {
      client.destroy();
    }
    app.unmount();
  });

  it('on the last step the run is finished at once: the header says so before any further →', async () => {
    const file = await resolveScenario('dispatch'); // one step: the dispatch, then nothing is left
    const { spec } = await loadScenarioFile(file);
    const session = new LiveSession((onStep) => runScenario(spec, { redis: redis(), file, onStep }));
    const ended = session.start();
    const app = render(<App session={session} scenario="dispatch" colour={false} />);
    await waitForFrame(
      () => app.lastFrame(),
      (f) => f.includes('step #0'),
    );
    const timeline = await ended; // nobody asked for a second step
    expect(timeline.error).toBeUndefined();
    expect(session.getSnapshot().status).toBe('finished');
    await waitForFrame(
      () => app.lastFrame(),
      (f) => f.includes('finished · 1 step'),
    );
    app.unmount();
  });
});
