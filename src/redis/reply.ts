// Checked reads of Redis replies. node-redis's sendCommand reply is whatever the server sent, typed
// loosely; these say what a command returns (over RESP2: integers as numbers, bulk strings as
// strings, multi-bulk as arrays) and throw RedisReplyError naming the command when something else
// arrived. A valid reply comes back as it is.
import { RedisReplyError } from './errors.ts';

/** A reply as an error message shows it: its type and a short excerpt. */
export function describeReply(reply: unknown): string {
  if (reply === null) return 'nil';
  if (reply === undefined) return 'no reply';
  if (typeof reply === 'string')
    return `the string ${JSON.stringify(reply.length > 40 ? `${reply.slice(0, 39)}…` : reply)}`;
  if (typeof reply === 'number') return `the integer ${reply}`;
  if (Buffer.isBuffer(reply)) return `a Buffer of ${reply.length} bytes`;
  if (Array.isArray(reply)) return `an array of ${reply.length}`;
  if (reply instanceof Error) return `the error ${JSON.stringify(reply.message)}`;
  return typeof reply === 'object' ? 'an object' : `a ${typeof reply}`;
}

/** An integer reply (LLEN, ZCARD...). */
export function integerReply(reply: unknown, command: string): number {
  if (typeof reply !== 'number' || !Number.isInteger(reply))
    throw new RedisReplyError(command, 'an integer', describeReply(reply));
  return reply;
}

/** A multi-bulk reply of bulk strings (LRANGE, ZRANGE ... WITHSCORES, CONFIG GET). */
export function stringArrayReply(reply: unknown, command: string): string[] {
  if (!Array.isArray(reply)) throw new RedisReplyError(command, 'an array of strings', describeReply(reply));
  const items: unknown[] = reply;
  if (items.every((item): item is string => typeof item === 'string')) return items;
  const bad = items.findIndex((item) => typeof item !== 'string');
  throw new RedisReplyError(
    command,
    'an array of strings',
    `an array of ${items.length} whose item ${bad} is ${describeReply(items[bad])}`,
  );
}
