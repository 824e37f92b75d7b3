// One web request making several calls (the `request` entry), and many instances that differ
// (`every`, `properties`), against a real redis-server. Expected commands derived by hand from
// Laravel 8.83: a request is one PHP process, so one PhpRedisConnection (PhpRedisConnector::
// establishConnection selects `database` once, when the connection is made); Dispatcher::
// dispatchToQueue → RedisQueue::push → pushRaw = eval(LuaScripts::push(), 2, $queue,
// $queue.':notify', $payload) (rpush the payload, rpush a 1 on :notify); a delay goes through
// later() → laterRaw = ZADD $queue:delayed availableAt($delay) $payload; RedisQueue::size =
// eval(LuaScripts::size(), 3, $queue, :delayed, :reserved). 5.7 (Predis): pushRaw is a plain RPUSH.
import { describe, expect, it } from 'vitest';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import { parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { ArgMatcher } from '../helpers/trace.ts';
import { at, c, evalScript, expectSteps, lua, payload } from '../helpers/trace.ts';
import { runShipped, useRedis } from '../helpers/run.ts';
import { wire } from '../helpers/wire-8.ts';

const redis = useRedis();
const HIGH = wire('8', { queue: 'high' });
const DEFAULT = wire('8');

/**
 * data.command of a job whose class declares `property` first: serialize() writes a class's own
 * properties before those its traits add (InteractsWithQueue's $job comes next, null).
 */
const command = (className: string, property: string, value: string): ArgMatcher => {
  const head = `O:${className.length}:"${className}":`;
  const own = `s:${property.length}:"${property}";${value}s:3:"job";N;`;
  return (arg) => {
    const cmd = (JSON.parse(arg) as { data?: { command?: string } }).data?.command ?? '';
    return cmd.startsWith(head) && cmd.includes(`:{${own}`) ? null : `data.command is ${cmd.slice(0, 80)}…`;
  };
};

describe('request: one web request, several calls', () => {
  it('Laravel 8: one connection, one SELECT, the calls in order (push, push, ZADD), then Queue::size counts them', async () => {
    const { spec } = parseScenario(
      `
name: inline
title: inline
laravel: "8"
redis: { database: 1 }
jobs:
  Receipt: { class: App\\Jobs\\SendReceipt }
  Report: { class: App\\Jobs\\BuildReport }
timeline:
  - at: 3
    request:
      - { dispatch: Receipt, queue: high }
      - { dispatch: Report }
      - { dispatch: Report, delay: 60, count: 2 }
      - { size: default }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    // 8.83 Queue::createObjectPayload has no top-level queue or delay: ->onQueue / ->delay live in
    // data.command (Queueable's $queue and $delay), checked here by their serialized form.
    const queued = (className: string, fields: string): ArgMatcher => {
      const base = payload({ displayName: className, attempts: 0 });
      return (arg, ctx) =>
        base(arg, ctx) ??
        ((JSON.parse(arg) as { data: { command: string } }).data.command.includes(fields)
          ? null
          : `data.command lacks ${fields}`);
    };
    const receipt = queued('App\\Jobs\\SendReceipt', 's:5:"queue";s:4:"high";');
    const report = queued('App\\Jobs\\BuildReport', 's:5:"queue";N;');
    const later = queued('App\\Jobs\\BuildReport', 's:5:"delay";i:60;');
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 3,
          kind: 'dispatch',
          commands: [
            c('SELECT', '1'),
            ...HIGH.pushed(receipt),
            ...DEFAULT.pushed(report),
            c('ZADD', DEFAULT.Q.delayed, at(63), later),
            c('ZADD', DEFAULT.Q.delayed, at(63), later),
            ...evalScript(
              'size',
              [DEFAULT.Q.ready, DEFAULT.Q.delayed, DEFAULT.Q.reserved],
              [],
              [lua('llen', DEFAULT.Q.ready), lua('zcard', DEFAULT.Q.delayed), lua('zcard', DEFAULT.Q.reserved)],
            ),
          ],
        },
      ],
      laravel8,
    );
    // Every command came from the request's one process (the first web request).
    expect(new Set(t.steps[0]!.commands.filter((x) => x.source === 'client').map((x) => x.process))).toEqual(
      new Set([1]),
    );
    expect(t.steps[0]!.title).toBe(
      'one request: dispatch Receipt#1 onto laravel_database_queues:high; ' +
        'dispatch Report#1 onto laravel_database_queues:default; ' +
        'dispatch 2 × Report (Report#2 … Report#3) with delay 60s onto laravel_database_queues:default:delayed (due t+63s); ' +
        "Queue::size('default') = 3",
    );
  });

  it('Laravel 5.7: the same request over Predis is one SELECT and plain RPUSH / ZADD', async () => {
    const { spec } = parseScenario(
      `
name: inline
title: inline
laravel: "5.7"
jobs:
  Receipt: { class: App\\Jobs\\SendReceipt }
timeline:
  - { at: 0, request: [{ dispatch: Receipt, queue: high }, { dispatch: Receipt, delay: 5 }] }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    expectSteps(t, [
      {
        actor: 'dispatcher',
        t: 0,
        kind: 'dispatch',
        commands: [
          c('SELECT', '0'),
          c('RPUSH', 'queues:high', payload({ attempts: 0, 'data.commandName': 'App\\Jobs\\SendReceipt' })),
          c('ZADD', 'queues:default:delayed', at(5), payload({ attempts: 0 })),
        ],
      },
    ]);
  });
});

describe('every and properties: instances that differ', () => {
  it('one request per instance, each with its own connection, its own second and its own property value', async () => {
    const { spec } = parseScenario(
      `
name: inline
title: inline
laravel: "8"
jobs:
  Invoice:
    class: App\\Jobs\\SendInvoice
    properties: { invoiceId: 0, ref: "" }
timeline:
  - { at: 10, dispatch: Invoice, count: 3, every: 2, delay: 60, properties: { invoiceId: { from: 1001 }, ref: "INV-{n}" } }
`,
      'inline.yaml',
    );
    const t = await runScenario(spec, { redis: redis() });
    const invoice = (id: number, n: number): ArgMatcher => {
      const own = command(
        'App\\Jobs\\SendInvoice',
        'invoiceId',
        `i:${id};s:3:"ref";s:${`INV-${n}`.length}:"INV-${n}";`,
      );
      return (arg, ctx) => payload({ attempts: 0 })(arg, ctx) ?? own(arg, ctx);
    };
    // command() checks `invoiceId` then `ref` then `job`: the class's declared order.
    expectSteps(
      t,
      [10, 12, 14].map((s, i) => ({
        actor: 'dispatcher',
        t: s,
        kind: 'dispatch' as const,
        commands: [c('SELECT', '0'), c('ZADD', DEFAULT.Q.delayed, at(s + 60), invoice(1001 + i, i + 1))],
      })),
      laravel8,
    );
    // Three requests, three processes: lqsim:<run>:dispatcher:1, :2, :3.
    expect(t.steps.map((s) => s.commands[0]!.process)).toEqual([1, 2, 3]);
    expect(t.steps.map((s) => s.title)).toEqual([
      'dispatch Invoice#1 (invoiceId 1001, ref "INV-1") with delay 60s onto laravel_database_queues:default:delayed (due t+70s)',
      'dispatch Invoice#2 (invoiceId 1002, ref "INV-2") with delay 60s onto laravel_database_queues:default:delayed (due t+72s)',
      'dispatch Invoice#3 (invoiceId 1003, ref "INV-3") with delay 60s onto laravel_database_queues:default:delayed (due t+74s)',
    ]);
  });

  it('burst-and-priorities (shipped): one migrate moves the twenty due invoices in dispatch order, and they are worked in it', async () => {
    const t = await runShipped('burst-and-priorities', redis());
    const pop = t.steps.find((s) => s.t - t.start === 120 && s.kind === 'pop')!;
    // migrateExpiredJobs on default:delayed at t+120: zrangebyscore returns the members by score,
    // t+61 … t+80, which is invoiceId 1001 … 1020; one rpush of all twenty (a chunk is 100).
    const rpush = pop.commands.find(
      (x) => x.source === 'lua' && x.args[0] === 'rpush' && x.args[1]!.endsWith(':default'),
    );
    const ids = rpush!.args.slice(2).map((p) => /"invoiceId";i:(\d+);/.exec(JSON.parse(p).data.command as string)![1]);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => String(1001 + i)));
    const worked = t.steps
      .filter((s) => s.kind === 'pop' && /SendInvoice/.test(s.title))
      .map((s) => /SendInvoice#(\d+)/.exec(s.title)![1]);
    expect(worked).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
  });
});
