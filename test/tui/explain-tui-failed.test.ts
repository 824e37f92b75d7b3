// lqsim explain --tui over a capture whose replay fails: a job payload nested deeper than the
// scripts' cjson decodes (Redis' lua_cjson refuses more than 1000 levels), so the pop script that
// takes it is refused by the private redis-server. The session ends with that error: the header
// says "✗ ended early", never "✓ finished", the error names the step and its capture lines, and
// the CLI's summary says the run failed (exit 1). The capture is written by hand in MONITOR's
// format: Laravel 8's push script, then a worker's poll (both migrates, the pop script's lpop).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatMonitorLine } from '../../src/redis/redis-escape.ts';
import { migrateExpiredJobs58, pop58, push58 } from '../../src/sim/profiles/scripts-5.8.ts';

// Ink draws only the last frame when CI is set: see run-tui.test.ts.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
const { KEYS, settle, waitForFrame } = await import('./fake-terminal.ts');
const { replayTui } = await import('./replay-tui.ts');

const dir = mkdtempSync(join(tmpdir(), 'lqsim-tui-failed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function deepCapture(): string {
  const deep = '['.repeat(1100) + ']'.repeat(1100);
  const payload = `{"uuid":"u1","displayName":"App\\\\Jobs\\\\Deep","job":"Illuminate\\\\Queue\\\\CallQueuedHandler@call","data":${deep},"id":"u1","attempts":0}`;
  const at = (t: number, client: string, ...args: string[]) =>
    formatMonitorLine({ time: (1700000000 + t).toFixed(6), db: 0, client, args });
  const [app, worker] = ['127.0.0.1:6000', '127.0.0.1:6001'];
  const keys = ['queues:default', 'queues:default:notify'];
  const migrate = (from: string) => [
    at(1, worker, 'EVAL', migrateExpiredJobs58.source, '3', from, ...keys, '1700000001'),
    at(1, 'lua', 'zrangebyscore', from, '-inf', '1700000001'),
  ];
  return [
    at(0, app, 'EVAL', push58.source, '2', ...keys, payload), // line 1
    at(0, 'lua', 'rpush', 'queues:default', payload),
    at(0, 'lua', 'rpush', 'queues:default:notify', '1'),
    ...migrate('queues:default:delayed'), // lines 4-5
    ...migrate('queues:default:reserved'), // lines 6-7
    at(1, worker, 'EVAL', pop58.source, '3', 'queues:default', 'queues:default:reserved', keys[1]!, '1700000091'),
    at(1, 'lua', 'lpop', 'queues:default'), // line 9: cjson.decode refuses it next
  ].join('\n');
}

describe('lqsim explain --tui, a replay that fails', () => {
  it("ends early with the error naming the step, and says so in the header and the CLI's summary", async () => {
    const file = join(dir, 'deep.txt');
    writeFileSync(file, deepCapture());
    const { ui, stdin, stderr, all } = await replayTui(file, 'deep.txt', 120, 30);
    await waitForFrame(all, (f) => f.includes('the premise'));
    stdin.write(KEYS.enter); // close the premise: step #0, the push
    await waitForFrame(all, (f) => f.includes('push: Deep#1 onto default'));
    await settle(60);
    stdin.write('G'); // to the end: the worker's poll cannot be replayed
    await waitForFrame(all, (f) => f.includes('✗ ended early · 1 step'));
    // The poll's lines: its two migrates and the pop script (4-9).
    await waitForFrame(all, (f) => /error: replaying step #1 \(lines 4-9, worker-1 pop: /.test(f));
    expect(all()).not.toContain('✓ finished');
    stdin.write('q');
    await expect(ui).resolves.toBe(1);
    expect(stderr.frames.join('').replace(/\s+/g, ' ')).toMatch(
      /lqsim: deep\.txt: the run failed after 1 step: replaying step #1 \(lines 4-9, worker-1 pop: no job on default\): .*nested/,
    );
  }, 20_000);
});
