// bench/floor.ts' replayWallUs, the floor the bench holds its wall times to: it must send the
// trace's commands again, each on its own connection's client and in the trace's order, with no
// command of its own among them but the ECHO that ends the timing, and never a BLPOP (it would
// wait out its timeout). MONITOR, watched here from a client of the test's own, shows what it sent.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayedCommand } from '../../bench/floor.ts';
import { replayWallUs } from '../../bench/floor.ts';
import { acquireRedis, type RedisServer } from '../../src/redis/server.ts';

let server: RedisServer;
beforeAll(async () => {
  server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
});
afterAll(() => server.stop());

/** MONITOR's lines while `act` runs, as [address, command and arguments] (the lines' own quoting undone). */
async function watched(act: () => Promise<unknown>): Promise<Array<[string, string[]]>> {
  const lines: string[] = [];
  const monitor = createClient({ socket: { host: server.host, port: server.port } });
  await monitor.connect();
  await monitor.monitor((line) => lines.push(String(line)));
  try {
    await act();
  } finally {
    monitor.destroy();
  }
  return lines.map((line) => {
    const m = /^[\d.]+ \[\d+ ([^\]]+)\] (.*)$/.exec(line)!;
    return [m[1]!, [...m[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((a) => a[1]!)];
  });
}

describe('replayWallUs', () => {
  it("sends the trace's commands again in its order, each connection's on a client of its own, and no BLPOP", async () => {
    const commands: ReplayedCommand[] = [
      { connection: 'dispatcher:1:0', args: ['RPUSH', 'queues:default', 'job-1'], awaited: false },
      { connection: 'dispatcher:1:0', args: ['SET', 'seen', '1'], awaited: false },
      { connection: 'worker-1:1:1', args: ['SELECT', '1'], awaited: false },
      { connection: 'worker-1:1:1', args: ['GET', 'restart'], awaited: false },
      { connection: 'worker-1:1:0', args: ['LPOP', 'queues:default'], awaited: true },
      { connection: 'worker-1:1:0', args: ['BLPOP', 'queues:default', '5'], awaited: true },
      { connection: 'dispatcher:1:0', args: ['DEL', 'seen'], awaited: false },
    ];
    let us = 0;
    const seen = await watched(async () => {
      us = await replayWallUs(server, commands);
    });
    expect(us).toBeGreaterThan(0);
    const sent = seen.filter(([, args]) => !['FLUSHALL', 'ECHO'].includes(args[0]!.toUpperCase()));
    expect(sent.map(([, args]) => args)).toEqual([
      ['RPUSH', 'queues:default', 'job-1'],
      ['SET', 'seen', '1'],
      ['SELECT', '1'],
      ['GET', 'restart'],
      ['LPOP', 'queues:default'],
      ['DEL', 'seen'],
    ]);
    // One client per connection of the trace: the dispatcher's two runs of commands from one address.
    const from = sent.map(([address]) => address);
    expect(from[0]).toBe(from[1]);
    expect(from[5]).toBe(from[0]);
    expect(new Set([from[0], from[2], from[4]]).size).toBe(3);
    expect(from[2]).toBe(from[3]);
    // The timing ends at an ECHO after the last command, and the replay leaves the server empty.
    const echo = seen.findIndex(([, args]) => args[0] === 'ECHO');
    expect(echo).toBeGreaterThan(seen.findIndex(([, args]) => args[0] === 'DEL'));
    const admin = createClient({ socket: { host: server.host, port: server.port } });
    await admin.connect();
    expect(await admin.dbSize()).toBe(0);
    admin.destroy();
  });
});
