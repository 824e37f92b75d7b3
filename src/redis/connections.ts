// Connections of a run. Every actor process gets its own TCP connection, so MONITOR's client
// address says who sent what. Connections speak RESP2 with client info disabled, so node-redis
// sends nothing when it connects (but AUTH for REDIS_URL's credentials); the tool then sends a
// CLIENT SETNAME whose name is unique to the run and a CLIENT INFO that tells the connection's
// address and id, and both lines are dropped from the trace as the tool's own. On a server the
// tool started, connections go on from one run to the next (connection-pool.ts): one handed on
// knows its address and id already, and is only named.
import type { PooledConnection } from './connection-pool.ts';
import { handOn } from './connection-pool.ts';
import { parseClientList } from './client-list.ts';
import type { RedisClientOptions } from 'redis';
import { RedisClient, TimeoutError } from 'redis';
import type { ClusterNode } from './cluster-nodes.ts';
import { nodeOfSlot } from './cluster-nodes.ts';
import { commandSlot, keySlot } from './slot.ts';
import { ToolScript } from './tool-script.ts';
import { parseRedisUrl } from './url.ts';

/** Kept here too: the claim, the cluster and the conformance read CLIENT LIST through this module. */
export { parseClientList };

/**
 * A RESP2 node-redis client of the tool's one client class (newClient), without Redis Stack's
 * modules: the tool sends commands with sendCommand. Named from `redis` so declarations can say it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type Client = RedisClient<{}, {}, {}, 2, {}>;

export interface ActorConnection {
  actor: string;
  client: Client;
  /** On a cluster: the node it is connected to ("node2"). */
  node?: string;
  /** The tool's connection to the same server, for CLIENT LIST ID and CLIENT UNBLOCK on it. */
  observer: Client;
  /** CLIENT ID, for CLIENT UNBLOCK. */
  id: string;
  /** The address MONITOR shows for it ("127.0.0.1:54716"). */
  addr: string;
  name: string;
}

/**
 * No command of ours takes long on a healthy server (the biggest, a migrate of 100,000 jobs, takes
 * well under a second); one that gets no answer for this long means the server hung or the network
 * dropped, and the run ends with an error instead of waiting for ever. BLPOP opts out.
 */
export const COMMAND_TIMEOUT_MS = 5000;

/**
 * node-redis' base client class itself, without the class RedisClient.factory() builds on it: the
 * tool sends every command with sendCommand, and the base class has sendCommand, MONITOR, RESET,
 * connect and destroy. factory() attaches a method per Redis command (hundreds, and again to its
 * MULTI class), once per distinct options object: ~36 ms of CPU at every start of the CLI
 * (docs/performance.md). The tool had built it once (a `name` in the options had built a class
 * anew at every connect, ~60 ms; names are set with CLIENT SETNAME instead).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
function clientOfOptions(options: RedisClientOptions<{}, {}, {}, 2, {}>): Client {
  return new RedisClient(options);
}

export function newClient(url: string): Client {
  // timeout 0: none of node-redis's own (its default is 5 s per command); see below. RESP 2 again:
  // the instance's handshake reads it from its own options.
  const client = clientOfOptions({
    ...connectionOptions(url),
    ...({ RESP: 2 } as object),
    disableClientInfo: true,
    commandOptions: { timeout: 0 },
  });
  // node-redis emits 'error' events; unhandled they would kill the process.
  client.on('error', () => undefined);
  // COMMAND_TIMEOUT_MS for every command but a `{ timeout: 0 }` one (BLPOP), from one shared timer:
  // node-redis's own `commandOptions.timeout` makes an AbortSignal.timeout and two listeners per
  // command, which cost more than the round trip itself (a third of a 10,000-job run's CPU).
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((args, options) =>
    options?.timeout === 0 ? send(args, options) : deadlines.track(send(args, options))) as typeof send;
  baseSends.set(client, client.sendCommand);
  return client;
}

/** Each client's send as newClient made it: a run's observer wraps it, and gives it back so at its end (connection-pool.ts). */
const baseSends = new WeakMap<Client, Client['sendCommand']>();

/**
 * A short-lived RESP2 client of the same class that never reconnects (a server's version, a
 * cluster's shape): no class of its own to build (createClient's, with Redis Stack's modules, took
 * ~16 ms of every command's start), and node-redis' own per-command timeout left as it is.
 */
export function shortLivedClient(url: string, connectTimeoutMs: number): Client {
  const client = clientOfOptions({
    url,
    ...({ RESP: 2 } as object),
    disableClientInfo: true,
    socket: { reconnectStrategy: false, connectTimeout: connectTimeoutMs },
  });
  // Without a listener an 'error' event would crash the process; failures reach callers as rejections.
  client.on('error', () => undefined);
  return client;
}

/**
 * The commands awaiting an answer, oldest first, and one timer that rejects any older than
 * COMMAND_TIMEOUT_MS with node-redis's TimeoutError. A command costs a Set entry, not a timer.
 */
export class Deadlines {
  private readonly pending = new Set<{ since: number; reject: (e: Error) => void }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly ms: number) {}

  track<T>(reply: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry = { since: Date.now(), reject };
      this.pending.add(entry);
      this.timer ??= setInterval(() => this.expire(), Math.min(1000, this.ms / 4)).unref();
      reply.then(
        (value) => {
          this.pending.delete(entry);
          resolve(value);
        },
        (e: unknown) => {
          this.pending.delete(entry);
          reject(e as Error);
        },
      );
    });
  }

  private expire(): void {
    const now = Date.now();
    // A Set iterates in insertion order: the oldest first, so the scan stops at the first young one.
    for (const entry of this.pending) {
      if (now - entry.since < this.ms) break;
      this.pending.delete(entry);
      entry.reject(new TimeoutError());
    }
    if (this.pending.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}

const deadlines = new Deadlines(COMMAND_TIMEOUT_MS);

/**
 * node-redis given a `url` takes ~60 ms to connect on loopback; given host and port, under 1 ms.
 * Runs open a connection per request and per worker process, so plain redis:// URLs are taken
 * apart here (TLS ones are left to node-redis).
 */
function connectionOptions(url: string) {
  // A dropped connection ends the run with an error instead of silently reconnecting.
  const socket = { reconnectStrategy: false as const, connectTimeout: 5000 };
  const u = parseRedisUrl(url);
  if (!u.plain) return { url, socket };
  // A /db in the URL is not applied: node-redis would SELECT it on every traced connection, a
  // command Laravel never sent. Which db Laravel selects is the scenario's redis.database.
  return {
    socket: { ...socket, host: u.host, port: u.port },
    ...(u.username !== undefined ? { username: u.username } : {}),
    ...(u.password !== undefined ? { password: u.password } : {}),
  };
}

/**
 * The name of an actor's n-th connection in a run, `lqsim:<run>:<actor>:<n>`: the tool's own
 * connections (ConnectionHub) and real Laravel's (conformance) are named alike.
 */
export function actorConnectionName(runId: string, actor: string, n: number): string {
  return `${runConnectionPrefix(runId)}${actor}:${n}`;
}

/**
 * How a traced connection is known: its address, and on a cluster the node too ("node2/127.0.0.1:5"),
 * since connections to two nodes may share a local port.
 */
export function connectionKey(addr: string, node: string | undefined): string {
  return node === undefined ? addr : `${node}/${addr}`;
}

/** What sends a command and gets its reply (a client, or the cluster's router). */
export interface Sender {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Who a traced connection belongs to: the actor, and which of its processes (1 for the first). */
export interface ConnectionOwner {
  actor: string;
  process: number;
}

/** The actor and process a connection name of this run stands for, or undefined for another name. */
export function ownerOfConnectionName(name: string, runId: string): ConnectionOwner | undefined {
  const prefix = runConnectionPrefix(runId);
  if (!name.startsWith(prefix)) return undefined;
  const m = /^([^:]+):([1-9][0-9]*)$/.exec(name.slice(prefix.length));
  return m ? { actor: m[1]!, process: Number(m[2]) } : undefined;
}

/**
 * Names each new process's connection of a run: an actor's n-th process is
 * `lqsim:<run>:<actor>:<n>`, so the name says which process of the actor sent a command.
 */
export class ProcessNames {
  private readonly counts = new Map<string, number>();

  constructor(readonly runId: string) {}

  next(actor: string): { name: string; owner: ConnectionOwner } {
    const process = (this.counts.get(actor) ?? 0) + 1;
    this.counts.set(actor, process);
    return this.same({ actor, process });
  }

  /** The name of another connection of a process already named (a cluster's process has one per node). */
  same(owner: ConnectionOwner): { name: string; owner: ConnectionOwner } {
    return { name: actorConnectionName(this.runId, owner.actor, owner.process), owner };
  }
}

function runConnectionPrefix(runId: string): string {
  return `lqsim:${runId}:`;
}

/** `CLIENT SETNAME lqsim:<run>:...`: how a traced connection of this run names itself (never Laravel's). */
export function isOwnSetname(args: readonly string[], runId: string): boolean {
  return (
    args.length === 3 &&
    args[0]!.toUpperCase() === 'CLIENT' &&
    args[1]!.toUpperCase() === 'SETNAME' &&
    args[2]!.startsWith(runConnectionPrefix(runId))
  );
}

/** The address MONITOR shows for a connection, from its CLIENT INFO reply ("addr=127.0.0.1:54716 ..."). */
export async function clientAddress(client: Client): Promise<string> {
  const info = String(await client.sendCommand(['CLIENT', 'INFO']));
  const addr = /(?:^| )addr=(\S+)/.exec(info)?.[1];
  if (addr === undefined) throw new Error(`CLIENT INFO named no address: ${info.slice(0, 80)}`);
  return addr;
}

/** How many commands one connection may have sent ahead and unanswered (ConnectionHub.sendAhead). */
export const AHEAD_WINDOW = 128;
/**
 * A full window waits for this many of its oldest commands to be answered, not for all of them:
 * Redis still has the rest to run while the actor sends the next ones.
 */
const AHEAD_REFILL = AHEAD_WINDOW / 4;
/** What sendAhead returns for a command on its way: nothing to wait for. */
const SENT: Promise<void> = Promise.resolve();

/** A connection's commands sent ahead (ConnectionHub.sendAhead, sendAheadInOrder). */
interface AheadEntry {
  /** Sent or waiting to be sent, and not answered yet. */
  unanswered: number;
  /** The settling of each, in the order sent (a connection's replies come in that order). */
  settling: Array<Promise<void>>;
  /** The last one's settling, which comes last; never rejects. */
  last: Promise<void>;
  /** How many wait for other connections before they go out (sendAheadInOrder). */
  waiting: number;
  /** Settles when the last of those has been handed to node-redis; null when none waits. */
  handed: Promise<void> | null;
}

export class ConnectionHub {
  /**
   * The tool's own connection for barriers, snapshots and CLIENT commands; filtered from the trace.
   * On a cluster, node1's (each node has one: observerOf).
   */
  readonly observer: Client;
  observerAddr = '';
  /** On a cluster: each node's observer, by label (node1's is `observer`). */
  private readonly nodeObservers = new Map<string, Client>();
  /** The observers' connection keys (connectionKey), for telling the tool's own lines apart. */
  readonly observerKeys = new Set<string>();
  /**
   * Sends a command to the server that holds its keys: the observer, or on a cluster the observer
   * of the node that serves the slot (a command with no key, or keys in several slots, is refused).
   */
  readonly router: Sender;
  private readonly byAddr = new Map<string, ConnectionOwner>();
  private readonly names: ProcessNames;
  private readonly open = new Set<Client>();
  /** Whether the actors' connections go to the next run (handConnectionsOn). */
  private handsOn = false;
  /** The actors' connections that may be handed on at the run's end (handConnectionsOn). */
  private readonly handed = new Set<Client>();
  /** Connections an earlier run handed on, not taken by an actor yet (reserve). */
  private readonly reserved: PooledConnection[] = [];
  /** Connections of processes that ended during the run, handed on at its end. */
  private readonly parked: Client[] = [];
  /** Blocking commands under way per connection (noteBlocking). */
  private readonly blocking = new Map<Client, number>();
  /**
   * Step marks to send ahead of the next traced command (MonitorCapture.mark, streaming runs):
   * the runner points this at its capture's takeMarks.
   */
  takeMarks: () => readonly string[] = () => [];
  /**
   * Told of each traced command before it goes out (an actor's, by NodeRedisPort): a run that
   * keeps TTLs in virtual time foresees from them whether a step may give one (step-collector.ts).
   */
  onTraced: ((args: readonly string[]) => void) | null = null;
  /**
   * A difference the run found where nothing throws it (the model's check of a reply it foresaw:
   * ModelCheck.failed): the commands still waiting in the hub (sendAheadInOrder) then never go out.
   */
  failedElsewhere: () => unknown = () => null;
  /**
   * The tool's commands that go out ahead of the next traced command, on its connection, after
   * the step marks (beforeNext): a step's end read without a round trip of its own. Sent on the
   * observer instead when the observer sends anything first (a barrier, a TTL's delete).
   */
  private beforeNextQueue: Array<{ args: string[]; resolve: (r: unknown) => void; reject: (e: unknown) => void }> = [];
  /** Queues a command of the tool's to go out before the next one anyone sends (see beforeNextQueue). */
  readonly beforeNext: Sender & { readonly ahead: true } = {
    ahead: true,
    sendCommand: (args) =>
      new Promise((resolve, reject) => {
        this.beforeNextQueue.push({ args, resolve, reject });
      }),
  };
  /**
   * Commands sent ahead (sendAhead): per connection, how many are unanswered, the settling of each
   * in the order sent, and of the last one (a connection's replies come in the order it sent, so
   * that one settles last).
   */
  private readonly ahead = new Map<Client, AheadEntry>();
  /** The first command sent ahead that failed: every later send of the run throws it. */
  private aheadFailure: { error: unknown } | null = null;
  /** The observer's send without othersSettled (see afterAhead). */
  private readonly observerSend: Client['sendCommand'];
  /** Each observer's send without othersSettled. */
  private readonly rawSends = new Map<Client, Client['sendCommand']>();

  constructor(
    private readonly url: string,
    readonly runId: string,
    /** A cluster's masters (node1 first): the run has a connection per node per process. */
    readonly nodes: readonly ClusterNode[] = [],
    /** A connection an earlier run handed on (connection-pool.ts), to be this one's observer. */
    private readonly observerHandedOn?: PooledConnection,
  ) {
    this.names = new ProcessNames(runId);
    for (const node of nodes) this.nodeObservers.set(node.label, this.settlingObserver(node.url));
    this.observer =
      nodes.length === 0
        ? this.settlingObserver(url, observerHandedOn?.client)
        : this.nodeObservers.get(nodes[0]!.label)!;
    this.observerSend = this.rawSends.get(this.observer)!;
    this.router = nodes.length === 0 ? this.observer : { sendCommand: (args) => this.routed(args) };
  }

  /** An observer whose barriers, snapshots and CLIENT commands see every command sent ahead done. */
  private settlingObserver(url: string, handedOn?: Client): Client {
    const observer = handedOn ?? newClient(url);
    // newClient's own send: an observer handed on had this run's wrapper before (close gives it back).
    const send = baseSends.get(observer) ?? observer.sendCommand.bind(observer);
    this.rawSends.set(observer, send);
    observer.sendCommand = ((args, options) => {
      const wait = this.othersSettled(observer);
      if (wait !== undefined)
        return wait.then(() => {
          this.sendBeforeNext(send);
          return send(args, options);
        });
      this.sendBeforeNext(send);
      return send(args, options);
    }) as typeof send;
    return observer;
  }

  /** The observer of a cluster's node (by label), or the one observer. */
  observerOf(node: string | undefined): Client {
    if (node === undefined) return this.observer;
    const observer = this.nodeObservers.get(node);
    if (observer === undefined) throw new Error(`no node ${node} in this run's cluster`);
    return observer;
  }

  /** Every observer: one per node on a cluster. */
  observers(): Client[] {
    return this.nodes.length === 0 ? [this.observer] : [...this.nodeObservers.values()];
  }

  /** On a cluster, the node that holds a key (by its slot); undefined on one server. */
  nodeOfKey(key: string): string | undefined {
    return this.nodes.length === 0 ? undefined : nodeOfSlot(this.nodes, keySlot(key)).label;
  }

  private routed(args: string[]): Promise<unknown> {
    const slot = commandSlot(args);
    if (typeof slot !== 'number') throw new Error(`the tool sent ${args[0]} with no single slot to route it by`);
    return this.observerOf(nodeOfSlot(this.nodes, slot).label).sendCommand(args);
  }

  /**
   * Sends a command whose reply Laravel never reads (a push, a migrate, a release...), or one whose
   * reply the model foresees (src/sim/model/check.ts' foresee), without waiting for that reply: the actor goes on at once, so a dispatcher's pushes and a worker's
   * migrates go out in one write instead of one round trip each. Redis runs a connection's
   * commands in the order sent, so the trace is the same; what keeps it the same across
   * connections is othersSettled, which every other sender waits for first. A failure (an error
   * reply, `describe` makes it the actor's) is thrown by the next command any actor sends.
   */
  sendAhead(
    client: Client,
    args: string[],
    describe: (e: unknown) => unknown,
    /** Gets the reply when it arrives (the model checks it); must not throw. */
    onReply?: (reply: unknown) => void,
  ): Promise<void> {
    // A window, not a flood: a request pushing 100,000 jobs would otherwise queue them all at
    // once (memory, and the last ones timed out by COMMAND_TIMEOUT_MS before Redis reached them).
    const queued = this.ahead.get(client);
    if (queued !== undefined && queued.unanswered >= AHEAD_WINDOW)
      return queued.settling[AHEAD_REFILL - 1]!.then(() => this.sendAheadNow(client, args, describe, onReply));
    try {
      this.sendAheadNow(client, args, describe, onReply);
      return SENT;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private sendAheadNow(
    client: Client,
    args: string[],
    describe: (e: unknown) => unknown,
    onReply?: (reply: unknown) => void,
  ): void {
    this.throwIfAheadFailed();
    const own = this.entryOf(client);
    own.unanswered++;
    this.firstAhead ??= client;
    this.lastAhead = client;
    own.last = client.sendCommand(args).then(
      (reply) => {
        onReply?.(reply);
        this.answered(client, own);
      },
      (e: unknown) => {
        this.aheadFailure ??= { error: describe(e) };
        this.answered(client, own);
      },
    );
    own.settling.push(own.last);
  }

  private entryOf(client: Client): AheadEntry {
    let entry = this.ahead.get(client);
    if (entry === undefined) {
      entry = { unanswered: 0, settling: [], last: SENT, waiting: 0, handed: null };
      this.ahead.set(client, entry);
    }
    return entry;
  }

  /**
   * Sends a command ahead as sendAhead does, but in the order of the run whatever the connection:
   * when another connection still has commands unanswered (or this one has commands waiting), the
   * command waits for them in the hub and the actor goes on at once, instead of waiting with it.
   * The actor's next commands, its sleep and the step's end are then worked out while Redis runs
   * the ones before, and the command goes out as soon as the last reply it waits for comes, with
   * nothing left to work out. `before` is taken now (the step marks and reads that go out just
   * before it, on its connection: MonitorCapture.takeMarks, beforeNext) and run when it goes out.
   * A failure before it goes out (an earlier command's, sendAhead) leaves it unsent.
   */
  sendAheadInOrder(
    client: Client,
    args: string[],
    describe: (e: unknown) => unknown,
    onReply: ((reply: unknown) => void) | undefined,
    takeBefore: () => (() => void) | null,
  ): Promise<void> {
    const queued = this.ahead.get(client);
    if (queued !== undefined && queued.unanswered >= AHEAD_WINDOW)
      return queued.settling[AHEAD_REFILL - 1]!.then(() =>
        this.sendAheadInOrder(client, args, describe, onReply, takeBefore),
      );
    try {
      this.throwIfAheadFailed();
      const wait = this.before(client);
      const before = takeBefore();
      if (wait === undefined) {
        before?.();
        this.sendAheadNow(client, args, describe, onReply);
        return SENT;
      }
      const own = this.entryOf(client);
      own.unanswered++;
      own.waiting++;
      let handed!: () => void;
      own.handed = new Promise<void>((resolve) => (handed = resolve));
      this.lastHanded = own.handed;
      own.last = wait
        .then(() => {
          if (--own.waiting === 0) own.handed = null;
          // The run has failed: nothing more goes out.
          if (this.aheadFailure !== null || this.failedElsewhere() !== null) return undefined;
          before?.();
          const reply = client.sendCommand(args);
          handed();
          return reply.then(
            (r) => onReply?.(r),
            (e: unknown) => {
              this.aheadFailure ??= { error: describe(e) };
            },
          );
        })
        .catch((e: unknown) => {
          this.aheadFailure ??= { error: describe(e) };
        })
        .then(() => {
          handed(); // also when it never went out (a failure): flushed() must not wait for it
          this.answered(client, own);
        });
      own.settling.push(own.last);
      return SENT;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * What a command on `client` must wait for before it goes out: the commands other connections
   * have unanswered, and those waiting to go out on `client` itself (sendAheadInOrder); undefined
   * when there are none. Never rejects.
   */
  private before(client: Client): Promise<void> | undefined {
    let first: Promise<void> | undefined;
    let waits: Array<Promise<void>> | undefined;
    const add = (p: Promise<void>) => {
      if (first === undefined) first = p;
      else (waits ??= [first]).push(p);
    };
    for (const [other, entry] of this.ahead) {
      if (other !== client) add(entry.last);
      else if (entry.handed !== null) add(entry.handed);
    }
    return waits === undefined ? first : Promise.all(waits).then(() => undefined);
  }

  /** The first and the last connection a command went out ahead on since the last flushed(). */
  private firstAhead: Client | null = null;
  private lastAhead: Client | null = null;
  /** Settles when the last command sendAheadInOrder held back since the last flushed() has gone out. */
  private lastHanded: Promise<void> | null = null;

  /**
   * After an actor's activation (the scheduler's afterActivation): when the commands it sent ahead
   * began on one connection and ended on another, a promise of the next turn of the event loop;
   * else undefined. node-redis writes what a turn sent in a setImmediate, and a turn runs on until
   * nothing is left to do: the worker went on through its sleep, the step's end and its next
   * activation before the scripts its poll had sent were written. The next activation most likely
   * begins where this one began (a worker polling with its cache on Redis: the restart signal's
   * GET on the cache's connection, then the queue's scripts), so its first command will wait for
   * this one's last anyway: waiting one turn lets them be written first, and that work then runs
   * while Redis runs them (the GET's reply to the scripts' write: 31 µs to 18-20 µs). An activation on
   * one connection is left alone, to go out in one write with what follows it. An activation that
   * left commands waiting in the hub (sendAheadInOrder: the scripts behind the GET's reply) gets a
   * promise of the turn after the last of them is handed to node-redis, which writes them in that
   * turn before the step's end is worked out (the GET's reply to the scripts' write: 12 µs).
   */
  flushed(): Promise<void> | undefined {
    const switched = this.firstAhead !== this.lastAhead;
    const handed = this.lastHanded;
    this.firstAhead = this.lastAhead = this.lastHanded = null;
    // Commands held back for other connections' replies: the step goes on once they are handed to
    // node-redis, and one turn later, when node-redis has written them.
    if (handed !== null) return handed.then(() => new Promise((resolve) => setImmediate(resolve)));
    return switched ? new Promise((resolve) => setImmediate(resolve)) : undefined;
  }

  /**
   * What a barrier at a run's end (or before its clock moves) sends on without waiting: the one
   * connection that still has commands sent ahead unanswered, none of them held in the hub and no
   * BLPOP on it, behind which Redis runs the barrier in order (what beforeNext holds goes first, as
   * on the observer); undefined when there is no such one (the observer then waits: othersSettled). A
   * barrier sent on it has passed when its line comes, which can be before that connection's replies:
   * othersSettled still says whether one of them failed.
   */
  barrierConnection(): Sender | undefined {
    if (this.ahead.size !== 1) return undefined;
    const [client, entry] = this.ahead.entries().next().value!;
    if (entry.handed !== null || (this.blocking.get(client) ?? 0) > 0) return undefined;
    return {
      sendCommand: (args) => {
        this.sendBeforeNext((a) => client.sendCommand(a));
        return client.sendCommand(args);
      },
    };
  }

  /** Sends the commands queued by beforeNext, in order, with `send` (a connection's, before its own command). */
  sendBeforeNext(send: (args: string[]) => Promise<unknown>): void {
    this.takeBeforeNext()?.(send);
  }

  /**
   * Sends what beforeNext holds now, on the observer, once every command sent ahead is answered:
   * for what cannot wait for the next traced command (a TTL sweep before the clock moves).
   */
  async flushBeforeNext(): Promise<void> {
    if (this.beforeNextQueue.length === 0) return;
    const wait = this.othersSettled(this.observer);
    if (wait !== undefined) await wait;
    this.sendBeforeNext(this.observerSend);
  }

  /** Takes the commands queued by beforeNext: a function that sends them with `send`, or null when there are none. */
  takeBeforeNext(): ((send: (args: string[]) => Promise<unknown>) => void) | null {
    if (this.beforeNextQueue.length === 0) return null;
    const queued = this.beforeNextQueue;
    this.beforeNextQueue = [];
    return (send) => {
      for (const c of queued) send(c.args).then(c.resolve, c.reject);
    };
  }

  private answered(client: Client, entry: { unanswered: number; settling: Array<Promise<void>> }): void {
    void entry.settling.shift(); // replies come in the order sent: this is the oldest
    if (--entry.unanswered === 0 && this.ahead.get(client) === entry) this.ahead.delete(client);
  }

  /**
   * Undefined when no connection but `client` has a command sent ahead still unanswered (send at
   * once); otherwise a promise of the moment none has, which rejects if one of them failed.
   */
  othersSettled(client: Client): Promise<void> | undefined {
    const wait = this.before(client);
    if (wait === undefined) {
      this.throwIfAheadFailed();
      return undefined;
    }
    return wait.then(() => this.throwIfAheadFailed());
  }

  /**
   * The observer for a run's end (its cleanup, the claim's heartbeat and release): it sends once
   * every command sent ahead has been answered, as othersSettled does, but whether or not one of
   * them failed. That failure is the run's error, reported as such; were it sticky here, the
   * cleanup would throw it before sending anything and leave the run's keys behind.
   */
  readonly afterAhead = {
    sendCommand: async (args: string[]): Promise<unknown> => {
      // An entry's `last` never rejects (sendAhead catches), so this waits without throwing.
      await Promise.all([...this.ahead.values()].map((entry) => entry.last));
      this.sendBeforeNext(this.observerSend);
      return this.observerSend(args);
    },
  };

  /**
   * afterAhead for one node's observer (by label; undefined: the one observer): a cluster run's
   * claim, heartbeat and release go out whatever a command sent ahead did.
   */
  afterAheadOf(node: string | undefined): { sendCommand(args: string[]): Promise<unknown> } {
    const observer = this.observerOf(node);
    const send = this.rawSends.get(observer)!;
    return {
      sendCommand: async (args) => {
        await Promise.all([...this.ahead.values()].map((entry) => entry.last));
        return send(args);
      },
    };
  }

  private throwIfAheadFailed(): void {
    if (this.aheadFailure !== null) throw this.aheadFailure.error;
  }

  async start(): Promise<void> {
    if (this.nodes.length === 0) {
      await this.startObserver();
      await this.observerAddressed();
      return;
    }
    for (const node of this.nodes) {
      const observer = this.observerOf(node.label);
      await observer.connect();
      const addr = await clientAddress(observer);
      if (observer === this.observer) this.observerAddr = addr;
      this.observerKeys.add(connectionKey(addr, node.label));
    }
  }

  private observerAddress: Promise<void> | null = null;

  /**
   * One server's observer connected, its address asked for (CLIENT INFO) and not waited for, so
   * that what is sent next goes out in the same round trip; observerAddr is set once
   * observerAddressed() resolves.
   */
  async startObserver(): Promise<void> {
    if (this.nodes.length > 0) throw new Error("a cluster's observers start together (start())");
    // One an earlier run handed on is connected, waits in another db, and its address was read
    // when it was parked (connection-pool.ts).
    const handedOn = this.observerHandedOn;
    let known: Promise<string>;
    if (handedOn === undefined) {
      await this.observer.connect();
      known = clientAddress(this.observer);
    } else
      known = this.observer.sendCommand(['SELECT', '0']).then((reply) => {
        if (String(reply) !== 'OK') throw new Error(`the observer's SELECT 0 answered ${String(reply)}`);
        return handedOn.addr;
      });
    this.observerAddress = known.then((addr) => {
      this.observerAddr = addr;
      this.observerKeys.add(addr);
    });
    this.observerAddress.catch(() => undefined); // observerAddressed() throws it
  }

  /** Resolves once startObserver's CLIENT INFO has named the observer's address. */
  observerAddressed(): Promise<void> {
    return this.observerAddress ?? Promise.reject(new Error('the observer was never started'));
  }

  /**
   * Opens a new connection for an actor and learns its address before it sends anything. On a
   * cluster, to one node; `process` names which of the actor's processes it is for (a process has
   * a connection per node): by default a new one.
   */
  async connect(actor: string, o: { node?: ClusterNode; process?: ConnectionOwner } = {}): Promise<ActorConnection> {
    const { name, owner } = o.process === undefined ? this.names.next(actor) : this.names.same(o.process);
    const pooled = o.node === undefined ? this.reserved.pop() : undefined;
    if (pooled !== undefined) {
      this.open.add(pooled.client);
      this.handed.add(pooled.client);
      // Named on the connection itself before anything else goes out on it (a handshake line:
      // isHandshake), sent ahead with its first command: a SETNAME refused is thrown by the next
      // command sent, as any sent ahead (a server the tool started). Its address and id are
      // CLIENT INFO's from when it was handed on.
      await this.sendAhead(pooled.client, ['CLIENT', 'SETNAME', name], (e) => e);
      this.byAddr.set(connectionKey(pooled.addr, undefined), owner);
      return { actor, client: pooled.client, id: pooled.id, addr: pooled.addr, name, observer: this.observer };
    }
    const client = newClient(o.node?.url ?? this.url);
    await client.connect();
    this.open.add(client);
    // Named, and its address and id read, in one round trip on the connection itself (both lines
    // are the tool's handshake: isHandshake). CLIENT LIST on the observer cost a round trip more,
    // and a list of every client of the server.
    const named = client.sendCommand(['CLIENT', 'SETNAME', name]);
    const info = client.sendCommand(['CLIENT', 'INFO']);
    info.catch(() => undefined); // after a failed SETNAME, the SETNAME's failure is the one reported
    await named;
    const text = String(await info);
    const entry = parseClientList(text)[0];
    if (!entry?.addr || !entry.id || entry.name !== name)
      throw new Error(`CLIENT INFO did not name connection ${name}: ${text.slice(0, 80)}`);
    this.byAddr.set(connectionKey(entry.addr, o.node?.label), owner);
    if (this.handsOn && o.node === undefined) this.handed.add(client);
    const observer = this.observerOf(o.node?.label);
    return { actor, client, id: entry.id, addr: entry.addr, name, observer, ...(o.node ? { node: o.node.label } : {}) };
  }

  /** A process's owner, for its next connection (connect's `process`). */
  processOf(actor: string): ConnectionOwner {
    return this.names.next(actor).owner;
  }

  ownerOf(addr: string): ConnectionOwner | undefined {
    return this.byAddr.get(addr);
  }

  /** A handshake line of one of our connections (never Laravel's). */
  isHandshake(args: readonly string[]): boolean {
    const name = args[0]?.toUpperCase();
    // node-redis authenticates with REDIS_URL's credentials before anything else; Laravel's own
    // AUTH is not modelled, so an AUTH on a traced connection is always the tool's.
    if (name === 'AUTH') return true;
    // The CLIENT INFO connect() sends after its SETNAME (Laravel never sends one).
    if (name === 'CLIENT' && args.length === 2 && args[1]!.toUpperCase() === 'INFO') return true;
    // A step's end read ahead of the next command, on its connection (beforeNext): its lines, and
    // its script's [lua] lines after it, are the tool's.
    if (ToolScript.isToolCall(args)) return true;
    return isOwnSetname(args, this.runId);
  }

  /** Closes an actor's connection (its process ended) once Redis has run all it sent. */
  async release(client: Client): Promise<void> {
    await this.ahead.get(client)?.last;
    this.open.delete(client);
    // Handed on at the run's end, after its MONITOR has stopped (never to another actor of this run).
    if (this.handed.has(client)) this.parked.push(client);
    else client.destroy();
    this.throwIfAheadFailed();
  }

  /**
   * Closes the run's connections. `handOn`: the run ended without a fault and its MONITOR has
   * stopped; on a server the tool started (handConnectionsOn), the actors' connections, the
   * observer and `also` (MONITOR's, out of MONITOR mode) go to the next run if nothing of theirs is
   * under way (connection-pool.ts), and the rest are closed.
   */
  async close(o: { handOn?: boolean; also?: readonly Client[] } = {}): Promise<void> {
    const unsent = this.beforeNextQueue;
    this.beforeNextQueue = [];
    for (const c of unsent) c.reject(new Error('the run ended before the command went out'));
    const clients = [...this.open, ...this.parked.splice(0), ...this.reserved.splice(0).map((c) => c.client)];
    this.open.clear();
    const handing = o.handOn === true && this.handsOn && this.aheadFailure === null;
    const onward: Client[] = [];
    for (const c of clients) {
      if (handing && this.handed.has(c)) onward.push(c);
      else c.destroy();
    }
    this.handed.clear();
    for (const ob of this.observers()) {
      if (!handing) {
        ob.destroy();
        continue;
      }
      ob.sendCommand = this.rawSends.get(ob)!; // newClient's own send, without this run's othersSettled
      onward.push(ob);
    }
    for (const c of o.also ?? [])
      if (handing) onward.push(c);
      else c.destroy();
    if (onward.length > 0)
      await handOn(this.url, onward, (c) => !this.ahead.has(c) && (this.blocking.get(c) ?? 0) === 0);
  }

  /** Hands the actors' connections on to the next run at the end (a server the tool started: connection-pool.ts). */
  handConnectionsOn(): void {
    if (this.nodes.length === 0) this.handsOn = true;
  }

  /** Connections an earlier run handed on, in db 0 (readyConnections): the actors' first connections. */
  reserve(connections: readonly PooledConnection[]): void {
    for (const c of connections) {
      this.reserved.push(c);
      this.handed.add(c.client);
    }
  }

  /** A blocking command (BLPOP) on `client` goes out (+1) or has ended (-1): a connection blocked is not handed on. */
  noteBlocking(client: Client, change: 1 | -1): void {
    const n = (this.blocking.get(client) ?? 0) + change;
    if (n === 0) this.blocking.delete(client);
    else this.blocking.set(client, n);
  }
}
