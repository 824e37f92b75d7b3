// Checked reads of Redis replies (src/redis/reply.ts): a valid reply comes back as it is, anything
// else is a RedisReplyError naming the command, what it should have returned and what arrived.
import { describe, expect, it } from 'vitest';
import { RedisReplyError } from '../../src/redis/errors.ts';
import { describeReply, integerReply, stringArrayReply } from '../../src/redis/reply.ts';

function caught(fn: () => unknown): RedisReplyError {
  try {
    fn();
  } catch (e) {
    if (e instanceof RedisReplyError) return e;
    throw e;
  }
  throw new Error('expected a RedisReplyError');
}

describe('integerReply', () => {
  it('returns an integer reply as it is', () => {
    expect(integerReply(0, 'LLEN q')).toBe(0);
    expect(integerReply(42, 'ZCARD q')).toBe(42);
  });

  it('refuses anything else, naming the command, the expectation and the reply', () => {
    const e = caught(() => integerReply('3', 'LLEN queues:default'));
    expect(e.message).toBe('unexpected reply to LLEN queues:default: expected an integer, got the string "3"');
    expect(e).toMatchObject({ name: 'RedisReplyError', command: 'LLEN queues:default', expected: 'an integer' });
    expect(caught(() => integerReply(null, 'LLEN q')).got).toBe('nil');
    expect(caught(() => integerReply(1.5, 'LLEN q')).got).toBe('the integer 1.5');
    expect(caught(() => integerReply(['1'], 'LLEN q')).got).toBe('an array of 1');
  });
});

describe('stringArrayReply', () => {
  it('returns an array of strings as it is (the same array), empty included', () => {
    const flat = ['{"job":"x"}', '1700000090'];
    expect(stringArrayReply(flat, 'ZRANGE q WITHSCORES')).toBe(flat);
    expect(stringArrayReply([], 'LRANGE q')).toEqual([]);
  });

  it('refuses a reply that is not an array', () => {
    expect(caught(() => stringArrayReply('OK', 'CONFIG GET x')).message).toBe(
      'unexpected reply to CONFIG GET x: expected an array of strings, got the string "OK"',
    );
    expect(caught(() => stringArrayReply(7, 'LRANGE q')).got).toBe('the integer 7');
    expect(caught(() => stringArrayReply(undefined, 'LRANGE q')).got).toBe('no reply');
  });

  it('refuses an array with an item that is not a string, naming the item', () => {
    expect(caught(() => stringArrayReply(['a', 2, 'c'], 'LRANGE q')).message).toBe(
      'unexpected reply to LRANGE q: expected an array of strings, got an array of 3 whose item 1 is the integer 2',
    );
    expect(caught(() => stringArrayReply(['a', Buffer.from('b')], 'LRANGE q')).got).toBe(
      'an array of 2 whose item 1 is a Buffer of 1 bytes',
    );
    expect(caught(() => stringArrayReply([null], 'LRANGE q')).got).toBe('an array of 1 whose item 0 is nil');
  });
});

describe('describeReply', () => {
  it('shows the type and a short excerpt', () => {
    expect(describeReply('x'.repeat(100))).toBe(`the string "${'x'.repeat(39)}…"`);
    expect(describeReply(new Error('ERR unknown command'))).toBe('the error "ERR unknown command"');
    expect(describeReply({})).toBe('an object');
    expect(describeReply(true)).toBe('a boolean');
  });
});
