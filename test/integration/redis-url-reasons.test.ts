// Each way a REDIS_URL can fail gets its own reason, in one line: a URL that is not one is bad input
// (exit 2, like a bad scenario); a unix socket is refused up front (MONITOR cannot tell its clients
// apart); a login turned down is never "not reachable" with install hints, on whichever connection
// it happens; rediss:// to a plaintext server says so instead of timing out, redis:// to a TLS
// port says so instead of "not reachable".
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lqsim } from '../helpers/cli.ts';
import { describeRunFailure, loginDenial, RedisSettingError } from '../../src/redis/errors.ts';
import { freePort } from '../../src/redis/local-server.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { serverWithAdmin, type AdminClient } from '../helpers/admin.ts';
import { parseRedisUrl } from '../../src/redis/url.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile, parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';

let server: RedisServer;
let admin: AdminClient;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ server, admin, stop } = await serverWithAdmin());
});
afterAll(() => stop());

const INSTALL_HINTS = /apt-get|brew install|not reachable/;

describe('REDIS_URL that cannot name a traceable server: bad input, exit 2, one line', () => {
  it.each([
    ['nonsense', /^lqsim: REDIS_URL=nonsense: expected redis:\/\/\[user:password@\]host/],
    ['http://127.0.0.1:6379', /^lqsim: REDIS_URL=http:\/\/127\.0\.0\.1:6379: expected redis:\/\//],
    ['redis://127.0.0.1:notaport', /^lqsim: REDIS_URL=redis:\/\/127\.0\.0\.1:notaport: not a valid URL/],
    ['redis://u:a/b@127.0.0.1', /^lqsim: REDIS_URL=redis:\/\/u:\*\*\*@127\.0\.0\.1: not a valid URL.*percent-encoded/],
  ])('%s', async (url, message) => {
    const r = await lqsim(['run', 'dispatch'], { env: { REDIS_URL: url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  it.each(['unix:///tmp/redis.sock', 'redis+socket:///var/run/redis.sock', 'UNIX:///tmp/redis.sock'])(
    'a unix socket, %s, refused before connecting: it says why and what to use',
    async (url) => {
      expect(() => parseRedisUrl(url)).toThrow(RedisSettingError);
      const r = await lqsim(['run', 'dispatch'], { env: { REDIS_URL: url } });
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toMatch(
        /^lqsim: REDIS_URL=\S+: a unix socket cannot be traced \(MONITOR shows every client on it at one address, so lqsim cannot tell the actors apart\); use a TCP URL, redis:\/\/host:port$/,
      );
    },
  );
});

describe('LQSIM_REDIS other than local or docker: bad input, exit 2, one line, no install hints', () => {
  it('LQSIM_REDIS=bogus', async () => {
    const r = await lqsim(['run', 'dispatch'], { env: { LQSIM_REDIS: 'bogus' } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('lqsim: LQSIM_REDIS=bogus: expected "local" or "docker" (or unset)');
    expect(r.stdout).toBe('');
  });
});

describe('a login turned down is said so, on every connection', () => {
  it('a password sent to a server that has none: the login, not reachability', async () => {
    const r = await lqsim(['run', 'dispatch'], { env: { REDIS_URL: `redis://:pw@127.0.0.1:${server.port}` } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^lqsim: refusing to run: REDIS_URL=redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: the server turned the login down \(ERR AUTH .*\); check the user and password in the URL$/,
    );
    expect(r.stderr).not.toMatch(INSTALL_HINTS);
  });

  it('a wrong password', async () => {
    await admin.sendCommand(['ACL', 'SETUSER', 'locked', 'on', '>right', '~*', '&*', '+@all']);
    const wrong = await lqsim(['run', 'dispatch'], {
      env: { REDIS_URL: `redis://locked:wrong@127.0.0.1:${server.port}` },
    });
    expect(wrong.stderr).toMatch(/the server turned the login down \(WRONGPASS /);
    expect(wrong.stderr).not.toMatch(INSTALL_HINTS);
  });

  it("a login refused after the first connection (the password changed): the run's error says so", async () => {
    await admin.sendCommand(['ACL', 'SETUSER', 'rotating', 'on', '>before', '~*', '&*', '+@all']);
    const s = await acquireRedis({ env: { REDIS_URL: `redis://rotating:before@127.0.0.1:${server.port}` } });
    // The run's own connections (the observer, MONITOR, each actor's) log in after this.
    await admin.sendCommand(['ACL', 'SETUSER', 'rotating', 'resetpass', '>after']);
    const t = await runScenario((await loadScenarioFile(await resolveScenario('dispatch'))).spec, { redis: s });
    expect(t.error).toMatch(
      /^the server turned a connection's login down \(WRONGPASS .*\); check the user and password in REDIS_URL$/,
    );
    expect(t.error).not.toMatch(/lost the connection|not reachable/);
  });

  it("a login refused to an actor's connection mid-run (a second web request): the run's error says so", async () => {
    await admin.sendCommand(['ACL', 'SETUSER', 'midrun', 'on', '>before', '~*', '&*', '+@all']);
    const s = await acquireRedis({ env: { REDIS_URL: `redis://midrun:before@127.0.0.1:${server.port}` } });
    const { spec } = parseScenario(
      'name: two\ntitle: t\njobs:\n  A: { class: App\\Jobs\\A }\ntimeline:\n  - { at: 0, dispatch: A }\n  - { at: 5, dispatch: A }\n',
      'two.yaml',
    );
    // After the first request (its own connection), the password changes; the second request connects anew.
    const t = await runScenario(spec, {
      redis: s,
      onStep: async (step) => {
        if (step.index === 0) await admin.sendCommand(['ACL', 'SETUSER', 'midrun', 'resetpass', '>after']);
      },
    });
    expect(t.error).toMatch(
      /^the server turned a connection's login down \(WRONGPASS .*\); check the user and password in REDIS_URL$/,
    );
  });

  it('the MONITOR connection and an actor connection meet the same words', () => {
    const wrongpass = 'WRONGPASS invalid username-password pair or user is disabled.';
    expect(describeRunFailure(new Error(`MONITOR connection failed: ${wrongpass}`))).toBe(
      `the server turned a connection's login down (MONITOR connection failed: ${wrongpass}); check the user and password in REDIS_URL`,
    );
    expect(loginDenial(new Error('NOAUTH Authentication required.'))).toBe('NOAUTH Authentication required.');
    // Not a login: a lost connection stays a lost connection.
    expect(loginDenial(new Error('Socket closed unexpectedly'))).toBeNull();
    expect(describeRunFailure(new Error('Socket closed unexpectedly'))).toMatch(/^lost the connection/);
  });
});

describe('rediss:// to a server that does not speak TLS', () => {
  it('says the server does not speak TLS and to use redis://, not "no answer within 3000 ms"', async () => {
    const r = await lqsim(['run', 'dispatch'], { env: { REDIS_URL: `rediss://127.0.0.1:${server.port}` } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `lqsim: REDIS_URL=rediss://127.0.0.1:${server.port}: the server does not speak TLS (it answered a plain-text PING); use redis:// instead of rediss://`,
    );
  });
});

describe('redis:// to a server that speaks only TLS, and rediss:// with a certificate not trusted', () => {
  let tlsServer: ChildProcess;
  let tlsPort: number;
  let certDir: string;
  beforeAll(async () => {
    certDir = await mkdtemp(join(tmpdir(), 'lqsim-tls-'));
    const run = (cmd: string, args: string[]): Promise<void> =>
      new Promise((resolve, reject) => execFile(cmd, args, (e) => (e ? reject(e) : resolve())));
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-keyout',
      join(certDir, 'key.pem'),
      '-out',
      join(certDir, 'cert.pem'),
    ]);
    tlsPort = await freePort();
    tlsServer = spawn(
      'redis-server',
      [
        '--port',
        '0',
        '--tls-port',
        String(tlsPort),
        '--tls-auth-clients',
        'no',
        '--tls-cert-file',
        join(certDir, 'cert.pem'),
        '--tls-key-file',
        join(certDir, 'key.pem'),
        '--tls-ca-cert-file',
        join(certDir, 'cert.pem'),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        certDir,
      ],
      { stdio: 'ignore' },
    );
    // Listening once a TCP connection is accepted.
    for (let i = 0; i < 100; i++) {
      const up = await new Promise<boolean>((resolve) => {
        const s = connect(tlsPort, '127.0.0.1', () => (s.destroy(), resolve(true)));
        s.on('error', () => resolve(false));
      });
      if (up) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(async () => {
    tlsServer.kill('SIGKILL');
    await new Promise((r) => tlsServer.once('exit', r));
    await rm(certDir, { recursive: true, force: true });
  });

  it('redis:// says the server speaks TLS and to use rediss://, not "not reachable"', async () => {
    const r = await lqsim(['run', 'dispatch'], { env: { REDIS_URL: `redis://127.0.0.1:${tlsPort}` } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `lqsim: REDIS_URL=redis://127.0.0.1:${tlsPort}: the server speaks TLS (it completed a TLS handshake); use rediss:// instead of redis://`,
    );
  });

  it('rediss:// with a self-signed certificate: the TLS handshake failed, and why', async () => {
    const r = await lqsim(['run', 'dispatch'], { env: { REDIS_URL: `rediss://127.0.0.1:${tlsPort}` } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `lqsim: REDIS_URL=rediss://127.0.0.1:${tlsPort}: the TLS handshake failed (self-signed certificate)`,
    );
  });
});
