// bench/floor.ts' round trips no client can do without, for traces written by hand: a reply nobody
// can foresee ends one (a pop that took a job, a BLPOP), and so does a command on another
// connection than the one before it, whose replies it must wait for; everything else goes ahead.
import { describe, expect, it } from 'vitest';
import { ReplayRecorder, unavoidableRoundTrips } from '../../bench/floor.ts';

const client = (actor: string, args: string[], script?: string, db = 0) =>
  ({ source: 'client', actor, process: 1, db, args, ...(script ? { script } : {}) }) as const;
const lua = (args: string[]) => ({ source: 'lua', actor: 'lua', process: 1, db: 0, args }) as const;

describe('unavoidableRoundTrips', () => {
  it("counts a worker's poll of an empty queue with its cache on another connection as two", () => {
    const r = new ReplayRecorder();
    // Laravel 8's worker: its cache connection SELECTs db 1 (MONITOR shows it in db 0, which it
    // leaves), its queue's stays in db 0; then two polls, each a GET of the restart signal on the
    // cache's connection and two migrates and a pop on the queue's.
    r.add(client('worker-1', ['SELECT', '1']));
    for (let i = 0; i < 2; i++) {
      r.add(client('worker-1', ['GET', 'restart'], undefined, 1));
      r.add(client('worker-1', ['EVAL', 'migrate', '3'], 'migrateExpiredJobs'));
      r.add(client('worker-1', ['EVAL', 'migrate', '3'], 'migrateExpiredJobs'));
      r.add(client('worker-1', ['EVAL', 'pop', '3'], 'pop'));
      r.add(lua(['lpop', 'queues:default']));
    }
    expect(r.commands.map((c) => c.awaited)).toEqual(Array(9).fill(false));
    expect(r.commands[0]!.connection).toBe(r.commands[1]!.connection);
    // SELECT GET | migrate migrate pop | GET | migrate migrate pop: four, the last one the run's end.
    expect(unavoidableRoundTrips(r.commands)).toBe(4);
  });

  it("ends one at a pop whose copy shows a shape not seen before (cjson's order), and at a BLPOP", () => {
    const r = new ReplayRecorder();
    const copy = (id: string, attempts: number) => `{"id":"${id}","data":{"command":"x"},"attempts":${attempts}}`;
    const pop = (reserved: string) => {
      r.add(client('worker-1', ['EVAL', 'pop', '3'], 'pop'));
      r.add(lua(['lpop', 'queues:default']));
      r.add(lua(['zadd', 'queues:default:reserved', '1700000090', reserved]));
    };
    r.add(client('dispatcher', ['EVAL', 'push', '2'], 'push'));
    r.add(client('dispatcher', ['EVAL', 'push', '2'], 'push'));
    r.add(client('worker-1', ['EVAL', 'migrate', '3'], 'migrateExpiredJobs'));
    pop(copy('a', 1)); // the first of its keys: awaited
    r.add(client('worker-1', ['ZREM', 'queues:default:reserved', copy('a', 1)]));
    pop(copy('b', 1)); // the same keys, other values: foreseeable
    r.add(client('worker-1', ['ZREM', 'queues:default:reserved', copy('b', 1)]));
    pop('{"id":"c","attempts":1}'); // other keys: awaited
    r.add(client('worker-1', ['EVAL', 'pop', '3'], 'pop'));
    r.add(lua(['lpop', 'queues:default']));
    r.add(client('worker-1', ['BLPOP', 'queues:default:notify', '5']));
    expect(r.commands.map((c) => c.awaited)).toEqual([
      false,
      false,
      false,
      true,
      false,
      false,
      false,
      true,
      false,
      true,
    ]);
    // push push | migrate pop(a) | ZREM pop(b) ZREM pop(c) | pop BLPOP: the switch from the
    // dispatcher to worker-1, and the three awaited replies.
    expect(unavoidableRoundTrips(r.commands)).toBe(4);
  });

  it('is zero for no commands', () => {
    expect(unavoidableRoundTrips([])).toBe(0);
  });
});
