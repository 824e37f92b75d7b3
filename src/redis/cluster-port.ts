// The model's RedisPort on a Redis Cluster, as phpredis' RedisCluster (Laravel's
// PhpRedisConnector::createRedisClusterInstance) does it: CLUSTER SLOTS on a connection to the
// seed when the process first uses Redis, then each command on the connection to the node that
// serves its keys' slot, opened at its first command (phpredis sends no SELECT on a cluster: it has
// db 0 alone). An EVAL whose keys span slots never leaves the client: phpredis warns "All keys do
// not map to the same slot" and returns false, and Laravel's HandleExceptions makes the warning an
// ErrorException (measured on phpredis 5.3.7 with Laravel 8.83: nothing reaches any node).
import type { AnyScript } from '../sim/lua.ts';
import { ClientException } from '../sim/exceptions.ts';
import type { ForeseenArgs, OnReply, PendingBlpop, RedisPort } from '../sim/redis-port.ts';
import { foreseenKeys } from '../sim/redis-port.ts';
import type { ClusterNode } from './cluster-nodes.ts';
import { nodeOfSlot, nodesFromClusterSlots } from './cluster-nodes.ts';
import type { ConnectionHub, ConnectionOwner } from './connections.ts';
import { NodeRedisPort } from './port.ts';
import { keySlot } from './slot.ts';

/** phpredis' warning for a multi-key command across slots (cluster_library.c, RedisCluster::eval). */
const CROSS_SLOT_WARNING = 'All keys do not map to the same slot';

export class ClusterPort implements RedisPort {
  /** The slots' masters as CLUSTER SLOTS named them (null until the first command). */
  private map: ClusterNode[] | null = null;
  private readonly ports = new Map<string, NodeRedisPort>();
  private readonly process: ConnectionOwner;

  constructor(
    private readonly hub: ConnectionHub,
    actor: string,
    /** The node Laravel's config names (clusters.default[0]). */
    private readonly seedNode: ClusterNode,
  ) {
    this.process = hub.processOf(actor);
  }

  /** RedisCluster's constructor: CLUSTER SLOTS on the seed, once per process. */
  private async slots(): Promise<ClusterNode[]> {
    if (this.map !== null) return this.map;
    // phpredis closes the seed's connection once it has the map (measured: CLIENT LIST on node1
    // right after the constructor no longer shows it); commands for node1 get a connection of their own.
    const conn = await this.hub.connect(this.process.actor, { node: this.seedNode, process: this.process });
    const seed = new NodeRedisPort(conn, this.hub, null);
    const reply = await seed.command(['CLUSTER', 'SLOTS']);
    await seed.close();
    const known = new Map(this.hub.nodes.map((n) => [`${n.host}:${n.port}`, n]));
    this.map = nodesFromClusterSlots(
      reply,
      (host, port) => known.get(`${host}:${port}`)?.url ?? `redis://${host}:${port}`,
    );
    return this.map;
  }

  /** RedisCluster's check of a multi-key command's slots, before anything of it is sent. */
  async beforeSend(command: string, keys: readonly string[]): Promise<void> {
    await this.portFor(command, keys);
  }

  /** The connection to the node serving `keys` (one slot), opened at its first command. */
  private async portFor(command: string, keys: readonly string[]): Promise<NodeRedisPort> {
    const nodes = await this.slots();
    const slot = keySlot(keys[0]!);
    if (keys.some((k) => keySlot(k) !== slot)) {
      const where = keys.map((k) => {
        const s = keySlot(k);
        return `${k} (slot ${s}, ${nodeOfSlot(nodes, s).label})`;
      });
      throw new ClientException(
        { className: 'ErrorException', message: `RedisCluster::${command.toLowerCase()}(): ${CROSS_SLOT_WARNING}` },
        `phpredis' RedisCluster checks an ${command}'s keys before sending it, and these span slots: ${where.join(', ')}. It refuses with a warning, which Laravel's HandleExceptions turns into ErrorException; nothing reaches Redis. A hash tag in the queue's name ('{default}') puts all its keys in one slot.`,
      );
    }
    const node = nodeOfSlot(nodes, slot);
    let port = this.ports.get(node.label);
    if (port === undefined) {
      const known = this.hub.nodes.find((n) => n.host === node.host && n.port === node.port) ?? node;
      const conn = await this.hub.connect(this.process.actor, { node: known, process: this.process });
      port = new NodeRedisPort(conn, this.hub, null);
      this.ports.set(node.label, port);
    }
    return port;
  }

  async eval(script: AnyScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    return (await this.portFor('EVAL', keys)).eval(script, keys, args);
  }

  async evalIgnoringReply(
    script: AnyScript,
    keys: string[],
    args: Array<string | number>,
    onReply?: OnReply,
  ): Promise<void> {
    return (await this.portFor('EVAL', keys)).evalIgnoringReply(script, keys, args, onReply);
  }

  async rpush(key: string, value: string, onReply?: OnReply): Promise<void> {
    return (await this.portFor('RPUSH', [key])).rpush(key, value, onReply);
  }

  async zadd(key: string, score: number, member: string, onReply?: OnReply): Promise<void> {
    return (await this.portFor('ZADD', [key])).zadd(key, score, member, onReply);
  }

  async sendForeseen(args: ForeseenArgs, onReply: OnReply): Promise<void> {
    return (await this.portFor(args[0], foreseenKeys(args))).sendForeseen(args, onReply);
  }

  async zrem(key: string, member: string): Promise<number> {
    return (await this.portFor('ZREM', [key])).zrem(key, member);
  }

  async blpop(key: string, timeout: number): Promise<PendingBlpop> {
    return (await this.portFor('BLPOP', [key])).blpop(key, timeout);
  }

  async get(key: string): Promise<string | null> {
    return (await this.portFor('GET', [key])).get(key);
  }

  async mget(keys: string[]): Promise<Array<string | null>> {
    return (await this.portFor('MGET', keys)).mget(keys);
  }

  async set(key: string, value: string, o?: { ex?: number; nx?: boolean }): Promise<'OK' | null> {
    return (await this.portFor('SET', [key])).set(key, value, o);
  }

  async setnx(key: string, value: string): Promise<number> {
    return (await this.portFor('SETNX', [key])).setnx(key, value);
  }

  async setex(key: string, seconds: number, value: string): Promise<void> {
    return (await this.portFor('SETEX', [key])).setex(key, seconds, value);
  }

  async incrby(key: string, by: number): Promise<number> {
    return (await this.portFor('INCRBY', [key])).incrby(key, by);
  }

  async del(key: string): Promise<number> {
    return (await this.portFor('DEL', [key])).del(key);
  }

  async close(): Promise<void> {
    for (const port of this.ports.values()) await port.close();
  }
}
