// The local redis-server the CLI starts while a command's modules load (src/redis/early-server.ts):
// acquireRedis takes it instead of starting a second one, it is started only where acquireRedis
// would start a local server first, and one that nothing takes (a scenario that does not load)
// is stopped with the command, leaving no process and no dir behind.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { forgetEarlyLocalRedis, startLocalRedisEarly, takeEarlyLocalRedis } from '../../src/redis/early-server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { processesIn } from '../helpers/process.ts';

const cli = fileURLToPath(new URL('../../bin/lqsim.js', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'lqsim-early-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the redis-server started while the modules load', () => {
  it('is the one acquireRedis uses: no second server is started', async () => {
    const env = { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' };
    startLocalRedisEarly(env);
    const server = await acquireRedis({ env });
    try {
      expect(server.kind).toBe('local-binary');
      // Taken by acquireRedis: nothing is left to take.
      expect(takeEarlyLocalRedis(env)).toBeNull();
    } finally {
      await server.stop();
    }
  });

  it('is not started for REDIS_URL or LQSIM_REDIS=docker, where acquireRedis starts no local server first', () => {
    startLocalRedisEarly({ ...process.env, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(takeEarlyLocalRedis(process.env)).toBeNull();
    startLocalRedisEarly({ ...process.env, REDIS_URL: '', LQSIM_REDIS: 'docker' });
    expect(takeEarlyLocalRedis(process.env)).toBeNull();
    forgetEarlyLocalRedis();
  });

  it('is spawned by the time startLocalRedisEarly resolves: it starts while the engine is evaluated, not after', async () => {
    // The CLI's bundle evaluates the engine's modules in one synchronous stretch (src/cli.ts awaits
    // this before importing them). A binary that notes when it was spawned, then is redis-server.
    const mark = join(scratch, 'spawned-at');
    const binary = join(scratch, 'noting-redis-server');
    writeFileSync(binary, `#!/bin/sh\ndate +%s%N > '${mark}'\nexec redis-server "$@"\n`, { mode: 0o755 });
    const env = { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '', REDIS_SERVER_BIN: binary };
    await startLocalRedisEarly(env);
    const evaluatedUntil = Date.now() + 300;
    while (Date.now() < evaluatedUntil); // the engine's modules, evaluated without a break
    const server = await takeEarlyLocalRedis(env)!;
    try {
      expect(Number(readFileSync(mark, 'utf8')) / 1e6).toBeLessThan(evaluatedUntil);
    } finally {
      await server.stop();
    }
  });

  it('resolves, never rejects, when the server cannot be spawned: the run reports that, from acquireRedis', async () => {
    const env = {
      ...process.env,
      LQSIM_REDIS: 'local',
      REDIS_URL: '',
      REDIS_SERVER_BIN: join(scratch, 'no-such-binary'),
    };
    await expect(startLocalRedisEarly(env)).resolves.toBeUndefined();
    await expect(takeEarlyLocalRedis(env)).rejects.toThrow(/no-such-binary/);
    await expect(startLocalRedisEarly({ ...process.env, REDIS_URL: 'redis://127.0.0.1:1' })).resolves.toBeUndefined();
  });

  it('is stopped with the command when nothing takes it: no redis-server, watchdog or dir is left', () => {
    const own = mkdtempSync(join(scratch, 'run-'));
    const r = spawnSync(process.execPath, [cli, 'run', 'no-such-scenario'], {
      env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '', TMPDIR: own },
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no-such-scenario/);
    expect(processesIn(own)).toEqual([]);
    expect(readdirSync(own).filter((n) => n.startsWith('lqsim-redis-'))).toEqual([]);
  });
});
