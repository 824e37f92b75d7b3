// The ready-list payload each profile builds (Queue::createPayloadArray + RedisQueue::createPayloadArray),
// encoded with json_encode(). Expected bytes are written by hand from seed 000 (5.7 era), seed 003
// (5.3 capture) and the property lists of InteractsWithQueue + Queueable in each version.
import { describe, expect, it } from 'vitest';
import { phpJsonEncode } from '../../src/sim/php.ts';
import { laravel53 } from '../../src/sim/profiles/laravel-5.3.ts';
import { laravel57 } from '../../src/sim/profiles/laravel-5.7.ts';
import type { PayloadInput } from '../../src/sim/profiles/types.ts';

const ID = 'iTqpbeDqqFb3VoED2WP3pgmDbLAUQcMB';

const input = (over: Partial<PayloadInput> = {}): PayloadInput => ({
  className: 'App\\Jobs\\SendWelcomeEmail',
  tries: null,
  timeout: null,
  timeoutAt: null,
  properties: [],
  connection: null,
  queue: null,
  delay: null,
  command: null,
  id: ID,
  uuid: '00000000-0000-4000-8000-000000000000',
  backoff: null,
  backoffDeclared: null,
  maxExceptions: null,
  failOnTimeout: false,
  ...over,
});

const commandOf = (payload: Record<string, unknown>): string => (payload.data as { command: string }).command;

// "App\Jobs\SendWelcomeEmail" is 3 + 1 + 4 + 1 + 16 = 25 bytes.
// 5.7 trait properties after the class's own: InteractsWithQueue ($job, protected), then
// Queueable ($connection, $queue, $chainConnection, $chainQueue, $delay, $chained = []).
const TRAITS_57 =
  's:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;s:15:"chainConnection";N;s:10:"chainQueue";N;s:5:"delay";N;s:7:"chained";a:0:{}';
const SEND_WELCOME_57 = `O:25:"App\\Jobs\\SendWelcomeEmail":7:{${TRAITS_57}}`;

describe('Laravel 5.7 payload', () => {
  it('has exactly the keys of seed 000, in its order', () => {
    const payload = laravel57.buildPayload(input());
    expect(Object.keys(payload)).toEqual([
      'displayName',
      'job',
      'maxTries',
      'timeout',
      'timeoutAt',
      'data',
      'id',
      'attempts',
    ]);
    expect(Object.keys(payload.data as object)).toEqual(['commandName', 'command']);
  });

  it('encodes byte for byte as json_encode would (attempts 0, CallQueuedHandler@call)', () => {
    const expected = String.raw`{"displayName":"App\\Jobs\\SendWelcomeEmail","job":"Illuminate\\Queue\\CallQueuedHandler@call","maxTries":null,"timeout":null,"timeoutAt":null,"data":{"commandName":"App\\Jobs\\SendWelcomeEmail","command":"O:25:\"App\\Jobs\\SendWelcomeEmail\":7:{s:6:\"\u0000*\u0000job\";N;s:10:\"connection\";N;s:5:\"queue\";N;s:15:\"chainConnection\";N;s:10:\"chainQueue\";N;s:5:\"delay\";N;s:7:\"chained\";a:0:{}}"},"id":"iTqpbeDqqFb3VoED2WP3pgmDbLAUQcMB","attempts":0}`;
    expect(phpJsonEncode(laravel57.buildPayload(input()))).toBe(expected);
  });

  it('serializes a job with no own properties as InteractsWithQueue + Queueable state (7 properties)', () => {
    const payload = laravel57.buildPayload(input());
    expect(payload.job).toBe('Illuminate\\Queue\\CallQueuedHandler@call');
    expect(payload.attempts).toBe(0);
    expect(payload.id).toBe(ID);
    expect(payload.displayName).toBe('App\\Jobs\\SendWelcomeEmail');
    expect(commandOf(payload)).toBe(SEND_WELCOME_57);
  });

  it('carries tries, timeout and timeoutAt into maxTries, timeout and timeoutAt', () => {
    const payload = laravel57.buildPayload(input({ tries: 3, timeout: 120, timeoutAt: 1700000060 }));
    expect(payload.maxTries).toBe(3);
    expect(payload.timeout).toBe(120);
    expect(payload.timeoutAt).toBe(1700000060);
    expect(phpJsonEncode(payload)).toMatch(
      /^\{"displayName":"[^"]+","job":"[^"]+","maxTries":3,"timeout":120,"timeoutAt":1700000060,"data":/,
    );
  });

  it('writes the dispatch delay into Queueable::$delay', () => {
    const command = commandOf(laravel57.buildPayload(input({ delay: 60 })));
    expect(command).toBe(
      'O:25:"App\\Jobs\\SendWelcomeEmail":7:{s:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;' +
        's:15:"chainConnection";N;s:10:"chainQueue";N;s:5:"delay";i:60;s:7:"chained";a:0:{}}',
    );
  });

  it('writes onConnection / onQueue into Queueable::$connection and $queue', () => {
    const command = commandOf(laravel57.buildPayload(input({ connection: 'redis', queue: 'emails' })));
    expect(command).toContain('s:10:"connection";s:5:"redis";s:5:"queue";s:6:"emails";');
  });

  it('puts a declared public $tries first, before the trait properties (8 properties)', () => {
    const command = commandOf(laravel57.buildPayload(input({ tries: 3 })));
    expect(command).toBe(`O:25:"App\\Jobs\\SendWelcomeEmail":8:{s:5:"tries";i:3;${TRAITS_57}}`);
  });

  it("puts $tries, $timeout and the job's own properties before the trait properties", () => {
    const command = commandOf(
      laravel57.buildPayload(
        input({
          tries: 3,
          timeout: 120,
          properties: [
            ['userId', 42],
            ['locale', 'fr'],
          ],
        }),
      ),
    );
    expect(command).toBe(
      `O:25:"App\\Jobs\\SendWelcomeEmail":11:{s:5:"tries";i:3;s:7:"timeout";i:120;s:6:"userId";i:42;s:6:"locale";s:2:"fr";${TRAITS_57}}`,
    );
  });

  it('uses a command override verbatim', () => {
    const command = 'O:8:"App\\Job1":0:{}';
    const payload = laravel57.buildPayload(input({ className: 'App\\Job1', command }));
    expect(commandOf(payload)).toBe(command);
    expect((payload.data as { commandName: string }).commandName).toBe('App\\Job1');
  });
});

// Seed 003, the ZADD member of the 5.3 dispatch, as MONITOR printed it (outer quotes dropped).
const SEED_003_MEMBER = String.raw`{\"job\":\"Illuminate\\\\Queue\\\\CallQueuedHandler@call\",\"data\":{\"commandName\":\"App\\\\Jobs\\\\DelayTestJob\",\"command\":\"O:21:\\\"App\\\\Jobs\\\\DelayTestJob\\\":4:{s:6:\\\"\\u0000*\\u0000job\\\";N;s:10:\\\"connection\\\";N;s:5:\\\"queue\\\";N;s:5:\\\"delay\\\";O:13:\\\"Carbon\\\\Carbon\\\":3:{s:4:\\\"date\\\";s:26:\\\"2017-03-18 01:58:52.000000\\\";s:13:\\\"timezone_type\\\";i:3;s:8:\\\"timezone\\\";s:3:\\\"UTC\\\";}}\"},\"id\":\"q7ss6fRgCbMNHhCv6gOXX0Or7B43blU9\",\"attempts\":1}`;
/** MONITOR quoting of this line uses only \" and \\. */
const unrepr = (s: string): string => s.replace(/\\(.)/g, '$1');
const SEED_003_COMMAND =
  'O:21:"App\\Jobs\\DelayTestJob":4:{s:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;s:5:"delay";' +
  'O:13:"Carbon\\Carbon":3:{s:4:"date";s:26:"2017-03-18 01:58:52.000000";s:13:"timezone_type";i:3;s:8:"timezone";s:3:"UTC";}}';

describe('Laravel 5.3 payload', () => {
  const input53 = (over: Partial<PayloadInput> = {}): PayloadInput =>
    input({ className: 'App\\Jobs\\DelayTestJob', id: 'q7ss6fRgCbMNHhCv6gOXX0Or7B43blU9', ...over });

  it('has the keys job, data, id, attempts (= 1), as in seed 003', () => {
    const payload = laravel53.buildPayload(input53());
    expect(Object.keys(payload)).toEqual(['job', 'data', 'id', 'attempts']);
    expect(Object.keys(payload.data as object)).toEqual(['commandName', 'command']);
    expect(payload.attempts).toBe(1);
    expect(payload.job).toBe('Illuminate\\Queue\\CallQueuedHandler@call');
  });

  it('reproduces the seed 003 ZADD member byte for byte with the command override used verbatim', () => {
    const payload = laravel53.buildPayload(input53({ command: SEED_003_COMMAND }));
    expect(commandOf(payload)).toBe(SEED_003_COMMAND);
    expect(phpJsonEncode(payload)).toBe(unrepr(SEED_003_MEMBER));
  });

  it('serializes a 5.3 job as InteractsWithQueue ($job) + Queueable ($connection, $queue, $delay)', () => {
    expect(commandOf(laravel53.buildPayload(input53()))).toBe(
      'O:21:"App\\Jobs\\DelayTestJob":4:{s:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;s:5:"delay";N;}',
    );
    expect(commandOf(laravel53.buildPayload(input53({ delay: 60, queue: 'emails' })))).toBe(
      'O:21:"App\\Jobs\\DelayTestJob":4:{s:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";s:6:"emails";s:5:"delay";i:60;}',
    );
  });

  it('has no maxTries / timeout / timeoutAt keys (they arrive in 5.4 / 5.5)', () => {
    const payload = laravel53.buildPayload(input53({ tries: 3, timeout: 120, timeoutAt: 1489802400 }));
    expect(payload).not.toHaveProperty('maxTries');
    expect(payload).not.toHaveProperty('timeout');
    expect(payload).not.toHaveProperty('timeoutAt');
    expect(payload).not.toHaveProperty('displayName');
  });

  it('still serializes a declared public $tries / $timeout: serialize() writes every property, 5.3 just ignores them', () => {
    const command = commandOf(laravel53.buildPayload(input53({ tries: 3, timeout: 120 })));
    expect(command).toBe(
      'O:21:"App\\Jobs\\DelayTestJob":6:{s:5:"tries";i:3;s:7:"timeout";i:120;' +
        's:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;s:5:"delay";N;}',
    );
  });
});
