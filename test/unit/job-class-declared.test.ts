// A job class's own properties as PHP declares them (src/scenarios/job-checks.ts, profiles/declared.ts):
// `declared` gives their order, which serialize() follows (ReflectionClass::getProperties order:
// the class's own in declaration order, then its traits'); a property named like an option the
// class sets is declared twice, which PHP refuses; "{n:K}" numbers instances from K.
// Expected serialize() strings are written by hand from Bus/Queueable.php and InteractsWithQueue.php
// (8.83: Debian's /usr/share/php/Illuminate; 5.7.29) and PHP's serialize format.
import { describe, expect, it } from 'vitest';
import { instanceProperties } from '../../src/scenarios/entries/dispatch.ts';
import { ScenarioError } from '../../src/scenarios/errors.ts';
import { parseScenario } from '../../src/scenarios/load.ts';
import { getProfile } from '../../src/sim/profiles/index.ts';
import type { JobObject } from '../../src/sim/profiles/types.ts';

/** A scenario whose job J (line 6) is `job`, dispatched at 0 with `dispatch` (line 8). */
function source(job: string, dispatch = ''): string {
  return [
    'name: decl', // 1
    'title: decl', // 2
    'laravel: "8"', // 3
    'workers: [{ name: worker-1 }]', // 4
    'jobs:', // 5
    `  J: { class: App\\Jobs\\SendInvoice, ${job} }`, // 6
    'timeline:', // 7
    `  - { at: 0, dispatch: J${dispatch} }`, // 8
    '',
  ].join('\n');
}

function errorOf(yaml: string): ScenarioError {
  try {
    parseScenario(yaml, 'decl.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('no error');
}

const invoice = (declared: string[] | null): JobObject => ({
  className: 'App\\Jobs\\SendInvoice',
  tries: 3,
  timeout: null,
  properties: [
    ['invoiceId', 1001],
    ['ref', 'INV-1'],
  ],
  connection: null,
  queue: null,
  delay: null,
  backoffDeclared: [5, 10],
  maxExceptions: null,
  failOnTimeout: false,
  declared,
});

// Bus\Queueable 8.83's properties after InteractsWithQueue's public $job, in declaration order.
const TRAITS_8 =
  's:3:"job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;s:10:"chainQueue";N;' +
  's:19:"chainCatchCallbacks";N;s:5:"delay";N;s:11:"afterCommit";N;s:10:"middleware";a:0:{}s:7:"chained";a:0:{}';

describe('declared: the order serialize() writes a class’s own properties in', () => {
  it('8.x: $invoiceId before $tries, $ref between $tries and $backoff, then the traits’ properties', () => {
    expect(getProfile('8').serializeJob(invoice(['invoiceId', 'tries', 'ref', 'backoff']))).toBe(
      'O:20:"App\\Jobs\\SendInvoice":14:{s:9:"invoiceId";i:1001;s:5:"tries";i:3;s:3:"ref";s:5:"INV-1";' +
        `s:7:"backoff";a:2:{i:0;i:5;i:1;i:10;}${TRAITS_8}}`,
    );
  });
  it('8.x without declared: the options first, then the properties (as before)', () => {
    expect(getProfile('8').serializeJob(invoice(null))).toBe(
      'O:20:"App\\Jobs\\SendInvoice":14:{s:5:"tries";i:3;s:7:"backoff";a:2:{i:0;i:5;i:1;i:10;}' +
        `s:9:"invoiceId";i:1001;s:3:"ref";s:5:"INV-1";${TRAITS_8}}`,
    );
  });
  it('5.7: the same order (no $backoff there), InteractsWithQueue’s protected $job after', () => {
    expect(getProfile('5.7').serializeJob(invoice(['ref', 'tries', 'invoiceId']))).toBe(
      'O:20:"App\\Jobs\\SendInvoice":10:{s:3:"ref";s:5:"INV-1";s:5:"tries";i:3;s:9:"invoiceId";i:1001;' +
        's:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;s:10:"chainQueue";N;' +
        's:5:"delay";N;s:7:"chained";a:0:{}}',
    );
  });
  it('the loader takes it and hands it to the job definition', () => {
    const { spec } = parseScenario(
      source('tries: 3, properties: { invoiceId: 0 }, declared: [invoiceId, tries]'),
      'decl.yaml',
    );
    expect(spec.jobs.J!.declared).toEqual(['invoiceId', 'tries']);
  });
  it('refuses a name the class does not declare, one listed twice, one left out, and one for a verbatim command', () => {
    let e = errorOf(source('tries: 3, properties: { invoiceId: 0 }, declared: [invoiceId, tries, maxExceptions]'));
    expect([e.line, e.field]).toEqual([6, 'jobs.J.declared.2']);
    expect(e.detail).toBe('unknown own property of jobs.J "maxExceptions" (defined: tries, invoiceId)');
    e = errorOf(source('tries: 3, properties: { invoiceId: 0 }, declared: [invoiceId, tries, invoiceId]'));
    expect([e.line, e.field, e.detail]).toEqual([
      6,
      'jobs.J.declared.2',
      'invoiceId is listed twice (also declared.0)',
    ]);
    e = errorOf(source('tries: 3, backoff: 5, properties: { invoiceId: 0 }, declared: [invoiceId]'));
    expect([e.line, e.field, e.detail]).toEqual([
      6,
      'jobs.J.declared',
      'declared lists every property the class declares, in its order; missing: tries, backoff',
    ]);
    e = errorOf(source('command: \'O:1:"X":0:{}\', tries: 3, declared: [tries]'));
    expect([e.field, e.detail]).toEqual([
      'jobs.J.declared',
      'jobs.J gives a verbatim command, whose properties are in the order it has',
    ]);
  });
});

describe('a property named like an option: PHP declares a property once', () => {
  it('properties.tries with tries: refused, naming both fields, at the property', () => {
    const e = errorOf(source('tries: 3, properties: { tries: 3 }'));
    expect([e.line, e.column, e.field]).toEqual([6, 68, 'jobs.J.properties.tries']);
    expect(e.detail).toBe(
      'jobs.J.properties.tries and jobs.J.tries both declare public $tries, and PHP declares a property once ("Cannot redeclare"): keep jobs.J.tries',
    );
    expect(e.message).toBe(`decl.yaml:6:68: jobs.J.properties.tries: ${e.detail}`);
  });
  it('each option by its PHP name (maxExceptions is max_exceptions)', () => {
    const e = errorOf(source('max_exceptions: 2, properties: { maxExceptions: 2 }'));
    expect(e.field).toBe('jobs.J.properties.maxExceptions');
    expect(e.detail).toContain('jobs.J.max_exceptions both declare public $maxExceptions');
  });
  it('alone, it is still the option Laravel reads: written as the option', () => {
    const e = errorOf(source('properties: { timeout: 30 }'));
    expect([e.field, e.detail]).toEqual([
      'jobs.J.properties.timeout',
      "public $timeout is the job's timeout, which Laravel reads: write it as jobs.J.timeout, not under properties",
    ]);
  });
});

describe('"{n:K}": a numbered string that counts from K', () => {
  it('"{n}" from 1, "{n:0}" from 0, "{n:1001}" from 1001, in one string', () => {
    const props = { ref: 'R-{n}/{n:0}/{n:1001}', plain: 'n:{x}' };
    expect([1, 2, 3].map((n) => instanceProperties(props, n).ref)).toEqual(['R-1/0/1001', 'R-2/1/1002', 'R-3/2/1003']);
    expect(instanceProperties(props, 2).plain).toBe('n:{x}');
  });
  it('the loader refuses a "{n:" that is not a number, at the value', () => {
    const yaml = source('properties: { ref: "" }', ', count: 2, properties: { ref: "A-{n:x}" }');
    const e = errorOf(yaml);
    expect([e.line, e.field]).toEqual([8, 'timeline.0.properties.ref']);
    expect(e.detail).toBe(
      '"{n:" starts a number that counts from the integer after the colon, e.g. "{n:0}" or "{n:1001}"; got "A-{n:x}"',
    );
  });
});
