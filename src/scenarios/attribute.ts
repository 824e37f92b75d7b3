// Turns the raw MONITOR lines of one step into trace commands: each client line goes to the actor
// whose connection has that address; each [lua] line to the EVAL just before it (scripts are
// atomic, and EVAL is fed to monitors before the script runs). The tool's own connections, the
// handshake of ours, and any other client's traffic are dropped. Pure.
import type { ConnectionOwner } from '../redis/connections.ts';
import { isMonitorOk, parseMonitorLine } from '../redis/monitor-line.ts';
import type { TraceCommand } from './timeline.ts';

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
  const commands: TraceCommand[] = [];
  let owner: ConnectionOwner | undefined;
  for (const raw of lines) {
    if (isMonitorOk(raw)) continue;
    const line = parseMonitorLine(raw);
    if (line.client === 'lua') {
      // A dropped EVAL's script lines go with it.
      if (owner !== undefined) commands.push(toCommand(line, owner, 'lua', step));
      continue;
    }
    owner = book.ownerOf(line.client);
    if (owner === undefined || book.isHandshake(line.args)) {
      owner = undefined;
      continue;
    }
    const cmd = toCommand(line, owner, 'client', step);
    if (/^eval$/i.test(line.args[0] ?? '')) {
      const name = scriptNames.get(line.args[1] ?? '');
      if (name) cmd.script = name;
    }
    commands.push(cmd);
  }
  return { commands };
}

function toCommand(
  line: ReturnType<typeof parseMonitorLine>,
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
  return cmd;
}

/**
 * Commands of clients that are not the run's (nor the tool's own connections, `tool`) that name
 * one of the run's keys in the run's db: someone else touching the run's queues while it goes on,
 * which makes the trace no longer Laravel's alone. Each as `addr: COMMAND key`, for the message.
 */
export function foreignTouches(
  lines: readonly string[],
  book: Pick<ActorDirectory, 'ownerOf'>,
  tool: ReadonlySet<string>,
  db: number,
  keys: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  for (const raw of lines) {
    if (isMonitorOk(raw)) continue;
    const line = parseMonitorLine(raw);
    if (line.client === 'lua' || line.db !== db || tool.has(line.client) || book.ownerOf(line.client) !== undefined)
      continue;
    const key = line.args.slice(1).find((a) => keys.has(a));
    if (key !== undefined) out.push(`${line.client}: ${(line.args[0] ?? '').toUpperCase()} ${key}`);
  }
  return out;
}
