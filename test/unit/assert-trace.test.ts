// assertTrace and the matchers on a hand-built timeline (no Redis): what passes, what fails, and
// that the failure message reads as an aligned diff a person can act on.
import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import type { ExpectedCommand } from '../../src/testing/index.ts';
import {
  afterNow,
  anyPayload,
  anyString,
  assertTrace,
  lua,
  matchers,
  matching,
  payload,
  same,
  scoreAt,
  script,
  traceMismatch,
} from '../../src/testing/index.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { DISPATCHED_PAYLOAD, reservedPayload, START, timelineFixture } from '../fixtures/timeline-fixture.ts';

/** The fixture's scripts are 5.3's texts (seed 003), so it is read with the 5.3 profile. */
function fixture(): Timeline {
  return { ...timelineFixture(), profile: '5.3' };
}

// The fixture's commands, written from Laravel 5.x's flow: dispatch (SELECT, RPUSH attempts 0),
// one pop (migrate :delayed, migrate :reserved, pop reserving until now + 90), then after the
// timeout kill the failing ZREM of the attempts-2 copy at t+93.
const EXPECTED: ExpectedCommand[] = [
  'SELECT 0',
  ['RPUSH', 'queues:default', payload({ attempts: 0, displayName: 'App\\Jobs\\SlowJob' })],
  ['EVAL', script('migrateExpiredJobs'), 2, 'queues:default:delayed', 'queues:default', scoreAt(0)],
  lua('zrangebyscore', 'queues:default:delayed', '-inf', scoreAt(0)),
  ['EVAL', script('migrateExpiredJobs'), 2, 'queues:default:reserved', 'queues:default', scoreAt(0)],
  lua('zrangebyscore', 'queues:default:reserved', '-inf', scoreAt(0)),
  ['EVAL', script('pop'), 2, 'queues:default', 'queues:default:reserved', afterNow(90)],
  lua('lpop', 'queues:default'),
  lua('zadd', 'queues:default:reserved', scoreAt(90), payload({ attempts: 1 })),
  ['ZREM', 'queues:default:reserved', payload({ attempts: 2 })],
];

function failure(fn: () => void): AssertionError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AssertionError) return e;
    throw e;
  }
  throw new Error('expected an AssertionError');
}

describe('assertTrace', () => {
  it('passes when every command matches, exact strings and patterns alike', () => {
    expect(() => assertTrace(fixture(), EXPECTED)).not.toThrow();
    expect(traceMismatch(fixture(), EXPECTED)).toBeNull();
  });

  it('compares command names case-insensitively and arguments byte for byte', () => {
    const exact = [...EXPECTED];
    exact[1] = ['rpush', 'queues:default', DISPATCHED_PAYLOAD];
    expect(traceMismatch(fixture(), exact)).toBeNull();
    exact[1] = ['RPUSH', 'queues:Default', DISPATCHED_PAYLOAD];
    expect(traceMismatch(fixture(), exact)).toContain('arg 1 is queues:default, expected queues:Default');
  });

  it('reports a wrong score aligned with its command, with both times', () => {
    const wrong = [...EXPECTED];
    wrong[8] = lua('zadd', 'queues:default:reserved', scoreAt(60), payload({ attempts: 1 }));
    const e = failure(() => assertTrace(fixture(), wrong));
    const lines = e.message.split('\n');
    expect(lines[0]).toBe(
      'assertTrace: the Redis commands differ from the expected ones: 1 difference (expected 10 commands, got 10)',
    );
    const at = lines.findIndex((l) => l.startsWith('✗'));
    expect(lines[at]).toBe(
      '✗ #1   t+0s    worker-1    [lua] zadd queues:default:reserved 1700000090 ‹SlowJob#1 attempts:1›',
    );
    expect(lines[at + 1]).toMatch(/^ +expected {2}\[lua\] zadd queues:default:reserved t\+60 ‹payload attempts:1›$/);
    expect(lines[at + 2]!.trim()).toBe('arg 2 is 1700000090 (t+90), expected 1700000060');
    // Context around the difference, the matching rest folded.
    expect(lines).toContain('  … 6 matching commands');
    expect(lines[lines.length - 1]).toMatch(/^✓ matches/);
  });

  it('shows a missing command as one "-" line and an extra one as one "+" line, not a cascade', () => {
    const missing = EXPECTED.filter((_, i) => i !== 3);
    const m = failure(() => assertTrace(fixture(), missing)).message;
    expect(m).toContain('1 difference (expected 9 commands, got 10)');
    expect(m).toMatch(/^\+ #1 {3}t\+0s {4}worker-1 {4}\[lua\] zrangebyscore queues:default:delayed -inf 1700000000$/m);
    expect(m.match(/^[✗+-] /gm)).toHaveLength(1);

    const extra = [...EXPECTED.slice(0, 2), 'SELECT 0', ...EXPECTED.slice(2)];
    const x = failure(() => assertTrace(fixture(), extra)).message;
    expect(x).toMatch(/^- {20,}SELECT 0$/m);
    expect(x.match(/^[✗+-] /gm)).toHaveLength(1);
  });

  it('says why a payload does not match', () => {
    const wrong = [...EXPECTED];
    wrong[9] = ['ZREM', 'queues:default:reserved', payload({ attempts: 3, 'data.commandName': 'App\\Jobs\\SlowJob' })];
    expect(traceMismatch(fixture(), wrong)).toContain('arg 2 payload.attempts is 2, expected 3');
    wrong[9] = ['ZREM', 'queues:default:reserved', payload({ 'data.commandName': 'App\\Jobs\\Other' })];
    expect(traceMismatch(fixture(), wrong)).toContain(
      'arg 2 payload.data.commandName is "App\\\\Jobs\\\\SlowJob", expected "App\\\\Jobs\\\\Other"',
    );
  });

  it('binds with same(): the ZREM must name the very string the pop ZADDed', () => {
    const bound = [...EXPECTED];
    bound[8] = lua('zadd', 'queues:default:reserved', scoreAt(90), same('reserved'));
    bound[9] = ['ZREM', 'queues:default:reserved', same('reserved')];
    // The fixture's ZREM names the attempts-2 copy, not the attempts-1 copy the pop wrote.
    expect(traceMismatch(fixture(), bound)).toContain('arg 2 differs from reserved bound earlier');
    const t = fixture();
    t.steps[3]!.commands[0]!.args[2] = reservedPayload(1);
    expect(traceMismatch(t, bound)).toBeNull();
  });

  it('knows the profile script texts and other patterns', () => {
    const wrong = [...EXPECTED];
    wrong[2] = ['EVAL', script('pop'), 2, 'queues:default:delayed', 'queues:default', scoreAt(0)];
    expect(traceMismatch(fixture(), wrong)).toContain('arg 1 is the migrateExpiredJobs script');
    const loose: ExpectedCommand[] = EXPECTED.map((c, i) =>
      i === 1 ? ['RPUSH', matching(/^queues:/), anyPayload()] : i === 9 ? ['ZREM', anyString(), anyString()] : c,
    );
    expect(traceMismatch(fixture(), loose)).toBeNull();
    const notPayload = [...EXPECTED];
    notPayload[0] = ['SELECT', anyPayload()];
    expect(traceMismatch(fixture(), notPayload)).toContain('arg 1 is not a JSON object');
  });

  it('filters: client commands only, one actor only', () => {
    const client = EXPECTED.filter((c) => !(typeof c === 'object' && 'source' in c && c.source === 'lua'));
    expect(traceMismatch(fixture(), client, { lua: false })).toBeNull();
    expect(traceMismatch(fixture(), EXPECTED.slice(0, 2), { actor: 'dispatcher' })).toBeNull();
    expect(traceMismatch(fixture(), client)).toContain('differ');
  });

  it("checks step by step: actor, time and kind, then each step's commands", () => {
    const steps = {
      steps: [
        { actor: 'dispatcher', at: 0, kind: 'dispatch' as const, commands: EXPECTED.slice(0, 2) },
        { actor: 'worker-1', at: 0, kind: 'pop' as const, commands: EXPECTED.slice(2, 9) },
        { actor: 'worker-1', at: 60, kind: 'kill' as const, commands: [] },
        { actor: 'worker-1', at: 93, kind: 'fail' as const, commands: EXPECTED.slice(9) },
      ],
    };
    expect(traceMismatch(fixture(), steps)).toBeNull();
    steps.steps[2] = { actor: 'worker-2', at: 90, kind: 'kill', commands: [] };
    const m = traceMismatch(fixture(), steps)!;
    expect(m.split('\n')[0]).toBe(
      'assertTrace: the steps differ from the expected ones: 2 differences (expected 4 steps, got 4)',
    );
    expect(m).toContain('✓ step #0 dispatcher t+0s dispatch: dispatch: SlowJob#1 onto queues:default (2 commands)');
    expect(m).toContain(
      '✗ step #2 worker-1 t+60s kill: kill: SIGALRM after --timeout=60 while running SlowJob#1\n     actor is worker-1, expected worker-2\n     time is t+60s, expected t+90s',
    );
    const fewer = { steps: steps.steps.slice(0, 3) };
    expect(traceMismatch(fixture(), fewer)).toContain(
      '+ step #3 worker-1 t+93s fail: fail: SlowJob#1 attempts 2 > --tries=1: MaxAttemptsExceededException (not expected)',
    );
  });

  it('fails a run that ended early even when its commands so far match', () => {
    const t = { ...fixture(), error: 'Redis connection lost' };
    expect(traceMismatch(t, EXPECTED)).toContain('the run ended early: Redis connection lost');
  });

  it('keeps payload control bytes inert in the message', () => {
    const t = fixture();
    t.steps[0]!.commands[1]!.args[1] = 'queues:\x1b[2Jdefault';
    const m = traceMismatch(t, EXPECTED)!;
    expect(m).not.toContain('\x1b');
    expect(m).toContain('\\x1b[2J');
  });
});

describe('matchers', () => {
  it('toMatchRedisCommands passes, and fails with the assertTrace diff', () => {
    expect(matchers.toMatchRedisCommands(fixture(), EXPECTED).pass).toBe(true);
    const r = matchers.toMatchRedisCommands(fixture(), EXPECTED.slice(1));
    expect(r.pass).toBe(false);
    expect(r.message()).toMatch(/^assertTrace: .*\n[\s\S]*^\+ #0 +t\+0s +dispatcher +SELECT 0$/m);
    expect(matchers.toMatchRedisCommands({ steps: 'no' }, EXPECTED).message()).toBe(
      'expected a Timeline from runScenario(), got object',
    );
  });

  it('toHaveFailedJob and toHaveExecuted read the failed jobs and the execution counts', () => {
    expect(matchers.toHaveFailedJob(fixture(), 'SlowJob#1').pass).toBe(true);
    expect(matchers.toHaveFailedJob(fixture(), 'SlowJob#1', 'MaxAttemptsExceededException').pass).toBe(true);
    expect(matchers.toHaveFailedJob(fixture(), 'SlowJob#1', /attempted too many times/).pass).toBe(true);
    const wrong = matchers.toHaveFailedJob(fixture(), 'SlowJob#1', 'RuntimeException');
    expect(wrong.pass).toBe(false);
    expect(wrong.message()).toBe(
      'expected SlowJob#1 with RuntimeException in the failed jobs; failed jobs: SlowJob#1 (Illuminate\\Queue\\MaxAttemptsExceededException)',
    );
    expect(matchers.toHaveExecuted(fixture(), 'SlowJob#1', 1).pass).toBe(true);
    expect(matchers.toHaveExecuted(fixture(), 'SlowJob#1', 2).message()).toBe(
      'expected SlowJob#1 to have run 2 times, it ran 1 (jobs: SlowJob#1 1×)',
    );
  });

  it('work with expect.extend', () => {
    expect.extend(matchers);
    const e = expect as unknown as (v: unknown) => {
      toMatchRedisCommands(x: unknown): void;
      not: { toMatchRedisCommands(x: unknown): void };
    };
    e(fixture()).toMatchRedisCommands(EXPECTED);
    e(fixture()).not.toMatchRedisCommands(EXPECTED.slice(1));
    expect(() => e(fixture()).toMatchRedisCommands(EXPECTED.slice(1))).toThrow(
      /^assertTrace: the Redis commands differ/,
    );
  });
});

it('scoreAt is relative to the timeline start', () => {
  expect(
    scoreAt(90).test(String(START + 90), {
      start: START,
      command: fixture().steps[0]!.commands[0]!,
      profile: undefined,
      bound: new Map(),
    }),
  ).toBeNull();
});

it('compares very long traces by position instead of aligning them', () => {
  const t = fixture();
  const ping = t.steps[0]!.commands[0]!;
  t.steps = [{ ...t.steps[0]!, commands: Array.from({ length: 2100 }, () => ({ ...ping, args: ['PING'] })) }];
  const expected: ExpectedCommand[] = Array.from({ length: 2000 }, () => 'PING');
  const m = traceMismatch(t, expected)!;
  // 2100 × 2000 pairs is past the alignment limit: the first 2000 pair up, the rest are extra.
  expect(m.split('\n')[0]).toBe(
    'assertTrace: the Redis commands differ from the expected ones: 100 differences (expected 2000 commands, got 2100)',
  );
  expect(m).toContain('  … 1998 matching commands');
});
