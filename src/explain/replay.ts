// `lqsim explain --tui`: a capture stepped through in the terminal UI, with the state pane rebuilt
// by replaying the captured commands against a private redis-server, step by step, so the state
// shown is Redis' own (DESIGN "Explain runs the pipeline backwards"). Only Laravel's queue
// commands are replayed (the scripts by their captured text and ARGV, RPUSH, ZADD, ZREM; a BLPOP
// as the LPOP it ended as, so nothing blocks); other traffic is shown, never sent. Each db of the
// capture is its own db on the private server. Redis starts empty, so a job queued before the
// capture began is missing: a pop that got a job in the capture but none in the replay says so
// in the step's note. Findings (read in a pass before) are the notes of the steps they cite last.
import type { Finding } from './findings.ts';
import { findingLine } from './finding-text.ts';
import type { CaptureProblem } from './capture.ts';
import { isProblem } from './capture.ts';
import type { CaptureInput } from './cluster-capture.ts';
import { forEachCaptureEntry } from './cluster-capture.ts';
import type { CaptureConfiguration } from './configuration.ts';
import { CaptureExplainer } from './timeline.ts';
import type { Client } from '../redis/connections.ts';
import { newClient } from '../redis/connections.ts';
import type { OnStep } from '../scenarios/on-step.ts';
import { snapshotQueues } from '../scenarios/snapshot.ts';
import type { Step, Timeline } from '../scenarios/timeline.ts';
import type { QueueKeys } from '../sim/keys.ts';
import { queueKeys } from '../sim/keys.ts';
import { PROFILES } from '../sim/profiles/index.ts';

export interface ReplayOptions {
  /** The capture file (standard input already spilled to one), or a file per node (a cluster's). */
  file: CaptureInput;
  /** How the capture is named on screen ("capture.txt", "stdin"). */
  source: string;
  config: CaptureConfiguration;
  problems: readonly CaptureProblem[];
  problemCount: number;
  findings: readonly Finding[];
  /** A server the tool owns: the replay writes to it. */
  url: string;
  onStep: OnStep;
}

/** Replays the capture step by step, awaiting `onStep` after each (the TUI holds the replay there). */
export async function replayCapture(o: ReplayOptions): Promise<Timeline> {
  const pending: Array<{ step: Step; lines: { first: number; last: number } }> = [];
  const explainer = new CaptureExplainer(o.config, {
    file: o.source,
    problems: o.problems,
    problemCount: o.problemCount,
    onStep: (step, lines) => pending.push({ step, lines }),
  });
  const steps: Step[] = [];
  const timeline: Timeline = { ...explainer.timeline, steps };
  timeline.scenario = {
    ...timeline.scenario,
    description: `${timeline.scenario.description ?? ''}\n\nfindings: ${
      o.findings.length === 0 ? 'none' : o.findings.map((f) => `\n\n- ${findingLine(f)}`).join('')
    }\n\nThe state pane is Redis' own: the capture's queue commands replayed on a private redis-server from empty (jobs queued before the capture began are not there; other traffic is not replayed).`,
  };
  // Each finding is the note of the step holding the last line it cites.
  const notes = new Map<number, string[]>();
  for (const f of o.findings) {
    const line = Math.max(...f.lines);
    notes.set(line, [...(notes.get(line) ?? []), `finding: ${findingLine(f)}`]);
  }
  const replay = new Replayer(o.url, o.config, explainer);
  try {
    await replay.connect();
    const flush = async (): Promise<void> => {
      while (pending.length > 0) {
        const { step, lines } = pending.shift()!;
        const said: string[] = [];
        for (const [line, ns] of notes) if (line >= lines.first && line <= lines.last) said.push(...ns);
        said.push(...(await replayStep(replay, step, lines)));
        if (said.length > 0) step.note = said.join('\n');
        step.state = { ...step.state, queues: await replay.snapshot() };
        steps.push(step);
        await o.onStep(step, timeline, { mayHold: true });
      }
    };
    await forEachCaptureEntry(o.file, async (entry) => {
      if (isProblem(entry)) return;
      explainer.add(entry);
      await flush();
    });
    explainer.finish();
    await flush();
    return timeline;
  } finally {
    await replay.close();
  }
}

/**
 * The step's commands sent, or an error naming the step and its lines with Redis' reply (a payload
 * nested too deep for the scripts' cjson): the session ends with it, and the TUI says it ended early.
 */
async function replayStep(replay: Replayer, step: Step, lines: { first: number; last: number }): Promise<string[]> {
  try {
    return await replay.step(step);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    const at = lines.first === lines.last ? `line ${lines.first}` : `lines ${lines.first}-${lines.last}`;
    throw new Error(`replaying step #${step.index} (${at}, ${step.actor} ${step.title}): ${why}`, { cause: e });
  }
}

/** The private server's side: one connection that sends the replayed commands, one per db that reads the state. */
class Replayer {
  private readonly sender: Client;
  private readonly readers = new Map<number, Client>();
  private db = 0;
  /** The queues to read back, by db. */
  private readonly queues = new Map<number, QueueKeys[]>();
  private readonly notify: boolean;

  constructor(
    private readonly url: string,
    config: CaptureConfiguration,
    private readonly labels: Pick<CaptureExplainer, 'labelOfPayload'>,
  ) {
    this.sender = newClient(url);
    const dbs = config.dbs.length === 0 ? [0] : config.dbs.map((d) => d.value);
    const prefixes = config.prefixes.length === 0 ? [''] : config.prefixes.map((p) => p.value);
    for (const db of dbs)
      this.queues.set(
        db,
        prefixes.flatMap((prefix) =>
          config.queues.map((q) => ({
            ...queueKeys(q.value, prefix),
            name: [dbs.length > 1 ? `db ${db}` : '', prefixes.length > 1 ? prefix : '', q.value]
              .filter((x) => x !== '')
              .join(' '),
          })),
        ),
      );
    // 5.8 on: the :notify list is part of the queue.
    this.notify = config.profiles.some((p) => PROFILES[p].queue.notify);
  }

  async connect(): Promise<void> {
    await this.sender.connect();
  }

  /** Sends the step's queue commands; what the replay saw differently from the capture, as notes. */
  async step(step: Step): Promise<string[]> {
    const notes: string[] = [];
    const commands = step.commands;
    for (let i = 0; i < commands.length; i++) {
      const c = commands[i]!;
      // The operation the trace labelled it with: Laravel's queue commands only (no SELECT: the db is ours).
      const op = c.operation;
      if (c.source !== 'client' || op === undefined || op.startsWith('cache ')) continue;
      if (c.db !== this.db) {
        await this.sender.sendCommand(['SELECT', String(c.db)]);
        this.db = c.db;
      }
      const args = c.args.map((a, j) => (c.binaryArgs?.includes(j) ? Buffer.from(a, 'latin1') : Buffer.from(a)));
      // BLPOP would wait on an empty list: LPOP takes what it took, and takes nothing at once.
      if (op === 'block') args.splice(0, args.length, Buffer.from('LPOP'), args[1]!);
      const reply = await this.sender.sendCommand(args);
      if (op === 'pop') {
        // The capture's own answer: its script ZADDed to :reserved iff it got a job.
        let got = false;
        for (let j = i + 1; j < commands.length && commands[j]!.source === 'lua'; j++)
          if (commands[j]!.args[0]?.toLowerCase() === 'zadd') got = true;
        const replayed = Array.isArray(reply) && reply[0] !== null && reply[0] !== undefined;
        if (got && !replayed)
          notes.push(
            'replay: this pop got a job in the capture, but the replay had none to give: it was queued before the capture began, so the state pane lacks it',
          );
      }
    }
    return notes;
  }

  /** The queues as Redis holds them now. */
  async snapshot() {
    const states = [];
    for (const [db, keys] of this.queues)
      states.push(...(await snapshotQueues(await this.reader(db), keys, this.labels, this.notify)));
    return states;
  }

  private async reader(db: number): Promise<Client> {
    let client = this.readers.get(db);
    if (client === undefined) {
      client = newClient(this.url);
      this.readers.set(db, client);
      await client.connect();
      if (db !== 0) await client.sendCommand(['SELECT', String(db)]);
    }
    return client;
  }

  async close(): Promise<void> {
    for (const c of [this.sender, ...this.readers.values()]) c.destroy();
  }
}
