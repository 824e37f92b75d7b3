// ACL users with part of what a run needs (REDIS_URL) are refused before the run writes anything,
// with one line naming the command and the key they may not use, and nothing left on the server:
// not the run's keys, not its claim or mark. What a run needs comes from Laravel's code: 5.7's
// push is a plain RPUSH (RedisQueue::pushRaw), its queues are queues:<q> (list), :delayed and
// :reserved (sorted sets); block_for makes a 5.7 worker BLPOP queues:<q>; the end DELs them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisServer } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { serverWithAdmin, type AdminClient } from '../helpers/admin.ts';

let server: RedisServer;
let admin: AdminClient;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ server, admin, stop } = await serverWithAdmin());
  const user = (name: string, ...rules: string[]) =>
    admin.sendCommand(['ACL', 'SETUSER', name, 'on', '>pw', '&*', '+@all', ...rules]);
  await user('norpush', '~*', '-rpush');
  await user('other-keys', '~other:*');
  await user('nodelayed', '~lqsim:*', '~queues:default', '~queues:default:reserved');
  await user('noblpop', '~*', '-blpop');
  await user('nozremrangebyrank', '~*', '-zremrangebyrank');
  await user('noecho', '~*', '-echo');
});
afterAll(() => stop());

const as = (user: string) => ({
  url: `redis://${user}:pw@127.0.0.1:${server.port}`,
  owned: false,
  kind: 'external',
  version: server.version,
  describe: () => `REDIS_URL as ${user}`,
});
const spec = async (name: string) => (await loadScenarioFile(await resolveScenario(name))).spec;

describe('an ACL user that may not do all a run needs', () => {
  it.each([
    [
      'without RPUSH',
      'norpush',
      'success',
      /^refusing to run: this server's user may not run RPUSH on queues:default, which the run sends \(ERR The user executing the script can't run this command or subcommand\)/,
    ],
    [
      'with keys other:* only (the claim is refused first)',
      'other-keys',
      'success',
      /^refusing to run: this server's user may not run EXISTS on lqsim:claim, which a run needs to claim a db/,
    ],
    [
      'without queues:default:delayed among its keys',
      'nodelayed',
      'success',
      /^refusing to run: this server's user may not run DEL on queues:default:delayed, which the run sends \(ERR The user executing the script can't access at least one of the keys/,
    ],
    [
      'without BLPOP (block_for)',
      'noblpop',
      'block-for',
      /^refusing to run: this server's user may not run BLPOP on queues:default, which the run sends \(NOPERM /,
    ],
    [
      'without ZREMRANGEBYRANK (the migrate script)',
      'nozremrangebyrank',
      'success',
      /^refusing to run: this server's user may not run ZREMRANGEBYRANK on queues:default:delayed, which the run sends/,
    ],
    [
      'without ECHO (the step marks; preflight, before the claim)',
      'noecho',
      'success',
      /^refusing to run: this server's user may not run ECHO, which marks in MONITOR where each step's commands end \(NOPERM /,
    ],
  ])(
    '%s: refused before any step, naming the command and the key, nothing left',
    async (_what, user, scenario, says) => {
      await admin.flushAll();
      const t = await runScenario(await spec(scenario), { redis: as(user) });
      expect(t.error).toMatch(says);
      expect(t.error).not.toContain('\n');
      expect(t.steps).toEqual([]);
      // INFO keyspace lists only the dbs that hold keys: none.
      expect(await admin.info('keyspace')).not.toMatch(/^db\d+:/m);
    },
  );

  it('a user with every permission: the probe leaves the db as it was and the run goes on', async () => {
    await admin.flushAll();
    await admin.sendCommand(['ACL', 'SETUSER', 'everything', 'on', '>pw', '~*', '&*', '+@all']);
    const t = await runScenario(await spec('success'), { redis: as('everything') });
    expect(t.error).toBeUndefined();
    // The first command of the run is the dispatcher's, the probe's are not in the trace.
    expect(t.steps[0]!.commands.map((c) => c.args[0])).toEqual(['SELECT', 'RPUSH']);
    expect(await admin.info('keyspace')).not.toMatch(/^db\d+:/m);
  });
});
