// Reproduces the real MONITOR capture at the end of seed 003 (Laravel 5.3, Predis) command for
// command with the 5.3 profile. The capture is kept verbatim in test/fixtures/seed-003-capture.txt.
//
// Normalisation, applied to both sides:
// - MONITOR timestamps are dropped (the virtual clock starts at the capture's own second,
//   1489802272, so every score and ARGV time must match exactly and is compared as is);
// - client addresses become actors in order of first appearance (63798 → dispatcher, the web
//   request; 63792 → worker-1), [lua] lines stay lua lines;
// - the random job id becomes ID1;
// - the reserved copy (the pop script's zadd, and the ZREM that names it) is compared as parsed
//   JSON: cjson emits keys in the order of the server's Lua hash table, which differs between
//   Redis builds (the capture's server wrote id, attempts, data, job). Every other argument,
//   including the three Lua script texts and the pushed payload, is compared byte for byte.
// The capture window: the article shows the dispatch and then, "1分钟后" (a minute later), the
// worker's poll that finds the job. The worker's idle polls in between, and its connection's
// SELECT 0 (it connected before the capture started), are not in the article, so our trace is
// cut to the same window: the dispatch step and the steps at the second the job was migrated.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMonitorLine } from '../../src/redis/monitor-line.ts';
import type { TraceCommand } from '../../src/scenarios/timeline.ts';
import { diffTraces } from '../../src/trace/diff.ts';
import { normaliseTrace } from '../../src/trace/normalise.ts';
import type { TraceLike, TraceLikeStep } from '../../src/trace/trace-like.ts';
import { fromMonitorLines, fromTimeline } from '../../src/trace/trace-like.ts';
import { runFile, useRedis } from '../helpers/run.ts';

const redis = useRedis();
const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url).pathname;

interface Normal {
  actor: string;
  source: 'client' | 'lua';
  args: string[];
}

function normalise(cmds: Normal[]): { cmds: Normal[]; reserved: unknown[] } {
  const ids = new Map<string, string>();
  const reserved: unknown[] = [];
  const out = cmds.map((c) => {
    let args = c.args.map((a) => {
      for (const m of a.matchAll(/"id":"([A-Za-z0-9]{32})"/g)) if (!ids.has(m[1]!)) ids.set(m[1]!, `ID${ids.size + 1}`);
      let s = a;
      for (const [id, name] of ids) s = s.split(id).join(name);
      return s;
    });
    const isReservedZadd = c.source === 'lua' && args[0] === 'zadd' && args[1] === 'queues:default:reserved';
    const isZrem = c.source === 'client' && args[0] === 'ZREM';
    if (isReservedZadd || isZrem) {
      const i = args.length - 1;
      reserved.push(JSON.parse(args[i]!));
      args = [...args.slice(0, i), '<reserved payload>'];
    }
    return { ...c, args };
  });
  return { cmds: out, reserved };
}

describe('seed 003 MONITOR capture (Laravel 5.3)', () => {
  it('the 5.3 profile reproduces it command for command', async () => {
    const lines = readFileSync(fixture('seed-003-capture.txt'), 'utf8').trim().split('\n').map(parseMonitorLine);
    const actors = new Map<string, string>();
    const names = ['dispatcher', 'worker-1'];
    const captured: Normal[] = lines.map((l) => {
      if (l.client === 'lua') return { actor: 'lua', source: 'lua', args: l.args };
      if (!actors.has(l.client)) actors.set(l.client, names[actors.size]!);
      return { actor: actors.get(l.client)!, source: 'client', args: l.args };
    });

    const t = await runFile(fixture('seed-003.yaml'), redis());
    expect(t.error).toBeUndefined();
    const dueAt = t.start + 61;
    const window: TraceCommand[] = t.steps.filter((s) => s.t === t.start || s.t === dueAt).flatMap((s) => s.commands);
    const ours: Normal[] = window.map((c) => ({
      actor: c.source === 'lua' ? 'lua' : c.actor,
      source: c.source,
      args: c.args,
    }));

    const a = normalise(captured);
    const b = normalise(ours);
    expect(b.cmds).toEqual(a.cmds);
    // The reserved copies, as data: attempts went 1 → 2 (5.3 pushes attempts 1).
    expect(b.reserved).toEqual(a.reserved);
    expect((a.reserved[0] as { attempts: number }).attempts).toBe(2);
    expect(a.cmds).toHaveLength(12);
  });

  it('the 5.3 profile reproduces it after the product normaliser too (lqsim diff would show no difference)', async () => {
    const lines = readFileSync(fixture('seed-003-capture.txt'), 'utf8').trim().split('\n').map(parseMonitorLine);
    // The capture's two clients: 63798 is the web request (dispatcher), 63792 the worker.
    const actors = new Map([
      ['127.0.0.1:63798', 'dispatcher'],
      ['127.0.0.1:63792', 'worker-1'],
    ]);
    const t = await runFile(fixture('seed-003.yaml'), redis());
    const captured = fromMonitorLines(lines, { start: t.start, actors, prefix: '' });
    // The same window as above; a raw capture has no step boundaries, only changes of sender, so
    // the model's consecutive steps of one actor are merged the same way.
    const dueAt = t.start + 61;
    const ours = fromTimeline({ ...t, steps: t.steps.filter((s) => s.t === t.start || s.t === dueAt) });
    const d = diffTraces(normaliseTrace(captured), normaliseTrace(mergeByActor(ours)));
    expect(d).toMatchObject({ changed: 0, removed: 0, added: 0 });
    expect(d.same).toBe(2);
  });

  it('the 5.7 profile differs from it exactly where Laravel 5.4-5.7 changed the wire', async () => {
    const t = await runFile(fixture('seed-003.yaml'), redis(), '5.7');
    const zadd = t.steps[0]!.commands[1]!.args;
    // 5.4+ payload: displayName, maxTries, timeout(, timeoutAt) added, attempts starts at 0.
    expect(Object.keys(JSON.parse(zadd[3]!))).toEqual([
      'displayName',
      'job',
      'maxTries',
      'timeout',
      'timeoutAt',
      'data',
      'id',
      'attempts',
    ]);
    expect(JSON.parse(zadd[3]!).attempts).toBe(0);
    // 5.4+ scripts carry comments and migrateExpiredJobs returns the moved jobs (`return val`).
    const evals = t.steps.flatMap((s) => s.commands).filter((c) => c.args[0] === 'EVAL');
    expect(evals[0]!.args[1]).toMatch(/^-- Get all of the jobs with an expired "score"\.\.\./);
    expect(evals[0]!.args[1]).toMatch(/return val$/);
  });
});

/** Consecutive steps of one actor as one step, as fromMonitorLines groups a raw capture. */
function mergeByActor(t: TraceLike): TraceLike {
  const steps: TraceLikeStep[] = [];
  for (const s of t.steps) {
    if (s.commands.length === 0) continue;
    const last = steps.at(-1);
    if (last && last.actor === s.actor) last.commands = [...last.commands, ...s.commands];
    else steps.push({ ...s, commands: [...s.commands] });
  }
  return { ...t, steps };
}
