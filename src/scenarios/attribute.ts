// Turns the raw MONITOR lines of one step into trace commands: each client line goes to the actor
// whose connection has that address; each [lua] line to the EVAL just before it (scripts are
// atomic, and EVAL is fed to monitors before the script runs). The tool's own connections, the
// handshake of ours, and any other client's traffic are dropped. Pure.
import type { ConnectionOwner } from '../redis/connections.ts';
import type { MonitorLine } from '../redis/monitor-line.ts';
import { isMonitorOk, parsedLines, parseMonitorLine } from '../redis/monitor-line.ts';
import type { TraceCommand } from './timeline.ts';
import { connectionKey } from '../redis/connections.ts';
import { commandSlot } from '../redis/slot.ts';

export type { ConnectionOwner };

/** Who owns a client address, and which lines are the tool's own handshake (ConnectionHub, conformance's AddressBook). */
export interface ActorDirectory {
  ownerOf(addr: string): ConnectionOwner | undefined;
  isHandshake(args: readonly string[]): boolean;
}

export interface Attribution {
  commands: TraceCommand[];
}

export function attributeLines(
  lines: readonly string[],
  book: ActorDirectory,
  step: { index: number; t: number },
  scriptNames: ReadonlyMap<string, string>,
): Attribution {
  const attributor = new LineAttributor(book, scriptNames);
  const commands: TraceCommand[] = [];
  for (const line of parsedLines(lines)) {
    const cmd = attributor.pushParsed(line, step);
    if (cmd !== null) commands.push(cmd);
  }
  return { commands };
}

/**
 * attributeLines one line at a time, for lines taken as they arrive (a streaming run): a [lua]
 * line goes with the client line before it, so the attributor remembers whose that was.
 */
export class LineAttributor {
  private owner: ConnectionOwner | undefined;

  constructor(
    private readonly book: ActorDirectory,
    private readonly scriptNames: ReadonlyMap<string, string>,
  ) {}

  /** The line's trace command, or null for a line that is not the run's (or the OK of MONITOR). */
  push(raw: string, step: { index: number; t: number }): TraceCommand | null {
    if (isMonitorOk(raw)) return null;
    return this.pushParsed(parseMonitorLine(raw), step);
  }

  pushParsed(line: MonitorLine, step: { index: number; t: number }): TraceCommand | null {
    if (line.client === 'lua') {
      // A dropped EVAL's script lines go with it.
      return this.owner === undefined ? null : toCommand(line, this.owner, 'lua', step);
    }
    this.owner = this.book.ownerOf(connectionKey(line.client, line.node));
    if (this.owner === undefined || this.book.isHandshake(line.args)) {
      this.owner = undefined;
      return null;
    }
    const cmd = toCommand(line, this.owner, 'client', step);
    if (/^eval$/i.test(line.args[0] ?? '')) {
      const name = this.scriptNames.get(line.args[1] ?? '');
      if (name) cmd.script = name;
    }
    return cmd;
  }
}

function toCommand(
  line: MonitorLine,
  owner: ConnectionOwner,
  source: 'client' | 'lua',
  step: { index: number; t: number },
): TraceCommand {
  const cmd: TraceCommand = {
    step: step.index,
    t: step.t,
    actor: owner.actor,
    process: owner.process,
    source,
    db: line.db,
    args: line.args,
    time: line.time,
  };
  if (line.binaryArgs && line.binaryArgs.length > 0) cmd.binaryArgs = line.binaryArgs;
  if (line.node !== undefined) {
    cmd.node = line.node;
    const slot = commandSlot(line.args);
    if (typeof slot === 'number') cmd.slot = slot;
  }
  return cmd;
}
