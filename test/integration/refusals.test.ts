// Servers the tool must refuse, with a clear message and before it writes anything: a user
// without MONITOR (the trace is MONITOR), a user without scripting (Laravel's queue is Lua
// scripts), a server older than the commands the tool sends (6.2: CLIENT INFO).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { compareVersions, MIN_REDIS_VERSION, versionFromInfo, versionProblem } from '../../src/redis/preflight.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';

describe('the version check on INFO server', () => {
  const info = (v: string) => `# Server\r\nredis_version:${v}\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n`;

  it('reads redis_version from INFO text', () => {
    expect(versionFromInfo(info('7.0.15'))).toBe('7.0.15');
    expect(versionFromInfo('# Server\r\nredis_mode:standalone\r\n')).toBeUndefined();
  });

  it('compares dotted versions numerically', () => {
    expect(compareVersions('6.10.0', '6.2.0')).toBe(1); // not string order
    expect(compareVersions('6.2', '6.2.0')).toBe(0);
    expect(compareVersions('6.0.16', '6.2.0')).toBe(-1);
  });

  it('accepts 6.2 and newer, refuses older ones and a missing version with a message naming the minimum', () => {
    expect(MIN_REDIS_VERSION).toBe('6.2.0');
    for (const ok of ['6.2.0', '6.2.14', '7.0.15', '7.4.1', '10.0.0'])
      expect(versionProblem(versionFromInfo(info(ok))), ok).toBeNull();
    expect(versionProblem(versionFromInfo(info('6.0.16')))).toBe(
      'Redis 6.0.16 is too old: lqsim needs 6.2.0 or newer (CLIENT INFO, CLIENT UNBLOCK, EVAL)',
    );
    expect(versionProblem(versionFromInfo(info('5.0.7')))).toMatch(/^Redis 5\.0\.7 is too old/);
    expect(versionProblem(versionFromInfo('# Server\r\n'))).toMatch(/did not report a redis_version/);
    expect(versionProblem('garbage')).toMatch(/did not report a redis_version/);
  });
});

describe('ACL users that may not do what a run needs', () => {
  let server: RedisServer;
  let admin: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
    // In db 15, out of the runs' way: a client in a db keeps runs out of it (claim.ts).
    admin = createClient({ socket: { host: server.host, port: server.port }, database: 15 });
    admin.on('error', () => undefined);
    await admin.connect();
    // Everything but MONITOR; everything but scripting (EVAL, EVALSHA, SCRIPT, FUNCTION...).
    await admin.sendCommand(['ACL', 'SETUSER', 'nomonitor', 'on', '>pw', '~*', '&*', '+@all', '-monitor']);
    await admin.sendCommand(['ACL', 'SETUSER', 'noscripts', 'on', '>pw', '~*', '&*', '+@all', '-@scripting']);
    await admin.sendCommand(['ACL', 'SETUSER', 'nodel', 'on', '>pw', '~*', '&*', '+@all', '-del']);
    await admin.sendCommand(['ACL', 'SETUSER', 'loses-del', 'on', '>pw', '~*', '&*', '+@all']);
  });
  afterAll(async () => {
    admin.destroy();
    await server.stop();
  });

  const as = (user: string) => {
    const url = `redis://${user}:pw@127.0.0.1:${server.port}`;
    return { url, owned: false, kind: 'external', version: server.version, describe: () => `REDIS_URL as ${user}` };
  };
  const spec = async (name: string) => (await loadScenarioFile(await resolveScenario(name))).spec;
  /** No key in any db (INFO keyspace lists only dbs that hold keys). */
  const nothingWritten = async () => expect(await admin.info('keyspace')).not.toMatch(/^db\d+:/m);

  it('without MONITOR: refuses before any step, names MONITOR, writes nothing', async () => {
    await admin.flushAll();
    const t = await runScenario(await spec('success'), { redis: as('nomonitor') });
    expect(t.error).toMatch(
      /^refusing to run: this server's user may not run MONITOR, which is how lqsim sees the commands \(NOPERM /,
    );
    expect(t.steps).toEqual([]);
    await nothingWritten();
  });

  it('without scripting: refuses before any step, names EVAL, writes nothing', async () => {
    await admin.flushAll();
    const t = await runScenario(await spec('success'), { redis: as('noscripts') });
    expect(t.error).toMatch(
      /^refusing to run: this server's user may not run Lua scripts \(EVAL\), which Laravel uses to pop, release and migrate jobs \(NOPERM /,
    );
    expect(t.steps).toEqual([]);
    await nothingWritten();
  });

  it('without DEL: refuses before any step (its keys could not be removed at the end), writes nothing', async () => {
    await admin.flushAll();
    const t = await runScenario(await spec('success'), { redis: as('nodel') });
    // Tried by the claim script before it writes (claim.ts).
    expect(t.error).toMatch(
      /^refusing to run: this server's user may not run DEL on lqsim:claim, which a run needs to claim a db \(lqsim:claim and lqsim:run in the db it takes\) and to remove them and its keys at the end \(ERR The user executing the script can't run this command/,
    );
    expect(t.steps).toEqual([]);
    await nothingWritten();
  });

  it('a cleanup that fails (DEL taken away mid-run) is an error naming the keys left, never silent', async () => {
    await admin.flushAll();
    const t = await runScenario(await spec('reserve'), {
      redis: as('loses-del'),
      onStep: async (step) => {
        if (step.index === 0) await admin.sendCommand(['ACL', 'SETUSER', 'loses-del', '-del']);
      },
    });
    await admin.sendCommand(['ACL', 'SETUSER', 'loses-del', '+del']);
    expect(t.error).toMatch(
      /^the run's keys could not be deleted from db 0 \(DEL of queues:default refused: ERR The user executing the script can't run this command or subcommand\); they are left there: queues:default, queues:default:delayed, queues:default:reserved/,
    );
    // reserve ends with the job reserved: that key is what was left.
    expect(
      await admin.sendCommand([
        'EVAL',
        "redis.call('select', 0) return redis.call('exists', KEYS[1])",
        '1',
        'queues:default:reserved',
      ]),
    ).toBe(1);
  });

  it.each([
    [
      'a wrong password',
      'nomonitor:wrong',
      /^lqsim: refusing to run: REDIS_URL=redis:\/\/nomonitor:\*\*\*@127\.0\.0\.1:\d+: the server turned the login down \(WRONGPASS /,
    ],
    [
      'a user without INFO',
      'noinfo:pw',
      /^lqsim: refusing to run: REDIS_URL=redis:\/\/noinfo:\*\*\*@127\.0\.0\.1:\d+: the user may not run what lqsim asks first \(NOPERM /,
    ],
  ])('%s: one line that says so, exit 1, and no hints to install Redis', async (_what, login, says) => {
    await admin.sendCommand(['ACL', 'SETUSER', 'noinfo', 'on', '>pw', '~*', '&*', '+@all', '-info']);
    const cli = fileURLToPath(new URL('../../bin/lqsim.js', import.meta.url));
    const child = spawn(process.execPath, [cli, 'run', 'dispatch'], {
      env: { ...process.env, REDIS_URL: `redis://${login}@127.0.0.1:${server.port}`, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(says);
    expect(stderr).not.toContain('apt-get');
  });

  it('the CLI says so in one line and exits 1', async () => {
    const cli = fileURLToPath(new URL('../../bin/lqsim.js', import.meta.url));
    const child = spawn(process.execPath, [cli, 'run', 'dispatch'], {
      env: { ...process.env, REDIS_URL: as('nomonitor').url, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.stdout.on('data', (d) => (stdout += String(d)));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(1);
    const lines = stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^lqsim: using REDIS_URL /);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^lqsim: .*refusing to run: this server's user may not run MONITOR/),
    ]);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stdout).not.toMatch(/^#0 /m);
  });
});
