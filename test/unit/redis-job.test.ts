// RedisJob's json_decode of the popped payload (decodePayload): every profile's payload decodes to
// its own fields unchanged; a payload that is not a JSON object, or a field of another type than
// Laravel writes, is a JobPayloadError naming the field, the type expected and the value found.
import { describe, expect, it } from 'vitest';
import { PROFILES } from '../../src/sim/profiles/index.ts';
import type { PayloadInput } from '../../src/sim/profiles/types.ts';
import { decodePayload, JobPayloadError } from '../../src/sim/redis-job.ts';

const input: PayloadInput = {
  className: 'App\\Jobs\\SendWelcomeEmail',
  tries: 3,
  timeout: 60,
  timeoutAt: 1700000600,
  properties: [],
  connection: null,
  queue: null,
  delay: 30,
  command: null,
  id: 'iTqpbeDqqFb3VoED2WP3pgmDbLAUQcMB',
  uuid: '00000000-0000-4000-8000-000000000000',
  backoff: '5,10',
  backoffDeclared: [5, 10],
  maxExceptions: 2,
  failOnTimeout: true,
  createdAt: 1700000000,
};

const FIELDS = [
  'uuid',
  'displayName',
  'maxExceptions',
  'failOnTimeout',
  'backoff',
  'delay',
  'retryUntil',
  'job',
  'maxTries',
  'timeout',
  'timeoutAt',
  'id',
  'attempts',
] as const;

function decodeError(raw: string): string {
  try {
    decodePayload(raw);
  } catch (e) {
    if (e instanceof JobPayloadError) return e.message;
    throw e;
  }
  throw new Error('expected a JobPayloadError');
}

describe('decodePayload', () => {
  for (const [name, profile] of Object.entries(PROFILES)) {
    it(`reads every field of a Laravel ${name} payload as it was written`, () => {
      const built = profile.buildPayload(input);
      const decoded = decodePayload(profile.encodePayload(built));
      for (const f of FIELDS) expect(decoded[f], f).toEqual(built[f]);
      const data = built.data as { commandName?: unknown } | undefined;
      expect(decoded.data).toEqual(data === undefined ? undefined : { commandName: data.commandName });
    });
  }

  it('keeps null fields null and leaves absent fields absent', () => {
    const d = decodePayload('{"job":"J","maxTries":null,"backoff":null,"data":{}}');
    expect(d.maxTries).toBeNull();
    expect(d.backoff).toBeNull();
    expect(d.timeout).toBeUndefined();
    expect(d.data).toEqual({ commandName: undefined });
  });

  it('takes data as a PHP array: a JSON object or a list (Laravel\'s own QueueRedisJobTest pushes ["data"])', () => {
    const d = decodePayload('{"job":"foo","data":["data"],"id":"foo","attempts":1}');
    expect(d).toMatchObject({ job: 'foo', id: 'foo', attempts: 1 });
    expect(d.data?.commandName).toBeUndefined();
  });

  it('refuses a payload that is not JSON, or not a JSON object', () => {
    expect(decodeError('not json')).toMatch(/^job payload is not JSON \(.+\): not json$/);
    expect(decodeError('[1,2]')).toBe('job payload should be a JSON object, got [1,2]');
    expect(decodeError('null')).toBe('job payload should be a JSON object, got null');
    expect(decodeError('"text"')).toBe('job payload should be a JSON object, got "text"');
  });

  it('refuses a field of another type instead of reading it as one', () => {
    expect(decodeError('{"maxTries":"3"}')).toBe('job payload: maxTries should be a number or null, got "3"');
    expect(decodeError('{"attempts":null}')).toBe('job payload: attempts should be a number, got null');
    expect(decodeError('{"id":7}')).toBe('job payload: id should be a string, got 7');
    expect(decodeError('{"failOnTimeout":"false"}')).toBe(
      'job payload: failOnTimeout should be a boolean, got "false"',
    );
    expect(decodeError('{"backoff":[5,10]}')).toBe('job payload: backoff should be a string or null, got [5,10]');
    expect(decodeError('{"data":"x"}')).toBe('job payload: data should be an object or an array, got "x"');
    expect(decodeError('{"data":{"commandName":1}}')).toBe('job payload: data.commandName should be a string, got 1');
  });
});
