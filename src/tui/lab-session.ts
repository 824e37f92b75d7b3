// The lab: a live session the person changes while watching. The session *is* a scenario (the
// lab's actions append timeline entries and workers: src/lab), and what the UI shows is always
// that scenario's run against Redis, held where the person is. An action at the lab's clock is
// taken on by the held run (OpenRun.extend: the run goes on exactly as a run of the changed
// scenario from t+0 would, or refuses), so it costs the steps it adds; one the run cannot take on
// (a new worker, a step in the past, an undo, a switch of Laravel version) replays the changed
// scenario from t+0 (deterministic: same seed, same virtual clock) to the action's instant.
// Moving on (→, wait, next, play) runs the held run further, as the TUI does for a scenario. So
// the trace in the lab is exactly what `lqsim run` prints for the saved file, by construction.
import { isAbsolute, relative, resolve } from 'node:path';
import { DEFAULT_PROFILE } from '../sim/profiles/index.ts';
import type { ExportFormat } from '../output/formats.ts';
import type { LabVocabulary } from '../lab/commands.ts';
import { CommandError, commandOf, complete, helpText, parseCommand } from '../lab/commands.ts';
import type { LabChange, LabClock } from '../lab/actions.ts';
import { applyCommand, isRunning } from '../lab/actions.ts';
import { FileExists, saveLab, writeWhole } from '../lab/save.ts';
import { renderExport } from '../output/export.ts';
import { checkLab } from '../lab/script.ts';
import { exactInstant, formatSeconds, later, relativeTime as relTime, secondsBetween } from '../sim/clock.ts';
import type { OpenRun } from '../scenarios/runner.ts';
import type { ScenarioInput, ScenarioSpec } from '../scenarios/schema.ts';
import type { Step, Timeline } from '../scenarios/timeline.ts';
import type { OnStep, SessionSnapshot, StepSource } from './live-session.ts';
import { LiveSession } from './live-session.ts';
import type { LabCommandTexts } from './LabLine.tsx';

/**
 * How far a replay runs before it is shown: a number of steps, to the first step at or after an
 * instant (an action's), through an instant (every step at or before it: a version switch or an
 * undo keeps the lab's clock), or (`played`) where `lqsim run` would end it.
 */
export type LabTarget = { steps: number } | { at: number } | { through: number } | { played: true };

/**
 * Starts a run of `spec` with the session's onStep (runScenario with `open: true`), handing
 * `onOpen` what lets the run take on the lab's actions as it goes (without it, every action
 * replays the session from its start).
 */
export type LabRunner = (spec: ScenarioSpec, onOpen: (run: OpenRun) => void) => (onStep: OnStep) => Promise<Timeline>;

export interface LabMessage {
  text: string;
  error: boolean;
  /** More lines (help). */
  more?: string[];
}

/** What the lab's own parts of the UI read (the steps come through StepSource). */
export interface LabStatus {
  /** Set while a replay runs: what it is doing. */
  busy: string | null;
  message: LabMessage | null;
  /** Commands given, oldest first (the command line's ↑ ↓). */
  history: readonly string[];
  /** A wait or a play runs: Ctrl-C stops it (cancel) rather than quitting. */
  stoppable: boolean;
  /** Set after an action: the step the UI moves to; `seq` changes with every move. */
  focus: { step: number; seq: number } | null;
  /** A question waiting for its answer: its text, and what it asks. */
  confirm: string | null;
  /** `overwrite`: y/n to saving over a file; `quit`: s/d/Esc to quitting with actions not saved. */
  question: 'overwrite' | 'quit' | null;
  /** The session has actions the file last saved (or, never saved, the session it opened) does not hold. */
  unsaved: boolean;
  canUndo: boolean;
  canRedo: boolean;
  /** The scenario as it stands (for saving, and for tests). */
  input: ScenarioInput;
  /** Actions taken that changed the scenario (undo counts back). */
  actions: number;
  /** The file last saved to, if any. */
  saved: string | null;
}

/** A hold this long where a worker waits in a real-time BLPOP may have let the server time it out. */
const STALE_HOLD_MS = 500;
/** While the lab works, how often the screen hears of its progress (ms). */
const PROGRESS_MS = 100;
/** Steps one `play` runs at most: a job that never settles (tries 0, killed each time) would loop. */
const PLAY_LIMIT = 500;
/** Steps a replay or an action runs at most to reach its instant (LiveSession's Goal `within`). */
const REACH_LIMIT = 10_000;

export class LabSession implements StepSource, LabCommandTexts {
  /** What tells a lab from a replay where the class itself is not imported (isLabSession). */
  readonly kind = 'lab' as const;
  private input: ScenarioInput;
  private live: LiveSession | null = null;
  /**
   * How the actions were run: taken on by the live run, or replayed from t+0 (and why the run
   * refused them). For the bench and the tests, which must know which way they measured.
   */
  readonly counts: { takenOn: number; replayed: string[] } = { takenOn: 0, replayed: [] };
  /** The live run, as it takes on actions (null until it is built, or when the runner cannot). */
  private open: OpenRun | null = null;
  private unsubscribe: (() => void) | null = null;
  private shown: SessionSnapshot = { status: 'starting', steps: [], timeline: null };
  private heldSince = 0;
  private readonly listeners = new Set<() => void>();
  /** The scenario before each action (undo), and after each undone one (redo). */
  private readonly undos: ScenarioInput[] = [];
  private readonly redos: ScenarioInput[] = [];
  /** The scenario as the file last saved holds it (or as the session opened): what quitting keeps. */
  private savedInput: ScenarioInput;
  private readonly initial: ScenarioInput;
  private readonly commands: string[] = [];
  private waited: number | null = null;
  /** A write the person is asked to confirm over an existing file: the file, and the write itself. */
  private pendingWrite: { file: string; write: () => Promise<void> } | null = null;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private status: LabStatus;

  constructor(
    initial: ScenarioInput,
    private readonly runner: LabRunner,
    private readonly opts: { defaultFile?: () => string } = {},
  ) {
    this.input = initial;
    this.initial = initial;
    this.savedInput = initial;
    this.status = {
      busy: null,
      message: null,
      history: [],
      focus: null,
      confirm: null,
      question: null,
      unsaved: false,
      stoppable: false,
      canUndo: false,
      canRedo: false,
      input: initial,
      actions: 0,
      saved: null,
    };
  }

  /**
   * Runs the session's scenario: to its first step, to `steps` of them, or (`played`) to where
   * `lqsim run` ends it (its `until`, or where it has played out): the lab goes on from there.
   */
  start(target: LabTarget = { steps: 1 }): Promise<void> {
    // What goes wrong is said on the lab's line (a key's or the start's caller does not await it).
    return this.serial(() => this.saying(() => this.replay(this.input, target, 'starting')));
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): SessionSnapshot => this.shown;

  getStatus = (): LabStatus => this.status;

  request = (count: number): void => {
    const live = this.live;
    if (live === null || this.status.busy !== null || count <= live.getSnapshot().steps.length) return;
    // G (all the steps): an open run has no end; run on as `play` does, until only idle polls are left.
    if (count === Infinity) {
      void this.serial(() => this.saying(() => this.run('play', live.getSnapshot().steps.length - 1)));
      return;
    }
    if (this.staleHold(live)) {
      void this.serial(() =>
        this.saying(() => this.replay(this.input, { steps: count }, 'replaying to go on faithfully')),
      );
      return;
    }
    live.request(count);
  };

  /** Where `save` and `w` write when no file is named: the first lab-N.yaml not taken. */
  defaultFile(): string {
    return this.opts.defaultFile?.() ?? 'lab.yaml';
  }

  /**
   * Ends the run (quitting): whatever the lab is doing (a day-long wait, a replay) ends at its
   * next step, not when it would have finished, and what was waiting its turn is not run.
   */
  async stop(): Promise<void> {
    this.closed = true;
    let settled = false;
    const done = this.queue
      .catch(() => undefined)
      .then(() => {
        settled = true;
      });
    while (!settled) {
      const live = this.live;
      await Promise.race([done, live?.stop()]);
      // Stopped, and no other run started meanwhile: the rest of the work ends with it.
      if (!settled && this.live === live) await done;
    }
    await this.live?.stop();
  }

  /** What completion and checks may name, as the session stands at `cursor`. */
  vocabulary(cursor: number): LabVocabulary {
    const spec = checkLab(this.input);
    const workers = (this.input.workers ?? []).map((w) => w.name);
    const state = this.shown.steps[Math.min(cursor, this.shown.steps.length - 1)]?.state.workers ?? [];
    return {
      jobs: Object.keys(this.input.jobs ?? {}),
      workers,
      running: state.filter((w) => isRunning(w)).map((w) => w.name),
      connections: 'spec' in spec ? Object.keys(spec.spec.connections) : Object.keys(this.input.connections ?? {}),
      // The version's own options (5.x delay=, 8+ backoff=) offered and checked.
      laravel: String(this.input.laravel ?? DEFAULT_PROFILE),
    };
  }

  /** The usage and help of the command `line` starts with, as a session of `laravel` shows them (LabCommandTexts). */
  usageOf(line: string, laravel: string): { usage: string; help: string } | null {
    return commandOf(line, laravel);
  }

  /** The lab's commands' names (LabCommandTexts). */
  commandNames(): readonly string[] {
    return helpText().map((l) => l.split(' ')[0]!);
  }

  complete(line: string, cursor: number): string[] {
    return complete(line, this.vocabulary(cursor));
  }

  /** The lab's clock at `cursor`: seconds after the start. */
  now(cursor: number): number {
    const steps = this.shown.steps;
    const start = this.shown.timeline?.start ?? 0;
    const step = steps[Math.min(cursor, steps.length - 1)];
    const t = step === undefined ? 0 : secondsBetween(start, step.t);
    const last = cursor >= steps.length - 1;
    return last && this.waited !== null && this.waited > t ? this.waited : t;
  }

  /** Answers the overwrite question (y/n). */
  answer(yes: boolean): Promise<void> {
    const pending = this.pendingWrite;
    this.pendingWrite = null;
    this.setStatus({ confirm: null, question: null });
    if (!yes || pending === null) {
      this.say(pending === null ? '' : `not written: ${pending.file} is left as it was`, false);
      return Promise.resolve();
    }
    return this.serial(() => this.saying(pending.write));
  }

  /**
   * Quitting: true when nothing would be lost (quit now); else the question is put (s saves and
   * quits, d discards and quits, Esc stays) and false.
   */
  askToQuit(): boolean {
    if (!this.status.unsaved) return true;
    // The actions since the version saved, when it is one undo chain back; else the session changed another way.
    const since = this.undos.lastIndexOf(this.savedInput);
    const what =
      since === -1 && this.savedInput !== this.initial
        ? 'changes'
        : plural(this.undos.length - Math.max(0, since), 'action');
    const file = shortPath(this.status.saved ?? this.defaultFile());
    this.setStatus({
      question: 'quit',
      confirm: `${what} not saved · s save to ${file} & quit · d discard & quit · Esc stay`,
    });
    return false;
  }

  /** The quit question's answer: `save` resolves true once saved (quit then), false if it could not be (said why). */
  async answerQuit(choice: 'save' | 'discard' | 'stay'): Promise<boolean> {
    this.setStatus({ confirm: null, question: null });
    if (choice === 'stay') return false;
    if (choice === 'discard') return true;
    const own = this.status.saved;
    // The file this session saved is its own to write again; a new one is never written over.
    await this.serial(() => this.saying(() => this.save(own ?? this.defaultFile(), own !== null)));
    if (this.status.question === 'overwrite') {
      // The name was taken meanwhile: not saved; the question stands for a `:save` to another file.
      this.pendingWrite = null;
      this.setStatus({ confirm: null, question: null });
      this.say(`not saved: ${this.defaultFile()} exists; :save <file> to save elsewhere, then q`, true);
      return false;
    }
    return !this.status.unsaved;
  }

  /**
   * Runs a command line at `cursor`: changes the session, moves the clock, or says why not. Given
   * while the lab works, it waits its turn (the busy line counts those waiting) and runs where the
   * lab stands then, as if typed after the work was done.
   */
  execute(line: string, cursor: number): Promise<void> {
    const text = line.trim();
    if (text !== '' && this.commands[this.commands.length - 1] !== text) {
      this.commands.push(text);
      this.setStatus({ history: [...this.commands] });
    }
    const queued = this.status.busy !== null;
    if (queued) this.waiting(+1);
    return this.serial(async () => {
      if (queued) this.waiting(-1);
      if (this.closed) return; // quitting: what waited its turn is not run
      try {
        await this.run(text, queued ? (this.status.focus?.step ?? cursor) : cursor);
      } catch (e) {
        this.sayError(e);
      }
    });
  }

  // The busy line: what the lab is doing (null: nothing), how far a wait or a play has got, and
  // how many commands given meanwhile wait their turn.
  private doing: string | null = null;
  private progress: string | null = null;
  private queued = 0;

  private waiting(change: number): void {
    this.queued += change;
    this.showBusy();
  }

  /** The busy line as the three parts say it, with any other change to the status. */
  private showBusy(more: Partial<LabStatus> = {}): void {
    const busy =
      this.doing === null
        ? null
        : `${this.doing}…${this.progress === null ? '' : ` ${this.progress}`}${
            this.queued === 0 ? '' : ` · ${plural(this.queued, 'command')} waiting`
          }`;
    this.setStatus({ busy, ...more });
  }

  private async run(text: string, cursor: number): Promise<void> {
    const cmd = parseCommand(text, this.vocabulary(cursor));
    const steps = this.shown.steps.length;
    switch (cmd.kind) {
      case 'help': {
        const lines = helpText(cmd.topic, String(this.input.laravel ?? DEFAULT_PROFILE));
        this.say(lines[0]!, false, lines.slice(1));
        return;
      }
      case 'save':
        await this.save(cmd.file ?? this.defaultFile(), false);
        return;
      case 'export':
        await this.export(cmd.file, cmd.format, false);
        return;
      case 'undo':
      case 'redo': {
        const from = cmd.kind === 'undo' ? this.undos : this.redos;
        const to = cmd.kind === 'undo' ? this.redos : this.undos;
        const version = from.pop();
        if (version === undefined) throw new CommandError(`nothing to ${cmd.kind}`);
        to.push(this.input);
        this.input = version;
        // One action, not the clock's moves after it: replayed as far as the lab had gone.
        const through = this.frontier();
        await this.replay(version, { through }, cmd.kind === 'undo' ? 'undoing' : 'redoing');
        this.keepClock(through);
        this.focusOn(this.lastAtOrBefore(this.now(cursor)));
        this.say(
          `${cmd.kind === 'undo' ? 'undone' : 'redone'}: the last action${cmd.kind === 'undo' ? '' : ' undone'}, the session replayed to t+${formatSeconds(through)}s`,
          false,
        );
        return;
      }
      case 'next':
        this.say('', false); // the step itself says what happened
        if (cursor < steps - 1) return this.focusOn(cursor + 1);
        await this.goOn(() => this.live!.request(steps + 1));
        return this.focusOn(this.shown.steps.length - 1);
      case 'wait': {
        const until = exactInstant(this.now(cursor) + cmd.seconds);
        const start = this.shown.timeline?.start ?? 0;
        const abs = later(start, until);
        if (this.shown.steps[steps - 1] === undefined || this.shown.steps[steps - 1]!.t < abs)
          if (
            await this.work(`running to t+${formatSeconds(until)}s (Ctrl-C stops)`, () =>
              this.goOn(() => this.live!.advance({ until: abs })),
            )
          )
            return this.stoppedShort(`the wait to t+${formatSeconds(until)}s`);
        this.waited = until;
        const all = this.shown.steps;
        let index = all.length - 1;
        while (index > 0 && all[index]!.t >= abs) index--;
        this.say(`the clock moved on ${cmd.seconds}s to t+${until}s`, false);
        return this.focusOn(index);
      }
      case 'play': {
        const within = steps + PLAY_LIMIT;
        if (
          await this.work('playing (Ctrl-C stops)', () => this.goOn(() => this.live!.advance({ settle: true, within })))
        )
          return this.stoppedShort('play');
        const ran = this.shown.steps.length;
        this.say(
          this.shown.status === 'finished'
            ? 'played to the end: nothing is left to happen'
            : ran >= within
              ? `played ${PLAY_LIMIT} steps and it is still going (a job that never finishes?); play again to go on`
              : 'played until nothing is left to happen but idle polls',
          false,
        );
        return this.focusOn(this.shown.steps.length - 1);
      }
      default: {
        const clock = this.clockAt(cursor);
        const change = applyCommand(this.input, cmd, clock);
        const checked = checkLab(change.input);
        if ('problem' in checked) throw new CommandError(`not done: ${checked.problem}`);
        this.undos.push(this.input);
        this.redos.length = 0;
        this.input = change.input;
        if (cmd.kind === 'laravel') {
          // The whole session under another version, as far as the lab had gone: the same clock.
          const through = this.frontier();
          await this.replay(change.input, { through }, 'replaying');
          this.keepClock(through);
          this.focusOn(this.lastAtOrBefore(clock.now));
          this.say(change.message, false);
          return;
        }
        this.waited = null;
        // A fork into the past: steps of later instants were shown after the cursor (those of its own
        // instant run before a late action anyway).
        const shown = this.shown.steps;
        const past = cursor < steps - 1 && shown[steps - 1]!.t > shown[Math.min(cursor, steps - 1)]!.t;
        // Late in the instant of a step shown: the session through that instant, and the view on
        // the first step that differs from what was shown (the action's own).
        const target: LabTarget = clock.late ? { through: clock.now } : { at: change.at };
        if (!(await this.goOnWith(checked.spec, target))) await this.replay(change.input, target, 'replaying');
        if (clock.late) this.focusOn(firstDifference(shown, this.shown.steps));
        this.say(`${change.message}${forkNotice(change.dropped, clock.now, past ? cursor : null)}`, false);
      }
    }
  }

  private clockAt(cursor: number): LabClock {
    const now = this.now(cursor);
    const steps = this.shown.steps;
    const step = steps[Math.min(cursor, steps.length - 1)];
    const start = this.shown.timeline?.start ?? 0;
    const atStep = step !== undefined && secondsBetween(start, step.t) === now;
    return { now, late: atStep, workers: step?.state.workers ?? [] };
  }

  /** Runs the held run on with `go`, replaying first when its hold may have gone stale. */
  private async goOn(go: () => void | Promise<void>): Promise<void> {
    const live = this.live;
    if (live === null) return;
    if (this.staleHold(live))
      await this.replay(this.input, { steps: live.getSnapshot().steps.length }, 'replaying to go on faithfully');
    await go();
    await this.live!.whenHeld();
    this.show(this.live!.getSnapshot());
  }

  private staleHold(live: LiveSession): boolean {
    return live.heldOverRealTimeWait && Date.now() - this.heldSince >= STALE_HOLD_MS;
  }

  /** Replaces the run with a new one of `input`, run to `target` before it is shown. */
  private async replay(input: ScenarioInput, target: LabTarget, busy: string): Promise<void> {
    const { until, ...open } = input;
    const checked = checkLab(open);
    if ('problem' in checked) throw new CommandError(checked.problem);
    // Within a wait or a play (goOn replaying a stale hold), its busy line comes back after.
    const outer = this.doing;
    this.doing = busy;
    this.showBusy({ input });
    const spec = checked.spec;
    let live: LiveSession;
    let stuck: number | null;
    try {
      this.unsubscribe?.();
      await this.live?.stop();
      if (this.closed) return;
      this.open = null;
      const run = new LiveSession(
        this.runner(spec, (open) => {
          if (this.live === run) this.open = open;
        }),
        { holdAlways: true },
      );
      live = run;
      this.live = run;
      run.start().catch(() => undefined); // its error is in its snapshot
      stuck = await this.reach(
        run,
        'played' in target && until !== undefined ? { through: until } : target,
        spec.start,
      );
      this.heldSince = Date.now();
      this.unsubscribe = run.subscribe(() => {
        this.heldSince = Date.now();
        this.show(run.getSnapshot());
      });
    } finally {
      // However the replay ended, the lab's busy line is what it was (a wait's or a play's, or none).
      this.doing = outer;
    }
    this.present(live, target, spec.start);
    this.throwIfStuck(stuck, spec.start);
  }

  /** After reach: a run that could not get past an instant is shown where it stands, and said so. */
  private throwIfStuck(stuck: number | null, start: number): void {
    if (stuck === null) return;
    this.focusOn(this.shown.steps.length - 1);
    throw new CommandError(
      `the run does not get past t+${formatSeconds(secondsBetween(start, stuck))}s: ${REACH_LIMIT.toLocaleString('en')} steps at that instant, shown where it stands`,
      [
        'A job retried at once, for ever? On 5.x a job that throws is released with no delay, and queue:work with no --tries pops it again in the same second (Laravel does the same).',
        'u undoes the last action, if one brought the run here; set <worker> tries=3 (or a retry delay) ends the loop. Until then a save is refused: lqsim run could not replay the file either.',
      ],
    );
  }

  /**
   * An action at the lab's clock, taken on by the run as it stands (OpenRun.extend): the steps
   * it adds are run and nothing before them again, so an action costs what it adds, not what the
   * session holds. The run goes on exactly as a replay of the changed session would (the plan's
   * order: scheduler.ts), or it refuses and nothing changed (false: the lab replays instead).
   */
  private async goOnWith(spec: ScenarioSpec, target: LabTarget): Promise<boolean> {
    const live = this.live;
    const open = this.open;
    if (live === null || open === null || this.staleHold(live) || live.getSnapshot().status !== 'waiting') return false;
    const refused = open.extend(spec);
    if (refused !== null) {
      this.counts.replayed.push(refused);
      return false;
    }
    this.counts.takenOn++;
    const outer = this.doing;
    this.doing = 'running';
    this.showBusy({ input: this.input });
    let stuck: number | null;
    try {
      await live.refresh();
      stuck = await this.reach(live, target, spec.start);
    } finally {
      this.doing = outer;
    }
    this.present(live, target, spec.start);
    this.throwIfStuck(stuck, spec.start);
    return true;
  }

  /**
   * Runs `live` on to `target` (see LabTarget; `played` with no `until` of the session's: where it
   * plays out), REACH_LIMIT steps at most: the instant the run could not get past (null: reached).
   */
  private async reach(live: LiveSession, target: LabTarget, start: number): Promise<number | null> {
    const within = live.getSnapshot().steps.length + REACH_LIMIT;
    let until: number;
    if ('steps' in target) {
      live.request(target.steps);
      await live.whenHeld();
      return null;
    } else if ('at' in target) {
      until = later(start, target.at);
      await live.advance({ until, within });
      if (!this.stuckBefore(live, until)) {
        live.request(live.getSnapshot().steps.length + 1);
        await live.whenHeld();
      }
    } else if ('through' in target) {
      // Every step at or before that instant, as `lqsim run` shows a file's `until`.
      until = later(start, later(target.through, 0.001));
      await live.advance({ until, within });
    } else {
      await live.whenHeld();
      await live.advance({ settle: true, within });
      return null;
    }
    return this.stuckBefore(live, until) ? live.getSnapshot().nextAt! : null;
  }

  /** Held with its next step still before `until`: a goal `within` its steps did not reach. */
  private stuckBefore(live: LiveSession, until: number): boolean {
    const { status, nextAt } = live.getSnapshot();
    return status === 'waiting' && nextAt !== null && nextAt !== undefined && nextAt < until;
  }

  /** Shows where `live` is held after running to `target`, the view on the target's step. */
  private present(live: LiveSession, target: LabTarget, start: number): void {
    const snap = live.getSnapshot();
    this.show(snap);
    const focus =
      'steps' in target
        ? Math.min(target.steps, snap.steps.length) - 1
        : 'at' in target
          ? firstAtOrAfter(snap, later(start, target.at))
          : snap.steps.length - 1;
    this.showBusy({
      canUndo: this.undos.length > 0,
      canRedo: this.redos.length > 0,
      actions: this.undos.length,
      unsaved: this.input !== this.savedInput,
    });
    this.focusOn(Math.max(0, focus));
  }

  private async save(file: string, overwrite: boolean): Promise<void> {
    // A file runs each instant whole (its `until` takes in every step of that instant): the lab
    // runs the rest of the instant it stands in first, so it shows what the file replays.
    const ran = await this.finishInstant();
    try {
      const path = await saveLab({ ...this.input, until: this.shownUntil() }, file, overwrite);
      this.savedInput = this.input;
      this.setStatus({ saved: path, unsaved: false });
      const last = this.shown.steps[this.shown.steps.length - 1];
      const instant = last === undefined ? '' : relTime(last.t, this.shown.timeline?.start ?? 0);
      this.say(
        ran === 0
          ? `saved ${shortPath(path)}: lqsim run ${file} replays this session`
          : `saved ${shortPath(path)} with the ${plural(ran, 'step')} left at ${instant} (a file runs whole instants): lqsim run ${file} replays it`,
        false,
      );
    } catch (e) {
      if (e instanceof FileExists) return this.askOverwrite(file, () => this.save(file, true));
      throw e;
    }
  }

  /** The trace shown, as `lqsim run --format` writes it, to `file` (asked before writing over one). */
  private async export(file: string, format: ExportFormat, overwrite: boolean): Promise<void> {
    const { timeline, steps } = this.shown;
    if (timeline === null) throw new CommandError('export: nothing has run yet');
    const path = resolve(file);
    try {
      await writeWhole(path, renderExport(format, { ...timeline, steps: [...steps] }), overwrite);
      this.say(`exported the ${plural(steps.length, 'step')} shown to ${shortPath(path)} (${format})`, false);
    } catch (e) {
      if (e instanceof FileExists) return this.askOverwrite(file, () => this.export(file, format, true));
      throw e;
    }
  }

  private askOverwrite(file: string, write: () => Promise<void>): void {
    this.pendingWrite = { file, write };
    this.setStatus({ confirm: `${file} exists: overwrite it? (y/n)`, question: 'overwrite' });
  }

  /** Runs the steps left at the instant of the last step shown (a save mid-instant); how many ran. */
  private async finishInstant(): Promise<number> {
    const { steps, nextAt } = this.shown;
    const last = steps[steps.length - 1];
    if (this.live === null || last === undefined || nextAt === null || nextAt === undefined || nextAt > last.t)
      return 0;
    const before = steps.length;
    const until = later(last.t, 0.001);
    await this.goOn(() => this.live!.advance({ until, within: before + REACH_LIMIT }));
    if (this.live !== null && this.stuckBefore(this.live, until))
      this.throwIfStuck(this.live.getSnapshot().nextAt!, this.shown.timeline?.start ?? 0);
    const ran = this.shown.steps.length - before;
    if (ran > 0) this.focusOn(this.shown.steps.length - 1);
    return ran;
  }

  /** How far the lab has gone: its last step's instant, or later after a wait (seconds after the start). */
  private frontier(): number {
    return this.now(this.shown.steps.length - 1);
  }

  /** After a replay through `through`: the lab's clock stays there, past its last step if a wait took it. */
  private keepClock(through: number): void {
    const last = this.shown.steps[this.shown.steps.length - 1];
    const t = last === undefined ? 0 : secondsBetween(this.shown.timeline?.start ?? 0, last.t);
    this.waited = through > t ? through : null;
  }

  /** The last step at or before `seconds` after the start (0 when none). */
  private lastAtOrBefore(seconds: number): number {
    const abs = later(this.shown.timeline?.start ?? 0, seconds);
    let i = this.shown.steps.length - 1;
    while (i > 0 && this.shown.steps[i]!.t > abs) i--;
    return Math.max(0, i);
  }

  /**
   * Runs `fn` (a wait, a play) with the busy line saying what the lab is doing; commands typed
   * meanwhile wait their turn, and Ctrl-C (cancel) stops it at its next step. Whether it was stopped.
   */
  private async work(what: string, fn: () => Promise<void>): Promise<boolean> {
    this.stopping = false;
    this.doing = what;
    this.showBusy({ stoppable: true });
    try {
      await fn();
      return this.stopping;
    } finally {
      this.stopping = false;
      this.doing = null;
      this.progress = null;
      this.showBusy({ stoppable: false });
    }
  }

  /** Set by cancel() while a wait or a play runs. */
  private stopping = false;

  /**
   * Ctrl-C while a wait or a play runs: it stops at its next step and the lab stays there (true).
   * False when nothing can be stopped so (Ctrl-C then means quitting).
   */
  cancel(): boolean {
    if (!this.status.stoppable || this.live === null) return false;
    this.stopping = true;
    this.live.cancel();
    return true;
  }

  /** After a wait or a play stopped by Ctrl-C: the lab where it stopped, and what was not done. */
  private stoppedShort(what: string): void {
    this.waited = null;
    const last = this.shown.steps.length - 1;
    const t = last < 0 ? 0 : secondsBetween(this.shown.timeline?.start ?? 0, this.shown.steps[last]!.t);
    this.say(`stopped at t+${formatSeconds(t)}s (Ctrl-C): ${what} was not finished`, false);
    this.focusOn(Math.max(0, last));
  }

  /** Runs `fn`, saying its error instead of throwing it (a key's action has no one to throw to). */
  private async saying(fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      this.sayError(e);
    }
  }

  /** An error on the lab's line, with the lines that explain it (CommandError's `more`) above it. */
  private sayError(e: unknown): void {
    if (e instanceof CommandError) this.say(e.message, true, e.more);
    else this.say(e instanceof Error ? e.message : String(e), true);
  }

  /**
   * The `until` under which `lqsim run` stops where the lab stands: every step shown has run and
   * the next has not (the latest whole second before it, when there is one after the last step).
   */
  private shownUntil(): number {
    const { steps, timeline, nextAt } = this.shown;
    const start = timeline?.start ?? 0;
    const last = steps.length === 0 ? 0 : secondsBetween(start, steps[steps.length - 1]!.t);
    if (nextAt === null || nextAt === undefined) return Math.max(last, this.waited ?? 0);
    const before = secondsBetween(start, nextAt) - 0.001;
    if (before < last) return last;
    const whole = Math.floor(before);
    return whole >= last ? whole : exactInstant(before);
  }

  private focusOn(step: number): void {
    this.setStatus({ focus: { step, seq: (this.status.focus?.seq ?? 0) + 1 } });
  }

  private say(text: string, error: boolean, more?: string[]): void {
    this.setStatus({ message: text === '' ? null : { text, error, ...(more ? { more } : {}) } });
  }

  private show(snap: SessionSnapshot): void {
    this.shown = snap;
    // A wait or a play says how far it has got.
    const last = snap.steps[snap.steps.length - 1];
    if (this.status.stoppable && last !== undefined && snap.timeline !== null) {
      this.progress = `t+${formatSeconds(secondsBetween(snap.timeline.start, last.t))}s so far, ${snap.steps.length} steps`;
      this.showBusy();
    } else this.emit();
  }

  private setStatus(change: Partial<LabStatus>): void {
    this.status = { ...this.status, ...change };
    this.emit();
  }

  /**
   * Listeners hear of a change at once, except while the lab works (a day-long wait runs tens of
   * thousands of steps): then at most every PROGRESS_MS, and once more when it is done. A redraw
   * per step cost more than the steps (and, in a 100×30 terminal, most of the lab's memory).
   */
  private emit(): void {
    if (this.doing !== null) {
      this.emitLater ??= setTimeout(() => {
        this.emitLater = null;
        this.notifyListeners();
      }, PROGRESS_MS);
      return;
    }
    if (this.emitLater !== null) {
      clearTimeout(this.emitLater);
      this.emitLater = null;
    }
    this.notifyListeners();
  }

  private emitLater: NodeJS.Timeout | null = null;

  private notifyListeners(): void {
    for (const l of this.listeners) l();
  }

  /** Commands run one at a time, in the order given. */
  private serial(fn: () => Promise<void>): Promise<void> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/**
 * What acting on a past step dropped, for the action's message: the later entries and workers the
 * session had (forkAt dropped them), and the steps shown after it (replayed with the change).
 */
function forkNotice(dropped: LabChange['dropped'], now: number, cursor: number | null): string {
  const what = [
    ...(dropped.entries > 0 ? [plural(dropped.entries, 'later entry', 'later entries')] : []),
    ...(dropped.workers > 0 ? [plural(dropped.workers, 'later worker')] : []),
  ].join(' and ');
  if (cursor === null) return what === '' ? '' : ` (dropped ${what} after t+${formatSeconds(now)}s)`;
  return ` (at step #${cursor}, t+${formatSeconds(now)}s: the steps after it replayed with the change${
    what === '' ? '' : `; dropped ${what}`
  })`;
}

/** A path as short as it can be said: from the current directory when it lies under it. */
function shortPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The first step of `now` that is not `before`'s (same time, actor and title), or its last. */
function firstDifference(before: readonly Step[], now: readonly Step[]): number {
  for (let i = 0; i < now.length; i++) {
    const b = before[i];
    if (b === undefined || b.t !== now[i]!.t || b.actor !== now[i]!.actor || b.title !== now[i]!.title) return i;
  }
  return Math.max(0, now.length - 1);
}

function firstAtOrAfter(snap: SessionSnapshot, t: number): number {
  const i = snap.steps.findIndex((s) => s.t >= t);
  return i === -1 ? snap.steps.length - 1 : i;
}
