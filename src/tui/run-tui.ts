// `lqsim tui [scenario]`: the entry the CLI imports (lazily, on a TTY only). Checks the scenario
// first (bad input fails before Redis or the screen are touched), switches to the alternate
// screen, draws the premise, gets a Redis, runs the Ink app over a live session, and restores the
// terminal on the way out. Returns the exit status: 0, or 1 when the run itself failed.
// What the first frame does not need is imported after it: the engine and Redis' client, and, for a
// shipped scenario its build validated (the catalog cache), the schema and YAML parser too.
import { createElement } from 'react';
import { render } from 'ink';
import { colourLevel } from '../output/colour.ts';
import { plural, relTime } from '../output/describe.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import type { CatalogEntry } from '../scenarios/catalog.ts';
import { resolveScenario } from '../scenarios/catalog.ts';
import { cachedScenario, shippedScenarios } from '../scenarios/catalog-cache.ts';
import type { LoadedScenario } from '../scenarios/load.ts';
import type { RedisTarget, RunOptions } from '../scenarios/runner.ts';
import type { Timeline } from '../scenarios/timeline.ts';
import { existsSync } from 'node:fs';
import type { ScenarioInput, ScenarioSpec } from '../scenarios/schema.ts';
import { secondsBetween } from '../sim/clock.ts';
import type { LabRunner, LabSession } from './lab-session.ts';
import type { OnStep } from './live-session.ts';
import { isLabSession, LiveSession } from './live-session.ts';
import type { Premise } from './App.tsx';
import { Root } from './Root.tsx';
import { enterFullScreen } from './terminal-screen.ts';

/**
 * Frames a second Ink may draw. Its default, 30, held → for 33 ms between the frame of the key
 * and the frame of the step it ran (bench section 9: 59 ms a step); 60 halves that wait.
 */
const MAX_FPS = 60;

export interface RunTuiOptions {
  /** A name from `lqsim list` or a path; undefined opens the picker (or, in the lab, an empty queue). */
  scenario?: string;
  /** Lab mode (`lqsim lab`): the session can be changed while it is watched. */
  lab?: boolean;
  laravel?: string;
  /**
   * Gets a Redis for `fn` and releases it afterwards (the CLI's withRedis); what it has to say about
   * the server goes to `log`, which runTui prints once the screen is back.
   */
  withRedis: <T>(fn: (server: RedisTarget) => Promise<T>, log: (message: string) => void) => Promise<T>;
  /**
   * Gets a Redis Cluster for a scenario that says `redis.cluster` (the CLI's: REDIS_CLUSTER_URL or
   * three local masters), once, when the first such run starts; stopped when the UI closes.
   */
  withCluster?: (log: (message: string) => void) => Promise<RedisTarget & { stop(): Promise<void> }>;
  /**
   * `lqsim explain --tui`: instead of a scenario, a capture replayed step by step (src/explain/
   * replay.ts) on the server withRedis gives, under this name and premise.
   */
  replay?: {
    name: string;
    premise: Premise;
    run: (server: RedisTarget, onStep: OnStep) => Promise<Timeline>;
  };
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  env?: NodeJS.ProcessEnv;
}

export async function runTui(o: RunTuiOptions): Promise<number> {
  const stdin = o.stdin ?? process.stdin;
  const stdout = o.stdout ?? process.stdout;
  const stderr = o.stderr ?? process.stderr;
  const env = o.env ?? process.env;
  const level = colourLevel(stdout, env);
  // NO_COLOR turns colours off, not bold, dim and the inverse selection; FORCE_COLOR=0 turns off all.
  const styleLevel = level > 0 ? level : env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false' ? 0 : 1;
  const named = o.scenario === undefined ? null : await resolveScenario(o.scenario);
  // A ScenarioError here is the CLI's exit 2, before the screen is touched. A shipped scenario
  // unchanged since the build validated it is known good: its premise comes from the cache.
  const cached = named === null ? undefined : cachedScenario(named);
  const premise =
    named === null
      ? null
      : cached !== undefined
        ? {
            scenario: { name: cached.name, title: cached.title, description: cached.description, file: named },
            profile: o.laravel ?? cached.laravel,
          }
        : premiseOf((await loadScenarioFile(named)).spec, o.laravel, named);
  const entries: CatalogEntry[] =
    named === null && o.lab !== true && o.replay === undefined ? await shippedScenarios() : [];
  // The lab starts from the scenario as written (saved, it stays the person's own file's shape).
  const labInput = o.lab === true ? await labStart(named, o.laravel) : null;

  // Redis is got once the first frame is drawn: the premise needs only the scenario, so it is on
  // screen at once, and the runs wait for the server (~100 ms for a local redis-server, a pull for
  // Docker). The server is held until the UI has closed and every run has stopped.
  const notes: string[] = [];
  let release = (): void => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let serverUp = (_server: RedisTarget): void => {};
  let serverFailed = (_e: unknown): void => {};
  const server = new Promise<RedisTarget>((resolve, reject) => ((serverUp = resolve), (serverFailed = reject)));
  server.catch(() => undefined); // a run waiting for it has its own handler; none may be waiting
  let instance: ReturnType<typeof render> | undefined;
  /** A run against the server once it is up (the engine, and Redis' client with it, imported then). */
  let cluster: Promise<RedisTarget & { stop(): Promise<void> }> | undefined;
  const clusterFor = (): Promise<RedisTarget> => {
    if (o.withCluster === undefined) return Promise.reject(new Error('no Redis Cluster here for a cluster scenario'));
    return (cluster ??= o.withCluster((m) => notes.push(m)));
  };
  const run = async (spec: ScenarioSpec, opts: Omit<RunOptions, 'redis'>): Promise<Timeline> => {
    const redis = spec.redis.cluster === true ? await clusterFor() : await server;
    const { runScenario } = await import('../scenarios/runner.ts');
    return runScenario(spec, { ...opts, redis });
  };

  const sessions: Array<{ name: string; session: LiveSession | LabSession }> = [];
  const runner: LabRunner = (spec, onOpen) => (onStep) => run(spec, { onStep, open: true, onOpen });
  const openLab = async (input: ScenarioInput, name: string, steps?: number): Promise<LabSession> => {
    const { LabSession } = await import('./lab-session.ts');
    const lab = new LabSession(input, runner, { defaultFile: freeLabFile });
    sessions.push({ name, session: lab });
    // From a scenario: where `lqsim run` ends it; branched from `lqsim tui`: at its step; else step #0.
    void lab.start(steps !== undefined ? { steps } : named !== null ? { played: true } : { steps: 1 });
    return lab;
  };
  /** `lqsim tui`, key b: the scenario from its start to the step shown becomes a lab (the rest is dropped). */
  const branch = async (file: string, name: string, from: LiveSession, step: number): Promise<LabSession> => {
    const at = from.getSnapshot().steps[step];
    const timeline = from.getSnapshot().timeline;
    await from.stop();
    const raw = await readScenarioInput(file);
    const { forkAt } = await import('../lab/script.ts');
    const input = forkAt(
      o.laravel === undefined ? raw : { ...raw, laravel: o.laravel as ScenarioInput['laravel'] },
      at === undefined || timeline === null ? 0 : secondsBetween(timeline.start, at.t),
    );
    return openLab(input, `${name} (lab)`, step + 1);
  };
  /** A live session over `play`, started now (a scenario's run, or a capture's replay). */
  const live = (name: string, play: (onStep: OnStep) => Promise<Timeline>): LiveSession => {
    const session = new LiveSession(play);
    sessions.push({ name, session });
    session.start().catch(() => undefined); // its error is shown in the UI and summed up below
    return session;
  };
  const open = (file: string, name: string): LiveSession =>
    live(name, async (onStep) => {
      const { spec } = await loadScenarioFile(file);
      return run(spec, { laravel: o.laravel, file, onStep });
    });
  const replay = o.replay;
  const first =
    replay !== undefined
      ? {
          source: live(replay.name, async (onStep) => replay.run(await server, onStep)),
          scenario: replay.name,
          premise: replay.premise,
        }
      : labInput !== null
        ? { source: await openLab(labInput, o.scenario ?? 'lab'), scenario: o.scenario ?? 'lab', lab: true }
        : named === null || premise === null
          ? null
          : {
              source: open(named, o.scenario!),
              scenario: o.scenario!,
              file: named,
              premise,
            };

  // A terminal closed under us (SIGHUP; writes then fail with EIO) must not crash the cleanup
  // that stops redis-server: its errors are dropped, the signal handler ends the process.
  const terminalGone = (): void => {};
  stdout.on('error', terminalGone);
  stdin.on('error', terminalGone);
  const screen = enterFullScreen(stdin, stdout, () => instance?.unmount());
  // Redis, asked for once the first frame is drawn (none if drawing it threw).
  let holding: Promise<void> | undefined;
  if (stderr === process.stderr && stderr.isTTY !== true) dropExitCursorEscape();
  try {
    instance = render(
      createElement(Root, {
        colour: level > 0,
        styleLevel,
        session: first,
        entries,
        open: (e: CatalogEntry) => open(e.file, e.name),
        branch,
      }),
      // Ink draws at most MAX_FPS frames a second: a key's own frame goes out at once, and the
      // step it asked for (run against Redis in about a millisecond) waits for the next frame.
      { stdin, stdout, stderr, exitOnCtrlC: false, patchConsole: false, maxFps: MAX_FPS },
    );
    holding = o.withRedis(
      async (got) => {
        serverUp(got);
        await released;
      },
      (m) => notes.push(m),
    );
    // No Redis: the UI closes and the CLI says why (its one-line error and exit code), screen restored.
    holding.catch((e: unknown) => {
      serverFailed(e);
      instance?.unmount();
    });
    await instance.waitUntilExit();
  } finally {
    instance?.unmount();
    screen.leave();
    await Promise.all(sessions.map((s) => s.session.stop()));
    await (await cluster?.catch(() => undefined))?.stop();
    release();
    stdout.off('error', terminalGone);
    stdin.off('error', terminalGone);
  }
  await holding; // Redis' own error, if it could not be had: the CLI prints it
  for (const note of notes) stderr.write(`lqsim: ${note}\n`);
  let failed = false;
  for (const { name, session } of sessions) {
    const line = summary(name, session, o.replay === undefined ? 'lqsim run' : 'lqsim explain');
    failed ||= line.failed;
    stderr.write(`lqsim: ${line.text}\n`);
  }
  return failed ? 1 : 0;
}

/** The premise as the run's timeline will carry it (runner.ts), from the scenario as loaded. */
function premiseOf(spec: ScenarioSpec, laravel: string | undefined, file: string): Premise {
  const { name, title, description } = spec;
  return { scenario: { name, title, description, file }, profile: laravel ?? spec.laravel };
}

/** The scenario (and the schema, YAML) loaded and validated: imported when a run or a lab needs it. */
async function loadScenarioFile(file: string): Promise<LoadedScenario> {
  return (await import('../scenarios/load.ts')).loadScenarioFile(file);
}

/** A scenario file as written (not validated: the lab keeps the person's own shape). */
async function readScenarioInput(file: string): Promise<ScenarioInput> {
  return (await import('../scenarios/load.ts')).readScenarioInput(file);
}

/** The scenario a lab starts from: the file as written, or the empty lab. */
async function labStart(file: string | null, laravel: string | undefined): Promise<ScenarioInput> {
  if (file === null) return (await import('../lab/script.ts')).emptyLab(laravel);
  const raw = await readScenarioInput(file);
  return laravel === undefined ? raw : { ...raw, laravel: laravel as ScenarioInput['laravel'] };
}

/** lab-1.yaml, lab-2.yaml...: the first not taken in the current directory. */
function freeLabFile(): string {
  for (let i = 1; ; i++) if (!existsSync(`lab-${i}.yaml`)) return `lab-${i}.yaml`;
}

function summary(
  name: string,
  session: LiveSession | LabSession,
  /** The command that prints the whole trace ("lqsim run", "lqsim explain"). */
  whole: string,
): { text: string; failed: boolean } {
  const snap = session.getSnapshot();
  if (isLabSession<LabSession>(session)) {
    const { saved, actions, unsaved } = session.getStatus();
    // What the file holds, in words that stay true when actions came after the last save.
    const kept =
      saved === null
        ? unsaved
          ? 'not saved'
          : 'nothing to save'
        : unsaved
          ? `${terminalSafe(saved)} holds it as it was when saved; what came after was not saved`
          : `saved as ${terminalSafe(saved)}`;
    return {
      text: `${terminalSafe(name)}: ${actions} action${actions === 1 ? '' : 's'}, ${snap.steps.length} steps shown; ${kept}${
        snap.error === undefined ? '' : `; the last run failed: ${terminalSafe(snap.error)}`
      }`,
      failed: false,
    };
  }
  const safe = terminalSafe(name);
  if (snap.error !== undefined)
    return {
      text: `${safe}: the run failed after ${plural(snap.steps.length, 'step')}: ${terminalSafe(snap.error)}`,
      failed: true,
    };
  const last = snap.steps[snap.steps.length - 1];
  const at = last === undefined || snap.timeline === null ? '' : ` (${relTime(last.t, snap.timeline.start)})`;
  if (snap.status === 'finished')
    return { text: `${safe}: the run finished after ${snap.steps.length} steps${at}`, failed: false };
  return {
    text: `${safe}: stopped after step #${Math.max(0, snap.steps.length - 1)}${at}; ${whole} ${safe} prints the whole trace`,
    failed: false,
  };
}

/**
 * Ink hides the cursor with cli-cursor, whose restore-cursor writes `ESC[?25h` to process.stderr
 * when the process exits, terminal or not: with `2>log`, the log would end in it. The cursor is
 * shown on stdout when the TUI leaves the screen (terminal-screen.ts), so when stderr is not a
 * terminal that exit-time write, and only it, is dropped.
 */
function dropExitCursorEscape(): void {
  process.once('exit', () => {
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: unknown, ...rest: never[]) =>
      chunk === '\u001B[?25h' ? true : write(chunk as string, ...rest)) as typeof process.stderr.write;
  });
}
