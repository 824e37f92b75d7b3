// Illuminate\Bus\Dispatcher on the application's side of the queue: `dispatch($job)` →
// dispatchToQueue → pushCommandToQueue, which calls Queue::later() when the job has a delay
// (even 0) and Queue::push() otherwise; both build the payload (Queue::createPayload with
// RedisQueue::createPayloadArray's id and attempts) and hand the JSON to pushRaw / laterRaw.
import { ClientException } from './exceptions.ts';
import type { JobRegistry } from './registry.ts';
import type { Cache, LockHolder } from './cache.ts';
import type { UniqueSpec } from './job-middleware.ts';
import type { PhpValue } from './php.ts';
import type { ChainProperties, JobObject, LaravelProfile } from './profiles/types.ts';
import { strRandom, uuid4 } from './random.ts';
import type { RedisQueue } from './redis-queue.ts';
import type { ActorContext } from './scheduler.ts';

/** A job class as the application declares it: what goes into its payload. */
export interface JobDefinition {
  /** The scenario's name for it: instances are labelled `<name>#<n>`. */
  name: string;
  className: string;
  tries: number | null;
  timeout: number | null;
  /** retryUntil(): seconds after the dispatch, or null. */
  retryUntil: number | null;
  backoff: number | number[] | null;
  maxExceptions: number | null;
  failOnTimeout: boolean;
  /** The job's own public properties, in the order the scenario lists them. */
  properties: Record<string, PhpValue>;
  /** The order the class declares its own properties in (PHP names, the options among them); null: options first. */
  declared?: readonly string[] | null;
  /** Verbatim data.command instead of the serialize() output. */
  command: string | null;
  /** ShouldBeUnique (8.14+): uniqueId(), $uniqueFor; null: not unique. */
  unique?: UniqueSpec | null;
}

/** One `dispatch()` call site: `count` instances, with what ->onConnection/->onQueue/->delay set. */
export interface PendingDispatch {
  job: JobDefinition;
  count: number;
  delay?: number;
  queue?: string;
  connection?: string;
  /** Instance i's own property values (0-based), over the class's: in the class's order. */
  properties?: (i: number) => Record<string, PhpValue>;
  /** The chain the job carries: ->chain([...]) (5.5+), Bus::chain() (pendingChain), or the rest of one. */
  chain?: Chain;
}

/** A job of a chain as the application writes it: `(new B)->onConnection(...)->onQueue(...)->delay(...)`. */
export interface ChainLink {
  job: JobDefinition;
  connection?: string;
  queue?: string;
  delay?: number;
}

/** Bus\Queueable's chain state: the jobs still to run, and where those without their own connection/queue go. */
export interface Chain {
  links: ChainLink[];
  /** $chainConnection / $chainQueue: Bus::chain()->onConnection() / ->onQueue() (8.0+). */
  connection: string | null;
  queue: string | null;
  /** $chainCatchCallbacks: [] when Bus::chain() built it (8.0+), null after ->chain(). */
  catchCallbacks: [] | null;
}

/** `->chain([B, C])` on a dispatch: Queueable::chain serializes the jobs; the chain's own connection and queue stay null. */
export function chainOf(links: ChainLink[]): Chain {
  return { links, connection: null, queue: null, catchCallbacks: null };
}

/**
 * `Bus::chain([A, B, C])->onConnection(c)->onQueue(q)->delay(d)->dispatch()`: PendingChain::dispatch
 * (Foundation/Bus/PendingChain.php@v8.83.26:136-164, the same at v13.26.1:186-214). The first job
 * gets the chain's connection and queue unless it has its own, and the delay only if it is truthy
 * (`if ($this->delay)`: a delay of 0 is ignored) and the job has none; the rest become its chain,
 * with $chainConnection, $chainQueue and $chainCatchCallbacks = [] (no ->catch() in the format).
 * Then Dispatcher::dispatch($firstJob) directly.
 */
export function pendingChain(
  links: ChainLink[],
  o: { connection?: string; queue?: string; delay?: number },
): PendingDispatch & { chain: Chain } {
  const [first, ...rest] = links;
  if (first === undefined) throw new Error('Bus::chain() needs at least one job');
  return {
    job: first.job,
    count: 1,
    connection: first.connection ?? o.connection,
    queue: first.queue ?? o.queue,
    delay: first.delay ?? (o.delay ? o.delay : undefined),
    chain: { links: rest, connection: o.connection ?? null, queue: o.queue ?? null, catchCallbacks: [] },
  };
}

/** What dispatchNextJobInChain pushed: the next job (its label, queue and delay) and the names of the jobs after it. */
export interface NextInChain extends Dispatched {
  delay: number | null;
  rest: string[];
}

/** The cache of the process that dispatches through PendingDispatch: its default store, any store by name, who holds a lock. */
export interface PendingDispatchCache {
  cache: Cache;
  store(name: 'redis' | 'file'): Cache;
  holder(key: string): LockHolder | null;
}

export interface Dispatched {
  labels: string[];
  /**
   * Instances PendingDispatch did not push: a ShouldBeUnique job whose lock another holds
   * (nothing is pushed and nothing is raised). Their key and who held it.
   */
  dropped: Array<{ key: string; holder: LockHolder | null }>;
  /** The queue the jobs went onto. */
  queue: string;
  /** The first payload's `attempts` (0, or 1 in 5.3). */
  attempts: number;
}

/** Str::uuid() then Str::random(32), per job, in that order: the model and conformance draw alike. */
export function nextJobIdentity(random: () => number): { uuid: string; id: string } {
  const uuid = uuid4(random);
  return { uuid, id: strRandom(random, 32) };
}

export class Dispatcher {
  /** Payload id → the JobDefinition name it was dispatched as. */
  private readonly names = new Map<string, string>();
  /** Payload id → the chain it carries (its data.command's $chained and chain properties). */
  private readonly chains = new Map<string, Chain>();
  /** Payload id → its uniqueId(), for a unique job whose uniqueId() reads a property. */
  private readonly uniqueIds = new Map<string, string>();
  /** Payload id → the unique lock's owner, kept in the job ($uniqueLockOwner, 13.24+). */
  private readonly uniqueOwners = new Map<string, string>();

  constructor(
    private readonly profile: LaravelProfile,
    private readonly registry: JobRegistry,
    private readonly random: () => number,
  ) {}

  /** The name a payload id was dispatched as (how a worker finds what the job does). */
  jobNameOf(id: string): string | undefined {
    return this.names.get(id);
  }

  /** The owner of a unique job's lock, as the payload carries it (13.24+; undefined: none). */
  uniqueOwnerOf(id: string): string | undefined {
    return this.uniqueOwners.get(id);
  }

  /** A unique job's uniqueId() as its dispatch resolved it (undefined: a constant one, or not unique). */
  uniqueIdOf(id: string): string | undefined {
    return this.uniqueIds.get(id);
  }

  /** The names of the jobs still to run after this payload's job, in order (none: an empty list). */
  chainOf(id: string): string[] {
    return (this.chains.get(id)?.links ?? []).map((l) => l.job.name);
  }

  /**
   * Dispatcher::dispatchToQueue → pushCommandToQueue, once per instance, on `queue`'s connection.
   * `pending`: through PendingDispatch (dispatch(), Job::dispatch()), whose __destruct first takes
   * a ShouldBeUnique job's lock in the process's cache (Foundation/Bus/PendingDispatch.php@v8.83.29:157-195,
   * Bus/UniqueLock.php:33-47); Bus::chain() dispatches directly, without it.
   */
  async dispatchToQueue(
    ctx: ActorContext,
    queue: RedisQueue,
    d: PendingDispatch,
    pending?: PendingDispatchCache,
  ): Promise<Dispatched> {
    const job = d.job;
    const queueName = d.queue ?? queue.config.default;
    const labels: string[] = [];
    const dropped: Dispatched['dropped'] = [];
    let attempts = 0;
    if (d.chain && !this.profile.bus.chain)
      throw new Error(`Laravel ${this.profile.name} has no job chains (Bus\\Queueable::chain arrived in 5.5)`);
    const chain = d.chain && this.chainProperties(d.chain);
    for (let i = 0; i < d.count; i++) {
      const props = { ...job.properties, ...d.properties?.(i) };
      const uniqueId = job.unique ? uniqueIdValue(job.unique.id, props) : '';
      let owner: string | null = null;
      if (pending !== undefined && job.unique) {
        const name = this.profile.cache.uniqueKey(job.className, uniqueId);
        // uniqueVia(): another store of the app's, else the default one.
        const cache = job.unique.via === null ? pending.cache : pending.store(job.unique.via);
        const lock = cache.lock(name, job.unique.for ?? 0, `ShouldBeUnique (${job.name})`);
        const holder = pending.holder(lock.key);
        if (!(await lock.get())) {
          dropped.push({ key: lock.key, holder });
          continue;
        }
        // 13.24+: `$job->uniqueLockOwner = $lock->owner()`, before the job is serialized.
        if (this.profile.cache.uniqueRelease === 'owner') owner = lock.owner;
      }
      const { uuid, id } = nextJobIdentity(this.random);
      const payload = this.profile.buildPayload({
        ...jobObject(job, d),
        uniqueLockOwner: owner,
        chain,
        // retryUntil() returns now()->addSeconds(N); the payload keeps its getTimestamp(): time() + N.
        timeoutAt: job.retryUntil === null ? null : ctx.time() + job.retryUntil,
        properties: Object.entries(props),
        command: job.command,
        id,
        uuid,
        backoff: job.backoff === null ? null : [job.backoff].flat().join(','),
        createdAt: ctx.time(),
      });
      if (labels.length === 0) attempts = Number(payload.attempts);
      this.names.set(id, job.name);
      if (job.unique && typeof job.unique.id === 'object') this.uniqueIds.set(id, uniqueId);
      if (owner !== null) this.uniqueOwners.set(id, owner);
      if (d.chain && d.chain.links.length > 0) this.chains.set(id, d.chain);
      const instance = this.registry.add({
        id,
        class: job.className,
        dispatchedAt: ctx.instant(),
        queue: queueName,
        connection: queue.config.connectionName,
        baseName: job.name,
      });
      labels.push(instance.label);
      try {
        await this.pushCommandToQueue(queue, this.profile.encodePayload(payload), queueName, d.delay);
      } catch (e) {
        // dispatch() throws before the payload reached Redis: the instance was never queued.
        if (e instanceof ClientException) instance.outcome = 'not-queued';
        throw e;
      }
    }
    return { labels, dropped, queue: queueName, attempts };
  }

  /**
   * Queueable::dispatchNextJobInChain, run by CallQueuedHandler::call in the worker once the job's
   * handle() returned and it was neither failed nor released (Queue/CallQueuedHandler.php@v8.83.26:76-78,
   * before its delete at :81-83). The first job of $chained is unserialized and given the rest of
   * the chain, `$next->connection ?: $chainConnection`, `$next->queue ?: $chainQueue` and the chain's
   * own properties (Bus/Queueable.php@v8.83.26:222-237), then dispatch()ed from the worker's process:
   * Dispatcher::dispatchToQueue resolves `$command->connection ?? null` (null: config queue.default)
   * to a RedisQueue on the process's one Redis connection (`resolve`), and pushes it with a new
   * uuid and id. Null when the chain is over (or the job has none).
   */
  async dispatchNextJobInChain(
    ctx: ActorContext,
    id: string,
    resolve: (connection: string | null) => RedisQueue,
    pending?: PendingDispatchCache,
  ): Promise<NextInChain | null> {
    const chain = this.chains.get(id);
    const next = chain?.links[0];
    if (chain === undefined || next === undefined) return null;
    const connection = next.connection ?? chain.connection ?? undefined;
    const rest = chain.links.slice(1);
    const dispatched = await this.dispatchToQueue(
      ctx,
      resolve(connection ?? null),
      {
        job: next.job,
        count: 1,
        connection,
        queue: next.queue ?? chain.queue ?? undefined,
        delay: next.delay,
        chain: { ...chain, links: rest },
      },
      pending,
    );
    return {
      ...dispatched,
      delay: next.delay ?? null,
      rest: rest.map((l) => l.job.name),
    };
  }

  /** What serialize() writes of a chain: each link as Queueable::chain() serialized it, then the chain's properties. */
  private chainProperties(chain: Chain): ChainProperties {
    return {
      chained: chain.links.map((l) => this.profile.serializeJob(jobObject(l.job, l))),
      chainConnection: chain.connection,
      chainQueue: chain.queue,
      chainCatchCallbacks: chain.catchCallbacks,
    };
  }

  /** Dispatcher::pushCommandToQueue: a delay, even 0, goes through later(). */
  private async pushCommandToQueue(queue: RedisQueue, payload: string, queueName: string, delay: number | undefined) {
    if (delay !== undefined) await queue.laterRaw(delay, payload, queueName);
    else await queue.pushRaw(payload, queueName);
  }
}

/** uniqueId() as PHP concatenates it into the lock's key: `'…'.$id` (true '1', false and null ''). */
function uniqueIdValue(id: string | { property: string }, props: Record<string, PhpValue>): string {
  if (typeof id === 'string') return id;
  const v = props[id.property];
  if (v === null || v === undefined || v === false) return '';
  if (v === true) return '1';
  return typeof v === 'object' ? '' : String(v);
}

/** `new <job>` with what ->onConnection/->onQueue/->delay set on it: the object serialize() writes. */
function jobObject(job: JobDefinition, set: { connection?: string; queue?: string; delay?: number }): JobObject {
  return {
    className: job.className,
    tries: job.tries,
    timeout: job.timeout,
    properties: Object.entries(job.properties),
    connection: set.connection ?? null,
    queue: set.queue ?? null,
    delay: set.delay ?? null,
    backoffDeclared: job.backoff,
    maxExceptions: job.maxExceptions,
    failOnTimeout: job.failOnTimeout,
    uniqueFor: job.unique?.for ?? null,
    declared: job.declared ?? null,
  };
}
