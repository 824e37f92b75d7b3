// What each lab command does to the session's scenario. Pure: a command, the scenario before it
// and where the lab's clock stands give the scenario after it, what the lab should run to, and a
// one-line message saying what happened in Laravel's terms (and what needed a restart). An entry
// kind's command writes the entry its module makes of it (ENTRY_KINDS[k].lab); the lab's own
// commands (worker, set, laravel) are here: they add a worker, or span kinds.
import { entryCommandOf, isEntryCommand } from '../scenarios/entries/lab.ts';
import type { ScenarioInput } from '../scenarios/schema.ts';
import { DEFAULT_PROFILE } from '../sim/profiles/index.ts';
import type { WorkerState } from '../sim/state.ts';
import type { LabCommand, WorkerChoice } from './commands.ts';
import { checkRetryDelay, CommandError } from './commands.ts';
import type { EntryInput } from './script.ts';
import { addEntry, addWorker, asLabSession, forkAt, freeWorkerName } from './script.ts';

type WorkerInput = NonNullable<ScenarioInput['workers']>[number];
type ConnectionInput = NonNullable<ScenarioInput['connections']>[string];

/** Where the lab stands when a command is given. */
export interface LabClock {
  /** The lab's clock, seconds after the start: the cursor's step, or later after a wait. An action happens then. */
  now: number;
  /**
   * A step already shown happened at `now`: the action's entries and workers are `late` in that
   * instant (entries run first at their instant; at `now` plainly the action would come before
   * what the person has already seen happen).
   */
  late: boolean;
  /** The workers as the cursor's step left them. */
  workers: readonly WorkerState[];
}

/** A change to the session: the scenario to replay, and the instant to show once it has run. */
export interface LabChange {
  input: ScenarioInput;
  /** Seconds after the start: the lab shows the first step at or after it. */
  at: number;
  message: string;
  /** What the session had planned after the clock and the change dropped (forkAt): for the message. */
  dropped: { entries: number; workers: number };
}

/**
 * The change a scenario command makes; throws CommandError when it cannot be made here. A scenario
 * opened in the lab becomes a lab session derived from it at its first change.
 */
export function applyCommand(before: ScenarioInput, cmd: LabCommand, clock: LabClock): LabChange {
  if (cmd.kind === 'laravel') {
    const from = before.laravel ?? DEFAULT_PROFILE;
    return {
      input: asLabSession({ ...structuredClone(before), laravel: cmd.profile as ScenarioInput['laravel'] }),
      at: clock.now,
      message: `Laravel ${from} → ${cmd.profile}: the session replayed from its start under ${cmd.profile}'s scripts, payloads and worker rules`,
      dropped: { entries: 0, workers: 0 },
    };
  }
  // The session as it stands at the clock, its planned future dropped; the action goes on from it.
  const base = forkAt(before, clock.now);
  const change = changeFor(base, before, cmd, clock);
  const dropped = {
    entries: (before.timeline?.length ?? 0) - (base.timeline?.length ?? 0),
    workers: (before.workers?.length ?? 0) - (base.workers?.length ?? 0),
  };
  const input = clock.late ? lateInItsInstant(change.input, base) : change.input;
  return { ...change, input: asLabSession(input), dropped };
}

/**
 * The entries and workers an action added (after those of `base`, the session it forked) made
 * `late` in their instant, written just after their time (`{ at: 3, late: true, dispatch: A }`).
 */
function lateInItsInstant(input: ScenarioInput, base: ScenarioInput): ScenarioInput {
  const entries = (input.timeline ?? []) as EntryInput[];
  const kept = base.timeline?.length ?? 0;
  const workers = input.workers ?? [];
  const had = base.workers?.length ?? 0;
  return {
    ...input,
    timeline: entries.map((e, i) => {
      if (i < kept) return e;
      const { at, ...rest } = e;
      return { at, late: true, ...rest } as EntryInput;
    }) as ScenarioInput['timeline'],
    workers: workers.map((w, i) => {
      if (i < had) return w;
      const { name, start, ...rest } = w;
      return { name, ...(start === undefined ? {} : { start }), late: true, ...rest };
    }),
  };
}

/** What a command other than `laravel` does to `input`, the session `before` forked at the clock. */
function changeFor(
  input: ScenarioInput,
  before: ScenarioInput,
  cmd: Exclude<LabCommand, { kind: 'laravel' }>,
  clock: LabClock,
): Omit<LabChange, 'dropped'> {
  // The session's version judges the worker options, whatever the command line knew.
  const laravel = String(before.laravel ?? DEFAULT_PROFILE);
  if (cmd.kind === 'worker') checkRetryDelay('worker', cmd.options, laravel);
  if (cmd.kind === 'options') checkRetryDelay(`set ${cmd.worker}`, cmd.options, laravel);
  const at = clock.now;
  const running = (name: string) => isRunning(clock.workers.find((w) => w.name === name));
  if (isEntryCommand(cmd)) {
    const written = entryCommandOf(cmd).toEntry(cmd, { at, input, running });
    return { input: addEntry(written.input ?? input, written.entry), at, message: written.message };
  }
  switch (cmd.kind) {
    case 'worker': {
      const { input: next, worker } = startWorker(input, cmd.options, at);
      return { input: next, at, message: `started ${worker.name}: php artisan queue:work${workerFlags(worker)}` };
    }
    case 'config':
      return changeConfig(input, cmd, clock, at);
    case 'options':
      return restartWithOptions(input, cmd.worker, cmd.options, clock, at);
    default:
      throw new CommandError(`${cmd.kind} changes no scenario`);
  }
}

/** Whether the process of a worker in this state runs (not exited, killed for good or not yet started). */
export function isRunning(w: WorkerState | undefined): boolean {
  if (w === undefined) return false;
  return w.status.kind !== 'stopped' && w.status.kind !== 'killed' && w.status.kind !== 'starting';
}

/** A connection like `base` but with block_for: an existing one, or a copy named for it. */
function connectionWithBlockFor(
  input: ScenarioInput,
  base: string,
  blockFor: number,
): { input: ScenarioInput; name: string } {
  const connections = { ...(input.connections ?? {}) };
  const from = connections[base] ?? {};
  const found = Object.entries(connections).find(
    ([, c]) => (c.block_for ?? null) === blockFor && c.queue === from.queue && c.retry_after === from.retry_after,
  );
  if (found) return { input, name: found[0] };
  let name = `${base}-block${blockFor}`;
  for (let i = 2; connections[name] !== undefined; i++) name = `${base}-block${blockFor}-${i}`;
  connections[name] = { ...from, block_for: blockFor } as ConnectionInput;
  return { input: { ...input, connections }, name };
}

function startWorker(input: ScenarioInput, o: WorkerChoice, at: number): { input: ScenarioInput; worker: WorkerInput } {
  let next = input;
  const worker: WorkerInput = { name: o.name ?? freeWorkerName(input) };
  let connection = o.connection;
  if (o.blockFor !== undefined) {
    const base = connection ?? Object.keys(input.connections ?? { redis: {} })[0]!;
    const made = connectionWithBlockFor(next, base, o.blockFor);
    next = made.input;
    connection = made.name;
  }
  if (connection !== undefined) worker.connection = connection;
  if (o.queue !== undefined) worker.queue = o.queue;
  if (o.tries !== undefined) worker.tries = o.tries;
  if (o.timeout !== undefined) worker.timeout = o.timeout;
  if (o.sleep !== undefined) worker.sleep = o.sleep;
  if (o.delay !== undefined) worker.delay = o.delay;
  if (o.backoff !== undefined) worker.backoff = o.backoff.length === 1 ? o.backoff[0]! : o.backoff;
  if (o.once) worker.once = true;
  if (at > 0) worker.start = at;
  return { input: addWorker(next, worker), worker };
}

function workerFlags(w: WorkerInput): string {
  const flags: string[] = [];
  if (w.connection !== undefined) flags.push(` ${w.connection}`);
  if (w.queue !== undefined) flags.push(` --queue=${w.queue}`);
  if (w.tries !== undefined) flags.push(` --tries=${w.tries}`);
  if (w.timeout !== undefined) flags.push(` --timeout=${w.timeout}`);
  if (w.sleep !== undefined) flags.push(` --sleep=${w.sleep}`);
  if (w.delay !== undefined) flags.push(` --delay=${w.delay}`);
  if (w.backoff !== undefined) flags.push(` --backoff=${[w.backoff].flat().join(',')}`);
  if (w.once) flags.push(' --once');
  return flags.join('');
}

/**
 * config/queue.php changes at `at` (a deploy). Laravel reads it when a process starts: web
 * requests after `at` see it at once; a running queue:work keeps what it booted with, so each
 * worker on the connection gets SIGTERM and a new process starts in its place, as a deploy's
 * `php artisan queue:restart` (or supervisorctl restart) would do.
 */
function changeConfig(
  input: ScenarioInput,
  cmd: Extract<LabCommand, { kind: 'config' }>,
  clock: LabClock,
  at: number,
): Omit<LabChange, 'dropped'> {
  const entry: EntryInput = { at, config: cmd.connection };
  const old = (input.connections ?? {})[cmd.connection] ?? {};
  const changes: string[] = [];
  if (cmd.retryAfter !== undefined) {
    entry.retry_after = cmd.retryAfter;
    changes.push(`retry_after ${String(old.retry_after ?? 90)} → ${String(cmd.retryAfter)}`);
  }
  if (cmd.blockFor !== undefined) {
    entry.block_for = cmd.blockFor;
    changes.push(`block_for ${String(old.block_for ?? null)} → ${String(cmd.blockFor)}`);
  }
  let next = addEntry(input, entry);
  const onIt = clock.workers.filter((w) => w.connection === cmd.connection && isRunning(w)).map((w) => w.name);
  for (const name of onIt) next = addEntry(next, restartEntry(name, {}, at));
  const restarts =
    onIt.length === 0
      ? 'no worker runs on it now; the next to start reads it'
      : `a running queue:work keeps the config it booted with, so each gets SIGTERM and supervisord starts it again once it has finished its job: ${onIt.join(', ')}`;
  return { input: next, at, message: `${cmd.connection}: ${changes.join(', ')}; ${restarts}` };
}

/**
 * SIGTERM to `name`; once its process has finished its job and exited, supervisord starts the
 * same program again with `o` changed (a stop entry's `restart`): the worker keeps its name.
 */
function restartEntry(name: string, o: WorkerChoice, at: number): EntryInput {
  const restart: Record<string, unknown> = {};
  if (o.queue !== undefined) restart.queue = o.queue;
  if (o.tries !== undefined) restart.tries = o.tries;
  if (o.timeout !== undefined) restart.timeout = o.timeout;
  if (o.sleep !== undefined) restart.sleep = o.sleep;
  if (o.delay !== undefined) restart.delay = o.delay;
  if (o.backoff !== undefined) restart.backoff = o.backoff.length === 1 ? o.backoff[0]! : o.backoff;
  return { at, stop: name, restart };
}

function restartWithOptions(
  input: ScenarioInput,
  name: string,
  o: WorkerChoice,
  clock: LabClock,
  at: number,
): Omit<LabChange, 'dropped'> {
  const running = isRunning(clock.workers.find((w) => w.name === name));
  if (!running) throw new CommandError(`set: ${name} has no process running now; start a new one with worker`);
  const entry = restartEntry(name, o, at);
  const flags = workerFlags({ name, ...(entry.restart as Partial<WorkerInput>) });
  return {
    input: addEntry(input, entry),
    at,
    message: `queue:work reads its options only when it starts: ${name} got SIGTERM (it finishes its job), then supervisord starts it again with${flags}`,
  };
}
