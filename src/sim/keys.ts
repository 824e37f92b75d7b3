// Every Redis key the queue uses is built here (BullMQ's QueueKeys), never by concatenation
// scattered through the model. Laravel's client applies the connection prefix to the KEYS of an
// EVAL and to the key of a plain command, but never to ARGV.

export interface QueueKeys {
  /** The queue name as the worker was given it ("default"). */
  name: string;
  /** queues:<name> without the client prefix: what RedisQueue::getQueue() returns. */
  queue: string;
  ready: string;
  delayed: string;
  reserved: string;
  notify: string;
}

export function queueKeys(name: string, prefix = ''): QueueKeys {
  const queue = `queues:${name}`;
  return {
    name,
    queue,
    ready: `${prefix}${queue}`,
    delayed: `${prefix}${queue}:delayed`,
    reserved: `${prefix}${queue}:reserved`,
    notify: `${prefix}${queue}:notify`,
  };
}

/** Every key a queue uses (what a run on someone else's server must leave as it found it). */
export function allKeys(q: QueueKeys): string[] {
  return [q.ready, q.delayed, q.reserved, q.notify];
}
