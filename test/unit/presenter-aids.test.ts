// The presenter aids' pure parts (issue 12): the time strip, the running-twice alert, idle polls,
// the footer at 80 columns, tries 0, the premise, the learning order, a stale ZREM. No server.
import { describe, expect, it } from 'vitest';
import { inLearningOrder, LEARNING_ORDER } from '../../src/scenarios/catalog.ts';
import type { QueueState, StateSnapshot, Step, WorkerState, WorkerStatus } from '../../src/scenarios/timeline.ts';
import { footerItems } from '../../src/tui/Footer.tsx';
import { isIdlePoll } from '../../src/tui/idle-steps.ts';
import { bindingsFor } from '../../src/tui/keymap.ts';
import { premiseLines } from '../../src/tui/premise-lines.ts';
import { runningTwice, runningTwiceText } from '../../src/tui/running-twice.ts';
import { lineText } from '../../src/tui/segments.ts';
import { stateLines } from '../../src/tui/state-lines.ts';
import { axisOf, jobWindows, outlivesReservation, stripCells, timeStripLines } from '../../src/tui/time-strip.ts';
import { staleCopy } from '../../src/tui/trace-rows.ts';
import type { View } from '../../src/tui/ui-state.ts';
import { initialUiState, reduce } from '../../src/tui/ui-state.ts';

const T0 = 1_700_000_000;

function worker(name: string, status: WorkerStatus, o: Partial<WorkerState> = {}): WorkerState {
  return {
    name,
    generation: 1,
    status,
    connection: 'redis',
    queue: 'default',
    options: { tries: 1, timeout: 60, sleep: 3, delay: 0, once: false },
    retryAfter: 30,
    blockFor: null,
    ...o,
  };
}

function queue(reserved: Array<{ job: string; attempts: number; score: number }>): QueueState {
  return {
    name: 'default',
    keys: { ready: 'queues:default', delayed: 'queues:default:delayed', reserved: 'queues:default:reserved' },
    sizes: { ready: 0, delayed: 0, reserved: reserved.length },
    ready: [],
    delayed: [],
    reserved: reserved.map((r) => ({ ...r, raw: '{}' })),
  };
}

// retry-after-vs-timeout at t+30 (seed 001): retry_after 30, a 45 s job. worker-1 popped it at
// t+0 (its reservation expired at t+30), worker-2's migrate put it back and popped it as attempt 2.
const twice: StateSnapshot = {
  t: T0 + 30,
  queues: [queue([{ job: 'GenerateReport#1', attempts: 2, score: T0 + 60 }])],
  workers: [
    worker('worker-1', { kind: 'running', job: 'GenerateReport#1', since: T0, attempt: 1, ends: T0 + 45 }),
    worker('worker-2', {
      kind: 'running',
      job: 'GenerateReport#1',
      since: T0 + 30,
      attempt: 2,
      ends: T0 + 75,
      alarm: T0 + 90,
    }),
  ],
  failed: [],
  executions: { 'GenerateReport#1': 2 },
};

describe('running twice', () => {
  it('names the job and both runs, from the workers in handle() only', () => {
    expect(runningTwice(twice.workers).map(runningTwiceText)).toEqual([
      'GenerateReport#1 is running twice: worker-1 attempt 1, worker-2 attempt 2',
    ]);
    const held = [twice.workers[0]!, worker('worker-2', { kind: 'reserved', job: 'GenerateReport#1', attempt: 2 })];
    expect(runningTwice(held)).toEqual([]);
  });

  it('is the first line of the state pane', () => {
    expect(lineText(stateLines(twice, { start: T0 }, 29, 'compact')[0]!)).toBe('!! GenerateReport#1 running');
    expect(lineText(stateLines(twice, { start: T0 }, 80, 'full')[0]!)).toBe(
      '!! GenerateReport#1 is running twice: worker-1 attempt 1, worker-2 attempt 2',
    );
  });
});

describe('time strip', () => {
  it('reservation from the :reserved score (or, gone, from the pop), the run, the alarm', () => {
    const [w1, w2] = jobWindows(twice);
    // worker-1's copy was migrated back and re-reserved: its reservation was t+0..t+30.
    expect(w1).toEqual({
      worker: 'worker-1',
      job: 'GenerateReport#1',
      reserved: { from: T0, until: T0 + 30, gone: true },
      run: { from: T0, ends: T0 + 45 },
      alarm: null,
    });
    expect(w2!.reserved).toEqual({ from: T0 + 30, until: T0 + 60, gone: false });
    expect(w2!.alarm).toBe(T0 + 90);
    expect(outlivesReservation(w1!)).toBe(true);
    expect(outlivesReservation(w2!)).toBe(true); // ends t+75 > expiry t+60
  });

  it('draws both on one axis: ran █, to run ▓, expiry ┃, alarm ✕', () => {
    const windows = jobWindows(twice);
    const axis = axisOf(windows, twice.t);
    expect(axis).toEqual({ from: T0, to: T0 + 90 });
    // 18 cells of 5 s: worker-1 ran t+0..t+30 (6 cells), runs on to t+45, expired at t+30.
    expect(stripCells(windows[0]!, axis, twice.t, 18)).toBe('██████┃▓▓         ');
    expect(stripCells(windows[1]!, axis, twice.t, 18)).toBe('      ▓▓▓▓▓▓┃▓▓  ✕');
  });

  it('a timeout shorter than retry_after: the alarm comes before the expiry; captions in time order', () => {
    const safe = {
      worker: 'worker-3',
      job: 'GenerateReport#2',
      reserved: { from: T0 + 100, until: T0 + 190, gone: false },
      run: { from: T0 + 100, ends: T0 + 145 },
      alarm: T0 + 160,
    };
    expect(outlivesReservation(safe)).toBe(false);
    const axis = axisOf([safe], T0 + 100);
    const [bar, caption] = timeStripLines(safe, axis, T0 + 100, T0, 50).map(lineText);
    // 46 cells of 90/46 s: handle() t+100..t+145 is cells 0-22, the alarm t+160 cell 30, the expiry the last.
    expect(bar).toBe('  ▕' + '▓'.repeat(23) + '░'.repeat(7) + '✕' + '░'.repeat(14) + '┃▏');
    expect(caption).toBe('  ends t+145s · ✕ alarm t+160s · ┃ expires t+190s');
    // Narrow (the 80-column state pane): glyphs name the marks.
    expect(lineText(timeStripLines(safe, axis, T0 + 100, T0, 29)[1]!)).toBe('  end t+145s  ✕ t+160s  ┃ t+190s');
  });

  it('a job killed while running keeps a strip for its reservation waiting in :reserved', () => {
    const state: StateSnapshot = {
      ...twice,
      t: T0 + 60,
      queues: [queue([{ job: 'ImportCsv#1', attempts: 1, score: T0 + 90 }])],
      workers: [worker('worker-1', { kind: 'killed', job: 'ImportCsv#1' }, { retryAfter: 90 })],
    };
    expect(jobWindows(state)).toEqual([
      {
        worker: 'worker-1',
        job: 'ImportCsv#1',
        reserved: { from: T0, until: T0 + 90, gone: false },
        run: null,
        alarm: null,
      },
    ]);
  });
});

describe('worker options', () => {
  it('tries 0 reads as no limit ($maxTries === 0 returns early in markJobAsFailedIfAlreadyExceedsMaxAttempts)', () => {
    const state: StateSnapshot = {
      ...twice,
      workers: [worker('worker-1', { kind: 'polling' }, { options: { ...twice.workers[0]!.options, tries: 0 } })],
    };
    const text = stateLines(state, { start: T0 }, 80, 'full').map(lineText).join('\n');
    expect(text).toContain('tries 0 (no limit)');
  });

  it('a BLPOP answered shows the job in PHP memory', () => {
    const state: StateSnapshot = {
      ...twice,
      workers: [worker('worker-1', { kind: 'woken', queue: 'default', list: 'ready', job: 'PublishPost#1' })],
    };
    expect(stateLines(state, { start: T0 }, 80, 'full').map(lineText)).toContain(
      'worker-1 BLPOP answered: PublishPost#1 in PHP memory; ZADD :reserved next',
    );
  });
});

function step(index: number, kind: Step['kind'], state: StateSnapshot, actor = 'worker-1'): Step {
  return { index, t: state.t, actor, kind, title: '', methods: [], commands: [], state };
}

describe('idle polls', () => {
  const base: StateSnapshot = { t: T0, queues: [queue([])], workers: [], failed: [], executions: {} };
  const sleeping = { ...base, workers: [worker('worker-1', { kind: 'idle', until: T0 + 3 })] };
  it('a pop that found nothing and changed nothing, then sleeps; not a --rest, not a change', () => {
    expect(isIdlePoll(step(1, 'pop', sleeping), step(0, 'dispatch', base))).toBe(true);
    const resting = { ...base, workers: [worker('worker-1', { kind: 'idle', until: T0 + 3, why: '--rest' as const })] };
    expect(isIdlePoll(step(1, 'pop', resting), step(0, 'dispatch', base))).toBe(false);
    const moved = { ...sleeping, queues: [queue([{ job: 'A#1', attempts: 1, score: T0 + 30 }])] };
    expect(isIdlePoll(step(1, 'pop', moved), step(0, 'dispatch', base))).toBe(false);
    expect(isIdlePoll(step(1, 'block', sleeping), step(0, 'dispatch', base))).toBe(false);
  });
});

describe('ui-state', () => {
  const view = (v: Partial<View> = {}): View => ({
    steps: 6,
    finished: false,
    rows: 20,
    page: 10,
    stateLines: 8,
    statePage: 10,
    overlayLines: 0,
    overlayPage: 10,
    selectedRow: null,
    ...v,
  });
  const idle =
    (...ids: number[]) =>
    (i: number) =>
      ids.includes(i);

  it('N goes to the next step that is not an idle poll', () => {
    expect(reduce({ ...initialUiState, target: 1 }, 'skipIdle', view({ idle: idle(2, 3) }))).toMatchObject({
      target: 4,
      skipFrom: null,
    });
  });

  it('N past the steps run so far asks for more and keeps looking as they arrive', () => {
    let s = reduce({ ...initialUiState, target: 3 }, 'skipIdle', view({ idle: idle(4, 5) }));
    expect(s).toMatchObject({ target: 6, skipFrom: 3 });
    s = reduce(s, 'skipIdle', view({ steps: 7, idle: idle(4, 5, 6) }));
    expect(s).toMatchObject({ target: 7, skipFrom: 3 });
    s = reduce(s, 'skipIdle', view({ steps: 8, idle: idle(4, 5, 6) }));
    expect(s).toMatchObject({ target: 7, skipFrom: null });
    // The run ended on idle polls: the last step.
    expect(
      reduce({ ...initialUiState, target: 3 }, 'skipIdle', view({ finished: true, idle: idle(4, 5) })),
    ).toMatchObject({
      target: 5,
      skipFrom: null,
    });
  });

  it('→ on the premise closes it without moving; P opens it again', () => {
    const opened = { ...initialUiState, overlay: { kind: 'premise' as const, top: 0 } };
    expect(reduce(opened, 'next', view())).toMatchObject({ target: 0, overlay: { kind: 'none' } });
    expect(reduce(initialUiState, 'premise', view()).overlay).toEqual({ kind: 'premise', top: 0 });
  });
});

describe('footer at 80 columns', () => {
  it('keeps next, prev, details, info, raw and the pane key; help says there is more', () => {
    const items = footerItems(bindingsFor('main'), 80);
    const text = items.map(([k, l]) => `${k} ${l}`).join(' ');
    expect(text.length).toBeLessThanOrEqual(80);
    for (const want of ['→ next', '← prev', 'enter details', 'i info', 'r raw', 'tab pane', '? more', 'q quit'])
      expect(text).toContain(want);
    // Wide enough for all: help is help again.
    expect(footerItems(bindingsFor('main'), 400).map(([, l]) => l)).toContain('help');
  });
});

describe('premise and picker order', () => {
  it('the premise: title, the description rewrapped, how to start', () => {
    const lines = premiseLines(
      { name: 'x', title: 'A title', description: 'One line\nwrapped by the author.\n\nSecond paragraph.\n' },
      '5.7',
      60,
    ).map(lineText);
    expect(lines).toEqual([
      'A title',
      'Laravel 5.7 profile',
      '',
      'One line wrapped by the author.',
      '',
      'Second paragraph.',
      '',
      '→ to start  ·  P shows this again  ·  ? every key',
    ]);
  });

  it('the picker lists the shipped scenarios in learning order, unknown ones after', () => {
    const names = ['chain', 'zz-mine', 'dispatch', 'reserve', 'block-for'].map((name) => ({ name }));
    expect(inLearningOrder(names).map((e) => e.name)).toEqual(['dispatch', 'reserve', 'block-for', 'chain', 'zz-mine']);
    expect(LEARNING_ORDER.slice(0, 4)).toEqual(['dispatch', 'dispatch-later', 'reserve', 'success']);
  });
});

describe('a stale ZREM', () => {
  it('an older copy than the trace last showed is stale, not attempts going down', () => {
    expect(staleCopy({ attempts: 2 }, { attempts: 1 })).toEqual({ attempts: 1, now: 2 });
    expect(staleCopy({ attempts: 1 }, { attempts: 1 })).toBeNull();
    expect(staleCopy(undefined, { attempts: 1 })).toBeNull();
  });
});

describe('the i view of a poll', () => {
  it('says once why the migrate script runs twice (RedisQueue::migrate: :delayed, then :reserved)', async () => {
    const { migrateTwiceLines } = await import('../../src/tui/detail-lines.ts');
    const migrate = (from: string) => ({
      step: 1,
      t: T0,
      actor: 'worker-1',
      process: 1,
      source: 'client' as const,
      db: 0,
      args: ['EVAL', '-- script', '2', from, 'queues:default', String(T0)],
      script: 'migrateExpiredJobs',
      time: '0',
    });
    const base: StateSnapshot = { t: T0, queues: [], workers: [], failed: [], executions: {} };
    const poll = {
      ...step(1, 'pop', base),
      commands: [migrate('queues:default:delayed'), migrate('queues:default:reserved')],
    };
    const text = migrateTwiceLines(poll).map(lineText).join(' ');
    expect(text).toContain('migrateExpiredJobs, for each queue it polls, once for :delayed');
    expect(text).toContain('once for :reserved');
    expect(migrateTwiceLines({ ...poll, commands: [migrate('queues:default:delayed')] })).toEqual([]);
  });
});
