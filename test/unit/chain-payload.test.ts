// A chain in the payload: Bus\Queueable::chain() stores serialize() of each next job in $chained
// (a PHP list of strings), and Bus::chain() also sets $chainQueue / $chainConnection and
// $chainCatchCallbacks = [] (Foundation/Bus/PendingChain.php@v8.83.26:146-161). Every expected
// string below is written by hand from PHP's serialize() rules (O:<class bytes>:"<class>":<n>:{...},
// s:<bytes>:"...";, N;, i:<n>;, a:<n>:{...}) and each version's Queueable property list, with the
// byte counts added up in the comments, never taken from the tool's output.
import { describe, expect, it } from 'vitest';
import { pendingChain } from '../../src/sim/dispatcher.ts';
import type { JobDefinition } from '../../src/sim/dispatcher.ts';
import { phpJsonEncode } from '../../src/sim/php.ts';
import { laravel13 } from '../../src/sim/profiles/laravel-13.ts';
import { laravel57 } from '../../src/sim/profiles/laravel-5.7.ts';
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import type { ChainProperties, JobObject, PayloadInput } from '../../src/sim/profiles/types.ts';

/** `new App\Jobs\<X>` of a make:job class with no properties of its own ("App\Jobs\X": 10 bytes). */
const object = (x: string, set: Partial<JobObject> = {}): JobObject => ({
  className: `App\\Jobs\\${x}`,
  tries: null,
  timeout: null,
  properties: [],
  connection: null,
  queue: null,
  delay: null,
  backoffDeclared: null,
  maxExceptions: null,
  failOnTimeout: false,
  ...set,
});

const payloadInput = (job: JobObject, chain: ChainProperties): PayloadInput => ({
  ...job,
  chain,
  timeoutAt: null,
  command: null,
  id: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  uuid: '00000000-0000-4000-8000-000000000000',
  backoff: null,
  createdAt: 1700000000,
});

const commandOf = (payload: Record<string, unknown>): string => (payload.data as { command: string }).command;

// 8.83: InteractsWithQueue's public $job, then Queueable's nine properties (Bus/Queueable.php@v8.83.26:17-73).
// Byte counts: `O:10:"App\Jobs\B":10:{` 22; `s:3:"job";N;` 12; `s:10:"connection";N;` 20;
// `s:5:"queue";N;` 14; `s:15:"chainConnection";N;` 25; `s:10:"chainQueue";N;` 20;
// `s:19:"chainCatchCallbacks";N;` 29; `s:5:"delay";N;` 14; `s:11:"afterCommit";N;` 21;
// `s:10:"middleware";a:0:{}` 24; `s:7:"chained";a:0:{}` 20; `}` 1: 222 bytes.
const B8 =
  'O:10:"App\\Jobs\\B":10:{s:3:"job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;' +
  's:10:"chainQueue";N;s:19:"chainCatchCallbacks";N;s:5:"delay";N;s:11:"afterCommit";N;' +
  's:10:"middleware";a:0:{}s:7:"chained";a:0:{}}';
// (new C)->onQueue('x')->delay(5): `s:5:"queue";s:1:"x";` is 6 bytes longer than `...N;`, and
// `s:5:"delay";i:5;` 2 bytes longer: 230 bytes.
const C8 =
  'O:10:"App\\Jobs\\C":10:{s:3:"job";N;s:10:"connection";N;s:5:"queue";s:1:"x";s:15:"chainConnection";N;' +
  's:10:"chainQueue";N;s:19:"chainCatchCallbacks";N;s:5:"delay";i:5;s:11:"afterCommit";N;' +
  's:10:"middleware";a:0:{}s:7:"chained";a:0:{}}';

describe('Laravel 8: ->chain() and Bus::chain() in data.command', () => {
  it('serializes each next job as `new` it, with what ->onQueue/->delay set on it', () => {
    expect(B8).toHaveLength(222);
    expect(C8).toHaveLength(230);
    expect(laravel8.serializeJob(object('B'))).toBe(B8);
    expect(laravel8.serializeJob(object('C', { queue: 'x', delay: 5 }))).toBe(C8);
  });

  it('->chain([B, C]): $chained holds the two strings; chainConnection, chainQueue, chainCatchCallbacks stay null', () => {
    const chain = { chained: [B8, C8], chainConnection: null, chainQueue: null, chainCatchCallbacks: null };
    expect(commandOf(laravel8.buildPayload(payloadInput(object('A'), chain)))).toBe(
      'O:10:"App\\Jobs\\A":10:{s:3:"job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;' +
        's:10:"chainQueue";N;s:19:"chainCatchCallbacks";N;s:5:"delay";N;s:11:"afterCommit";N;' +
        `s:10:"middleware";a:0:{}s:7:"chained";a:2:{i:0;s:222:"${B8}";i:1;s:230:"${C8}";}}`,
    );
  });

  it('Bus::chain([A, B])->onQueue("pod"): A gets the queue, chainQueue "pod" and chainCatchCallbacks []', () => {
    const pending = pendingChain([{ job: definition('A') }, { job: definition('B') }], { queue: 'pod' });
    expect(pending).toMatchObject({ queue: 'pod', connection: undefined, delay: undefined });
    expect(pending.chain).toMatchObject({ connection: null, queue: 'pod', catchCallbacks: [] });
    const chain = { chained: [B8], chainConnection: null, chainQueue: 'pod', chainCatchCallbacks: [] as [] };
    const payload = laravel8.buildPayload(payloadInput(object('A', { queue: 'pod' }), chain));
    // The whole payload as json_encode writes it: each `"` of data.command becomes `\"` and each `\`
    // becomes `\\`. The nested string is plain text inside the command, so it is escaped once too.
    expect(phpJsonEncode(payload, { unescapedUnicode: true })).toBe(
      '{"uuid":"00000000-0000-4000-8000-000000000000","displayName":"App\\\\Jobs\\\\A",' +
        '"job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call","maxTries":null,"maxExceptions":null,' +
        '"failOnTimeout":false,"backoff":null,"timeout":null,"retryUntil":null,' +
        '"data":{"commandName":"App\\\\Jobs\\\\A","command":"O:10:\\"App\\\\Jobs\\\\A\\":10:{' +
        's:3:\\"job\\";N;s:10:\\"connection\\";N;s:5:\\"queue\\";s:3:\\"pod\\";s:15:\\"chainConnection\\";N;' +
        's:10:\\"chainQueue\\";s:3:\\"pod\\";s:19:\\"chainCatchCallbacks\\";a:0:{}s:5:\\"delay\\";N;' +
        's:11:\\"afterCommit\\";N;s:10:\\"middleware\\";a:0:{}s:7:\\"chained\\";a:1:{i:0;s:222:\\"' +
        B8.replace(/\\/g, '\\\\').replace(/"/g, '\\"') +
        '\\";}}"},"id":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","attempts":0}',
    );
  });

  it('PendingChain::dispatch: the first job keeps its own queue, connection and delay; a chain delay of 0 is ignored', () => {
    const own = pendingChain([{ job: definition('A'), queue: 'mine', connection: 'c1', delay: 7 }], {
      queue: 'pod',
      connection: 'c2',
      delay: 30,
    });
    expect(own).toMatchObject({ queue: 'mine', connection: 'c1', delay: 7 });
    expect(own.chain).toMatchObject({ links: [], queue: 'pod', connection: 'c2' });
    // `if ($this->delay)` (PendingChain.php@v8.83.26:156): 0 is falsy, so no later().
    expect(pendingChain([{ job: definition('A') }], { delay: 0 }).delay).toBeUndefined();
    expect(pendingChain([{ job: definition('A') }], { delay: 30 }).delay).toBe(30);
  });
});

describe('Laravel 5.7: $chained without $chainCatchCallbacks', () => {
  // 5.7: protected $job (`\0*\0job`, 6 bytes), then connection, queue, chainConnection, chainQueue,
  // delay, chained (Bus/Queueable.php@v5.7.29:12-47). `O:10:"App\Jobs\B":7:{` 21; `s:6:"\0*\0job";N;`
  // 15; connection 20; queue 14; chainConnection 25; chainQueue 20; delay 14; chained 20; `}` 1: 150.
  const B57 =
    'O:10:"App\\Jobs\\B":7:{s:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;' +
    's:10:"chainQueue";N;s:5:"delay";N;s:7:"chained";a:0:{}}';
  it('->chain([B]) writes one string of 150 bytes (the NULs count)', () => {
    expect(Buffer.byteLength(B57)).toBe(150);
    expect(laravel57.serializeJob(object('B'))).toBe(B57);
    const chain = { chained: [B57], chainConnection: null, chainQueue: null, chainCatchCallbacks: null };
    expect(commandOf(laravel57.buildPayload(payloadInput(object('A'), chain)))).toBe(
      'O:10:"App\\Jobs\\A":7:{s:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;' +
        `s:10:"chainQueue";N;s:5:"delay";N;s:7:"chained";a:1:{i:0;s:150:"${B57}";}}`,
    );
  });
});

describe('Laravel 13: only what differs from the declared defaults', () => {
  // SerializesModels::__serialize skips a property equal to its default (Queue/SerializesModels.php@v13.26.1:46):
  // `new B` is `O:10:"App\Jobs\B":0:{}` (5 + 12 + 4 + 1 = 22 bytes); (new C)->onQueue('x') keeps
  // `s:5:"queue";s:1:"x";` (12 + 8): 5 + 12 + 4 + 20 + 1 = 42 bytes.
  const B13 = 'O:10:"App\\Jobs\\B":0:{}';
  const C13 = 'O:10:"App\\Jobs\\C":1:{s:5:"queue";s:1:"x";}';
  it('serializes the links short, and the chain properties in Queueable order (Bus/Queueable.php@v13.26.1:85-106)', () => {
    expect(laravel13.serializeJob(object('B'))).toBe(B13);
    expect(laravel13.serializeJob(object('C', { queue: 'x' }))).toBe(C13);
    // Bus::chain([A, B, C])->onQueue('pod'): $queue, then $chained, $chainQueue and $chainCatchCallbacks
    // ([] is not the default null); $connection, $delay and $chainConnection are null: left out.
    const chain = { chained: [B13, C13], chainConnection: null, chainQueue: 'pod', chainCatchCallbacks: [] as [] };
    expect(commandOf(laravel13.buildPayload(payloadInput(object('A', { queue: 'pod' }), chain)))).toBe(
      `O:10:"App\\Jobs\\A":4:{s:5:"queue";s:3:"pod";s:7:"chained";a:2:{i:0;s:22:"${B13}";i:1;s:42:"${C13}";}` +
        's:10:"chainQueue";s:3:"pod";s:19:"chainCatchCallbacks";a:0:{}}',
    );
    // ->chain([B]): no chain queue or callbacks, so only $chained is written.
    const plain = { chained: [B13], chainConnection: null, chainQueue: null, chainCatchCallbacks: null };
    expect(commandOf(laravel13.buildPayload(payloadInput(object('A'), plain)))).toBe(
      `O:10:"App\\Jobs\\A":1:{s:7:"chained";a:1:{i:0;s:22:"${B13}";}}`,
    );
  });
});

function definition(x: string): JobDefinition {
  return {
    name: x,
    className: `App\\Jobs\\${x}`,
    tries: null,
    timeout: null,
    retryUntil: null,
    backoff: null,
    maxExceptions: null,
    failOnTimeout: false,
    properties: {},
    command: null,
  };
}
