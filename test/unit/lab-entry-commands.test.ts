// Each entry kind's lab command lives in the kind's module (ENTRY_KINDS[k].lab): what it parses
// must be an entry its own kind takes. Every example line of every kind's command is parsed as the
// lab parses it, written at a clock, and the entry must pass the kind's schema and the whole
// session the lab's checks; the workers and connections the line names, the kind's names() must too.
import { describe, expect, it } from 'vitest';
import { applyCommand } from '../../src/lab/actions.ts';
import { COMMANDS, parseCommand } from '../../src/lab/commands.ts';
import { checkLab, emptyLab, forkAt } from '../../src/lab/script.ts';
import type { EntryKindName } from '../../src/scenarios/entries/index.ts';
import { ENTRY_KINDS, kindOf } from '../../src/scenarios/entries/index.ts';
import { ENTRY_COMMANDS } from '../../src/scenarios/entries/lab.ts';
import { DISPATCHER } from '../../src/scenarios/fields.ts';
import type { WorkerState } from '../../src/sim/state.ts';

const vocabulary = { jobs: ['SendEmail'], workers: ['worker-1'], running: ['worker-1'], connections: ['redis'] };
const running = [{ name: 'worker-1', status: { kind: 'idle' }, connection: 'redis' } as WorkerState];

const withCommands = (Object.keys(ENTRY_KINDS) as EntryKindName[]).filter((k) => ENTRY_KINDS[k].lab !== null);

describe('the entry kinds’ lab commands', () => {
  it('are the lab’s dispatch, stop, kill and artisan, named after their kinds, each in the command table once', () => {
    expect(withCommands).toEqual(['dispatch', 'stop', 'kill', 'artisan']);
    expect(ENTRY_COMMANDS.map((c) => c.name)).toEqual(withCommands);
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const k of withCommands) expect(names).toContain(k);
  });

  describe.each(withCommands)('%s', (kind) => {
    const lab = ENTRY_KINDS[kind].lab!;

    it('has examples that use every key it completes', () => {
      const used = new Set(lab.examples.flatMap((line) => line.split(/\s+/).map((w) => w.replace(/=.*$/, ''))));
      for (const key of lab.keys) expect(used, `${kind}: no example uses ${key}`).toContain(key.replace(/=.*$/, ''));
    });

    it.each(lab.examples)('writes "%s" as an entry its kind takes, naming what the line names', (line) => {
      const cmd = parseCommand(line, { ...vocabulary, laravel: '8' });
      expect(cmd.kind).toBe(kind);
      const change = applyCommand(emptyLab('8'), cmd, { now: 7, late: false, workers: running });
      const entry = change.input.timeline.at(-1)!;
      expect(entry).toMatchObject({ at: 7 });
      const parsed = ENTRY_KINDS[kind].schema.safeParse(entry);
      expect(parsed.error?.issues).toBeUndefined();
      expect(parsed.data).toMatchObject({ kind });
      // The whole session as the lab checks it: the job it dispatches declared, the worker it names there.
      expect(checkLab(change.input)).not.toHaveProperty('problem');
      const names = kindOf(parsed.data!).names(parsed.data!);
      const words = line.split(/\s+/).flatMap((w) => w.split('='));
      expect(names.workers).toEqual(vocabulary.workers.filter((w) => words.includes(w)));
      expect(names.connections).toEqual(vocabulary.connections.filter((c) => words.includes(c)));
    });
  });
});

describe('forkAt reads entries through their kinds', () => {
  it('drops a connection that only the planned future named, through a request call or a chain link', () => {
    const input = {
      ...emptyLab('8'),
      connections: {
        redis: { queue: 'default' },
        slow: { queue: 'slow' },
        links: { queue: 'links' },
        sized: { queue: 'sized' },
      },
      jobs: { A: { class: 'App\\Jobs\\A' } },
      timeline: [
        { at: 1, size: 'default', connection: 'sized' },
        { at: 20, request: [{ dispatch: 'A', connection: 'slow' }] },
        { at: 30, dispatch: 'A', chain: [{ job: 'A', connection: 'links' }] },
      ],
    };
    expect(Object.keys(forkAt(input, 10).connections ?? {})).toEqual(['redis', 'sized']);
    expect(Object.keys(forkAt(input, 30).connections ?? {})).toEqual(['redis', 'slow', 'links', 'sized']);
  });

  it('drops a note attached to a worker that starts after the fork, not one on the application', () => {
    const input = {
      ...emptyLab('8'),
      workers: [{ name: 'worker-1' }, { name: 'worker-2', start: 20 }],
      timeline: [
        { at: 0, note: 'app', actor: DISPATCHER },
        { at: 5, note: 'late worker', actor: 'worker-2' },
      ],
    };
    expect(forkAt(input, 10).timeline).toEqual([{ at: 0, note: 'app', actor: DISPATCHER }]);
  });
});
