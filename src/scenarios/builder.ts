// A scenario written in code: a small fluent builder over the same zod schema the YAML loader
// uses, so `scenario(...).worker(...).job(...).dispatch(...).build()` yields exactly the
// ScenarioSpec a file with those fields would, with the same defaults and the same checks
// (schema, then the cross-reference checks). Problems are thrown as ScenarioError, whose
// "file" is the scenario's name and whose field path is the one the YAML would have.
import type { z } from 'zod';
import { ScenarioError } from './errors.ts';
import { checkInput } from './load.ts';
import type { ProfileName } from '../sim/profiles/index.ts';
import type { ConnectionInput, JobClassInput, ScenarioInput, ScenarioSpec, WorkerInput } from './schema.ts';
import type { TimelineEntryInput } from './entries/index.ts';
import type { ChainInput } from './entries/chain.ts';
import type { ConfigInput } from './entries/config.ts';
import type { DispatchInput } from './entries/dispatch.ts';
import type { KillInput } from './entries/kill.ts';
import type { NoteInput } from './entries/note.ts';
import type { RequestInput } from './entries/request.ts';
import type { SizeInput } from './entries/size.ts';
import type { StopInput } from './entries/stop.ts';
import type { ArtisanInput } from './entries/artisan.ts';

/** config/queue.php options of one redis connection (retry_after, block_for, queue). */
export type ConnectionOptions = ConnectionInput;
/** php artisan queue:work options of one worker process, without its name. */
export type WorkerOptions = Omit<WorkerInput, 'name'>;
/** A job class: its PHP class name, public properties ($tries, $backoff...) and what each attempt does. */
export type JobOptions = JobClassInput;
type EntryInput = TimelineEntryInput;
export type DispatchOptions = Omit<DispatchInput, 'dispatch'>;
export type RequestCalls = RequestInput['request'];
export type RequestOptions = Omit<RequestInput, 'request'>;
export type ChainJobs = ChainInput['chain'];
export type ChainOptions = Omit<ChainInput, 'chain'>;
export type StopOptions = Omit<StopInput, 'stop'>;
export type KillOptions = Omit<KillInput, 'kill'>;
export type SizeOptions = Omit<SizeInput, 'size'>;
export type NoteOptions = Omit<NoteInput, 'note'>;
export type ConfigChangeOptions = Omit<ConfigInput, 'config'>;
/** A Laravel version profile: one of PROFILE_NAMES (src/sim/profiles/index.ts). */
export type LaravelVersion = ProfileName;
export type RedisOptions = NonNullable<ScenarioInput['redis']>;
/** config/cache.php: the store (redis puts the cache's keys on Redis), its connections and prefix. */
export type CacheOptions = NonNullable<ScenarioInput['cache']>;
/** RateLimiter::for's Limit(s): { per_minute: 2 }, a list of them, or 'none'. */
export type LimiterOptions = NonNullable<ScenarioInput['limiters']>[string];
export type ArtisanOptions = Omit<ArtisanInput, 'artisan'>;

export class ScenarioBuilder {
  private readonly input: {
    name: string;
    title: string;
    description?: string;
    laravel?: LaravelVersion;
    start?: number;
    until?: number;
    seed?: number;
    redis?: RedisOptions;
    cache?: CacheOptions;
    limiters?: Record<string, LimiterOptions>;
    connections?: Record<string, ConnectionOptions>;
    workers: z.input<typeof Worker>[];
    jobs: Record<string, JobOptions>;
    timeline: EntryInput[];
  };

  constructor(name: string, title: string) {
    this.input = { name, title, workers: [], jobs: {}, timeline: [] };
  }

  description(text: string): this {
    this.input.description = text;
    return this;
  }

  /** The Laravel version profile: one of PROFILE_NAMES (default: DEFAULT_PROFILE), as `laravel:` in YAML. */
  laravel(version: LaravelVersion): this {
    this.input.laravel = version;
    return this;
  }

  /** Virtual unix time of t+0s (default 1700000000). */
  start(unixSeconds: number): this {
    this.input.start = unixSeconds;
    return this;
  }

  /** Stop the run at this virtual time, seconds to the millisecond (default: when every job has settled). */
  until(seconds: number): this {
    this.input.until = seconds;
    return this;
  }

  /** Seed of the random job ids. */
  seed(seed: number): this {
    this.input.seed = seed;
    return this;
  }

  redis(options: RedisOptions): this {
    this.input.redis = options;
    return this;
  }

  /** The app's cache store (config/cache.php): `{ store: 'redis' }` puts its keys on Redis. */
  cache(options: CacheOptions): this {
    this.input.cache = options;
    return this;
  }

  /** RateLimiter::for($name, ...): the limit a job's rate_limited middleware names. */
  limiter(name: string, limit: LimiterOptions): this {
    this.input.limiters = { ...this.input.limiters, [name]: limit };
    return this;
  }

  /** A redis queue connection (config/queue.php); the first one added is the default. */
  connection(name: string, options: ConnectionOptions = {}): this {
    this.input.connections = { ...this.input.connections, [name]: options };
    return this;
  }

  /** A `php artisan queue:work` process. */
  worker(name: string, options: WorkerOptions = {}): this {
    this.input.workers.push({ name, ...options });
    return this;
  }

  /** A job class, referred to by `name` in dispatch(). */
  job(name: string, options: JobOptions): this {
    this.input.jobs[name] = options;
    return this;
  }

  /** Dispatch a job (`delay` makes it dispatch later); `at` defaults to 0. */
  dispatch(job: string, options: Partial<DispatchOptions> = {}): this {
    this.input.timeline.push({ at: 0, ...options, dispatch: job });
    return this;
  }

  /** One web request making several calls on one connection: dispatches and Queue::size(). */
  request(calls: RequestCalls, options: Partial<RequestOptions> = {}): this {
    this.input.timeline.push({ at: 0, ...options, request: calls });
    return this;
  }

  /** Bus::chain(jobs)->...->dispatch() (Laravel 8+): the first job now, each next one by a worker; `at` defaults to 0. */
  chain(jobs: ChainJobs, options: Partial<ChainOptions> = {}): this {
    this.input.timeline.push({ at: 0, ...options, chain: jobs });
    return this;
  }

  /** SIGTERM to a worker: it quits after its current job. */
  stop(worker: string, options: StopOptions): this {
    this.input.timeline.push({ ...options, stop: worker });
    return this;
  }

  /** SIGKILL to a worker's process from outside; supervisord restarts it unless `restart: false`. */
  kill(worker: string, options: KillOptions): this {
    this.input.timeline.push({ ...options, kill: worker });
    return this;
  }

  /** The application calls Queue::size(queue). */
  size(queue: string, options: SizeOptions): this {
    this.input.timeline.push({ ...options, size: queue });
    return this;
  }

  /**
   * config/queue.php changes for a connection (retry_after, block_for, queue): processes started
   * from `at` on read the new values; running workers keep theirs until they restart.
   */
  config(connection: string, options: ConfigChangeOptions): this {
    this.input.timeline.push({ ...options, config: connection });
    return this;
  }

  /** `php artisan queue:restart`: daemon workers exit after their current job, and are restarted. */
  artisan(command: ArtisanInput['artisan'], options: ArtisanOptions): this {
    this.input.timeline.push({ ...options, artisan: command });
    return this;
  }

  /** A teaching note attached to the first matching step at or after `at`. */
  note(text: string, options: NoteOptions): this {
    this.input.timeline.push({ ...options, note: text });
    return this;
  }

  /** The scenario input as a YAML file would hold it (before defaults). */
  toInput(): ScenarioInput {
    return structuredClone(this.input) as ScenarioInput;
  }

  /** The validated spec, defaults applied; throws ScenarioError on the first problem. */
  build(): ScenarioSpec {
    return buildScenario(this.toInput());
  }
}

/** Starts a scenario in code: `scenario('my-flow', 'one line').worker('worker-1').job(...).dispatch(...).build()`. */
export function scenario(name: string, title: string): ScenarioBuilder {
  return new ScenarioBuilder(name, title);
}

/**
 * Validates a scenario written as a plain object (the YAML's shape) the way the loader validates
 * a file: the schema with its defaults, then the cross-reference checks.
 */
export function buildScenario(input: ScenarioInput): ScenarioSpec {
  const label =
    typeof input === 'object' && input !== null && typeof input.name === 'string' ? input.name : '<scenario>';
  const checked = checkInput(input);
  if ('problem' in checked)
    throw new ScenarioError(label, 0, 0, checked.problem.path.join('.'), checked.problem.detail);
  return checked.spec;
}
