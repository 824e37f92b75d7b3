// The Laravel 8 profile against what real Laravel 8.83 (Debian's php-laravel-framework 8.83.26
// with phpredis) sent to Redis in conformance/laravel/probe.sh. Each fixture scenario mirrors
// one probe case (see its comments); the captures are the probe's verbatim MONITOR output.
//
// Normalisation, both sides: the probe's own ECHO/FLUSHALL lines are dropped; MONITOR
// timestamps are dropped (the virtual clock starts at the probe's Carbon test time, 1700000000,
// so every score and ARGV time must match as is); client addresses become C1, C2, ... in order
// of first appearance (each PHP process is one connection, as each of our actor processes is);
// uuids and job ids become U1/I1 in order of first appearance. Payloads PHP wrote (attempts 0)
// are compared byte for byte; the copies the pop script re-encoded with cjson (attempts >= 1)
// are compared as JSON, since cjson's key order is the server's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMonitorLine } from '../../src/redis/monitor-line.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { runFile, useRedis } from '../helpers/run.ts';

const redis = useRedis();
const repo = new URL('../../', import.meta.url);
const capture = (c: string) =>
  readFileSync(new URL(`conformance/laravel/captures/case-${c}.monitor.txt`, repo), 'utf8');
const fixture = (f: string) => new URL(`test/fixtures/laravel8/${f}`, repo).pathname;

interface Cmd {
  client: string;
  args: string[];
}

function normalise(cmds: Cmd[]): unknown[] {
  const clients = new Map<string, string>();
  const ids = new Map<string, string>();
  const rename = (s: string): string =>
    s.replace(
      /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|(?<="id":")[A-Za-z0-9]{32}(?=")/g,
      (m) => {
        if (!ids.has(m)) ids.set(m, m.length === 32 ? `I${ids.size + 1}` : `U${ids.size + 1}`);
        return ids.get(m)!;
      },
    );
  return cmds.map(({ client, args }) => {
    if (client !== 'lua' && !clients.has(client)) clients.set(client, `C${clients.size + 1}`);
    const who = client === 'lua' ? 'lua' : clients.get(client)!;
    return [
      who,
      ...args.map((a) => {
        const named = rename(a);
        if (!named.startsWith('{')) return named;
        const p = JSON.parse(named) as { attempts?: number };
        return (p.attempts ?? 0) >= 1 ? { cjson: p } : named;
      }),
    ];
  });
}

function captured(...cases: string[]): Cmd[] {
  return cases
    .flatMap((c) => capture(c).trim().split('\n'))
    .map(parseMonitorLine)
    .filter((l) => !['ECHO', 'FLUSHALL'].includes(l.args[0]!.toUpperCase()))
    .map((l) => ({ client: l.client, args: l.args }));
}

async function ours(file: string): Promise<Cmd[]> {
  const t = await runFile(fixture(file), redis());
  expect(t.error).toBeUndefined();
  // One client label per actor process: a new connection (SELECT on connect) starts a new one.
  let process = 0;
  const names = new Map<string, string>();
  return t.steps.flatMap((s) =>
    s.commands.map((c) => {
      if (c.source === 'lua') return { client: 'lua', args: c.args };
      if (c.args[0] === 'SELECT' || !names.has(c.actor)) names.set(c.actor, `${c.actor}#${++process}`);
      return { client: names.get(c.actor)!, args: c.args };
    }),
  );
}

describe('Laravel 8 state', () => {
  it('counts :notify: the push script adds one, the pop script takes it back', async () => {
    const t = await runFile(fixture('case-c.yaml'), redis());
    const notify = t.steps.map((s) => s.state.queues[0]!.sizes.notify);
    // dispatch (push: rpush notify 1) → 1; pop (lpop notify) → 0; then stays 0.
    expect(notify.slice(0, 2)).toEqual([1, 0]);
    expect(t.steps[0]!.state.queues[0]!.keys.notify).toBe('laravel_database_queues:default:notify');
  });
});

describe('a 5.7 scenario replayed with --laravel 8', () => {
  it('fails the job in the kill step (ZREM before SIGKILL) and marks the 5.7 notes as such', async () => {
    const t = await runFile(await resolveScenario('timeout-max-attempts'), redis(), '8');
    const kill = t.steps.find((s) => s.kind === 'kill')!;
    expect(kill.commands.map((c) => c.args[0])).toEqual(['ZREM']);
    expect(t.steps.filter((s) => s.kind === 'restart')).toHaveLength(0);
    expect(kill.note).toMatch(/^\[written for Laravel 5\.7\] /);
    expect(t.failed).toMatchObject([
      { exception: 'Illuminate\\Queue\\MaxAttemptsExceededException', failedAt: t.start + 60 },
    ]);
  });
});

describe('Laravel 8 profile vs real Laravel 8.83 (recorded)', () => {
  it('case c: dispatch (push script + notify), then --once pops and deletes it', async () => {
    expect(normalise(await ours('case-c.yaml'))).toEqual(normalise(captured('c')));
  });

  it('cases d and e: $backoff = [5, 10] releases to t+5 then t+15; the third try fails with ZREM', async () => {
    expect(normalise(await ours('case-de.yaml'))).toEqual(normalise(captured('d', 'e')));
  });

  it('cases h1 and h2: a timeout on attempt 1 of 2 sends nothing; on attempt 2 the handler ZREMs before the kill', async () => {
    expect(normalise(await ours('case-h.yaml'))).toEqual(normalise(captured('h1', 'h2')));
  });
});
