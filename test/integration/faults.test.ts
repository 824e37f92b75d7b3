// Faults mid-run: the server dying, the network dropping or hanging, MONITOR falling behind. Each
// must end the run within seconds with a clear error, keep the steps recorded so far, and never
// hang or silently cut the trace short.
import { spawn } from 'node:child_process';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile, parseScenario } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { processEnded, waitFor } from '../helpers/process.ts';

const cli = fileURLToPath(new URL('../../bin/lqsim.js', import.meta.url));
const spec = async (name: string) => (await loadScenarioFile(await resolveScenario(name))).spec;

describe('the redis-server is killed (SIGKILL) mid-run', () => {
  it('lqsim run exits 1 within seconds with one lqsim: line, the steps so far printed', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, LQSIM_REDIS: 'local', FORCE_COLOR: '0' };
    delete env.REDIS_URL;
    const child = spawn(process.execPath, [cli, 'run', 'timeout-max-attempts', '--pace', '300'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    const closed = new Promise<number | null>((r) => child.on('close', r));
    try {
      expect(await waitFor(() => /^#1 /m.test(stdout), 20_000), stderr).toBe(true);
      const pid = Number(/\(pid (\d+)\)/.exec(stderr)?.[1]);
      process.kill(pid, 'SIGKILL');
      const killedAt = Date.now();
      const code = await closed;
      expect(Date.now() - killedAt).toBeLessThan(5000);
      expect(code).toBe(1);
      expect(processEnded(pid)).toBe(true);
      // timeout-max-attempts has 10 steps (#0-#9); the run stopped after the first ones.
      expect(stdout).toMatch(/^#0 /m);
      expect(stdout).not.toMatch(/^#9 /m);
      const lines = stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^lqsim: using local redis-server/);
      expect(lines.slice(1)).toEqual([
        expect.stringMatching(
          /^lqsim: run ended early after \d+ steps?: lost the connection to Redis \(server gone or network down\): /,
        ),
      ]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

/** A TCP relay in front of the server that can hang (stop relaying, keep sockets open) or drop (reset them). */
class Relay {
  private readonly pairs = new Set<[Socket, Socket]>();
  private frozen = false;
  private constructor(private readonly server: Server) {}

  static async start(port: number): Promise<Relay> {
    const server = createServer();
    const relay = new Relay(server);
    server.on('connection', (front) => {
      const back = createConnection({ host: '127.0.0.1', port });
      const pair: [Socket, Socket] = [front, back];
      relay.pairs.add(pair);
      for (const [from, to] of [
        [front, back],
        [back, front],
      ] as const) {
        from.on('data', (d) => {
          if (!relay.frozen) to.write(d);
        });
        from.on('error', () => undefined);
        from.on('close', () => to.destroy());
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return relay;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** Bytes stop flowing both ways; no socket closes (a cable pulled, a stateful firewall dropping). */
  hang(): void {
    this.frozen = true;
  }

  /** Every connection is reset. */
  drop(): void {
    for (const [a, b] of this.pairs) {
      a.resetAndDestroy();
      b.resetAndDestroy();
    }
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

describe('the network between the tool and the server fails mid-run', () => {
  let server: RedisServer;
  let relay: Relay;
  beforeAll(async () => {
    server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
  });
  afterEach(async () => {
    await relay?.close();
  });
  afterAll(async () => {
    await server.stop();
  });

  async function runThrough(fault: (r: Relay) => void) {
    relay = await Relay.start(server.port);
    const target = {
      url: `redis://127.0.0.1:${relay.port}`,
      owned: true,
      kind: 'local-binary',
      version: server.version,
      describe: () => 'relay',
    };
    let faultAt = 0;
    const t = await runScenario(await spec('timeout-max-attempts'), {
      redis: target,
      onStep: (step) => {
        if (step.index === 2) {
          faultAt = Date.now();
          fault(relay);
        }
      },
    });
    return { t, seconds: (Date.now() - faultAt) / 1000 };
  }

  it('connections reset: the run ends at once with the steps before the fault', async () => {
    const { t, seconds } = await runThrough((r) => r.drop());
    expect(seconds).toBeLessThan(3);
    expect(t.steps.map((s) => s.index)).toEqual([0, 1, 2]);
    expect(t.error).toMatch(/^lost the connection to Redis \(server gone or network down\): /);
  });

  it('connections hang (no reset, no reply): the run ends within the command timeout, not never', async () => {
    const { t, seconds } = await runThrough((r) => r.hang());
    expect(seconds).toBeLessThan(8);
    expect(t.steps.map((s) => s.index)).toEqual([0, 1, 2]);
    expect(t.error).toMatch(/within (5 s|5000 ms) .*\(server hung or network down\)/);
  }, 20_000);
});

describe('MONITOR falls behind', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('the server drops the monitor for its output buffer: the run says so instead of a short trace', async () => {
    const admin = createClient({ socket: { host: server.host, port: server.port } });
    admin.on('error', () => undefined);
    await admin.connect();
    // MONITOR clients are in the "normal" class, like every connection of the tool. To overflow
    // only the monitor, the second job carries 60,000 "€" (180 kB of UTF-8), which Laravel 8
    // json_encodes unescaped: replies carry the 180 kB as is, but MONITOR prints each byte as
    // \xNN, so the push script's lines reach it as over 1.4 MB at once, far over 512 kB.
    const { spec } = parseScenario(
      [
        'name: monitor-burst',
        'title: one dispatch feeds the monitor more than its buffer limit',
        'laravel: "8"',
        'jobs:',
        '  Small: { class: App\\Jobs\\Small }',
        `  Big: { class: App\\Jobs\\Big, properties: { blob: "${'€'.repeat(60_000)}" } }`,
        'timeline: [{ at: 0, dispatch: Small }, { at: 5, dispatch: Big }]',
        '',
      ].join('\n'),
      'monitor-burst.yaml',
    );
    await admin.sendCommand(['CONFIG', 'SET', 'client-output-buffer-limit', 'normal 512kb 0 0']);
    try {
      const t = await runScenario(spec, { redis: server });
      // Redis 7.2+ counts these closings (certain); 7.0 does not, so the message says "most likely".
      expect(t.error).toMatch(
        /^MONITOR (fell behind: the server closed|connection closed by the server, which is still up: MONITOR most likely fell behind and passed) .*client-output-buffer-limit/,
      );
      // The step before the burst is kept; the burst's step is not shown half-recorded.
      expect(t.steps.map((s) => s.title)).toEqual([expect.stringMatching(/^dispatch Small#1 /)]);
    } finally {
      await admin.sendCommand(['CONFIG', 'SET', 'client-output-buffer-limit', 'normal 0 0 0']);
      admin.destroy();
    }
    // Without the limit the same scenario runs through: it was the buffer, not the scenario.
    const again = await runScenario(spec, { redis: server });
    expect(again.error).toBeUndefined();
    expect(again.steps).toHaveLength(2);
  });
});
