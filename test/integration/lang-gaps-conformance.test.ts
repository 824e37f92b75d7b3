// The scenario language's last gaps against real Laravel 8.83 (Debian's php-laravel-framework,
// conformance/laravel/harness.php): each fixture is played by the model and by Laravel, compared
// command for command, and what it exercises is checked by hand from Laravel's source.
import { describe, expect, it } from 'vitest';
import type { ConformanceResult } from '../../src/conformance/compare.ts';
import { conformScenario } from '../../src/conformance/compare.ts';
import { makeChalk } from '../../src/output/colour.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { renderDiff } from '../../src/trace/render-diff.ts';
import { useRedis } from '../helpers/run.ts';

const fixture = (name: string) => new URL(`../fixtures/conformance/${name}.yaml`, import.meta.url).pathname;

function explain(r: ConformanceResult): string {
  if (r.status === 'different') return renderDiff(r.diff, { chalk: makeChalk(0), labels: ['tool@8', 'laravel 8.83'] });
  return JSON.stringify(r);
}

/** s:<bytes>:"..."; as PHP's serialize() writes a string. */
const phpString = (s: string) => `s:${Buffer.byteLength(s)}:"${s}";`;

// Bus\Queueable 8.83's properties (Bus/Queueable.php:17-73) after InteractsWithQueue's public $job;
// `chained` is the last, filled by ->chain().
const traits8 = (chained: string) =>
  's:3:"job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;s:10:"chainQueue";N;' +
  `s:19:"chainCatchCallbacks";N;s:5:"delay";N;s:11:"afterCommit";N;s:10:"middleware";a:0:{}s:7:"chained";${chained}`;

describe('the language against real Laravel 8.83', () => {
  const redis = useRedis();

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
});
