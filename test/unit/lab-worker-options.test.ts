// The lab's worker commands per Laravel version, its messages about workers, and what a session
// derived from a scenario keeps. The retry delay queue:work takes: 5.x `--delay=N`
// (WorkCommand.php@v5.7.29: `{--delay=0 : The number of seconds to delay failed jobs}`), 8.0+
// `--backoff=1,5,10`, where --delay is deprecated (WorkCommand.php@v8.0.0:30).
import { describe, expect, it } from 'vitest';
import { applyCommand } from '../../src/lab/actions.ts';
import type { LabVocabulary } from '../../src/lab/commands.ts';
import { CommandError, commandOf, complete, helpText, parseCommand } from '../../src/lab/commands.ts';
import { checkLab, emptyLab, forkAt } from '../../src/lab/script.ts';
import type { ScenarioInput } from '../../src/scenarios/schema.ts';
import type { WorkerState } from '../../src/sim/state.ts';
import type { WorkerOptions } from '../../src/sim/worker-input.ts';
import { restartedOptions } from '../../src/sim/worker-input.ts';
import { openCommandLine } from '../../src/tui/command-line.ts';
import type { LabStatus } from '../../src/tui/lab-session.ts';
import { labPanelLines } from '../../src/tui/LabLine.tsx';

const base: LabVocabulary = {
  jobs: [],
  workers: ['worker-1', 'worker-2'],
  running: ['worker-1'],
  connections: ['redis'],
};
const on = (laravel: string): LabVocabulary => ({ ...base, laravel });

const worker = (name: string): WorkerState =>
  ({
    name,
    generation: 1,
    status: { kind: 'idle' },
    connection: 'redis',
    queue: 'default',
    options: { tries: 0, timeout: 60, sleep: 3, delay: 0, once: false },
    retryAfter: 90,
    blockFor: null,
  }) as WorkerState;

const workerOptions: WorkerOptions = {
  name: 'worker-1',
  connection: 'redis',
  tries: 0,
  timeout: 60,
  sleep: 3,
  delay: 0,
  once: false,
  start: 0,
  restart: true,
};

const clock = (now = 0) => ({ now, late: false, workers: [worker('worker-1')] });

describe("the worker's retry delay per version", () => {
  it('5.7 takes delay=N (--delay) and refuses backoff=, naming delay=', () => {
    expect(parseCommand('worker delay=5', on('5.7'))).toEqual({ kind: 'worker', options: { delay: 5 } });
    expect(() => parseCommand('worker backoff=5', on('5.7'))).toThrow(
      'worker: Laravel 5.7 has --delay, not --backoff (8.0+): use delay=5',
    );
    // A list has no --delay equivalent: one number for every retry.
    expect(() => parseCommand('worker backoff=1,5,10', on('5.3'))).toThrow(
      'worker: Laravel 5.3 has --delay, not --backoff (8.0+): one number for every retry, e.g. delay=1',
    );
    expect(() => parseCommand('set worker-1 backoff=5', on('5.7'))).toThrow('set worker-1: Laravel 5.7 has --delay');
  });

  it('8 and 13 take backoff= and refuse delay=, naming backoff=', () => {
    expect(parseCommand('worker backoff=1,5', on('8'))).toEqual({ kind: 'worker', options: { backoff: [1, 5] } });
    expect(() => parseCommand('worker delay=5', on('8'))).toThrow(
      'worker: Laravel 8 has --backoff (--delay is deprecated since 8.0): use backoff=5',
    );
    expect(() => parseCommand('set worker-1 delay=5', on('13'))).toThrow('set worker-1: Laravel 13 has --backoff');
  });

  it('refuses both at once', () => {
    expect(() => parseCommand('worker delay=5 backoff=5', base)).toThrow(CommandError);
    expect(() => parseCommand('worker delay=5 backoff=5', base)).toThrow('give delay= or backoff=, not both');
  });

  it('without the version on the command line, the action judges by the session', () => {
    const cmd = parseCommand('worker backoff=5', base);
    expect(() => applyCommand(emptyLab('5.7'), cmd, clock())).toThrow('Laravel 5.7 has --delay');
    // A scenario without laravel: runs under 5.7 (DEFAULT_PROFILE).
    const { laravel: _l, ...unversioned } = emptyLab('5.7');
    expect(() => applyCommand(unversioned, cmd, clock())).toThrow('use delay=5');
    expect(() => applyCommand(emptyLab('8'), parseCommand('worker delay=5', base), clock())).toThrow('use backoff=5');
  });

  it('a 5.7 worker started with delay=5 is a worker with delay: 5, which the 5.7 model accepts', () => {
    const change = applyCommand(emptyLab('5.7'), parseCommand('worker delay=5 tries=3', on('5.7')), clock(2));
    expect(change.input.workers?.at(-1)).toEqual({ name: 'worker-2', tries: 3, delay: 5, start: 2 });
    expect(change.message).toBe('started worker-2: php artisan queue:work --tries=3 --delay=5');
    expect('spec' in checkLab(change.input)).toBe(true);
  });

  it('set restarts the same worker with the options changed: SIGTERM, then supervisord starts it again', () => {
    const lab: ScenarioInput = { ...emptyLab('5.7'), workers: [{ name: 'worker-1', delay: 5 }] };
    const change = applyCommand(lab, parseCommand('set worker-1 timeout=30', on('5.7')), clock(1));
    expect(change.input.timeline.at(-1)).toEqual({ at: 1, stop: 'worker-1', restart: { timeout: 30 } });
    // No new worker: the name stays, as after a kill.
    expect(change.input.workers).toEqual([{ name: 'worker-1', delay: 5 }]);
    expect(change.message).toBe(
      'queue:work reads its options only when it starts: worker-1 got SIGTERM (it finishes its job), then supervisord starts it again with --timeout=30',
    );
    expect('spec' in checkLab(change.input)).toBe(true);
    // After :laravel 8, backoff= replaces the old --delay (restartedOptions); on 5.7 the file is refused.
    const on8 = applyCommand({ ...lab, laravel: '8' }, parseCommand('set worker-1 backoff=2', on('8')), clock(1));
    expect(on8.input.timeline.at(-1)).toEqual({ at: 1, stop: 'worker-1', restart: { backoff: 2 } });
    expect('spec' in checkLab(on8.input)).toBe(true);
    expect(checkLab({ ...on8.input, laravel: '5.7' })).toEqual({
      problem:
        "timeline.1.restart.backoff: --backoff arrived in 8.0.0 (WorkCommand.php@v8.0.0:30); Laravel 5.7's queue:work has --delay, one number: use delay",
    });
    expect(() => parseCommand('set worker-1 connection=redis', on('5.7'))).toThrow(
      'set worker-1: connection cannot change in a restart; start another worker with worker',
    );
  });

  it("a restart's retry delay replaces the other kind; other options stay", () => {
    const old = { ...workerOptions, delay: 5 };
    expect(restartedOptions(old, { timeout: 30 })).toEqual({ ...old, timeout: 30 });
    expect(restartedOptions(old, { backoff: 2 })).toEqual({ ...old, delay: 0, backoff: 2 });
    const listed = { ...workerOptions, backoff: [1, 5] };
    const { backoff: _b, ...rest } = listed;
    expect(restartedOptions(listed, { delay: 3 })).toEqual({ ...rest, delay: 3 });
  });

  it("completion, usage and help offer the version's option only", () => {
    expect(complete('worker de', on('5.7'))).toEqual(['worker delay=']);
    expect(complete('worker ba', on('5.7'))).toEqual([]);
    expect(complete('worker ba', on('8'))).toEqual(['worker backoff=']);
    expect(complete('worker de', on('13'))).toEqual([]);
    expect(complete('set worker-1 de', on('5.3'))).toEqual(['set worker-1 delay=']);
    expect(commandOf('worker ', '5.7')!.usage).toContain('[sleep=N] [delay=N] [once]');
    expect(commandOf('worker ', '5.7')!.usage).not.toContain('backoff');
    expect(commandOf('worker ', '8')!.usage).toContain('[sleep=N] [backoff=N,N] [once]');
    expect(commandOf('set ', '8')!.usage).toContain('sleep=N backoff=N,N queue=Q');
    expect(helpText('worker', '5.7')[0]).not.toContain('backoff');
    // The usage line under the command line W opens, for the session's version.
    const shown = (input: ScenarioInput) =>
      labPanelLines(openCommandLine('worker '), { message: null, input } as LabStatus, 200, {
        usageOf: commandOf,
        commandNames: () => [],
      })
        .map((l) => l.map((x) => x.text).join(''))
        .join('\n');
    expect(shown(emptyLab('5.7'))).toContain('[sleep=N] [delay=N] [once]');
    expect(shown(emptyLab('8'))).toContain('[sleep=N] [backoff=N,N] [once]');
    // Not knowing the version, both are shown with the versions that have them.
    expect(commandOf('worker ')!.usage).toContain('[delay=N (5.x) | backoff=N,N (8+)]');
    expect(complete('worker ', base)).toEqual(expect.arrayContaining(['worker delay=', 'worker backoff=']));
  });
});

describe('naming workers', () => {
  it('a worker that does not exist: the workers, not a guess at another number', () => {
    const v = { ...base, workers: ['worker-1', 'worker-2'] };
    expect(() => parseCommand('kill worker-7', v)).toThrow(
      'kill: no worker named worker-7; the workers are worker-1 and worker-2',
    );
    expect(() => parseCommand('stop worker-7', { ...v, workers: ['worker-1'] })).toThrow(
      'stop: no worker named worker-7; the worker is worker-1',
    );
    // A misspelt name is still pointed at.
    expect(() => parseCommand('kill wroker-1', v)).toThrow(
      'kill: no worker named wroker-1 (did you mean "worker-1"?); the workers are worker-1 and worker-2',
    );
    expect(() => parseCommand('kill worker-1', { ...v, workers: [] })).toThrow(
      'kill: no worker named worker-1; there are no workers',
    );
  });
});

describe('a session derived from a scenario', () => {
  const shipped: ScenarioInput = {
    name: 'killed-mid-job',
    title: 'SIGKILL mid-job',
    description: 'What the original run shows.',
    laravel: '5.7',
    connections: { redis: { queue: 'default' }, blocking: { queue: 'default', block_for: 5 } },
    workers: [{ name: 'worker-1' }, { name: 'worker-2', connection: 'blocking', start: 30 }],
    jobs: { A: { class: 'App\\Jobs\\A' } },
    timeline: [{ at: 0, dispatch: 'A' }],
  };

  it('says it is a lab session made from the original, once', () => {
    const first = applyCommand(shipped, parseCommand('dispatch A', base), clock(40)).input;
    expect(first.title).toBe('A lab session from killed-mid-job');
    expect(first.description).toBe(
      "Made in lqsim lab from the scenario killed-mid-job: its setup and the part of its timeline the lab kept, then the lab's actions.",
    );
    const second = applyCommand(first, parseCommand('dispatch A', base), clock(41)).input;
    expect([second.title, second.description]).toEqual([first.title, first.description]);
    // A version switch changes the run too.
    expect(applyCommand(shipped, parseCommand('laravel 8', base), clock(0)).input.title).toBe(
      'A lab session from killed-mid-job',
    );
    // The lab's own session is left as it is.
    const lab = emptyLab('5.7');
    expect(applyCommand(lab, parseCommand('dispatch A', base), clock()).input.title).toBe(lab.title);
  });

  it('drops a connection only the dropped future used, and keeps the first', () => {
    // worker-2 (on "blocking") starts at t+30: a fork at t+10 drops it and its connection.
    expect(Object.keys(forkAt(shipped, 10).connections ?? {})).toEqual(['redis']);
    expect(Object.keys(forkAt(shipped, 30).connections ?? {})).toEqual(['redis', 'blocking']);
    // A connection the session never used is not the fork's to drop (the lab may still name it).
    const unused = { ...shipped, workers: [{ name: 'worker-1' }] };
    expect(Object.keys(forkAt(unused, 10).connections ?? {})).toEqual(['redis', 'blocking']);
    // The lab's block_for copy goes with the worker that needed it.
    const started = applyCommand(emptyLab('5.7'), parseCommand('worker block_for=5', base), clock(20)).input;
    expect(Object.keys(started.connections ?? {})).toEqual(['redis', 'redis-block5']);
    const forked = applyCommand(started, parseCommand('dispatch A', base), clock(10)).input;
    expect(Object.keys(forked.connections ?? {})).toEqual(['redis']);
    expect('spec' in checkLab(forked)).toBe(true);
  });
});
