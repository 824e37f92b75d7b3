// Job chains against a real redis-server: ->chain() on a dispatch (5.5+) and Bus::chain() (8.0+).
// Every expectation is derived by hand from Laravel's source, never from the tool's output:
// - the web request pushes only the first job; the others are serialize()d into its data.command
//   ($chained), Bus::chain() adding $chainQueue / $chainConnection and $chainCatchCallbacks = []
//   (Bus/Queueable.php@v8.83.26:185-192; Foundation/Bus/PendingChain.php@v8.83.26:136-164);
// - CallQueuedHandler::call (Queue/CallQueuedHandler.php@v8.83.26:56-84), after handle() returns:
//   `if (! $job->hasFailed() && ! $job->isReleased())` ensureNextJobInChainIsDispatched, THEN
//   `if (! $job->isDeletedOrReleased()) $job->delete()`. So the worker's own connection (no new
//   SELECT) sends the next job's push before the ZREM of the job that ran; a job that called
//   $this->delete() has its ZREM first; a released or failed job pushes nothing;
// - Queueable::dispatchNextJobInChain (:222-237) unserializes the next job, gives it the rest of
//   the chain, `$next->queue ?: $chainQueue` (and the connection likewise) and the chain's own
//   properties, and dispatch()es it: a new payload, so a new uuid (Str::uuid) and id (Str::random).
// 8.x conventions (as in kill.test.ts): prefix laravel_database_, phpredis SELECT 0 on every new
// connection, every poll is migrate(:delayed), migrate(:reserved), pop, with :notify as 3rd key.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenarios/load.ts';
import { ScenarioError } from '../../src/scenarios/errors.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { laravel13 } from '../../src/sim/profiles/laravel-13.ts';
import { laravel57 } from '../../src/sim/profiles/laravel-5.7.ts';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import type { Arg, ArgMatcher, CmdPattern } from '../helpers/trace.ts';
import { at, c, evalScript, expectSteps, lua, migrate as migrate2, popScript, same } from '../helpers/trace.ts';
import { runFile, useRedis } from '../helpers/run.ts';
import { wire } from '../helpers/wire-8.ts';

const redis = useRedis();
const SELECT = c('SELECT', '0');

async function runInline(yaml: string, laravel?: string): Promise<Timeline> {
  const { spec } = parseScenario(yaml, 'inline.yaml');
  return runScenario(spec, { redis: redis(), laravel });
}

interface Keys {
  ready: string;
  delayed: string;
  reserved: string;
  notify: string;
}
const P8 = 'laravel_database_';
const keys = (prefix: string, name: string): Keys => ({
  ready: `${prefix}queues:${name}`,
  delayed: `${prefix}queues:${name}:delayed`,
  reserved: `${prefix}queues:${name}:reserved`,
  notify: `${prefix}queues:${name}:notify`,
});

/** serialize()'s s:<bytes>:"...";, and N; for null. */
const str = (v: string): string => `s:${Buffer.byteLength(v)}:"${v}";`;
const orNull = (v: string | undefined): string => (v === undefined ? 'N;' : str(v));
const list = (items: string[]): string => `a:${items.length}:{${items.map((x, i) => `i:${i};${str(x)}`).join('')}}`;

interface Set8 {
  connection?: string;
  queue?: string;
  chainConnection?: string;
  chainQueue?: string;
  /** Bus::chain()'s $chainCatchCallbacks = [] (else null). */
  caught?: boolean;
  delay?: number;
  chained?: string[];
}

/**
 * serialize() of an 8.83 make:job class with no properties of its own: InteractsWithQueue's public
 * $job, then Queueable's connection, queue, chainConnection, chainQueue, chainCatchCallbacks, delay,
 * afterCommit, middleware (= []), chained (= []) (Bus/Queueable.php@v8.83.26:17-73): 10 properties.
 */
function cmd8(cls: string, o: Set8 = {}): string {
  return (
    `O:${cls.length}:"${cls}":10:{s:3:"job";N;s:10:"connection";${orNull(o.connection)}s:5:"queue";${orNull(o.queue)}` +
    `s:15:"chainConnection";${orNull(o.chainConnection)}s:10:"chainQueue";${orNull(o.chainQueue)}` +
    `s:19:"chainCatchCallbacks";${o.caught ? 'a:0:{}' : 'N;'}s:5:"delay";${o.delay === undefined ? 'N;' : `i:${o.delay};`}` +
    `s:11:"afterCommit";N;s:10:"middleware";a:0:{}s:7:"chained";${list(o.chained ?? [])}}`
  );
}

/** A PHP string inside json_encode's output: `\` → `\\`, `"` → `\"` ("/" would be "\/"; none here). */
const json = (s: string): string => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\0/g, '\\u0000');

const UUID = /^\{"uuid":"([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})"/;
const ID = /"id":"([A-Za-z0-9]{32})"/;

/**
 * A payload equal to `expected` byte for byte once its uuid and 32-character id are masked as
 * <uuid> and <id> (they are drawn per job); bound to `bind` for a later same().
 */
const exactly =
  (expected: string, bind?: string): ArgMatcher =>
  (arg, ctx) => {
    const masked = arg.replace(UUID, '{"uuid":"<uuid>"').replace(ID, '"id":"<id>"');
    if (masked !== expected) return `the payload ${expected}`;
    return bind ? same(bind)(arg, ctx) : null;
  };

/** An 8.83 ready-list payload (Queue::createObjectPayload, 8.43+ order, then id and attempts 0). */
const payload8 = (cls: string, command: string): string =>
  `{"uuid":"<uuid>","displayName":"${json(cls)}","job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call",` +
  `"maxTries":null,"maxExceptions":null,"failOnTimeout":false,"backoff":null,"timeout":null,"retryUntil":null,` +
  `"data":{"commandName":"${json(cls)}","command":"${json(command)}"},"id":"<id>","attempts":0}`;

/** The reserved copy of a pushed payload: the same fields, attempts 1 (cjson reorders keys: compare parsed). */
const reservedOf =
  (bound: string, attempts: number, bind: string): ArgMatcher =>
  (arg, ctx) => {
    const pushed = ctx.bound.get(bound);
    if (pushed === undefined) return `${bound} is not bound yet`;
    const want = { ...(JSON.parse(pushed) as Record<string, unknown>), attempts };
    if (JSON.stringify(sortKeys(JSON.parse(arg))) !== JSON.stringify(sortKeys(want)))
      return `the copy of ${bound} with attempts ${attempts}`;
    return same(bind)(arg, ctx);
  };
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
  );
}

/** The wire (test/helpers/wire-8.ts) of queue `q`: 8's by the prefix laravel_database_, else 13's. */
const on8 = (q: Keys, retryAfter = 90) => {
  const laravel = q.ready.startsWith(P8) ? '8' : '13';
  return wire(laravel, { queue: q.ready.slice(q.ready.indexOf('queues:') + 'queues:'.length), retryAfter });
};
/** 5.8+ scripts (8.x and 13.x): push, and a poll's migrate ×2 and pop, each with the :notify key. */
const push8 = (q: Keys, p: Arg): CmdPattern[] => on8(q).pushed(p);
const poll8 = (q: Keys, t: number, o: { reserved?: Arg; moved?: Arg[] } = {}): CmdPattern[] => on8(q).poll(t, o);

const D8 = keys(P8, 'default');
const A = 'App\\Jobs\\A';
const B = 'App\\Jobs\\B';
const C = 'App\\Jobs\\C';

/** The uuids and ids of every payload a client pushed, in order. */
function identities(t: Timeline): Array<{ uuid: string; id: string }> {
  return t.steps.flatMap((s) =>
    s.commands
      .filter((x) => x.source === 'client' && x.args[0] === 'EVAL' && x.args.at(-1)!.startsWith('{"uuid"'))
      .map((x) => ({ uuid: UUID.exec(x.args.at(-1)!)![1]!, id: ID.exec(x.args.at(-1)!)![1]! })),
  );
}

describe('Laravel 8: A::dispatch()->chain([new B, new C])', () => {
  it('pushes A with B and C serialized in it; the worker pushes B (rest: C) before ZREM A, then C before ZREM B', async () => {
    const t = await runInline(`
name: inline
title: inline
laravel: "8"
workers: [{ name: worker-1 }]
jobs:
  A: { class: App\\Jobs\\A }
  B: { class: App\\Jobs\\B }
  C: { class: App\\Jobs\\C }
timeline:
  - { at: 0, dispatch: A, chain: [B, C] }
`);
    // ->chain() leaves chainQueue, chainConnection and chainCatchCallbacks null; each link as `new`.
    const cmdA = cmd8(A, { chained: [cmd8(B), cmd8(C)] });
    // dispatchNextJobInChain: B gets $chained = [C]; its queue stays null (no chainQueue), so it goes
    // to the default connection's default queue.
    const cmdB = cmd8(B, { chained: [cmd8(C)] });
    const cmdC = cmd8(C);
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [SELECT, ...push8(D8, exactly(payload8(A, cmdA), 'pA'))],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...poll8(D8, 0, { reserved: reservedOf('pA', 1, 'rA') })],
        },
        // A returned: B's push from worker-1's connection (no SELECT), then the ZREM of A.
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [...push8(D8, exactly(payload8(B, cmdB), 'pB')), c('ZREM', D8.reserved, same('rA'))],
        },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: poll8(D8, 0, { reserved: reservedOf('pB', 1, 'rB') }) },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [...push8(D8, exactly(payload8(C, cmdC), 'pC')), c('ZREM', D8.reserved, same('rB'))],
        },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: poll8(D8, 0, { reserved: reservedOf('pC', 1, 'rC') }) },
        // C is the last: $chained is empty, so nothing more is pushed.
        { actor: 'worker-1', t: 0, kind: 'delete', commands: [c('ZREM', D8.reserved, same('rC'))] },
      ],
      laravel8,
    );
    // Each push is a new payload: a new uuid and a new id.
    const ids = identities(t);
    expect(ids).toHaveLength(3);
    expect(new Set(ids.map((x) => x.uuid)).size).toBe(3);
    expect(new Set(ids.map((x) => x.id)).size).toBe(3);
    expect(t.jobs.map((j) => [j.label, j.outcome, j.executions])).toEqual([
      ['A#1', 'succeeded', 1],
      ['B#1', 'succeeded', 1],
      ['C#1', 'succeeded', 1],
    ]);
    expect(t.steps[2]!.title).toBe(
      `A#1 succeeded: the chain pushes B#1 onto ${D8.ready} (rest of chain: C) from worker-1's connection, then ZREM removed 1`,
    );
  });

  it('a link that deletes itself goes on (ZREM first, then the push); one released goes on only after its retry', async () => {
    const t = await runInline(`
name: inline
title: inline
laravel: "8"
workers: [{ name: worker-1, tries: 2 }]
jobs:
  A: { class: App\\Jobs\\A, attempts: [delete] }
  B: { class: App\\Jobs\\B, attempts: [{ throw: Busy }, succeed] }
  C: { class: App\\Jobs\\C }
timeline:
  - { at: 0, dispatch: A, chain: [B, C] }
`);
    const cmdB = cmd8(B, { chained: [cmd8(C)] });
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [SELECT, ...push8(D8, exactly(payload8(A, cmd8(A, { chained: [cmd8(B), cmd8(C)] })), 'pA'))],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...poll8(D8, 0, { reserved: reservedOf('pA', 1, 'rA') })],
        },
        // $this->delete() in handle(): the ZREM; then CallQueuedHandler, seeing neither failed nor released, pushes B.
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [c('ZREM', D8.reserved, same('rA')), ...push8(D8, exactly(payload8(B, cmdB), 'pB'))],
        },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: poll8(D8, 0, { reserved: reservedOf('pB', 1, 'rB1') }) },
        // B throws on attempt 1 of 2: released with --backoff 0 to :delayed (the release script); no push.
        {
          actor: 'worker-1',
          t: 0,
          kind: 'release',
          commands: evalScript(
            'release',
            [D8.delayed, D8.reserved],
            [same('rB1'), at(0)],
            [lua('zrem', D8.reserved, same('rB1')), lua('zadd', D8.delayed, at(0), same('rB1'))],
          ),
        },
        // Due at once: the next poll migrates it back and reserves attempts 2.
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: poll8(D8, 0, { moved: [same('rB1')], reserved: reservedOf('pB', 2, 'rB2') }),
        },
        // The retry returns: now C is pushed (the same payload the chain carried), then ZREM B.
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [...push8(D8, exactly(payload8(C, cmd8(C)), 'pC')), c('ZREM', D8.reserved, same('rB2'))],
        },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: poll8(D8, 0, { reserved: reservedOf('pC', 1, 'rC') }) },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: [c('ZREM', D8.reserved, same('rC'))] },
      ],
      laravel8,
    );
    expect(t.steps[4]!.explain).toContain(
      'The chain waits: a released job dispatches nothing, so C stays in its payload',
    );
  });
});

describe('Laravel 8: ->chain() on a dispatch call of a request', () => {
  it('the request pushes A (B in its payload) and counts it with Queue::size on its one connection; the worker pushes B', async () => {
    const t = await runInline(`
name: inline
title: inline
laravel: "8"
workers: [{ name: worker-1 }]
jobs:
  A: { class: App\\Jobs\\A }
  B: { class: App\\Jobs\\B }
timeline:
  - { at: 0, request: [{ dispatch: A, chain: [B] }, { size: default }] }
`);
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [
            SELECT,
            ...push8(D8, exactly(payload8(A, cmd8(A, { chained: [cmd8(B)] })), 'pA')),
            // LuaScripts::size: LLEN + ZCARD :delayed + ZCARD :reserved, on the same connection.
            ...evalScript(
              'size',
              [D8.ready, D8.delayed, D8.reserved],
              [],
              [lua('llen', D8.ready), lua('zcard', D8.delayed), lua('zcard', D8.reserved)],
            ),
          ],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...poll8(D8, 0, { reserved: reservedOf('pA', 1, 'rA') })],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [...push8(D8, exactly(payload8(B, cmd8(B)), 'pB')), c('ZREM', D8.reserved, same('rA'))],
        },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: poll8(D8, 0, { reserved: reservedOf('pB', 1, 'rB') }) },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: [c('ZREM', D8.reserved, same('rB'))] },
      ],
      laravel8,
    );
  });
});

describe('Laravel 8: a failed link stops the chain', () => {
  it('B fails on its last try ($tries 1 by default in 8): ZREM only, C is never pushed; $this->fail() likewise', async () => {
    const t = await runInline(`
name: inline
title: inline
laravel: "8"
workers: [{ name: worker-1 }]
jobs:
  A: { class: App\\Jobs\\A }
  B: { class: App\\Jobs\\B, attempts: [{ throw: Bad input }] }
  C: { class: App\\Jobs\\C }
  D: { class: App\\Jobs\\D, attempts: [fail] }
timeline:
  - { at: 0, dispatch: A, chain: [B, C] }
  - { at: 5, dispatch: D, chain: [C] }
`);
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [SELECT, ...push8(D8, exactly(payload8(A, cmd8(A, { chained: [cmd8(B), cmd8(C)] })), 'pA'))],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...poll8(D8, 0, { reserved: reservedOf('pA', 1, 'rA') })],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [
            ...push8(D8, exactly(payload8(B, cmd8(B, { chained: [cmd8(C)] })), 'pB')),
            c('ZREM', D8.reserved, same('rA')),
          ],
        },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: poll8(D8, 0, { reserved: reservedOf('pB', 1, 'rB') }) },
        // markJobAsFailedIfWillExceedMaxAttempts: attempts 1 >= --tries 1 → failJob: the ZREM, nothing else.
        { actor: 'worker-1', t: 0, kind: 'fail', commands: [c('ZREM', D8.reserved, same('rB'))] },
        // Nothing to pop: the worker sleeps --sleep 3, polls at t+3 (nothing), then at t+6 finds D.
        { actor: 'worker-1', t: 0, kind: 'pop', commands: poll8(D8, 0) },
        { actor: 'worker-1', t: 3, kind: 'pop', commands: poll8(D8, 3) },
        {
          actor: 'dispatcher',
          t: 5,
          kind: 'dispatch',
          commands: [
            SELECT,
            ...push8(D8, exactly(payload8('App\\Jobs\\D', cmd8('App\\Jobs\\D', { chained: [cmd8(C)] })), 'pD')),
          ],
        },
        { actor: 'worker-1', t: 6, kind: 'pop', commands: poll8(D8, 6, { reserved: reservedOf('pD', 1, 'rD') }) },
        // $this->fail(): the job is failed (ZREM); CallQueuedHandler sees hasFailed(): no push of C.
        { actor: 'worker-1', t: 6, kind: 'fail', commands: [c('ZREM', D8.reserved, same('rD'))] },
      ],
      laravel8,
    );
    expect(t.jobs.map((j) => [j.label, j.outcome])).toEqual([
      ['A#1', 'succeeded'],
      ['B#1', 'failed'],
      ['D#1', 'failed'],
    ]);
    expect(t.steps[4]!.explain).toContain('The chain stops here: C is never dispatched');
    expect(t.steps[9]!.explain).toContain('The chain stops here: C is never dispatched');
  });
});

describe('Laravel 8: Bus::chain([A, B, C])->onQueue("pod")->dispatch()', () => {
  it('sets chainQueue and chainCatchCallbacks []; a link with its own queue keeps it; the others go to the chain queue', async () => {
    const t = await runInline(`
name: inline
title: inline
laravel: "8"
workers: [{ name: worker-1, queue: "pod,default" }]
jobs:
  A: { class: App\\Jobs\\A }
  B: { class: App\\Jobs\\B }
  C: { class: App\\Jobs\\C }
timeline:
  - { at: 0, chain: [A, { job: B, queue: default }, C], queue: pod }
`);
    const POD = keys(P8, 'pod');
    const chainOf = { chainQueue: 'pod', caught: true };
    // PendingChain::dispatch: A has no queue, so A->queue = 'pod'; chainQueue 'pod'; chain([B, C])
    // serializes (new B)->onQueue('default') and new C as they are; chainCatchCallbacks = [].
    const cmdA = cmd8(A, { queue: 'pod', ...chainOf, chained: [cmd8(B, { queue: 'default' }), cmd8(C)] });
    // B: its own queue 'default' wins over the chain queue; the chain's properties are passed on.
    const cmdB = cmd8(B, { queue: 'default', ...chainOf, chained: [cmd8(C)] });
    // C: no queue of its own → `$next->queue ?: $this->chainQueue` = 'pod'.
    const cmdC = cmd8(C, { queue: 'pod', ...chainOf });
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [SELECT, ...push8(POD, exactly(payload8(A, cmdA), 'pA'))],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...poll8(POD, 0, { reserved: reservedOf('pA', 1, 'rA') })],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [...push8(D8, exactly(payload8(B, cmdB), 'pB')), c('ZREM', POD.reserved, same('rA'))],
        },
        // --queue=pod,default: pod is empty, so the same getNextJob polls default and reserves B.
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [...poll8(POD, 0), ...poll8(D8, 0, { reserved: reservedOf('pB', 1, 'rB') })],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [...push8(POD, exactly(payload8(C, cmdC), 'pC')), c('ZREM', D8.reserved, same('rB'))],
        },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: poll8(POD, 0, { reserved: reservedOf('pC', 1, 'rC') }) },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: [c('ZREM', POD.reserved, same('rC'))] },
      ],
      laravel8,
    );
    expect(t.steps[0]!.title).toBe(`Bus::chain: dispatch A#1 onto ${POD.ready}, chained: B, C`);
  });

  it('->onConnection("second"): a link without a connection goes to the chain connection, pushed on the worker\'s one Redis connection', async () => {
    const t = await runInline(`
name: inline
title: inline
laravel: "8"
connections:
  redis: { queue: default }
  second: { queue: other, retry_after: 30 }
workers: [{ name: worker-1, connection: second }]
jobs:
  A: { class: App\\Jobs\\A }
  B: { class: App\\Jobs\\B }
timeline:
  - { at: 0, chain: [A, B], connection: second }
`);
    const OTHER = keys(P8, 'other');
    // A->connection = 'second' (its own was null), chainConnection 'second'; no queue anywhere, so
    // each push goes to the second connection's default queue, "other".
    const cmdA = cmd8(A, { connection: 'second', chainConnection: 'second', caught: true, chained: [cmd8(B)] });
    const cmdB = cmd8(B, { connection: 'second', chainConnection: 'second', caught: true });
    const reserve30 = (q: Keys, tt: number, r?: Arg): CmdPattern[] => on8(q, 30).poll(tt, { reserved: r });
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [SELECT, ...push8(OTHER, exactly(payload8(A, cmdA), 'pA'))],
        },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: [SELECT, ...reserve30(OTHER, 0, reservedOf('pA', 1, 'rA'))] },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [...push8(OTHER, exactly(payload8(B, cmdB), 'pB')), c('ZREM', OTHER.reserved, same('rA'))],
        },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: reserve30(OTHER, 0, reservedOf('pB', 1, 'rB')) },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: [c('ZREM', OTHER.reserved, same('rB'))] },
      ],
      laravel8,
    );
  });
});

describe('Laravel 5.7: ->chain() (Bus::chain() arrives in 8.0)', () => {
  it('RPUSHes A with $chained (no chainCatchCallbacks); worker-1 RPUSHes B on its own Predis connection, then ZREM', async () => {
    const t = await runInline(`
name: inline
title: inline
laravel: "5.7"
workers: [{ name: worker-1 }]
jobs:
  A: { class: App\\Jobs\\A }
  B: { class: App\\Jobs\\B }
timeline:
  - { at: 0, dispatch: A, chain: [B] }
`);
    // 5.7 Queueable (Bus/Queueable.php@v5.7.29:12-47): protected $job, connection, queue,
    // chainConnection, chainQueue, delay, chained: 7 properties. CallQueuedHandler::call
    // (Queue/CallQueuedHandler.php@v5.7.29:38-59) has the same order as 8: next job, then delete.
    const cmd57 = (cls: string, chained: string[] = []) =>
      `O:${cls.length}:"${cls}":7:{s:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;` +
      `s:10:"chainQueue";N;s:5:"delay";N;s:7:"chained";${list(chained)}}`;
    const payload57 = (cls: string, command: string): string =>
      `{"displayName":"${json(cls)}","job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call","maxTries":null,` +
      `"timeout":null,"timeoutAt":null,"data":{"commandName":"${json(cls)}","command":"${json(command)}"},"id":"<id>","attempts":0}`;
    const Q = keys('', 'default');
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [SELECT, c('RPUSH', Q.ready, exactly(payload57(A, cmd57(A, [cmd57(B)])), 'pA'))],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [
            SELECT,
            ...migrate2(Q.delayed, Q.ready, 0),
            ...migrate2(Q.reserved, Q.ready, 0),
            ...popScript(Q, 0, 90, reservedOf('pA', 1, 'rA')),
          ],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [c('RPUSH', Q.ready, exactly(payload57(B, cmd57(B)), 'pB')), c('ZREM', Q.reserved, same('rA'))],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [
            ...migrate2(Q.delayed, Q.ready, 0),
            ...migrate2(Q.reserved, Q.ready, 0),
            ...popScript(Q, 0, 90, reservedOf('pB', 1, 'rB')),
          ],
        },
        { actor: 'worker-1', t: 0, kind: 'delete', commands: [c('ZREM', Q.reserved, same('rB'))] },
      ],
      laravel57,
    );
  });
});

describe('Laravel 13: Bus::chain([A, (new B)->delay(5)])->onQueue("pod")', () => {
  it('writes only what differs from the defaults; the worker pushes B through the later script, due at t+5', async () => {
    const t = await runInline(`
name: inline
title: inline
laravel: "13"
workers: [{ name: worker-1, queue: pod }]
jobs:
  A: { class: App\\Jobs\\A }
  B: { class: App\\Jobs\\B }
timeline:
  - { at: 0, chain: [A, { job: B, delay: 5 }], queue: pod }
`);
    const POD = keys('laravel-database-', 'pod');
    // SerializesModels::__serialize@v13.26.1:46 skips properties equal to their defaults. In A's
    // $chained, (new B)->delay(5) is `O:10:"App\Jobs\B":1:{s:5:"delay";i:5;}`; A itself has queue
    // 'pod', $chained, chainQueue 'pod' and chainCatchCallbacks [] (Bus/Queueable.php@v13.26.1 order:
    // queue :29, delay :64, chained :85, chainConnection :92, chainQueue :99, chainCatchCallbacks :106).
    const chainedB = 'O:10:"App\\Jobs\\B":1:{s:5:"delay";i:5;}';
    const cmdA =
      `O:10:"App\\Jobs\\A":4:{s:5:"queue";s:3:"pod";s:7:"chained";${list([chainedB])}` +
      's:10:"chainQueue";s:3:"pod";s:19:"chainCatchCallbacks";a:0:{}}';
    // B as the worker dispatches it: queue ?: chainQueue = 'pod', its delay 5, $chained now [] (left out).
    const cmdB =
      'O:10:"App\\Jobs\\B":4:{s:5:"queue";s:3:"pod";s:5:"delay";i:5;s:10:"chainQueue";s:3:"pod";' +
      's:19:"chainCatchCallbacks";a:0:{}}';
    // 13.x payload (Queue/Queue.php@v13.26.1:173-191, createPayload's trailing delay).
    const payload13 = (cls: string, command: string, createdAt: number, delay: string): string =>
      `{"uuid":"<uuid>","displayName":"${json(cls)}","job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call",` +
      `"maxTries":null,"maxExceptions":null,"failOnTimeout":false,"backoff":null,"timeout":null,"retryUntil":null,` +
      `"deleteWhenMissingModels":false,"data":{"commandName":"${json(cls)}","command":"${json(command)}","batchId":null},` +
      `"createdAt":${createdAt},"id":"<id>","attempts":0,"delay":${delay}}`;
    // 13.x: the same scripts, migrate with `limit 0 -1` (migration_batch_size -1).
    const poll13 = (tt: number, o: { reserved?: Arg; moved?: Arg[] } = {}): CmdPattern[] => on8(POD).poll(tt, o);
    const start = 1700000000;
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [SELECT, ...push8(POD, exactly(payload13(A, cmdA, start, 'null'), 'pA'))],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [SELECT, ...poll13(0, { reserved: reservedOf('pA', 1, 'rA') })],
        },
        // Dispatcher::pushCommandToQueue: the delay is set, so later(): the later script (12.45+) ZADDs
        // :delayed at now + 5; the payload's delay is 5. Then the ZREM of A.
        {
          actor: 'worker-1',
          t: 0,
          kind: 'delete',
          commands: [
            ...evalScript(
              'later',
              [POD.delayed],
              [at(5), exactly(payload13(B, cmdB, start, '5'), 'pB')],
              [lua('zadd', POD.delayed, at(5), same('pB'))],
            ),
            c('ZREM', POD.reserved, same('rA')),
          ],
        },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: poll13(0) },
        { actor: 'worker-1', t: 3, kind: 'pop', commands: poll13(3) },
        {
          actor: 'worker-1',
          t: 6,
          kind: 'pop',
          commands: poll13(6, { moved: [same('pB')], reserved: reservedOf('pB', 1, 'rB') }),
        },
        { actor: 'worker-1', t: 6, kind: 'delete', commands: [c('ZREM', POD.reserved, same('rB'))] },
      ],
      laravel13,
    );
  });
});

describe('Laravel 5.3: no chains', () => {
  // A Laravel 8 file with a chain, run under --laravel 5.3 (the file itself loads: its version has chains).
  const SOURCE = [
    'name: chained',
    'title: chained',
    'laravel: "8"',
    'jobs:',
    '  A: { class: App\\Jobs\\A }',
    '  B: { class: App\\Jobs\\B }',
    'timeline:',
    '  - { at: 0, dispatch: A, chain: [B] }',
    '',
  ].join('\n');
  it('--laravel 5.3 refuses it before anything is sent, naming file, line, column and field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lqsim-chain-'));
    try {
      const file = join(dir, 'chained.yaml');
      await writeFile(file, SOURCE);
      // line 8 `  - { at: 0, dispatch: A, chain: [B] }`: the list at column 34.
      const err = await runFile(file, redis(), '5.3').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ScenarioError);
      expect((err as Error).message).toBe(
        `${file}:8:34: timeline.0.chain: job chains arrived in Laravel 5.5 (Bus\\Queueable::chain); the 5.3 profile has none`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it('a spec built in code is refused too, with its path', async () => {
    const { spec } = parseScenario(SOURCE, 'chained.yaml');
    await expect(runScenario(spec, { redis: redis(), laravel: '5.3' })).rejects.toThrow(
      'chained: timeline.0.chain: job chains arrived in Laravel 5.5',
    );
  });
});
