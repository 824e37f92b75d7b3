// The permission probe tries what a run will send. What that is comes from Laravel's code, as the
// profiles hold it: every `redis.call` of every profile's scripts, the client commands of
// RedisQueue (port.ts: RPUSH, ZADD, ZREM, BLPOP) and the observer's reads (snapshot.ts). A
// command added to any of them and not probed fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LIST_COMMANDS, STRING_COMMANDS, ZSET_COMMANDS } from '../../src/redis/permission-probe.ts';
import { PROFILES } from '../../src/sim/profiles/index.ts';
import { scriptsOf } from '../../src/sim/profiles/index.ts';
import { queueKeys } from '../../src/sim/keys.ts';
import { probePlan } from '../../src/scenarios/probe-plan.ts';

const probed = new Set<string>([...LIST_COMMANDS, ...ZSET_COMMANDS, ...STRING_COMMANDS, 'blpop']);
/** Commands that touch no queue key: the connection's own, or EVAL itself (preflight checks it). */
const NOT_ON_KEYS = new Set(['select', 'echo', 'eval', 'client']);

describe('the permission probe covers what a run sends', () => {
  it("every redis.call of every profile's scripts", () => {
    for (const profile of Object.values(PROFILES))
      for (const script of scriptsOf(profile))
        for (const [, command] of script.source.matchAll(/redis\.call\('(\w+)'/g))
          expect(probed, `${profile.name} ${script.name}: ${command}`).toContain(command!.toLowerCase());
  });

  it('every command listed is one the probe script calls (its steps are Lua, written out)', () => {
    const source = readFileSync(new URL('../../src/redis/permission-probe.ts', import.meta.url), 'utf8');
    const script = /const PROBE = `([\s\S]*?)`;/.exec(source)![1]!;
    for (const command of [...LIST_COMMANDS, ...ZSET_COMMANDS]) expect(script).toContain(`{'${command}'`);
    const cache = /const PROBE_CACHE = `([\s\S]*?)`;/.exec(source)![1]!;
    for (const command of STRING_COMMANDS) expect(cache).toContain(`{'${command}'`);
  });

  it('every command the client port and the snapshots send', () => {
    for (const file of ['src/redis/port.ts', 'src/scenarios/snapshot.ts']) {
      const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
      const commands = [...source.matchAll(/\['([A-Z]+)'/g)].map((m) => m[1]!.toLowerCase());
      expect(commands.length, file).toBeGreaterThan(2);
      for (const command of commands.filter((c) => !NOT_ON_KEYS.has(c)))
        expect(probed, `${file}: ${command}`).toContain(command);
    }
  });

  it('plans each key by its type, :notify from 5.8 on, BLPOP only with block_for', () => {
    const q = [queueKeys('default')];
    const spec = (blockFor: number | null) => ({
      connections: { redis: { queue: 'default', retry_after: 90, block_for: blockFor } },
      timeline: [],
    });
    const [l57, l8] = [PROFILES['5.7'], PROFILES['8']];
    expect(probePlan(spec(null) as never, l57, q)).toEqual({
      lists: ['queues:default'],
      zsets: ['queues:default:delayed', 'queues:default:reserved'],
      blpop: [],
    });
    expect(probePlan(spec(5) as never, l57, q).blpop).toEqual(['queues:default']);
    expect(probePlan(spec(5) as never, l8, q)).toEqual({
      lists: ['queues:default', 'queues:default:notify'],
      zsets: ['queues:default:delayed', 'queues:default:reserved'],
      blpop: ['queues:default:notify'],
    });
  });
});
