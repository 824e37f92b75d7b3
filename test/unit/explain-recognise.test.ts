// lqsim explain's first layer (src/explain): reading a real capture line by line and naming what
// Laravel did in it. Expected operations are derived by hand from Laravel's RedisQueue of each
// version (see ../shared/reference/laravel-versions.md), not from the tool's output.
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CaptureEntry, CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, forEachEntry, isProblem, readCapture } from '../../src/explain/capture.ts';
import type { KnownScript } from '../../src/explain/recognise.ts';
import {
  parseQueueKey,
  profilesSendingAll,
  recogniseCommand,
  recogniseScript,
  releasesName,
  releasesSendingAll,
} from '../../src/explain/recognise.ts';
import { PROFILES } from '../../src/sim/profiles/index.ts';

const SEED_003 = new URL('../fixtures/seed-003-capture.txt', import.meta.url).pathname;

async function all<T>(gen: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of gen) out.push(x);
  return out;
}

describe('a capture of Laravel 5.3 (seed 003: a delayed job, migrated, popped, deleted)', () => {
  it('reads every line, and names each command as Laravel 5.3 sent it', async () => {
    const entries = await all(readCapture(createInterface({ input: createReadStream(SEED_003) })));
    expect(entries.filter(isProblem)).toEqual([]);
    const lines = entries as CapturedLine[];
    expect(lines.map((e) => e.lineNo)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const ops = lines.map((e) => recogniseCommand(e.line.args, e.line.client)?.op);
    // later() is a ZADD to :delayed; pop() migrates :delayed then :reserved (each a script whose
    // commands MONITOR shows as "lua"), then the pop script; delete() is a ZREM of the reserved copy.
    expect(ops).toEqual([
      'select',
      'later',
      'migrate delayed',
      'script',
      'script',
      'script',
      'migrate reserved',
      'script',
      'pop',
      'script',
      'script',
      'delete',
    ]);
    const scripts = lines
      .map((e) => recogniseCommand(e.line.args, e.line.client)?.script)
      .filter((s): s is KnownScript => s !== undefined);
    expect(scripts.map((s) => s.name)).toEqual(['migrateExpiredJobs', 'migrateExpiredJobs', 'pop']);
    // 5.3's migrate script ends in `return true`; 5.4 made it `return val`: only 5.3 sends this text.
    expect(profilesSendingAll(scripts)).toEqual(['5.3']);
    expect(recogniseCommand(lines[1]!.line.args, lines[1]!.line.client)?.key).toEqual({
      prefix: '',
      queue: 'default',
      kind: 'delayed',
    });
  });
});

describe('recognising scripts and keys', () => {
  it("tells the versions apart by their scripts' texts", () => {
    // push and size did not change from 5.8 to 13; migrate gained `'limit', 0, ARGV[2]` in 9.23.
    const push8 = recogniseScript(PROFILES['8'].scripts.push!.source)!;
    const migrate8 = recogniseScript(PROFILES['8'].scripts.migrateExpiredJobs!.source)!;
    const migrate13 = recogniseScript(PROFILES['13'].scripts.migrateExpiredJobs!.source)!;
    expect(push8.profiles).toEqual(['8', '13']);
    expect(migrate8.profiles).toEqual(['8']);
    expect(migrate13.profiles).toEqual(['13']);
    expect(profilesSendingAll([push8, migrate8])).toEqual(['8']);
    expect(profilesSendingAll([migrate8, migrate13])).toEqual([]);
    expect(recogniseScript("return redis.call('get', KEYS[1])")).toBeUndefined();
  });

  it('labels the migrate of :reserved apart from the migrate of :delayed, with the prefix and queue', () => {
    const migrate = PROFILES['8'].scripts.migrateExpiredJobs!.source;
    const keys = ['laravel_database_queues:emails:reserved', 'laravel_database_queues:emails', 'x:notify'];
    expect(recogniseCommand(['EVAL', migrate, '3', ...keys, '1700000000'], '127.0.0.1:5000')).toMatchObject({
      op: 'migrate reserved',
      key: { prefix: 'laravel_database_', queue: 'emails', kind: 'reserved' },
    });
  });

  it("claims only Laravel's shapes: other apps' commands on look-alike keys are not its", () => {
    expect(recogniseCommand(['GET', 'queues:default'], '127.0.0.1:1')).toBeUndefined();
    expect(recogniseCommand(['RPUSH', 'queues:default:notify', '1'], '127.0.0.1:1')).toBeUndefined();
    expect(recogniseCommand(['ZADD', 'queues:default', '1', 'x'], '127.0.0.1:1')).toBeUndefined();
    expect(recogniseCommand(['EVAL', 'return 1', '0'], '127.0.0.1:1')).toBeUndefined();
    expect(recogniseCommand(['SET', 'cache:x', '1'], '127.0.0.1:1')).toBeUndefined();
    expect(recogniseCommand(['BLPOP', 'queues:default:notify', '5'], '127.0.0.1:1')).toEqual({
      op: 'block',
      key: { prefix: '', queue: 'default', kind: 'notify' },
    });
    expect(parseQueueKey('horizon:queues:default')).toEqual({ prefix: 'horizon:', queue: 'default', kind: 'ready' });
    expect(parseQueueKey('jobs:default')).toBeUndefined();
  });
});

describe('robust to real captures', () => {
  it('names the line of a truncated, cut or foreign line, and goes on', async () => {
    const text = [
      'OK',
      '1489802272.491060 [0 127.0.0.1:63798] "SELECT" "0"',
      '1489802272.491513 [0 127.0.0.1:63798] "ZADD" "queues:default:delayed" "14898023', // cut mid-argument
      'garbage',
      '',
      '1489802333.963223 [0 127.0.0.1:63792] "ZREM" "queues:default:reserved" "x"\r',
    ].join('\n');
    // Read as the CLI reads a capture file (CRLF too).
    const dir = mkdtempSync(join(tmpdir(), 'capture-'));
    writeFileSync(join(dir, 'capture.txt'), text);
    const entries: CaptureEntry[] = [];
    await forEachEntry(join(dir, 'capture.txt'), (e) => void entries.push(e));
    rmSync(dir, { recursive: true });
    expect(entries.map((e) => (isProblem(e) ? `problem ${e.lineNo}` : `line ${e.lineNo}`))).toEqual([
      'line 2',
      'problem 3',
      'problem 4',
      'line 6',
    ]);
    for (const p of entries.filter(isProblem)) expect(p.problem).toMatch(/^not a MONITOR line: /);
  });

  it('never throws on any line, nor on any command', () => {
    fc.assert(
      fc.property(fc.string(), (line) => {
        captureEntry(line, 1);
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 6 }), fc.constantFrom('lua', '127.0.0.1:1'), (args, client) => {
        recogniseCommand(args, client);
      }),
    );
  });
});

describe('releasesSendingAll', () => {
  const known = (text: string) => recogniseScript(text)!;
  const s8 = PROFILES['8'].scripts;
  const s13 = PROFILES['13'].scripts;
  it('is the releases every script seen is sent by (laravel-versions.md 1.3-1.4), or none', () => {
    // 8.x's push and pop are sent from 5.8 on; its migrate until 9.22.
    expect(releasesSendingAll([known(s8.push!.source), known(s8.pop!.source)])).toEqual({ from: '5.8', to: '13.x' });
    expect(releasesSendingAll([known(s8.pop!.source), known(s8.migrateExpiredJobs!.source)])).toEqual({
      from: '5.8',
      to: '9.22',
    });
    expect(releasesSendingAll([known(s13.migrateExpiredJobs!.source), known(s13.later!.source)])).toEqual({
      from: '12.45',
      to: '13.x',
    });
    // Two migrate texts never sent by one release.
    expect(
      releasesSendingAll([known(s8.migrateExpiredJobs!.source), known(s13.migrateExpiredJobs!.source)]),
    ).toBeNull();
    expect(releasesSendingAll([known(PROFILES['5.3'].scripts.pop!.source)])).toEqual({ from: '5.3', to: '5.3' });
    expect(releasesSendingAll([])).toBeUndefined();
    expect(releasesName({ from: '9.23', to: '13.x' })).toBe('9.23 to 13.x');
    expect(releasesName({ from: '5.3', to: '5.3' })).toBe('5.3');
  });
});
