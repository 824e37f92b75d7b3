// Drives the tool's model the way Laravel's own tests drive Illuminate\Queue: a RedisQueue built
// like `new RedisQueue($redis, $default, $connection, $retryAfter, $blockFor)` on a real
// redis-server, with InteractsWithRedis' setup (db 5, key prefix `test_`), a virtual clock in
// place of Carbon::setTestNow, and the MONITOR capture of everything the model sent.
import { randomBytes } from 'node:crypto';
import { ConnectionHub } from '../../src/redis/connections.ts';
import { MonitorCapture } from '../../src/redis/monitor.ts';
import { NodeRedisPort } from '../../src/redis/port.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { attributeLines } from '../../src/scenarios/attribute.ts';
import type { TraceCommand } from '../../src/scenarios/timeline.ts';
import { phpSerialize } from '../../src/sim/php.ts';
import { getProfile } from '../../src/sim/profiles/index.ts';
import type { LaravelProfile, PayloadInput } from '../../src/sim/profiles/types.ts';
import { seededRandom, strRandom, uuid4 } from '../../src/sim/random.ts';
import type { RedisPort } from '../../src/sim/redis-port.ts';
import type { QueueConfig } from '../../src/sim/redis-queue.ts';
import { RedisQueue } from '../../src/sim/redis-queue.ts';
import type { ActorContext } from '../../src/sim/scheduler.ts';

/** Illuminate\Foundation\Testing\Concerns\InteractsWithRedis: database 5, options.prefix `test_`. */
export const LARAVEL_TEST_DB = 5;
export const LARAVEL_TEST_PREFIX = 'test_';
/** Virtual unix time the tests start at (Carbon::setTestNow(Carbon::now()) in Laravel's setUp). */
export const T0 = 1_700_000_000;

/** The class of Laravel's integration test job: a plain class with one public property. */
export const TEST_JOB_CLASS = 'Illuminate\\Tests\\Queue\\RedisQueueIntegrationTestJob';

/** serialize(new RedisQueueIntegrationTestJob($i)): what `assertEquals($job, unserialize(...))` compares. */
export function serializedTestJob(i: number): string {
  return phpSerialize({
    kind: 'object',
    className: TEST_JOB_CLASS,
    properties: [{ name: 'i', visibility: 'public', value: i }],
  });
}

/** One ported Laravel test method: its name, the profiles it runs for, and its body. */
export interface LaravelCase {
  name: string;
  profiles: readonly string[];
  run(h: LaravelRedis): Promise<void>;
}

export interface QueueOptions {
  default?: string;
  retryAfter?: number | null;
  blockFor?: number | null;
}

export class LaravelRedis {
  /** The virtual clock (Carbon's test now). */
  clock = T0;
  private readonly random = seededRandom(7);
  private readonly scriptNames: Map<string, string>;

  private constructor(
    readonly profile: LaravelProfile,
    readonly hub: ConnectionHub,
    private readonly capture: MonitorCapture,
    readonly prefix: string,
    private readonly selectDb: number | null,
  ) {
    this.scriptNames = new Map(Object.values(profile.scripts).flatMap((s) => (s ? [[s.source, s.name]] : [])));
  }

  /**
   * setUpRedis: connect and start from empty keys. Laravel flushes db 5; on a server the tool started
   * we delete this prefix's `queues:*` keys there, and on anyone else's (REDIS_URL) we touch nothing
   * that was there before: keys found there fail the test instead.
   */
  static async open(server: RedisServer, profileName: string, opts: { prefix?: string } = {}): Promise<LaravelRedis> {
    const profile = getProfile(profileName);
    const prefix = opts.prefix ?? LARAVEL_TEST_PREFIX;
    const hub = new ConnectionHub(server.url, randomBytes(4).toString('hex'));
    await hub.start();
    await hub.observer.sendCommand(['SELECT', String(LARAVEL_TEST_DB)]);
    const selectDb = profile.worker.selectOnConnect(profile.defaultClient, LARAVEL_TEST_DB) ? LARAVEL_TEST_DB : null;
    const h = new LaravelRedis(profile, hub, await MonitorCapture.start(server.url), prefix, selectDb);
    const existing = await h.ourKeys();
    if (existing.length > 0 && !server.owned) {
      await h.close(false);
      throw new Error(
        `db ${LARAVEL_TEST_DB} of ${server.describe()} already holds ${existing.length} ${prefix}queues:* keys; refusing to touch them`,
      );
    }
    await h.deleteKeys();
    await h.commands();
    return h;
  }

  /** tearDownRedis: every `<prefix>queues:*` key is this test's (open() made sure none was there before). */
  async close(deleteKeys = true): Promise<void> {
    if (deleteKeys) await this.deleteKeys().catch(() => undefined);
    await this.capture.stop().catch(() => undefined);
    await this.hub.close().catch(() => undefined);
  }

  private async ourKeys(): Promise<string[]> {
    return (await this.hub.observer.sendCommand(['KEYS', `${this.prefix}queues:*`])) as unknown as string[];
  }

  private async deleteKeys(): Promise<void> {
    const keys = await this.ourKeys();
    if (keys.length > 0) await this.hub.observer.sendCommand(['DEL', ...keys]);
  }

  /** A new client connection, as one PHP process (or a forked child) has. */
  async port(actor = 'test'): Promise<RedisPort> {
    return new NodeRedisPort(await this.hub.connect(actor), this.hub, this.selectDb);
  }

  config(opts: QueueOptions = {}): QueueConfig {
    return {
      connectionName: 'redis',
      default: opts.default ?? 'default',
      // setQueue()'s defaults in Laravel's test: $retryAfter = 60, $blockFor = null.
      retryAfter: opts.retryAfter === undefined ? 60 : opts.retryAfter,
      blockFor: opts.blockFor ?? null,
      prefix: this.prefix,
    };
  }

  /** new RedisQueue($this->redis, $default, null, $retryAfter, $blockFor) on its own connection. */
  async queue(opts: QueueOptions = {}, actor = 'test'): Promise<RedisQueue> {
    return new RedisQueue(await this.port(actor), this.config(opts), this.profile, () => this.clock);
  }

  /**
   * The context a pop runs in outside the scheduler: a blocking pop waits in real time for the
   * server (BLPOP's own timeout, or `seconds`), as PHP's blocking call would.
   */
  ctx(actor = 'test'): ActorContext {
    return {
      actor,
      time: () => this.clock,
      instant: () => this.clock,
      describe: () => undefined,
      sleep: () => Promise.reject(new Error('a RedisQueue never sleeps')),
      abandon: () => Promise.reject(new Error('nothing kills a RedisQueue test')),
      block: async (op, seconds) => {
        if (seconds === null) return op.result;
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), seconds * 1000 + 500)));
        const got = await Promise.race([op.result, timedOut]);
        clearTimeout(timer);
        if (got !== 'timeout') return got;
        await op.cancel();
        return op.result;
      },
    };
  }

  /** The payload Queue::createPayload builds for new RedisQueueIntegrationTestJob($i) (push/later). */
  testJobPayload(i: number, extra: Partial<PayloadInput> = {}): string {
    return this.payload({ className: TEST_JOB_CLASS, properties: [['i', i]], command: serializedTestJob(i), ...extra });
  }

  /** Queue::createPayload for an object job, with a fresh Str::random(32) id and Str::uuid(). */
  payload(input: Partial<PayloadInput> & { className: string }, overrides: Record<string, unknown> = {}): string {
    const full: PayloadInput = {
      tries: null,
      timeout: null,
      timeoutAt: null,
      properties: [],
      connection: null,
      queue: null,
      delay: null,
      command: null,
      id: strRandom(this.random, 32),
      uuid: uuid4(this.random),
      backoff: null,
      backoffDeclared: null,
      maxExceptions: null,
      failOnTimeout: false,
      // Carbon::now() at dispatch (12.11+ payloads carry it as createdAt; older profiles ignore it).
      createdAt: this.clock,
      ...input,
    };
    return this.profile.encodePayload({ ...this.profile.buildPayload(full), ...overrides });
  }

  /** Commands the model's connections sent since the last call, from MONITOR (the observer's own are dropped). */
  async commands(): Promise<TraceCommand[]> {
    const lines = await this.capture.barrier(this.hub.observer);
    return attributeLines(lines, this.hub, { index: 0, t: this.clock }, this.scriptNames).commands;
  }

  /** A key as the prefixed connection names it: $redis->connection()->zcard('queues:default'). */
  key(name: string): string {
    return `${this.prefix}${name}`;
  }

  async zcard(name: string): Promise<number> {
    return Number(await this.hub.observer.sendCommand(['ZCARD', this.key(name)]));
  }

  async llen(name: string): Promise<number> {
    return Number(await this.hub.observer.sendCommand(['LLEN', this.key(name)]));
  }

  /** zrangebyscore($key, -INF, INF, ['withscores' => true]) as [member, score] pairs. */
  async zrangeWithScores(name: string): Promise<Array<[string, number]>> {
    const flat = (await this.hub.observer.sendCommand([
      'ZRANGEBYSCORE',
      this.key(name),
      '-inf',
      '+inf',
      'WITHSCORES',
    ])) as unknown as string[];
    const out: Array<[string, number]> = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, Number(flat[i + 1])]);
    return out;
  }
}

interface DecodedPayload {
  id: string;
  attempts: number;
  data: { command: string };
}

/** json_decode($payload). */
export function decode(raw: string): DecodedPayload {
  return JSON.parse(raw) as DecodedPayload;
}

/** unserialize(json_decode($raw)->data->command)->i, by matching the serialized test job exactly. */
export function jobNumber(raw: string): number {
  const command = decode(raw).data.command;
  const m = /^O:\d+:"[^"]+":1:\{s:1:"i";i:(-?\d+);\}$/.exec(command);
  if (!m) throw new Error(`not a serialized RedisQueueIntegrationTestJob: ${command}`);
  const i = Number(m[1]);
  if (command !== serializedTestJob(i))
    throw new Error(`not serialize(new RedisQueueIntegrationTestJob(${i})): ${command}`);
  return i;
}
