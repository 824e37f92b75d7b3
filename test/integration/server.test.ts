// acquireRedis against the real redis-server binary (/usr/bin/redis-server here), plus the
// promise that a redis-server we started never outlives the Node process.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LocalRedisError, RedisUnavailableError } from '../../src/redis/errors.ts';
import { freePort, pickPort, startLocalRedisServer } from '../../src/redis/local-server.ts';
import { dockerEngineConfigured } from '../../src/redis/docker-hint.ts';
import { acquireRedis, type RedisServer } from '../../src/redis/server.ts';
import { processEnded, processExists, waitFor } from '../helpers/process.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/hold-redis.ts', import.meta.url));

/** The environment without anything that would choose a server for us. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.REDIS_URL;
  delete env.LQSIM_REDIS;
  delete env.REDIS_SERVER_BIN;
  return { ...env, ...extra };
}

async function ping(url: string): Promise<string> {
  const client = createClient({ url, RESP: 2, disableClientInfo: true, socket: { reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.ping();
  } finally {
    client.destroy();
  }
}

const started: RedisServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

describe('acquireRedis with LQSIM_REDIS=local', () => {
  it('starts redis-server, answers PING, reports its version, and stop() ends it', async () => {
    const logs: string[] = [];
    const server = await acquireRedis({ env: cleanEnv({ LQSIM_REDIS: 'local' }), log: (m) => logs.push(m) });
    started.push(server);
    expect(server.kind).toBe('local-binary');
    expect(server.owned).toBe(true);
    expect(server.host).toBe('127.0.0.1');
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(server.version).toMatch(/^7\.\d+\.\d+/);
    expect(server.describe()).toBe(
      `local redis-server ${server.version} on 127.0.0.1:${server.port} (pid ${server.pid})`,
    );
    expect(logs.join('\n')).toContain('local redis-server');
    expect(await ping(server.url)).toBe('PONG');

    const pid = server.pid!;
    const dir = server.dataDir!;
    expect(existsSync(dir)).toBe(true);
    await server.stop();
    expect(() => process.kill(pid, 0)).toThrow();
    expect(existsSync(dir)).toBe(false);
    await server.stop(); // a second stop is harmless
  });

  it('gives two servers two ports', async () => {
    const [a, b] = await Promise.all([1, 2].map(() => acquireRedis({ env: cleanEnv({ LQSIM_REDIS: 'local' }) })));
    started.push(a!, b!);
    expect(a!.port).not.toBe(b!.port);
    expect(await ping(a!.url)).toBe('PONG');
    expect(await ping(b!.url)).toBe('PONG');
  });

  it('throws RedisUnavailableError that says how to get Redis when the binary is missing', async () => {
    const err = await acquireRedis({ env: cleanEnv({ LQSIM_REDIS: 'local', REDIS_SERVER_BIN: '/nonexistent' }) }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RedisUnavailableError);
    const e = err as RedisUnavailableError;
    expect(e.tried).toHaveLength(1);
    expect(e.tried[0]).toContain('redis-server binary not found: /nonexistent');
    for (const hint of [
      'apt-get install redis-server',
      'brew install redis',
      'Docker',
      'redis:7.4-alpine',
      'REDIS_URL=redis://host:port',
    ]) {
      expect(e.message).toContain(hint);
    }
  });
});

describe('startLocalRedisServer with a misbehaving binary', () => {
  const scripts = mkdtempSync(join(tmpdir(), 'lqsim-fake-redis-'));
  afterAll(() => rmSync(scripts, { recursive: true, force: true }));
  let n = 0;
  /** A fake redis-server: a shell script (POSIX sh) that gets redis-server's arguments. */
  function fakeBinary(body: string): string {
    const file = join(scripts, `fake-${++n}.sh`);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  it('reports an early exit with the last output lines', async () => {
    const bin = fakeBinary('echo "starting"; echo "FATAL CONFIG FILE ERROR" >&2; exit 1');
    const err = await startLocalRedisServer({ env: cleanEnv({ REDIS_SERVER_BIN: bin }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalRedisError);
    expect((err as LocalRedisError).reason).toBe('exited');
    expect((err as LocalRedisError).output).toEqual(['starting', 'FATAL CONFIG FILE ERROR']);
    expect((err as Error).message).toContain('FATAL CONFIG FILE ERROR');
  });

  it('gives up after the ready timeout, kills the process and removes its dir', async () => {
    const bin = fakeBinary('echo "pid $$ dir ${10}"; exec sleep 30');
    const err = await startLocalRedisServer({ env: cleanEnv({ REDIS_SERVER_BIN: bin }), readyTimeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LocalRedisError);
    expect((err as LocalRedisError).reason).toBe('timeout');
    const [, pid, dir] = /^pid (\d+) dir (\S+)$/.exec((err as LocalRedisError).output[0] ?? '') ?? [];
    expect(dir).toContain('lqsim-redis-');
    expect(() => process.kill(Number(pid), 0)).toThrow();
    expect(existsSync(dir!)).toBe(false);
  });

  it('tries another port when the chosen one was taken in the meantime', async () => {
    const count = join(scripts, 'attempts');
    const bin = fakeBinary(
      `echo x >> ${count}\n` +
        `if [ $(wc -l < ${count}) -lt 3 ]; then echo "# Warning: Could not create server TCP listening socket 127.0.0.1:$2: bind: Address already in use"; exit 1; fi\n` +
        'exec redis-server "$@"',
    );
    const server = await startLocalRedisServer({ env: cleanEnv({ REDIS_SERVER_BIN: bin }) });
    try {
      expect(readFileSync(count, 'utf8').trim().split('\n')).toHaveLength(3);
      expect(await ping(`redis://127.0.0.1:${server.port}`)).toBe('PONG');
    } finally {
      await server.stop();
    }
  });
  it('passes over a port another process listens on: the bind fails, and the next attempt takes another', async () => {
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const taken = (holder.address() as AddressInfo).port;
    const free = await freePort();
    const tried: number[] = [];
    const ports = [taken, free];
    try {
      const server = await startLocalRedisServer({
        env: cleanEnv(),
        port: () => {
          tried.push(ports[tried.length]!);
          return tried[tried.length - 1]!;
        },
      });
      try {
        expect(tried).toEqual([taken, free]);
        expect(server.port).toBe(free);
        expect(await ping(`redis://127.0.0.1:${server.port}`)).toBe('PONG');
      } finally {
        await server.stop();
      }
    } finally {
      holder.close();
    }
  });

  it('picks its ports at random where Linux picks for a listen on port 0: odd, in the lower half of its ephemeral range', () => {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    const half = low! + Math.floor((high! - low!) / 2);
    const picked = Array.from({ length: 300 }, () => pickPort());
    expect(picked.every((p) => p % 2 === 1 && p >= low! && p <= half)).toBe(true);
    expect(new Set(picked).size).toBeGreaterThan(250);
    // A cluster node's bus port (10000 higher) stays a port.
    expect(Math.max(...picked)).toBeLessThanOrEqual(55535);
  });

  it("takes its version from the server's first lines, and asks INFO when they do not say it", async () => {
    // The same redis-server, its "Redis version=" line reworded on the way (bash: exec keeps its pid).
    const bin = join(scripts, 'reworded.sh');
    writeFileSync(bin, `#!/bin/bash\nexec redis-server "$@" > >(sed -u 's/Redis version=/Server version=/')\n`);
    chmodSync(bin, 0o755);
    const said = await acquireRedis({ env: cleanEnv({ LQSIM_REDIS: 'local' }) });
    started.push(said);
    const asked = await acquireRedis({ env: cleanEnv({ LQSIM_REDIS: 'local', REDIS_SERVER_BIN: bin }) });
    started.push(asked);
    const info = async (url: string): Promise<string> => {
      const client = createClient({ url, RESP: 2, disableClientInfo: true, socket: { reconnectStrategy: false } });
      await client.connect();
      try {
        return /redis_version:(\S+)/.exec(await client.info('server'))![1]!;
      } finally {
        client.destroy();
      }
    };
    expect(said.version).toBe(await info(said.url));
    expect(asked.version).toBe(await info(asked.url));
    const local = await startLocalRedisServer({ env: cleanEnv({ REDIS_SERVER_BIN: bin }) });
    try {
      expect(local.version).toBeUndefined();
    } finally {
      await local.stop();
    }
    const plain = await startLocalRedisServer({ env: cleanEnv() });
    try {
      expect(plain.version).toBe(said.version);
    } finally {
      await plain.stop();
    }
  });
});

describe('acquireRedis with REDIS_URL', () => {
  it('uses the given server, does not own it, and stop() leaves it running', async () => {
    const local = await acquireRedis({ env: cleanEnv({ LQSIM_REDIS: 'local' }) });
    started.push(local);
    const ext = await acquireRedis({ env: cleanEnv({ REDIS_URL: local.url, LQSIM_REDIS: 'docker' }) });
    expect(ext).toMatchObject({
      kind: 'external',
      url: local.url,
      host: '127.0.0.1',
      port: local.port,
      owned: false,
      version: local.version,
    });
    expect(ext.pid).toBeUndefined();
    expect(ext.describe()).toBe(`REDIS_URL ${local.url} (Redis ${local.version})`);
    await ext.stop();
    expect(await ping(local.url)).toBe('PONG');
    expect(processExists(local.pid!)).toBe(true);
  });

  it('does not fall back to another server when REDIS_URL is unreachable, and hides its password', async () => {
    const url = `redis://:s3cret@127.0.0.1:${await freePort()}`;
    const err = await acquireRedis({ env: cleanEnv({ REDIS_URL: url }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect((err as Error).message).toContain('REDIS_URL');
    expect((err as Error).message).not.toContain('s3cret');
  });
});

const dockerConfigured = dockerEngineConfigured(process.env);

describe.skipIf(dockerConfigured)('acquireRedis without a Docker engine', () => {
  it('uses the local binary without probing Docker, and says nothing of Docker', async () => {
    const logs: string[] = [];
    const server = await acquireRedis({ env: cleanEnv(), log: (m) => logs.push(m) });
    started.push(server);
    expect(server.kind).toBe('local-binary');
    expect(logs).toEqual([expect.stringMatching(/^using local redis-server /)]);
  });

  it('with LQSIM_REDIS=docker, says that testcontainers was tried and nothing else', async () => {
    const err = await acquireRedis({ env: cleanEnv({ LQSIM_REDIS: 'docker' }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect((err as RedisUnavailableError).tried).toEqual([
      expect.stringMatching(/^testcontainers \(redis:7\.4-alpine\): /),
    ]);
  });
});

describe('a redis-server never outlives the Node process that started it', () => {
  it('SIGKILL between spawning redis-server and telling the watchdog its pid: the watchdog still ends it (by its port) and removes the dir', async () => {
    const script = fileURLToPath(new URL('../fixtures/die-during-startup.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: repoRoot,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const [, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    expect(signal).toBe('SIGKILL');
    const info = JSON.parse(stdout.trim()) as { dir: string; port: number; pid: number };
    expect(await waitFor(() => processEnded(info.pid), 5000), `redis-server ${info.pid} outlived it`).toBe(true);
    expect(await waitFor(() => !existsSync(info.dir), 5000), `${info.dir} outlived it`).toBe(true);
  });

  async function runFixture(mode: 'wait' | 'exit' | 'throw') {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, mode], {
      cwd: repoRoot,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let stdout = '';
    const info = await new Promise<{ pid: number; dataDir: string }>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        const nl = stdout.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(stdout.slice(0, nl)) as { pid: number; dataDir: string });
      });
      void exited.then(() => reject(new Error(`fixture exited before printing its pid; stderr:\n${stderr}`)));
    });
    return { child, info, exited, stderr: () => stderr };
  }

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'on %s: stops redis-server, removes its dir, exits with %i',
    async (signal, code) => {
      const { child, info, exited } = await runFixture('wait');
      expect(processExists(info.pid)).toBe(true);
      child.kill(signal);
      const [exitCode] = await exited;
      expect(exitCode).toBe(code);
      // stop() waited for the server's exit, so it is reaped: not even a zombie is left.
      expect(() => process.kill(info.pid, 0)).toThrow();
      expect(existsSync(info.dataDir)).toBe(false);
    },
    20_000,
  );

  it.each(['exit', 'throw'] as const)(
    "on process %s without cleanup: the 'exit' fallback kills redis-server",
    async (mode) => {
      const { info, exited, stderr } = await runFixture(mode);
      const [exitCode] = await exited;
      expect(exitCode).toBe(mode === 'exit' ? 0 : 1);
      if (mode === 'throw') expect(stderr()).toContain('deliberate crash'); // not swallowed
      expect(await waitFor(() => processEnded(info.pid), 3000)).toBe(true);
      expect(existsSync(info.dataDir)).toBe(false);
    },
    20_000,
  );
});
