// The watch on a run's claimed db (REDIS_URL), line by line, on MONITOR lines as Redis 7 prints
// them: `<time> [<db> <addr>] "CMD" "arg"...`, a script's own commands as `[<db> lua]` lines after
// its EVAL. The run here holds db 3; its connections are at 10.0.0.1:*, the tool's observer at
// 10.0.0.9:1; anyone else is another client.
import { describe, expect, it } from 'vitest';
import { parseMonitorLine } from '../../src/redis/monitor-line.ts';
import { ForeignUseError, ForeignWatch, mayWrite } from '../../src/scenarios/foreign-watch.ts';

const book = {
  ownerOf: (addr: string) => (addr.startsWith('10.0.0.1:') ? { actor: 'worker-1', process: 1 } : undefined),
  isHandshake: (args: readonly string[]) =>
    args[0] === 'CLIENT' && args[1] === 'SETNAME' && (args[2] ?? '').startsWith('lqsim:run1:'),
};
const line = (db: number, client: string, ...args: string[]) =>
  parseMonitorLine(`1700000000.000001 [${db} ${client}] ${args.map((a) => JSON.stringify(a)).join(' ')}`);
/** What the watch reports for these lines, in order. */
function watch(...lines: ReturnType<typeof line>[]) {
  const w = new ForeignWatch(book, new Set(['10.0.0.9:1']), 3);
  return lines.flatMap((l) => w.push(l) ?? []);
}
const APP = '192.168.1.5:40000';

describe('ForeignWatch', () => {
  it("reports another client's command in the run's db, with its first argument", () => {
    expect(watch(line(3, APP, 'BLPOP', 'queues:default', '5'))).toEqual([{ addr: APP, what: 'BLPOP queues:default' }]);
    expect(watch(line(3, APP, 'GET', 'anything'))).toEqual([{ addr: APP, what: 'GET anything' }]);
    expect(watch(line(3, APP, 'DBSIZE'))).toEqual([{ addr: APP, what: 'DBSIZE' }]);
  });

  it("reports a SELECT of the run's db from any db, and no SELECT of another", () => {
    expect(watch(line(0, APP, 'SELECT', '3'))).toEqual([{ addr: APP, what: 'SELECT 3' }]); // Redis 6.2 shows the old db
    expect(watch(line(3, APP, 'SELECT', '3'))).toEqual([{ addr: APP, what: 'SELECT 3' }]); // Redis 7 the new one
    expect(watch(line(0, APP, 'SELECT', '5'), line(3, APP, 'SELECT', '5'))).toEqual([]);
  });

  it("reports commands that reach into the run's db from another: MOVE, SWAPDB, COPY ... DB, FLUSHALL", () => {
    expect(watch(line(0, APP, 'MOVE', 'k', '3'), line(0, APP, 'MOVE', 'k', '4'))).toEqual([
      { addr: APP, what: 'MOVE k' },
    ]);
    expect(watch(line(0, APP, 'SWAPDB', '3', '0'), line(0, APP, 'SWAPDB', '1', '0'))).toHaveLength(1);
    expect(watch(line(0, APP, 'COPY', 'a', 'b', 'DB', '3'), line(0, APP, 'COPY', 'a', 'b', 'DB', '4'))).toHaveLength(1);
    expect(watch(line(0, APP, 'FLUSHALL'))).toEqual([{ addr: APP, what: 'FLUSHALL' }]);
    expect(watch(line(5, APP, 'RESET'))).toEqual([]); // to db 0, not the run's db 3
  });

  it('lets be what uses no db (every new connection sends it from db 0, where it starts)', () => {
    expect(
      watch(
        line(3, APP, 'AUTH', '(redacted)'),
        line(3, APP, 'HELLO', '3'),
        line(3, APP, 'CLIENT', 'SETNAME', 'app'),
        line(3, APP, 'PING'),
        line(3, APP, 'INFO', 'keyspace'),
        line(3, APP, 'PUBLISH', 'channel', 'x'),
        line(3, APP, 'MONITOR'),
      ),
    ).toEqual([]);
  });

  it("lets be another client's commands in other dbs, and the run's own and the tool's in its db", () => {
    expect(
      watch(
        line(0, APP, 'RPUSH', 'queues:default', 'x'),
        line(3, '10.0.0.1:5000', 'BLPOP', 'queues:default', '5'),
        line(3, '10.0.0.9:1', 'LLEN', 'queues:default'),
        line(3, '10.0.0.9:1', 'EVAL', 'probe', '0'),
        line(3, 'lua', 'rpush', 'queues:default', 'x'),
        line(0, '10.0.0.1:6000', 'CLIENT', 'SETNAME', 'lqsim:run1:worker-1:2'), // ours, address not known yet
      ),
    ).toEqual([]);
  });

  it("reports another client's script by the commands it runs in the run's db", () => {
    expect(
      watch(
        line(0, APP, 'EVAL', "redis.call('select', 3) ...", '0'),
        line(3, 'lua', 'select', '3'),
        line(3, 'lua', 'rpush', 'queues:default', 'theirs'),
      ),
    ).toEqual([{ addr: APP, what: 'RPUSH queues:default (in a script)' }]);
    // A script of theirs in the run's db that touches nothing is no use of it.
    expect(watch(line(3, APP, 'EVAL', 'return 1', '0'))).toEqual([]);
  });

  it("lets be another lqsim run's claim script finding the claim and leaving", () => {
    expect(
      watch(
        line(0, APP, 'EVAL', 'local function call(...)', '0', 'lqsim:claim', 'lqsim:run', '3'),
        line(3, 'lua', 'select', '3'),
        line(3, 'lua', 'exists', 'lqsim:claim'),
      ),
    ).toEqual([]);
  });

  it('names the client as CLIENT LIST does when it can, and says what it did', () => {
    const e = new ForeignUseError([{ addr: APP, what: 'BLPOP queues:default' }], 3).named([
      { addr: APP, name: 'app-worker', cmd: 'blpop' },
    ]);
    expect(e.message).toBe(
      `another client used this run's db 3 (${APP} "app-worker": BLPOP queues:default): the trace would no longer be Laravel's alone, and that client could take the run's jobs, so the run stops; give it a server or db no one else uses`,
    );
  });
});

describe('ForeignWatch on a run that holds two dbs (the queue db 3, the cache db 4)', () => {
  const both = (...lines: ReturnType<typeof line>[]) => {
    const w = new ForeignWatch(book, new Set(['10.0.0.9:1']), [3, 4]);
    return lines.flatMap((l) => w.push(l) ?? []);
  };

  it('reports a use of either, naming which', () => {
    expect(both(line(4, APP, 'GET', 'laravel_cache:illuminate:queue:restart'))).toEqual([
      { addr: APP, what: 'GET laravel_cache:illuminate:queue:restart', db: 4 },
    ]);
    expect(both(line(0, APP, 'SELECT', '4'), line(0, APP, 'MOVE', 'k', '3'))).toEqual([
      { addr: APP, what: 'SELECT 4', db: 4 },
      { addr: APP, what: 'MOVE k', db: 3 },
    ]);
    expect(
      both(
        line(0, APP, 'EVAL', "redis.call('select', 4) ...", '0'),
        line(4, 'lua', 'select', '4'),
        line(4, 'lua', 'del', 'k'),
      ),
    ).toEqual([{ addr: APP, what: 'DEL k (in a script)', db: 4 }]);
  });

  it("lets be the run's own and the tool's in both, and anyone in another db", () => {
    expect(
      both(
        line(4, '10.0.0.1:5000', 'SETEX', 'job-exceptions:x', '86400', '0'),
        line(0, '10.0.0.9:1', 'EVAL', 'sweep', '0'),
        line(3, 'lua', 'select', '3'),
        line(3, 'lua', 'persist', 'lock'),
        line(4, 'lua', 'select', '4'),
        line(4, 'lua', 'persist', 'job-exceptions:x'),
        line(5, APP, 'GET', 'x'),
        line(0, APP, 'SELECT', '5'),
      ),
    ).toEqual([]);
  });

  it('the error names the db that was used', () => {
    const e = new ForeignUseError([{ addr: APP, what: 'GET x', db: 4 }], 3);
    expect(e.message).toMatch(/^another client used this run's db 4 \(192\.168\.1\.5:40000: GET x\)/);
  });
});

describe('mayWrite: what of another client may have changed a key (a step whose state was not read again)', () => {
  const uses = (...lines: ReturnType<typeof line>[]) => watch(...lines).map((u) => [u.what, mayWrite(u)]);

  it('lets reads be: a SELECT, redis-cli looking at the queues, KEYS, a WATCH, a read in a script', () => {
    expect(
      uses(
        line(3, APP, 'SELECT', '3'),
        line(3, APP, 'LRANGE', 'queues:default', '0', '-1'),
        line(3, APP, 'ZRANGE', 'queues:default:delayed', '0', '-1', 'WITHSCORES'),
        line(3, APP, 'KEYS', '*'),
        line(3, APP, 'WATCH', 'queues:default'),
        line(3, APP, 'EVAL', "return redis.call('llen', KEYS[1])", '1', 'queues:default'),
        line(3, 'lua', 'llen', 'queues:default'),
      ),
    ).toEqual([
      ['SELECT 3', false],
      ['LRANGE queues:default', false],
      ['ZRANGE queues:default:delayed', false],
      ['KEYS *', false],
      ['WATCH queues:default', false],
      ['LLEN queues:default (in a script)', false],
    ]);
  });

  it('counts any write, one in a script, one reaching in from another db, and any command it does not know', () => {
    expect(
      uses(
        line(3, APP, 'SET', 'note', 'x'),
        line(3, APP, 'LPOP', 'queues:default'),
        line(3, APP, 'EVAL', "return redis.call('rpush', KEYS[1], 'x')", '1', 'queues:default'),
        line(3, 'lua', 'rpush', 'queues:default', 'x'),
        line(0, APP, 'FLUSHALL'),
        line(3, APP, 'SORT', 'queues:default', 'STORE', 'other'),
        line(3, APP, 'MODULE.CMD', 'k'),
      ),
    ).toEqual([
      ['SET note', true],
      ['LPOP queues:default', true],
      ['RPUSH queues:default (in a script)', true],
      ['FLUSHALL', true],
      ['SORT queues:default', true],
      ['MODULE.CMD k', true],
    ]);
  });
});
