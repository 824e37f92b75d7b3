// The queues' snapshot after a step (src/scenarios/snapshot.ts): on one server, one script reads
// each key's first entries and its size (READ_QUEUES), on the observer or ahead of the next command
// on whichever connection sends it, in the queues' db. Each size is Redis' own (LLEN, ZCARD): where
// a key holds fewer entries than asked for the entries are all of it, else the size is read.
import { describe, expect, it } from 'vitest';
import { READ_QUEUES, snapshotQueues } from '../../src/scenarios/snapshot.ts';
import type { QueueKeys } from '../../src/sim/keys.ts';
import { useServerWithAdmin } from '../helpers/admin.ts';

const { admin: adminOf } = useServerWithAdmin();

const keys: QueueKeys = {
  name: 'default',
  queue: 'queues:default',
  ready: 'snap:queues:default',
  delayed: 'snap:queues:default:delayed',
  reserved: 'snap:queues:default:reserved',
  notify: 'snap:queues:default:notify',
};
const registry = { labelOfPayload: (raw: string) => ({ job: raw, attempts: 0 }) };

describe("a step's queues", () => {
  it("are each key's size and first entries, below, at and above the limit, in the db asked for", async () => {
    const admin = adminOf();
    const db3 = admin.duplicate({ database: 3 });
    await db3.connect();
    try {
      await db3.flushDb();
      // ready: 60 entries (more than the 50 asked for), delayed: exactly 50, reserved: 3, notify: 7.
      await db3.rPush(
        keys.ready,
        Array.from({ length: 60 }, (_, i) => `r${i}`),
      );
      await db3.zAdd(
        keys.delayed,
        Array.from({ length: 50 }, (_, i) => ({ score: i, value: `d${i}` })),
      );
      await db3.zAdd(
        keys.reserved,
        [1, 2, 3].map((i) => ({ score: 100 + i, value: `s${i}` })),
      );
      await db3.rPush(
        keys.notify,
        Array.from({ length: 7 }, () => '1'),
      );
      // Read from db 15 (the admin's), the script selecting db 3 as a step's end sent ahead does
      // (loaded first, as the run loads it).
      await READ_QUEUES.load(admin);
      const [q] = await snapshotQueues(admin, [keys], registry, true, 50, undefined, 3);
      expect(q!.sizes).toEqual({ ready: 60, delayed: 50, reserved: 3, notify: 7 });
      expect(q!.ready.map((e) => e.raw)).toEqual(Array.from({ length: 50 }, (_, i) => `r${i}`));
      expect(q!.delayed.map((e) => [e.raw, e.score])).toEqual(Array.from({ length: 50 }, (_, i) => [`d${i}`, i]));
      expect(q!.reserved.map((e) => [e.raw, e.score])).toEqual([
        ['s1', 101],
        ['s2', 102],
        ['s3', 103],
      ]);
      // The sizes alone (a streaming run's), and without the notify list (before 5.8).
      const [sizes] = await snapshotQueues(admin, [keys], registry, false, 0, undefined, 3);
      expect(sizes!.sizes).toEqual({ ready: 60, delayed: 50, reserved: 3 });
      expect([sizes!.ready, sizes!.delayed, sizes!.reserved]).toEqual([[], [], []]);
      // One entry short of the limit, and empty keys.
      await db3.lTrim(keys.ready, 0, 48);
      await db3.del([keys.delayed, keys.reserved]);
      const [short] = await snapshotQueues(admin, [keys], registry, true, 50, undefined, 3);
      expect(short!.sizes).toEqual({ ready: 49, delayed: 0, reserved: 0, notify: 7 });
      expect(short!.ready).toHaveLength(49);
    } finally {
      await db3.flushDb();
      db3.destroy();
    }
  });
});
