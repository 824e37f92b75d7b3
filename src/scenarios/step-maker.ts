// A step made from what its collector gathered (step-collector.ts): the commands attributed to
// the actors, the scheduler's description, the notes, and the state; kept in the timeline when
// the run keeps its steps, and handed to the view (RunOptions.onStep), which may hold the run.
import type { CompletedStep } from '../sim/scheduler.ts';
import type { ConnectionHub } from '../redis/connections.ts';
import { attributeLines } from './attribute.ts';
import type { ExecutionLog } from './execution-log.ts';
import { KeptStrings } from './kept-strings.ts';
import { SharedState } from './shared-state.ts';
import type { CacheKeyState, FailedJob, QueueState, Step, Timeline, WorkerState } from './timeline.ts';

/** What a view may ask about the run after each step (RunOptions.onStep). */
export interface StepInfo {
  /** False while a worker waits in a BLPOP that the server would time out in real time. */
  mayHold: boolean;
  /** Whether the run ends after this step. */
  isLast(): Promise<boolean>;
  /** When the next step happens (exact unix seconds), or null when the run ends after this one. */
  nextAt(): Promise<number | null>;
  /** The scenario has played out (what ends a run that is not open): only idle polls are left. */
  settled(): boolean;
}

/** A step as it ended: the workers' and failed jobs' state then, and what a view may ask of the run. */
export interface StepEnd {
  index: number;
  done: CompletedStep;
  info: StepInfo;
  workers: WorkerState[];
  failed: FailedJob[];
  /** The cache store's keys on Redis (a run whose cache is there). */
  cache?: CacheKeyState[];
}

export class StepMaker {
  private readonly kept = new KeptStrings();
  private readonly shared = new SharedState();

  constructor(
    private readonly o: {
      hub: ConnectionHub;
      timeline: Timeline;
      executionLog: ExecutionLog;
      scriptNames: ReadonlyMap<string, string>;
      scriptSources: ReadonlyMap<string, string>;
      /** The run keeps its steps in the timeline (else each goes to onStep and is let go). */
      keepSteps: boolean;
      /** A step's note in the words the run gives it (under --laravel, which version wrote it). */
      noteFor: (note: string) => string;
      /** Attaches the scenario's note entries that match the step. */
      attachNotes: (step: Step) => void;
      onStep?: (step: Step, timeline: Timeline, info: StepInfo) => void | Promise<void>;
    },
  ) {}

  async make(end: StepEnd, lines: string[], queues: QueueState[]): Promise<void> {
    const { o } = this;
    const { index, done } = end;
    const attributed = attributeLines(lines, o.hub, { index, t: done.t }, o.scriptNames).commands;
    // A kept step's list is the size of its commands (the attribution's grew by push).
    const commands = o.keepSteps ? attributed.slice() : attributed;
    // Every EVAL carries the whole script; keep one copy of each text for the whole run.
    for (const cmd of commands) {
      if (cmd.script !== undefined) cmd.args[1] = o.scriptSources.get(cmd.script) ?? cmd.args[1]!;
      if (o.keepSteps) this.kept.keep(cmd);
    }
    const d = done.description ?? { kind: 'process' as const, title: `${done.actor} continues` };
    const step: Step = {
      index,
      t: done.t,
      actor: done.actor,
      kind: d.kind,
      title: d.title,
      methods: d.methods ?? [],
      explain: d.explain,
      note: d.note === undefined ? undefined : o.noteFor(d.note),
      commands,
      state: o.executionLog.attach(
        {
          t: done.t,
          queues: o.keepSteps ? this.shared.queuesLike(queues) : queues,
          workers: o.keepSteps ? this.shared.workersLike(end.workers) : end.workers,
          failed: end.failed,
          ...(end.cache !== undefined ? { cache: end.cache } : {}),
        },
        index,
      ),
    };
    o.attachNotes(step);
    if (o.keepSteps) o.timeline.steps.push(step);
    await o.onStep?.(step, o.timeline, end.info);
  }
}
