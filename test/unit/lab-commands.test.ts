// The lab's pure parts: the command line's parser and completion, the command-line editor, and
// what an action does to the session's scenario (forks drop the planned future).
import { describe, expect, it } from 'vitest';
import type { Key } from 'ink';
import { applyCommand } from '../../src/lab/actions.ts';
import { CommandError, complete, parseCommand } from '../../src/lab/commands.ts';
import { checkLab, emptyLab, forkAt } from '../../src/lab/script.ts';
import { commandKey, openCommandLine } from '../../src/tui/command-line.ts';
import type { WorkerState } from '../../src/sim/state.ts';

const vocabulary = {
  jobs: ['SendEmail', 'Report'],
  workers: ['worker-1', 'worker-2'],
  running: ['worker-1'],
  connections: ['redis'],
};

const worker = (name: string, kind: WorkerState['status']['kind'] = 'idle'): WorkerState =>
  ({
    name,
    generation: 1,
    status: { kind } as WorkerState['status'],
    connection: 'redis',
    queue: 'default',
    options: { tries: 0, timeout: 60, sleep: 3, delay: 0, once: false },
    retryAfter: 90,
    blockFor: null,
  }) as WorkerState;

describe('parseCommand', () => {
  it('reads a dispatch with its options and behaviour', () => {
    expect(parseCommand('dispatch SendEmail queue=emails delay=10 count=3 run=5 throw=Down', vocabulary)).toEqual({
      kind: 'dispatch',
      job: 'SendEmail',
      queue: 'emails',
      delay: 10,
      count: 3,
      connection: undefined,
      behaviour: { run: 5, outcome: { throw: 'Down' } },
    });
    expect(parseCommand('dispatch A fail', vocabulary)).toMatchObject({ behaviour: { outcome: { fail: true } } });
    expect(parseCommand('dispatch A release=30', vocabulary)).toMatchObject({
      behaviour: { outcome: { release: 30 } },
    });
  });

  it('tells a connection from a worker in set', () => {
    expect(parseCommand('set redis retry_after=30 block_for=null', vocabulary)).toEqual({
      kind: 'config',
      connection: 'redis',
      retryAfter: 30,
      blockFor: null,
    });
    expect(parseCommand('set worker-1 timeout=30 backoff=1,5', vocabulary)).toEqual({
      kind: 'options',
      worker: 'worker-1',
      options: { timeout: 30, backoff: [1, 5] },
    });
  });

  it.each([
    ['dispatch A throw fail', 'give one outcome'],
    ['dispatch A speed=3', '"speed" is not one of its arguments'],
    // Another number is not a typo: the message lists the workers instead of guessing one.
    ['kill worker-3', 'kill: no worker named worker-3; the workers are worker-1 and worker-2'],
    ['kill worker-1 restart=maybe', 'restart=yes or restart=no'],
    ['wait -3', 'is not a number of seconds'],
    ['laravel 9', 'no profile "9"'],
    [
      'set nowhere tries=1',
      'set: no connection or worker named nowhere; the connection is redis, the workers are worker-1 and worker-2',
    ],
    ['save out.txt', 'should end in .yaml'],
    ['worker queue=a,,b', 'queue names separated by commas'],
  ])('%s → %s', (line, says) => {
    expect(() => parseCommand(line, vocabulary)).toThrow(CommandError);
    expect(() => parseCommand(line, vocabulary)).toThrow(says);
  });
});

describe('complete', () => {
  it('completes commands, then their first word, then their keys', () => {
    expect(complete('di', vocabulary)).toEqual(['dispatch ']);
    expect(complete('dispatch S', vocabulary)).toEqual(['dispatch SendEmail ']);
    expect(complete('kill ', vocabulary)).toEqual(['kill worker-1 ']); // only the running one
    expect(complete('dispatch A de', vocabulary)).toEqual(['dispatch A delay=']);
    expect(complete('dispatch A connection=r', vocabulary)).toEqual(['dispatch A connection=redis ']);
    // A key already given is not offered again.
    expect(complete('worker tries=1 t', vocabulary)).toEqual(['worker tries=1 timeout=']);
  });
});

describe('commandKey', () => {
  const key = (k: Partial<Key> = {}): Key => k as Key;
  const ctx = { history: ['dispatch A', 'next'], complete: (t: string) => complete(t, vocabulary) };

  it('types, completes with Tab, browses the history and submits', () => {
    let r = commandKey(openCommandLine(), 'dis', key(), ctx);
    expect(r).toMatchObject({ kind: 'edit', line: { text: 'dis' } });
    if (r.kind !== 'edit') throw new Error();
    r = commandKey(r.line, '', key({ tab: true }), ctx);
    expect(r).toMatchObject({ kind: 'edit', line: { text: 'dispatch ', at: 9 } });
    if (r.kind !== 'edit') throw new Error();
    // Two jobs start with nothing typed: Tab shows both and fills in nothing.
    const both = commandKey(r.line, '', key({ tab: true }), ctx);
    expect(both).toMatchObject({
      kind: 'edit',
      line: { text: 'dispatch ', choices: ['dispatch SendEmail ', 'dispatch Report '] },
    });
    const up = commandKey(r.line, '', key({ upArrow: true }), ctx);
    expect(up).toMatchObject({ kind: 'edit', line: { text: 'next', browsing: 1 } });
    if (up.kind !== 'edit') throw new Error();
    const up2 = commandKey(up.line, '', key({ upArrow: true }), ctx);
    expect(up2).toMatchObject({ kind: 'edit', line: { text: 'dispatch A', browsing: 0 } });
    expect(commandKey(up.line, '', key({ return: true }), ctx)).toEqual({ kind: 'submit', text: 'next' });
    expect(commandKey(up.line, '', key({ escape: true }), ctx)).toEqual({ kind: 'close' });
    // Backspace on an empty line closes it, as in vim.
    expect(commandKey(openCommandLine(), '', key({ backspace: true }), ctx)).toEqual({ kind: 'close' });
  });
});

describe('applyCommand and forkAt', () => {
  it('puts an action at the lab clock, late in its instant when a step shown happened then (never a millisecond after)', () => {
    const lab = emptyLab('8');
    const change = applyCommand(lab, parseCommand('dispatch SendEmail run=5', vocabulary), {
      now: 3,
      late: true,

      workers: [worker('worker-1')],
    });
    expect(change.input.timeline.at(-1)).toEqual({ at: 3, late: true, dispatch: 'SendEmail' });
    // The key after `at`, as the saved file reads: at 3, late, dispatch.
    expect(Object.keys(change.input.timeline.at(-1)!)).toEqual(['at', 'late', 'dispatch']);
    const started = applyCommand(lab, parseCommand('worker', vocabulary), {
      now: 3,
      late: true,

      workers: [worker('worker-1')],
    });
    expect(started.input.workers?.at(-1)).toMatchObject({ name: 'worker-2', start: 3, late: true });
    expect(change.input.jobs?.SendEmail).toEqual({ class: 'App\\Jobs\\SendEmail', attempts: [{ run: 5 }] });
    expect('spec' in checkLab(change.input)).toBe(true);
  });

  it('gives a job a behaviour of its own a class of its own', () => {
    const lab = { ...emptyLab('8'), jobs: { SendEmail: { class: 'App\\Jobs\\SendEmail' } } };
    const change = applyCommand(lab, parseCommand('dispatch SendEmail throw', vocabulary), {
      now: 0,
      late: false,

      workers: [],
    });
    expect(change.input.timeline.at(-1)).toEqual({ at: 0, dispatch: 'SendEmail2' });
    expect(change.input.jobs?.SendEmail2).toEqual({
      class: 'App\\Jobs\\SendEmail2',
      attempts: [{ throw: 'Exception' }],
    });
  });

  it('restarts the workers on a connection whose config changes (SIGTERM and a new process)', () => {
    const lab = emptyLab('8');
    const change = applyCommand(lab, parseCommand('set redis retry_after=30', vocabulary), {
      now: 10,
      late: false,

      workers: [worker('worker-1')],
    });
    // SIGTERM, then supervisord starts worker-1 again (no option changed): its new process reads the new config.
    expect(change.input.timeline.slice(-2)).toEqual([
      { at: 10, config: 'redis', retry_after: 30 },
      { at: 10, stop: 'worker-1', restart: {} },
    ]);
    expect(change.input.workers).toEqual([{ name: 'worker-1' }]);
    expect(change.message).toContain('supervisord starts it again once it has finished its job: worker-1');
  });

  it('refuses to stop or kill a worker that is not running', () => {
    const clock = { now: 0, late: false, workers: [worker('worker-1', 'stopped')] };
    expect(() => applyCommand(emptyLab(), parseCommand('kill worker-1', vocabulary), clock)).toThrow(
      'no process running now',
    );
  });

  it('drops what the session had planned after the fork', () => {
    const input = {
      ...emptyLab('8'),
      until: 100,
      workers: [{ name: 'worker-1' }, { name: 'worker-2', start: 20 }],
      jobs: { A: { class: 'App\\Jobs\\A' } },
      timeline: [
        { at: 0, note: 'n' },
        { at: 5, dispatch: 'A', count: 10, every: 2 },
        { at: 12, dispatch: 'A' },
        { at: 25, kill: 'worker-2' },
      ],
    };
    const forked = forkAt(input, 10);
    expect(forked.until).toBeUndefined();
    expect(forked.workers).toEqual([{ name: 'worker-1' }]);
    // At 5, 7, 9 of the ten: three instances happened by t+10.
    expect(forked.timeline).toEqual([
      { at: 0, note: 'n' },
      { at: 5, dispatch: 'A', count: 3, every: 2 },
    ]);
  });
});

describe('quoting', () => {
  it('keeps the spaces of a quoted message', () => {
    expect(parseCommand('dispatch A throw="Mail server down"', vocabulary)).toMatchObject({
      behaviour: { outcome: { throw: 'Mail server down' } },
    });
    expect(parseCommand("dispatch A throw='It broke'", vocabulary)).toMatchObject({
      behaviour: { outcome: { throw: 'It broke' } },
    });
  });
});
