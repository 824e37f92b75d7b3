// The Redis commands of Laravel 8.83's and 13.x's queue, for hand-derived expectations: the 5.8+
// scripts with the :notify list (LuaScripts.php; reference laravel-versions.md §1.1, §1.4);
// phpredis's SELECT 0 on every connection; prefix laravel_database_ (8) or laravel-database- (13);
// 13.x's migrateExpiredJobs takes ARGV[2] = migration_batch_size (-1), read as `limit 0 -1`.
import { laravel8 } from '../../src/sim/profiles/laravel-8.ts';
import { laravel13 } from '../../src/sim/profiles/laravel-13.ts';
import type { Arg, CmdPattern } from './trace.ts';
import { at, c, evalScript, lua, payload, same } from './trace.ts';

/** The commands of one profile's queue `name` with `retryAfter` (default 90). */
export function wire(laravel: '8' | '13', o: { queue?: string; retryAfter?: number } = {}) {
  const prefix = laravel === '8' ? 'laravel_database_' : 'laravel-database-';
  const P = `${prefix}queues:${o.queue ?? 'default'}`;
  const retryAfter = o.retryAfter ?? 90;
  const Q = { ready: P, delayed: `${P}:delayed`, reserved: `${P}:reserved`, notify: `${P}:notify` };
  const batch: string[] = laravel === '8' ? [] : ['-1'];
  const limit: string[] = laravel === '8' ? [] : ['limit', '0', '-1'];

  /** LuaScripts::migrateExpiredJobs: from → ready, a 1 on :notify per job moved. */
  const migrate = (from: string, t: number, moved?: Arg[]): CmdPattern[] => {
    const inner = [lua('zrangebyscore', from, '-inf', at(t), ...limit)];
    if (moved) {
      inner.push(lua('zremrangebyrank', from, '0', String(moved.length - 1)), lua('rpush', Q.ready, ...moved));
      for (let i = 0; i < moved.length; i++) inner.push(lua('rpush', Q.notify, '1'));
    }
    return evalScript('migrateExpiredJobs', [from, Q.ready, Q.notify], [at(t), ...batch], inner);
  };
  /** LuaScripts::pop: lpop; when a job was there, zadd the re-encoded copy until t + retry_after, lpop :notify. */
  const pop = (t: number, reserved?: Arg): CmdPattern[] => {
    const inner = [lua('lpop', Q.ready)];
    if (reserved) inner.push(lua('zadd', Q.reserved, at(t + retryAfter), reserved), lua('lpop', Q.notify));
    return evalScript('pop', [Q.ready, Q.reserved, Q.notify], [at(t + retryAfter)], inner);
  };
  const pushed = (p: Arg, inner: Arg = p): CmdPattern[] =>
    evalScript('push', [Q.ready, Q.notify], [p], [lua('rpush', Q.ready, inner), lua('rpush', Q.notify, '1')]);
  return {
    Q,
    profile: laravel === '8' ? laravel8 : laravel13,
    /**
     * RedisQueue::pop at t: migrate :delayed (moving `moved`), migrate :reserved (moving
     * `expired`), the pop script (reserving `reserved`).
     */
    poll: (t: number, p: { moved?: Arg[]; expired?: Arg[]; reserved?: Arg } = {}): CmdPattern[] => [
      ...migrate(Q.delayed, t, p.moved),
      ...migrate(Q.reserved, t, p.expired),
      ...pop(t, p.reserved),
    ],
    /** The push script: the payload (attempts 0) and a 1 on :notify. */
    push: (bind: string): CmdPattern[] => pushed(payload({ attempts: 0 }, bind), same(bind)),
    /** The push script of a payload the test matches itself (`inner`: how the script's rpush shows it). */
    pushed,
    /** RedisJob::release → the release script: the reserved copy `r` to :delayed, due at t+due. */
    release: (r: string, due: number): CmdPattern[] =>
      evalScript(
        'release',
        [Q.delayed, Q.reserved],
        [same(r), at(due)],
        [lua('zrem', Q.reserved, same(r)), lua('zadd', Q.delayed, at(due), same(r))],
      ),
    /** RedisJob::delete → RedisQueue::deleteReserved: ZREM of the reserved copy `r`. */
    zrem: (r: string): CmdPattern[] => [c('ZREM', Q.reserved, same(r))],
  };
}
