// The scenario language's last gaps against real Laravel 8.83 (Debian's php-laravel-framework,
// conformance/laravel/harness.php): each fixture is played by the model and by Laravel, compared
// command for command, and what it exercises is checked by hand from Laravel's source.
import { describe, expect, it } from 'vitest';
import type { ConformanceResult } from '../../src/conformance/compare.ts';
import { conformScenario } from '../../src/conformance/compare.ts';
import { makeChalk } from '../../src/output/colour.ts';
import { runWithRealLaravel } from '../../src/conformance/real-laravel.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { TraceCommand } from '../../src/scenarios/timeline.ts';
import { formatSeconds, secondsBetween } from '../../src/sim/clock.ts';
import { renderDiff } from '../../src/trace/render-diff.ts';
import { useRedis } from '../helpers/run.ts';

const fixture = (name: string) => new URL(`../fixtures/conformance/${name}.yaml`, import.meta.url).pathname;

function explain(r: ConformanceResult): string {
  if (r.status === 'different') return renderDiff(r.diff, { chalk: makeChalk(0), labels: ['tool@8', 'laravel 8.83'] });
  return JSON.stringify(r);
}

/** The two scripts a request runs here, told by their text (LuaScripts::push, LuaScripts::size). */
const scriptOf = (text: string) => (text.includes("'rpush'") ? 'push' : text.includes("'llen'") ? 'size' : '?');

/** s:<bytes>:"..."; as PHP's serialize() writes a string. */
const phpString = (s: string) => `s:${Buffer.byteLength(s)}:"${s}";`;

// Bus\Queueable 8.83's properties (Bus/Queueable.php:17-73) after InteractsWithQueue's public $job;
// `chained` is the last, filled by ->chain().
const traits8 = (chained: string) =>
  's:3:"job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;s:10:"chainQueue";N;' +
  `s:19:"chainCatchCallbacks";N;s:5:"delay";N;s:11:"afterCommit";N;s:10:"middleware";a:0:{}s:7:"chained";${chained}`;

describe('the language against real Laravel 8.83', () => {
  const redis = useRedis();

  it('each step of a request that goes on names the RedisQueue methods of its own calls', async () => {
    const { spec } = await loadScenarioFile(fixture('request-offsets'));
    const run = await runScenario(spec, { redis: redis() });
    expect(run.error).toBeUndefined();
    const parts = run.steps.filter((s) => s.title.startsWith('one request, +'));
    // The RedisQueue methods a part's step names (RedisQueue.php@v8.83.29: push → pushRaw, later →
    // laterRaw, size), whatever else the narration says with them.
    const queueMethods = (part: string) =>
      (parts.find((s) => s.title.startsWith(`one request, +${part}:`))?.methods ?? []).flatMap((m) =>
        [...m.matchAll(/RedisQueue::(\w+)/g)].map((x) => x[1]),
      );
    // +0s dispatches (push), +5.5s dispatches with a delay (later), +9s only asks Queue::size.
    expect(queueMethods('0s')).toEqual(['pushRaw']);
    expect(queueMethods('5.5s')).toEqual(['laterRaw']);
    expect(queueMethods('9s')).toEqual(['size']);
  });

  it('a class\'s own properties in its declaration order (before, between and after the options), in a chain too; "{n:0}"', async () => {
    const file = fixture('declared-order');
    const { spec } = await loadScenarioFile(file);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, explain(r)).toBe('identical');
    if (r.status !== 'identical') return;
    // data.command of each job the dispatcher pushed (EVAL push's last argument), in order.
    const commands = r.trace.steps
      .filter((s) => s.actor === 'dispatcher')
      .flatMap((s) => s.commands.filter((c) => c.args[0] === 'EVAL'))
      .map((c) => (JSON.parse(c.args.at(-1)!) as { data: { command: string } }).data.command);
    // Invoice declares $invoiceId, $tries = 3, $ref, $backoff = [5, 10], in that order.
    const invoice = (id: number, ref: string, chained: string) =>
      `O:20:"App\\Jobs\\SendInvoice":14:{s:9:"invoiceId";i:${id};s:5:"tries";i:3;s:3:"ref";${phpString(ref)}` +
      `s:7:"backoff";a:2:{i:0;i:5;i:1;i:10;}${traits8(chained)}}`;
    // Receipt declares $note, $maxExceptions = 2, $orderId = 7, $timeout = 30.
    const receipt =
      'O:20:"App\\Jobs\\SendReceipt":14:{s:4:"note";N;s:13:"maxExceptions";i:2;s:7:"orderId";i:7;' +
      `s:7:"timeout";i:30;${traits8('a:0:{}')}}`;
    expect(commands).toEqual([
      // t+0: two instances, invoiceId from 1001, ref "INV-{n:0}" from 0.
      invoice(1001, 'INV-0', 'a:0:{}'),
      invoice(1002, 'INV-1', 'a:0:{}'),
      // t+1: the class's own $invoiceId (0), ->chain([new SendReceipt]) serializes it into $chained.
      invoice(0, 'X', `a:1:{i:0;${phpString(receipt)}}`),
    ]);
  });

  it('one request that goes on: its calls at their offsets, one connection (one SELECT) throughout, another request in between', async () => {
    const file = fixture('request-offsets');
    const { spec } = await loadScenarioFile(file);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, explain(r)).toBe('identical');
    if (r.status !== 'identical') return;
    // What the dispatcher's connections sent, in the model's run and in real Laravel's (process
    // n: the n-th web request's connection, from its CLIENT SETNAME), a script named instead of its
    // text, payloads left out, the prefix and t=0 taken off.
    const model = await runScenario(spec, { redis: redis(), file });
    const real = await runWithRealLaravel(spec, { redis: redis() });
    expect(real.error).toBeUndefined();
    const sent = (commands: readonly TraceCommand[], start: number) =>
      commands
        .filter((c) => c.actor === 'dispatcher' && c.source === 'client')
        .map((c) => {
          const args = (c.args[0] === 'EVAL' ? ['EVAL', c.script ?? scriptOf(c.args[1]!), ...c.args.slice(2)] : c.args)
            .filter((a) => !a.startsWith('{'))
            .map((a) => a.replace('laravel_database_', ''))
            .map((a) => (/^\d{10}$/.test(a) ? `T+${Number(a) - start}` : a));
          return `T+${formatSeconds(secondsBetween(start, c.t))} ${c.process} ${args.join(' ')}`;
        });
    const D = 'queues:default';
    // Derived from the fixture by hand (8.x: RedisQueue::push runs the push script, later() ZADDs
    // :delayed at time() + delay, size runs the size script; phpredis SELECTs the configured db
    // once per connection). The request is process 1 from t+0 to t+9; the dispatch entry at t+1.5
    // is a request of its own, process 2.
    const push = `EVAL push 2 ${D} ${D}:notify`;
    const size = `EVAL size 3 ${D} ${D}:delayed ${D}:reserved`;
    const expected = [
      'T+0 1 SELECT 0',
      `T+0 1 ${push}`, // Tick n 0 (every: 1 from offset 0)
      `T+1 1 ${push}`, // Tick n 1
      'T+1.5 2 SELECT 0',
      `T+1.5 2 ${push}`, // Report, the other request
      `T+2 1 ${push}`, // Tick n 2
      `T+3 1 ${push}`, // Tick n 3
      `T+3 1 ${size}`, // { size: default } right after it, in the same part
      `T+5.5 1 ZADD ${D}:delayed T+7`, // offset 5.5, delay 2: time() 5 + 2
      `T+9 1 ${size}`, // offset 9
    ];
    expect(
      sent(
        real.steps.flatMap((s) => s.commands),
        real.start,
      ),
    ).toEqual(expected);
    expect(
      sent(
        model.steps.flatMap((s) => s.commands),
        model.start,
      ),
    ).toEqual(expected);
    // Each Tick carries its own n, counted from 0 ({ from: 0 }), across the parts.
    const ticks = r.trace.steps
      .flatMap((s) => s.commands.filter((c) => c.args[0] === 'EVAL' && c.script === 'push'))
      .map((c) => (JSON.parse(c.args.at(-1)!) as { data: { command: string } }).data.command)
      .filter((c) => c.startsWith('O:13:"App\\Jobs\\Tick"'));
    expect(ticks).toEqual([0, 1, 2, 3].map((n) => `O:13:"App\\Jobs\\Tick":11:{s:1:"n";i:${n};${traits8('a:0:{}')}}`));
    // The run goes on until the request's last call, though the queue is empty long before.
    expect(r.trace.steps.at(-1)!.t).toBe('T+9');
  });

  it('an artisan command that dispatches one job a second for 250 s: one process, one connection, a push a second', async () => {
    const file = fixture('artisan-command');
    const { spec } = await loadScenarioFile(file);
    const real = await runWithRealLaravel(spec, { redis: redis() });
    expect(real.error).toBeUndefined();
    // By hand: one SELECT when the command connects, then the push script at t+0, t+1, ... t+249,
    // all on that connection (process 1), each payload's seq its second.
    const sent = real.steps
      .flatMap((s) => s.commands)
      .filter((c) => c.actor === 'dispatcher' && c.source === 'client')
      .map((c) => [secondsBetween(real.start, c.t), c.process, c.args[0]]);
    expect(sent).toEqual([[0, 1, 'SELECT'], ...Array.from({ length: 250 }, (_, i) => [i, 1, 'EVAL'])]);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, explain(r)).toBe('identical');
  });
});
