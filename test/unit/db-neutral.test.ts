// The db rule of every comparison, on hand-built timelines (no Redis): a run that claimed db 3 on
// a shared server for a scenario on db 0 compares as the scenario's db (assertTrace, the matchers,
// the normaliser behind goldens and diff), says so in a failure's header, keeps the real number in
// the trace and in the diff's rows, and compares exact dbs when asked.
import { describe, expect, it } from 'vitest';
import type { ExpectedCommand } from '../../src/testing/index.ts';
import { assertTrace, lua, matchers, payload, scoreAt, script, traceMismatch } from '../../src/testing/index.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { diffTraces, isIdentical } from '../../src/trace/diff.ts';
import { formatGolden, parseGolden } from '../../src/trace/golden-text.ts';
import { normaliseTrace } from '../../src/trace/normalise.ts';
import { renderDiff } from '../../src/trace/render-diff.ts';
import { fromTimeline } from '../../src/trace/trace-like.ts';
import { makeChalk } from '../../src/output/colour.ts';
import { timelineFixture } from '../fixtures/timeline-fixture.ts';

/** The fixture as a run on a shared server that claimed db `used` would give it: Laravel's SELECT and MONITOR's db say `used`. */
function claimed(used: number, extraSelect = false): Timeline {
  const t = { ...timelineFixture(), profile: '5.3' };
  for (const s of t.steps)
    for (const c of s.commands) {
      c.db = used;
      if (c.args[0] === 'SELECT') c.args = ['SELECT', String(used)];
    }
  return { ...t, database: { scenario: 0, used, ...(extraSelect ? { extraSelect: true } : {}) } };
}

// The fixture's first commands, from Laravel 5.x's flow on the scenario's db 0 (as in assert-trace.test.ts).
const EXPECTED: ExpectedCommand[] = [
  'SELECT 0',
  ['RPUSH', 'queues:default', payload({ attempts: 0 })],
  ['EVAL', script('migrateExpiredJobs'), 2, 'queues:default:delayed', 'queues:default', scoreAt(0)],
  lua('zrangebyscore', 'queues:default:delayed', '-inf', scoreAt(0)),
  ['EVAL', script('migrateExpiredJobs'), 2, 'queues:default:reserved', 'queues:default', scoreAt(0)],
  lua('zrangebyscore', 'queues:default:reserved', '-inf', scoreAt(0)),
  ['EVAL', script('pop'), 2, 'queues:default', 'queues:default:reserved', scoreAt(90)],
  lua('lpop', 'queues:default'),
  lua('zadd', 'queues:default:reserved', scoreAt(90), payload({ attempts: 1 })),
  ['ZREM', 'queues:default:reserved', payload({ attempts: 2 })],
];

const NOTE = "SELECT 3 compared as the scenario's db 0: this run claimed db 3 on a shared server";

describe('assertTrace and the matchers on a run that claimed another db', () => {
  it("compare SELECT <claimed> as the scenario's db, and keep the trace's real number", () => {
    const t = claimed(3);
    expect(traceMismatch(t, EXPECTED)).toBeNull();
    expect(matchers.toMatchRedisCommands(t, EXPECTED).pass).toBe(true);
    expect(t.steps[0]!.commands[0]!.args).toEqual(['SELECT', '3']);
    // Step by step too.
    const steps = {
      steps: [
        { commands: EXPECTED.slice(0, 2) },
        { commands: EXPECTED.slice(2, 9) },
        { commands: [] },
        { commands: EXPECTED.slice(9) },
      ],
    };
    expect(traceMismatch(t, steps)).toBeNull();
  });

  it('with exactDb, SELECT 3 is compared as it is', () => {
    const message = traceMismatch(claimed(3), EXPECTED, { exactDb: true })!;
    expect(message).toContain('arg 1 is 3, expected 0');
    expect(message).not.toContain(NOTE);
    expect(() => assertTrace(claimed(3), ['SELECT 3', ...EXPECTED.slice(1)], { exactDb: true })).not.toThrow();
    expect(matchers.toMatchRedisCommands(claimed(3), EXPECTED, { exactDb: true }).pass).toBe(false);
  });

  it("a failure's header says how SELECT was read; its rows show the real command", () => {
    const wrong = [EXPECTED[0]!, ['RPUSH', 'queues:default', payload({ attempts: 5 })] as const, ...EXPECTED.slice(2)];
    const lines = traceMismatch(claimed(3), wrong)!.split('\n');
    expect(lines[1]).toBe(NOTE);
    expect(lines).toContain('✓ #0   t+0s    dispatcher  SELECT 3');
  });

  it('a SELECT sent only because the claimed db is not 0 (phpredis under 5.x) is left out', () => {
    const t = claimed(3, true);
    expect(traceMismatch(t, EXPECTED.slice(1))).toBeNull();
    expect(traceMismatch(t, EXPECTED)).toContain('- '); // 'SELECT 0' now expected, not in the trace
    expect(traceMismatch(t, EXPECTED.slice(1), { exactDb: true })).toContain('+ #0');
    expect(traceMismatch(t, EXPECTED)).toContain(
      "SELECT 3 left out, as the scenario's db 0 sends no SELECT: this run claimed db 3 on a shared server",
    );
  });

  it('a run that got its own db, or a server of its own, is compared as it is', () => {
    const same = { ...claimed(0), database: { scenario: 0, used: 0 } };
    expect(traceMismatch(same, EXPECTED)).toBeNull();
    const other = claimed(2);
    delete other.database; // no record of a claim: db 2 is the scenario's own
    expect(traceMismatch(other, EXPECTED)).toContain('arg 1 is 2, expected 0');
  });
});

describe('the normaliser (goldens, diff) on a run that claimed another db', () => {
  const alone = normaliseTrace(fromTimeline({ ...timelineFixture(), profile: '5.3' }));

  it("gives the trace of the scenario's own db: SELECT 0, no [db 3], the same golden text", () => {
    const moved = normaliseTrace(fromTimeline(claimed(3)));
    expect(moved.steps[0]!.commands[0]).toEqual({ source: 'client', db: 0, args: ['SELECT', '0'] });
    expect(moved.steps.flatMap((s) => s.commands).every((c) => c.db === 0)).toBe(true);
    expect(formatGolden(moved)).toBe(formatGolden(alone));
    const d = diffTraces(parseGolden(formatGolden(alone)), moved);
    expect(isIdentical(d)).toBe(true);
    expect(d.notes).toEqual([`b: ${NOTE}`]);
  });

  it('keeps the real db with exactDb, and the diff says db 0 → 3', () => {
    const exact = normaliseTrace(fromTimeline(claimed(3)), { exactDb: true });
    expect(exact.steps[0]!.commands[0]).toEqual({ source: 'client', db: 3, args: ['SELECT', '3'] });
    expect(formatGolden(exact)).toContain('  [db 3] SELECT 3\n');
    const d = diffTraces(alone, exact);
    expect(isIdentical(d)).toBe(false);
    expect(d.notes).toBeUndefined();
    expect(renderDiff(d, { chalk: makeChalk(0), labels: ['a', 'b'] })).toContain(
      'db 0 → 3, the command itself the same',
    );
  });

  it("prints the note in a diff's header, under the labels", () => {
    const moved = normaliseTrace(fromTimeline(claimed(3)));
    const wrong = structuredClone(moved);
    delete wrong.database; // a golden: written in the scenario's db
    wrong.steps.at(-1)!.commands[0]!.args[0] = 'ZADD';
    const lines = renderDiff(diffTraces(wrong, moved), { chalk: makeChalk(0), labels: ['golden', 'run'] }).split('\n');
    expect(lines.slice(0, 3)).toEqual(['--- a: golden', '+++ b: run', `~ b: ${NOTE}`]);
  });

  it('drops a SELECT sent only for the claimed db, and a step left without commands', () => {
    const t = claimed(3, true);
    t.steps[0]!.commands = t.steps[0]!.commands.slice(0, 1); // the dispatcher's step: only its SELECT
    const moved = normaliseTrace(fromTimeline(t));
    expect(moved.steps.map((s) => s.actor)).toEqual(['worker-1', 'worker-1']);
  });
});
