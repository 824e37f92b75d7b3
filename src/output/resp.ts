// The exact bytes each client command put on the wire, in RESP (the Redis serialization
// protocol): `*<argc>\r\n` then `$<byte length>\r\n<bytes>\r\n` per argument, the way Predis and
// phpredis send every command. Commands Lua scripts ran never cross the wire and are left out.
// RESP has no comment syntax, so the output is nothing but the commands, in order: it parses
// back with any RESP parser and can be fed to `redis-cli --pipe`. Arguments MONITOR showed as
// non-UTF-8 (TraceCommand.binaryArgs) are written back as the latin1 bytes they were read as.
// On a Redis Cluster the stream is every node's commands in the merged order, with no mark of the
// node (a comment would break the stream): `--format ndjson` says each command's node and slot, and
// a node given the whole stream answers MOVED for another node's keys.
import type { Timeline, TraceCommand } from '../scenarios/timeline.ts';

/** One command as RESP bytes. */
export function encodeCommand(cmd: Pick<TraceCommand, 'args' | 'binaryArgs'>): Buffer {
  const binary = new Set(cmd.binaryArgs ?? []);
  const parts: Buffer[] = [Buffer.from(`*${cmd.args.length}\r\n`)];
  cmd.args.forEach((arg, i) => {
    const bytes = Buffer.from(arg, binary.has(i) ? 'latin1' : 'utf8');
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
  });
  return Buffer.concat(parts);
}

/** Every client command of the timeline, step by step, as one RESP byte stream. */
export function renderResp(timeline: Pick<Timeline, 'steps'>): Buffer {
  return Buffer.concat(
    timeline.steps.flatMap((s) => s.commands.filter((c) => c.source === 'client').map(encodeCommand)),
  );
}
