// What a timeline entry kind is: one module per kind (dispatch.ts, stop.ts, ...) owns its schema,
// its cross-reference checks, its model behaviour with narration, and what real Laravel does for it
// in `lqsim conformance`. index.ts lists the kinds in a record keyed by kind, so the compiler
// names every kind that a new member of the union lacks. A kind also says what the lab needs of it:
// its lab command, or null for none (`lab`), and the workers and connections an entry names (`names`).
import { z } from 'zod';
import type { LaravelProfile } from '../../sim/profiles/types.ts';
import type { Dispatcher } from '../../sim/dispatcher.ts';
import type { QueueConfig } from '../../sim/redis-queue.ts';
import type { QueueResolver } from '../../sim/web-request.ts';
import type { ActorContext } from '../../sim/scheduler.ts';
import type { RestartOptions } from '../../sim/worker-input.ts';
import type { StepKind } from '../../sim/state.ts';
import type { Cache, LockBook, ProcessRedis } from '../../sim/cache.ts';
import type { ConnectionFactory } from '../../sim/redis-port.ts';
import type { Path, Problem } from '../schema-issues.ts';
import { lazy } from '../fields.ts';
import type { ScenarioInput, ScenarioSpec } from '../schema.ts';
import type { Args, LabCommandSpec, LabVocabulary } from './lab-args.ts';

/** Something an entry starts on the scheduler: an actor's activation, at the entry's time unless `at` says. */
export interface Activation {
  actor: string;
  /** Seconds after the start, when not the entry's `at` (an entry that repeats: dispatch's `every`). */
  at?: number;
  /**
   * The run is not over while it runs (a request that sleeps between its calls), not only until it
   * starts, as for every activation (a kill's goes on as the restarted worker's supervisor).
   */
  holdsRun?: boolean;
  run(ctx: ActorContext): Promise<void>;
}

/** What an entry starts: nothing (a note), one activation, or several (one per repetition). */
export type Activations = Activation | readonly Activation[] | null;

/** A worker process under supervisord, as entries drive it (the model's WorkerModel, conformance's WorkerProxy). */
export interface WorkerControl {
  /** SIGTERM: quit after the current job. */
  signalTerm(): void;
  /** SIGTERM, then supervisord starts the same program again with these options changed. */
  restartWith(changed: RestartOptions): void;
  /** SIGKILL from outside, on `ctx` (the entry's activation); false when no process was running. */
  killFromOutside(ctx: ActorContext, note?: string): Promise<boolean>;
  /** Whether supervisord would start it again now (autorestart, and no stop asked for). */
  restartsAfterKill(): boolean;
  /** supervisord starts a new process; `ctx` goes on as its supervisor. */
  restartAfterKill(ctx: ActorContext): Promise<void>;
}

/** A worker of the model: what entries drive, and the config its running process booted with. */
export interface ModelWorker extends WorkerControl {
  /** The queue connection config its running process read when it started; null when none runs. */
  bootedConfig(): QueueConfig | null;
}

/** What a `config` entry changes in one connection of config/queue.php (the scenario's spelling). */
export interface ConnectionChange {
  retry_after?: number | null;
  block_for?: number | null;
  queue?: string;
}

/** What a kind's cross-reference check may consult. */
export interface CheckContext {
  spec: ScenarioSpec;
  /** The profile of spec.laravel: what that Laravel version has. */
  profile: LaravelProfile;
  jobs: string[];
  connections: string[];
  workers: string[];
  /** `unknown job "Foo" (did you mean ...)`. */
  unknown(what: string, value: string, known: string[]): string;
}

/** The model's side: the runner gives each entry these. */
export interface ModelEnv {
  spec: ScenarioSpec;
  profile: LaravelProfile;
  prefix: string;
  dispatcher: Dispatcher;
  /** A web request: its own process and Redis connection, shared by the queue connections it uses. */
  request<T>(
    ctx: ActorContext,
    fn: (queueFor: QueueResolver, takeMethods: () => string[], cache: Cache) => Promise<T>,
  ): Promise<{ result: T; methods: string[] }>;
  /** A worker of the scenario, by name (the loader checked it exists). */
  worker(name: string): ModelWorker;
  /** The app's cache in a process (an artisan command's, a request's). */
  cacheFor(redis: ProcessRedis): Cache;
  /** Opens a process's Redis connections (an artisan command's). */
  connect: ConnectionFactory;
  /** The locks held in the cache (who holds one, for narration). */
  locks: LockBook;
  /** The restart signal the run's last queue:restart wrote (the workers' end-of-run rule reads it). */
  restartSignal: { value: string | null };
  /**
   * config/queue.php as it reads now, by connection: a process reads it when it starts (a web
   * request, a worker process), so a `config` entry replaces a connection's entry here and only
   * processes started afterwards see the new one.
   */
  connections: Record<string, QueueConfig>;
}

/** Real Laravel's side (src/conformance): the coordinator gives each entry these. */
export interface RealEnv {
  /**
   * A web request: a PHP process playing `role` (harness.php), shown as one `kind` step, and one
   * more after each sleep of a request that goes on (a call's `wait`).
   */
  request(what: string, kind: StepKind, role: () => Record<string, unknown>): Activation['run'];
  /** The uuids the model would draw for the next `count` jobs (Laravel gets them by Str::createUuidsUsing). */
  uuidsFor(count: number): string[];
  worker(name: string): WorkerControl;
  /** `php artisan <command>`: a PHP process of its own, one step. */
  artisan(command: string): Activation['run'];
  /** config/queue.php changes: every PHP process started from now on is given the new options. */
  configure(connection: string, change: ConnectionChange): void;
}

/** The workers and connections an entry names: a fork drops it with a worker it names (forkAt). */
export interface EntryNames {
  workers: string[];
  connections: string[];
}

/** Where the lab stands when a kind's command is given, as the kind's module sees it. */
export interface LabMoment {
  /** The lab's clock, seconds after the start: the entry's `at`. */
  at: number;
  /** The session's scenario as written, its planned future dropped at the clock. */
  input: ScenarioInput;
  /** Whether the worker's process runs at the clock. */
  running(worker: string): boolean;
}

/** What a kind's lab command writes: its entry, and what it says happened. */
export interface LabEntryAction<I extends { at: number }> {
  /** The entry as written (the YAML's shape), at the lab's clock. */
  entry: I;
  /** The scenario the entry goes into, when the command changes more (a job class it declares); absent: as it was. */
  input?: ScenarioInput;
  /** One line saying what happened, in Laravel's terms. */
  message: string;
}

/**
 * A kind's command in the lab (`dispatch SendEmail delay=10`), named after the kind: its line in
 * the help and its completion, the words parsed into `C` (what parseCommand gives the lab, `kind`
 * the kind's), and `C` written as the kind's entry `I` at the lab's clock.
 */
export interface LabEntryCommand<C extends { kind: string }, I extends { at: number } = { at: number }> extends Omit<
  LabCommandSpec,
  'name'
> {
  /**
   * Lines that use every key between them, naming worker-1 and connection redis (the default
   * lab's): a test writes each as an entry and checks that the kind's schema and checks take it.
   */
  examples: readonly string[];
  /** The words after the command's name; the lab refuses any left over afterwards. Throws CommandError. */
  parse(args: Args, v: LabVocabulary): C;
  /** The entry the command writes at the clock; throws CommandError when it cannot be done then. */
  toEntry(cmd: C, moment: LabMoment): LabEntryAction<I>;
}

/**
 * `C`: the command the kind's lab command parses into, or null (the default) for a kind with none.
 * A kind without one says so (`lab: null`), so a new kind decides and the compiler asks.
 */
export interface EntryKind<E extends { kind: string; at: number }, C extends { kind: E['kind'] } | null = null> {
  /** The zod schema of the entry as written; parsing adds `kind`. */
  schema: z.ZodType<E>;
  /**
   * Which entries start first at one virtual time (see startOrder in index.ts): lower first, then
   * file order.
   */
  phase: number;
  /** Problems zod cannot see, because they span fields (names defined elsewhere in the file). */
  check(entry: E, path: Path, ctx: CheckContext): Problem[];
  /** Queue names the entry puts jobs on (snapshotted, and cleaned up on someone else's server). */
  queues(entry: E): string[];
  /** How many jobs it dispatches (limits and the run's step budget). */
  dispatches(entry: E): number;
  /** What the model runs for it; null for an entry that only annotates steps. */
  model(entry: E, env: ModelEnv): Activations;
  /** What real Laravel runs for it in conformance; null when it sends nothing. */
  real(entry: E, env: RealEnv): Activations;
  /** Why real Laravel cannot play this entry as written, or null. */
  notComparable(entry: E, spec: ScenarioSpec): string | null;
  /** The lab's command that writes this kind of entry, or null: the lab has none for it. */
  lab: C extends { kind: E['kind'] } ? LabEntryCommand<C> : null;
  /** The workers and connections the entry names (a fork drops an entry naming a worker it dropped). */
  names(entry: E): EntryNames;
  /**
   * For an entry that goes on after its `at` (a dispatch `every` N seconds): what changes in it as
   * written when the session is cut at `now` (its later part dropped), or null when it stays whole.
   */
  cutAt?(entry: E, now: number): Partial<Omit<E, 'kind'>> | null;
}

/**
 * Where an entry falls in its instant: by default before everything else then (entries start
 * first); `late`, after everything else then, what arises during the instant too. The lab writes
 * an action taken at a step's instant so: it comes after the steps already seen, at that time.
 */
const late = lazy(() =>
  z
    .boolean()
    .optional()
    .describe(
      "after everything else at its instant (by default an entry comes first): the lab writes an action taken at a step's instant so",
    ),
);

/** An entry kind's schema: its own keys, strictly (a typo is an error), and `kind` added by parsing. */
export function entrySchema<K extends string, S extends z.ZodRawShape>(kind: K, shape: S) {
  return z
    .object({ ...shape, late: late() })
    .strict()
    .transform((e) => ({ kind, ...e }));
}
