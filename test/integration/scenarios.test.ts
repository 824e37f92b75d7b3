// Every shipped scenario against a real redis-server: the exact command sequence, step by step.
// The expectations are derived by hand from the seeds (000: dispatch/worker/release/ZREM flow,
// 001: timeout vs retry_after, 002: Worker::daemon, pop, blockingPop and the max-attempts rules,
// 003: later() and the migrate script) and Laravel 5.7's RedisQueue/Worker, never from output.
// Conventions (Laravel 5.7 defaults): Predis sends SELECT 0 on every new connection, before its
// first command; every poll is migrate(:delayed), migrate(:reserved), pop script; the pop's score
// and ARGV are now + retry_after.
import { describe, expect, it } from 'vitest';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import type { Arg, CmdPattern, StepPattern } from '../helpers/trace.ts';
import {
  at,
  c,
  emptyPoll,
  evalScript,
  expectSteps,
  lua,
  migrate,
  payload,
  popDue,
  popScript,
  queue,
  releaseScript,
  same,
} from '../helpers/trace.ts';
import { runShipped, useRedis } from '../helpers/run.ts';

const redis = useRedis();
const SELECT = c('SELECT', '0');
const Q = queue('default');
const CALL = 'Illuminate\\Queue\\CallQueuedHandler@call';
const ID = (s: string) => (/^[A-Za-z0-9]{32}$/.test(s) ? null : 'a 32-character Str::random id');

/** serialize() of a 5.7 job with Dispatchable, InteractsWithQueue, Queueable, SerializesModels and no own properties. */
const command57 = (cls: string, delay = 'N;') =>
  `O:${cls.length}:"${cls}":7:{s:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;s:10:"chainQueue";N;s:5:"delay";${delay}s:7:"chained";a:0:{}}`;

const run = (name: string): Promise<Timeline> => runShipped(name, redis());
const last = (t: Timeline) => t.steps[t.steps.length - 1]!;

describe('dispatch', () => {
  it('RPUSHes the seed-000 payload shape onto queues:default', async () => {
    const t = await run('dispatch');
    const cls = 'App\\Jobs\\SendWelcomeEmail';
    expectSteps(t, [
      {
        actor: 'dispatcher',
        t: 0,
        kind: 'dispatch',
        commands: [
          SELECT,
          c(
            'RPUSH',
            'queues:default',
            payload({
              displayName: cls,
              job: CALL,
              maxTries: null,
              timeout: null,
              timeoutAt: null,
              'data.commandName': cls,
              'data.command': command57(cls),
              attempts: 0,
            }),
          ),
        ],
      },
    ]);
    const raw = t.steps[0]!.commands[1]!.args[2]!;
    const p = JSON.parse(raw) as Record<string, unknown>;
    // json_encode keeps PHP's array order: the order of createObjectPayload + id, attempts (seed 000).
    expect(Object.keys(p)).toEqual([
      'displayName',
      'job',
      'maxTries',
      'timeout',
      'timeoutAt',
      'data',
      'id',
      'attempts',
    ]);
    expect(ID(p.id as string)).toBeNull();
    // PHP escapes backslashes and slashes and writes NUL as \u0000, as in seed 000's payload.
    expect(raw).toContain('"displayName":"App\\\\Jobs\\\\SendWelcomeEmail"');
    expect(raw).toContain('"job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call"');
    expect(raw).toContain('\\u0000*\\u0000job');
    // No worker: the job stays on the ready list.
    expect(last(t).state.queues[0]!.sizes).toEqual({ ready: 1, delayed: 0, reserved: 0 });
  });
});

describe('dispatch-later', () => {
  it('ZADDs to :delayed with score now+delay; a poll at/after the score migrates and pops it', async () => {
    const t = await run('dispatch-later');
    const cls = 'App\\Jobs\\SendReminder';
    expectSteps(t, [
      // later(60): ZADD queues:default:delayed <now+60> <payload>; the job's $delay is serialized as i:60.
      {
        actor: 'dispatcher',
        t: 0,
        commands: [
          SELECT,
          c('ZADD', Q.delayed, at(60), payload({ attempts: 0, 'data.command': command57(cls, 'i:60;') }, 'p')),
        ],
      },
      // Polls at t+0 and t+30 (--sleep=30): zrangebyscore -inf now finds nothing before t+60.
      { actor: 'worker-1', t: 0, kind: 'pop', commands: [SELECT, ...emptyPoll(Q, 0)] },
      { actor: 'worker-1', t: 30, kind: 'pop', commands: emptyPoll(Q, 30) },
      // t+60: score 60 <= now, so zremrangebyrank 0 0 and one rpush of the unchanged payload.
      {
        actor: 'worker-1',
        t: 60,
        kind: 'pop',
        commands: [
          ...migrate(Q.delayed, Q.ready, 60, [[same('p')]]),
          ...migrate(Q.reserved, Q.ready, 60),
          ...popScript(Q, 60, 90, payload({ attempts: 1 }, 'r')),
        ],
      },
      { actor: 'worker-1', t: 60, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r'))] },
    ]);
  });
});

describe('reserve', () => {
  it('the pop script moves the job to :reserved (score now+retry_after) with attempts+1', async () => {
    const t = await run('reserve');
    expectSteps(t, [
      { actor: 'dispatcher', t: 0, commands: [SELECT, c('RPUSH', Q.ready, payload({ attempts: 0 }, 'p'))] },
      {
        actor: 'worker-1',
        t: 0,
        kind: 'pop',
        commands: [
          SELECT,
          ...migrate(Q.delayed, Q.ready, 0),
          ...migrate(Q.reserved, Q.ready, 0),
          ...popScript(Q, 0, 90, payload({ attempts: 1 }, 'r')),
        ],
      },
      // handle() runs 30 s; the run stops at until: 5 while it is still running.
      { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
      // Queue::size('default') from a new request: the size script, 3 keys, no ARGV.
      {
        actor: 'dispatcher',
        t: 1,
        kind: 'size',
        commands: [
          SELECT,
          ...evalScript(
            'size',
            [Q.ready, Q.delayed, Q.reserved],
            [],
            [lua('llen', Q.ready), lua('zcard', Q.delayed), lua('zcard', Q.reserved)],
          ),
        ],
      },
    ]);
    expect(t.steps[3]!.title).toBe("Queue::size('default') = 1");
    const pushed = t.steps[0]!.commands[1]!.args[2]!;
    const reserved = t.steps[1]!.commands.find((x) => x.source === 'lua' && x.args[0] === 'zadd')!.args[3]!;
    // cjson re-encodes the payload: the same data except attempts (its key order is the server's).
    expect({ ...JSON.parse(reserved), attempts: 0 }).toEqual(JSON.parse(pushed));
    const state = last(t).state;
    expect(state.queues[0]!.reserved).toMatchObject([{ job: 'ProcessPodcast#1', attempts: 1, score: t.start + 90 }]);
    expect(state.queues[0]!.sizes.ready).toBe(0);
    expect(state.workers[0]!.status).toMatchObject({ kind: 'running', job: 'ProcessPodcast#1', attempt: 1 });
  });
});

describe('success', () => {
  it('ZREMs exactly the reserved string the pop script stored', async () => {
    const t = await run('success');
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
          ...popScript(Q, 0, 90, payload({ attempts: 1 }, 'r')),
        ],
      },
      { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
      { actor: 'worker-1', t: 2, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r'))] },
    ]);
    expect(last(t).title).toContain('ZREM removed 1');
    expect(t.jobs).toMatchObject([{ label: 'ResizeImage#1', outcome: 'succeeded', executions: 1 }]);
  });
});

describe('failure-release', () => {
  it('throws, is released to :delayed for --delay 10, migrated back at t+10 and succeeds as attempts 2', async () => {
    const t = await run('failure-release');
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
      // handleJobException: attempts 1 < tries 3 → release(--delay=10): release script KEYS
      // [:delayed, :reserved], ARGV [reserved payload, now+10] → zrem :reserved, zadd :delayed.
      {
        actor: 'worker-1',
        t: 0,
        kind: 'release',
        commands: evalScript(
          'release',
          [Q.delayed, Q.reserved],
          [same('r1'), at(10)],
          [lua('zrem', Q.reserved, same('r1')), lua('zadd', Q.delayed, at(10), same('r1'))],
        ),
      },
      // The loop goes straight to the next poll; nothing is due, so it sleeps 5.
      { actor: 'worker-1', t: 0, kind: 'pop', commands: emptyPoll(Q, 0) },
      { actor: 'worker-1', t: 5, kind: 'pop', commands: emptyPoll(Q, 5) },
      // t+10: the released copy (already attempts 1) is due; the pop makes it attempts 2.
      {
        actor: 'worker-1',
        t: 10,
        kind: 'pop',
        commands: [
          ...migrate(Q.delayed, Q.ready, 10, [[same('r1')]]),
          ...migrate(Q.reserved, Q.ready, 10),
          ...popScript(Q, 10, 90, payload({ attempts: 2 }, 'r2')),
        ],
      },
      { actor: 'worker-1', t: 10, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r2'))] },
    ]);
    expect(t.failed).toEqual([]);
    expect(t.jobs[0]).toMatchObject({ outcome: 'succeeded', executions: 2 });
  });
});

describe('failure-exhausted', () => {
  it('releases after attempts 1 and 2, then fails on attempt 3 of --tries=3 with ZREM and a failed_jobs row', async () => {
    const t = await run('failure-exhausted');
    const release = (r: string, due: number): CmdPattern[] => releaseScript(Q, r, due);
    const popFound = (tt: number, from: string, to: string, attempts: number): CmdPattern[] =>
      popDue(Q, tt, from, to, attempts);
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
      { actor: 'worker-1', t: 0, kind: 'release', commands: release('r1', 5) },
      { actor: 'worker-1', t: 0, kind: 'pop', commands: emptyPoll(Q, 0) },
      { actor: 'worker-1', t: 5, kind: 'pop', commands: popFound(5, 'r1', 'r2', 2) },
      { actor: 'worker-1', t: 5, kind: 'release', commands: release('r2', 10) },
      { actor: 'worker-1', t: 5, kind: 'pop', commands: emptyPoll(Q, 5) },
      { actor: 'worker-1', t: 10, kind: 'pop', commands: popFound(10, 'r2', 'r3', 3) },
      // markJobAsFailedIfWillExceedMaxAttempts: attempts 3 >= tries 3 → failJob → delete only.
      { actor: 'worker-1', t: 10, kind: 'fail', commands: [c('ZREM', Q.reserved, same('r3'))] },
    ]);
    expect(t.failed).toMatchObject([
      { job: 'SyncInventory#1', exception: 'Exception', message: 'Supplier API returned 500', failedAt: t.start + 10 },
    ]);
    expect(t.jobs[0]).toMatchObject({ outcome: 'failed', executions: 3 });
  });
});

describe('timeout-max-attempts', () => {
  it('kill leaves the job in :reserved; after retry_after it is migrated, popped as attempts 2 and failed unrun', async () => {
    const t = await run('timeout-max-attempts');
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
      // handle() needs 120 s; the 60 s alarm fires first: SIGKILL, no Redis command at all.
      { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
      { actor: 'worker-1', t: 60, kind: 'kill', commands: [] },
      { actor: 'worker-1', t: 60, kind: 'restart', commands: [] },
      // The new process is a new Predis connection: SELECT 0 again. The reservation (score
      // t+90) has not expired at t+60, t+70, t+80 (--sleep=10).
      { actor: 'worker-1', t: 60, kind: 'pop', commands: [SELECT, ...emptyPoll(Q, 60)] },
      { actor: 'worker-1', t: 70, kind: 'pop', commands: emptyPoll(Q, 70) },
      { actor: 'worker-1', t: 80, kind: 'pop', commands: emptyPoll(Q, 80) },
      // t+90: migrate(:reserved) moves the attempts-1 copy back; the pop makes it attempts 2.
      {
        actor: 'worker-1',
        t: 90,
        kind: 'pop',
        commands: [
          ...migrate(Q.delayed, Q.ready, 90),
          ...migrate(Q.reserved, Q.ready, 90, [[same('r1')]]),
          ...popScript(Q, 90, 90, payload({ attempts: 2 }, 'r2')),
        ],
      },
      // markJobAsFailedIfAlreadyExceedsMaxAttempts: attempts 2 > tries 1 → failJob (ZREM), never fired.
      { actor: 'worker-1', t: 90, kind: 'fail', commands: [c('ZREM', Q.reserved, same('r2'))] },
    ]);
    expect(t.failed).toMatchObject([
      {
        exception: 'Illuminate\\Queue\\MaxAttemptsExceededException',
        message:
          'App\\Jobs\\ImportCsv has been attempted too many times or run too long. The job may have previously timed out.',
      },
    ]);
    expect(t.jobs[0]).toMatchObject({ outcome: 'failed', executions: 1 });
    // While killed, the job sat in :reserved with the original reservation's score.
    const killed = t.steps[3]!.state;
    expect(killed.queues[0]!.reserved).toMatchObject([{ job: 'ImportCsv#1', attempts: 1, score: t.start + 90 }]);
    expect(killed.workers[0]!.status).toEqual({ kind: 'killed', job: 'ImportCsv#1' });
    expect(t.steps[5]!.state.workers[0]!.generation).toBe(2);
  });
});

describe('retry-after-vs-timeout', () => {
  it('runs the job twice when retry_after (30) < its run time (45), and once with retry_after 90 > run time and timeout 60 < retry_after', async () => {
    const t = await run('retry-after-vs-timeout');
    const L = queue('long');
    const polls = (actor: string, times: number[], q = Q, ra = 30): StepPattern[] =>
      times.map((tt) => ({ actor, t: tt, kind: 'pop' as const, commands: emptyPoll(q, tt, ra) }));
    expectSteps(t, [
      { actor: 'dispatcher', t: 0, commands: [SELECT, c('RPUSH', Q.ready, payload({ attempts: 0 }))] },
      // worker-1 (--once) reserves it until t+30 (retry_after 30).
      {
        actor: 'worker-1',
        t: 0,
        kind: 'pop',
        commands: [
          SELECT,
          ...migrate(Q.delayed, Q.ready, 0),
          ...migrate(Q.reserved, Q.ready, 0),
          ...popScript(Q, 0, 30, payload({ attempts: 1 }, 'r1')),
        ],
      },
      { actor: 'worker-2', t: 0, kind: 'pop', commands: [SELECT, ...emptyPoll(Q, 0, 30)] },
      { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
      ...polls('worker-2', [10, 20]),
      // t+30: the reservation expired while worker-1 still runs it; worker-2 takes it again.
      {
        actor: 'worker-2',
        t: 30,
        kind: 'pop',
        commands: [
          ...migrate(Q.delayed, Q.ready, 30),
          ...migrate(Q.reserved, Q.ready, 30, [[same('r1')]]),
          ...popScript(Q, 30, 30, payload({ attempts: 2 }, 'r2')),
        ],
      },
      { actor: 'worker-2', t: 30, kind: 'process', commands: [] },
      // worker-1 finishes at t+45: ZREM of its attempts-1 copy, which is no longer there.
      { actor: 'worker-1', t: 45, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r1'))] },
      { actor: 'worker-1', t: 45, kind: 'stop', commands: [] },
      // worker-2 finishes at t+75: its copy (score t+60) was never migrated: nobody polled.
      { actor: 'worker-2', t: 75, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r2'))] },
      ...polls('worker-2', [75]),
      // SIGTERM at t+80 while worker-2 sleeps (--sleep 10 from t+75): the handler sets shouldQuit,
      // PHP's sleep() returns early on a signal, and stopIfNecessary stops it at once, at t+80.
      { actor: 'worker-2', t: 80, kind: 'stop', commands: [] },
      { actor: 'worker-2', t: 80, kind: 'stop', commands: [] },
      // Part 2 on connection redis-long, queue long, retry_after 90.
      { actor: 'dispatcher', t: 100, commands: [SELECT, c('RPUSH', L.ready, payload({ attempts: 0 }))] },
      {
        actor: 'worker-3',
        t: 100,
        kind: 'pop',
        commands: [
          SELECT,
          ...migrate(L.delayed, L.ready, 100),
          ...migrate(L.reserved, L.ready, 100),
          ...popScript(L, 100, 90, payload({ attempts: 1 }, 'r3')),
        ],
      },
      { actor: 'worker-4', t: 100, kind: 'pop', commands: [SELECT, ...emptyPoll(L, 100)] },
      { actor: 'worker-3', t: 100, kind: 'process', commands: [] },
      ...polls('worker-4', [110, 120, 130, 140], L, 90),
      { actor: 'worker-3', t: 145, kind: 'delete', commands: [c('ZREM', L.reserved, same('r3'))] },
    ]);
    const deletes = t.steps
      .filter((x) => x.kind === 'delete')
      .map((x) => [x.actor, x.title.match(/ZREM removed \d/)?.[0]]);
    expect(deletes).toEqual([
      ['worker-1', 'ZREM removed 0'],
      ['worker-2', 'ZREM removed 1'],
      ['worker-3', 'ZREM removed 1'],
    ]);
    expect(t.jobs.map((j) => [j.label, j.executions])).toEqual([
      ['GenerateReport#1', 2],
      ['GenerateReport#2', 1],
    ]);
    // The narration states the lesson at each start: which deadline comes first.
    const starts = t.steps.filter((x) => x.kind === 'process').map((x) => x.explain);
    expect(starts[0]).toBe(
      'Finishes at t+45s; the reservation expires at t+30s; no alarm (--once never arms one): the reservation expires while it still runs, so another worker can migrate it and run it again.',
    );
    expect(starts[1]).toContain(
      'the reservation expires at t+60s; the alarm fires at t+90s: the reservation expires while it still runs',
    );
    expect(starts[2]).toBe(
      'Finishes at t+145s; the reservation expires at t+190s; the alarm fires at t+160s: it finishes first, and were it stuck, the alarm would kill it before the reservation expires.',
    );
  });
});

describe('priority-queues', () => {
  it('--queue=high,default pops high first, and only falls through to default when high is empty', async () => {
    const t = await run('priority-queues');
    const H = queue('high');
    expectSteps(t, [
      {
        actor: 'dispatcher',
        t: 0,
        commands: [SELECT, c('RPUSH', Q.ready, payload({ displayName: 'App\\Jobs\\SendNewsletter' }))],
      },
      // ->onQueue('high') also lands in the serialized job ($queue = "high").
      {
        actor: 'dispatcher',
        t: 0,
        commands: [
          SELECT,
          c(
            'RPUSH',
            H.ready,
            payload({
              displayName: 'App\\Jobs\\ResetPassword',
              'data.command': command57('App\\Jobs\\ResetPassword').replace(
                's:5:"queue";N;',
                's:5:"queue";s:4:"high";',
              ),
            }),
          ),
        ],
      },
      {
        actor: 'worker-1',
        t: 0,
        kind: 'pop',
        commands: [
          SELECT,
          ...migrate(H.delayed, H.ready, 0),
          ...migrate(H.reserved, H.ready, 0),
          ...popScript(H, 0, 90, payload({ displayName: 'App\\Jobs\\ResetPassword', attempts: 1 }, 'rh')),
        ],
      },
      { actor: 'worker-1', t: 0, kind: 'delete', commands: [c('ZREM', H.reserved, same('rh'))] },
      {
        actor: 'worker-1',
        t: 0,
        kind: 'pop',
        commands: [
          ...emptyPoll(H, 0),
          ...migrate(Q.delayed, Q.ready, 0),
          ...migrate(Q.reserved, Q.ready, 0),
          ...popScript(Q, 0, 90, payload({ displayName: 'App\\Jobs\\SendNewsletter', attempts: 1 }, 'rd')),
        ],
      },
      { actor: 'worker-1', t: 0, kind: 'delete', commands: [c('ZREM', Q.reserved, same('rd'))] },
    ]);
  });
});

describe('block-for', () => {
  it('BLPOPs the ready list; a push wakes it and PHP ZADDs the json_encoded copy; otherwise it times out after block_for', async () => {
    const t = await run('block-for');
    // blockingPop: json_decode, attempts++, json_encode: PHP keeps the key order, so the reserved
    // copy is the pushed string with "attempts":0 (the last key) turned into "attempts":1.
    const phpReserved: Arg = (arg, ctx) => {
      const pushed = ctx.bound.get('p')!;
      return arg === pushed.replace(/"attempts":0}$/, '"attempts":1}')
        ? null
        : 'the pushed payload with attempts 1, PHP key order';
    };
    expectSteps(t, [
      {
        actor: 'worker-1',
        t: 0,
        kind: 'block',
        commands: [
          SELECT,
          ...migrate(Q.delayed, Q.ready, 0),
          ...migrate(Q.reserved, Q.ready, 0),
          c('BLPOP', Q.ready, '5'),
        ],
      },
      { actor: 'dispatcher', t: 2, commands: [SELECT, c('RPUSH', Q.ready, payload({ attempts: 0 }, 'p'))] },
      // Served at t+2: the reservation runs to t+2+90. No pop script: a plain ZADD from PHP.
      { actor: 'worker-1', t: 2, kind: 'pop', commands: [c('ZADD', Q.reserved, at(92), phpReserved)] },
      { actor: 'worker-1', t: 2, kind: 'delete', commands: [c('ZREM', Q.reserved, phpReserved)] },
      {
        actor: 'worker-1',
        t: 2,
        kind: 'block',
        commands: [...migrate(Q.delayed, Q.ready, 2), ...migrate(Q.reserved, Q.ready, 2), c('BLPOP', Q.ready, '5')],
      },
      // Nothing within 5 s: BLPOP returns nil at t+7 (no new MONITOR line), then --sleep=3.
      { actor: 'worker-1', t: 7, kind: 'pop', commands: [] },
      {
        actor: 'worker-1',
        t: 10,
        kind: 'block',
        commands: [...migrate(Q.delayed, Q.ready, 10), ...migrate(Q.reserved, Q.ready, 10), c('BLPOP', Q.ready, '5')],
      },
    ]);
  });
});

describe('migrate-chunking', () => {
  it('moves 250 due jobs with one zremrangebyrank and rpush chunks of 100, 100 and 50, in ZSET order', async () => {
    const t = await run('migrate-chunking');
    const zadds = t.steps[0]!.commands.slice(1);
    expect(zadds).toHaveLength(250);
    zadds.forEach((z) => expect(z.args.slice(0, 3)).toEqual(['ZADD', Q.delayed, String(t.start + 10)]));
    // Equal scores: a ZSET orders members by their bytes, so zrangebyscore returns the payloads
    // sorted, not in dispatch order (payloads are ASCII, so JS string order is byte order).
    const sorted = zadds.map((z) => z.args[3]!).sort();
    const chunk = (from: number, to: number): Arg[] => sorted.slice(from, to);
    expectSteps(t, [
      { actor: 'dispatcher', t: 0, commands: [SELECT, ...zadds.map((z) => c(...z.args))] },
      { actor: 'worker-1', t: 0, kind: 'pop', commands: [SELECT, ...emptyPoll(Q, 0)] },
      {
        actor: 'worker-1',
        t: 10,
        kind: 'pop',
        commands: [
          ...migrate(Q.delayed, Q.ready, 10, [chunk(0, 100), chunk(100, 200), chunk(200, 250)]),
          ...migrate(Q.reserved, Q.ready, 10),
          ...popScript(Q, 10, 90, payload({ id: JSON.parse(sorted[0]!).id, attempts: 1 })),
        ],
      },
      { actor: 'worker-1', t: 10, kind: 'process', commands: [] },
    ]);
    expect(last(t).state.queues[0]!.sizes).toEqual({ ready: 249, delayed: 0, reserved: 1 });
  });
});
