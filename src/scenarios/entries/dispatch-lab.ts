// The dispatch entry's lab command: `dispatch SendEmail queue=emails delay=10 run=5 throw`. A web
// request dispatches the job at the lab's clock; what each attempt does (run/throw/fail/release)
// is the job class's, so a behaviour the session has not declared yet declares a class of its own.
import type { ScenarioInput } from '../schema.ts';
import type { DispatchInput } from './dispatch.ts';
import type { LabEntryCommand } from './kind.ts';
import { CommandError } from './lab-args.ts';

type JobInput = NonNullable<ScenarioInput['jobs']>[string];
type AttemptInput = NonNullable<JobInput['attempts']>[number];

/** A job's behaviour on every attempt, as typed: `run=5 throw`. */
export interface Behaviour {
  run?: number;
  outcome?: { throw: string } | { fail: true } | { release: number };
}

/** `dispatch <Job> ...` as parsed. */
export interface DispatchCommand {
  kind: 'dispatch';
  job: string;
  queue?: string;
  delay?: number;
  count?: number;
  connection?: string;
  behaviour: Behaviour;
}

export const dispatchLab: LabEntryCommand<DispatchCommand, DispatchInput> = {
  group: 'jobs',
  usage: 'dispatch <Job> [queue=Q] [delay=N] [count=N] [connection=C] [run=N] [throw[=message] | fail | release=N]',
  help: 'a web request dispatches a job (a new class is declared App\\Jobs\\<Job>); run/throw/fail/release: what each attempt does',
  keys: ['queue=', 'delay=', 'count=', 'connection=', 'run=', 'throw', 'fail', 'release='],
  first: (v) => v.jobs,
  examples: [
    'dispatch SendEmail queue=emails delay=10 count=3 connection=redis run=5 throw="Mail server down"',
    'dispatch Report fail',
    'dispatch Report release=30',
  ],
  parse(args, v) {
    const job = args.positional('a job class name, e.g. dispatch SendEmail');
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(job))
      throw new CommandError(`dispatch: "${job}" is not a job name (letters, digits, _)`);
    const behaviour: Behaviour = {};
    const run = args.int('run');
    if (run !== undefined) behaviour.run = run;
    const outcomes = [args.text('throw'), args.flag('fail'), args.int('release')];
    if (outcomes.filter((o) => o !== undefined && o !== false).length > 1)
      throw new CommandError('dispatch: give one outcome: throw, fail or release=N');
    const [thrown, failed, released] = outcomes as [string | undefined, boolean, number | undefined];
    if (thrown !== undefined) behaviour.outcome = { throw: thrown === '' ? 'Exception' : thrown };
    else if (failed) behaviour.outcome = { fail: true };
    else if (released !== undefined) behaviour.outcome = { release: released };
    const connection = args.name('connection', v.connections, 'connection');
    return {
      kind: 'dispatch',
      job,
      queue: args.queue('queue'),
      delay: args.int('delay'),
      count: args.int('count', 1, 1000),
      connection,
      behaviour,
    };
  },
  toEntry(cmd, { at, input }) {
    const { jobs, name, declared } = jobFor(input, cmd.job, cmd.behaviour);
    const entry: DispatchInput = { at, dispatch: name };
    if (cmd.queue !== undefined) entry.queue = cmd.queue;
    if (cmd.delay !== undefined) entry.delay = cmd.delay;
    if (cmd.count !== undefined && cmd.count !== 1) entry.count = cmd.count;
    if (cmd.connection !== undefined) entry.connection = cmd.connection;
    const what = `${cmd.count !== undefined && cmd.count > 1 ? `${cmd.count} × ` : ''}${name}`;
    return {
      entry,
      input: { ...input, jobs },
      message: `dispatched ${what}${cmd.delay ? ` with a delay of ${cmd.delay}s` : ''}${declared ? ` (declared ${declared})` : ''}`,
    };
  },
};

/** The job name a dispatch uses: the declared one, or a new declaration for a new behaviour. */
function jobFor(
  input: ScenarioInput,
  job: string,
  behaviour: Behaviour,
): { jobs: Record<string, JobInput>; name: string; declared: string | null } {
  const jobs = { ...(input.jobs ?? {}) };
  const attempts = attemptsOf(behaviour);
  const existing = jobs[job];
  if (existing !== undefined && (attempts === null || sameAttempts(existing.attempts, attempts)))
    return { jobs, name: job, declared: null };
  // A new behaviour for a declared job is a class of its own, as it would be in an application.
  let name = job;
  for (let i = 2; jobs[name] !== undefined; i++) name = `${job}${i}`;
  jobs[name] = { class: `App\\Jobs\\${name}`, ...(attempts === null ? {} : { attempts }) };
  return { jobs, name, declared: `App\\Jobs\\${name}${attempts === null ? '' : `: ${describeAttempts(attempts)}`}` };
}

function attemptsOf(b: Behaviour): AttemptInput[] | null {
  if (b.run === undefined && b.outcome === undefined) return null;
  const a: Record<string, unknown> = {};
  if (b.run !== undefined) a.run = b.run;
  if (b.outcome !== undefined) Object.assign(a, b.outcome);
  return [a as AttemptInput];
}

function sameAttempts(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? [{}]) === JSON.stringify(b);
}

function describeAttempts(attempts: AttemptInput[]): string {
  const a = attempts[0] as Record<string, unknown>;
  const run = typeof a.run === 'number' ? `runs ${a.run}s` : '';
  const end =
    a.throw !== undefined
      ? `throws "${String(a.throw)}"`
      : a.fail
        ? 'fails'
        : a.release !== undefined
          ? `releases itself for ${String(a.release)}s`
          : 'succeeds';
  return [run, `then ${end}`].filter((x) => x !== '').join(', ');
}
