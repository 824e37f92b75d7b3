// The CLI's outputs on real runs: ndjson's fields, text's colour rules, and `lqsim list`.
import { describe, expect, it } from 'vitest';
import { lqsim } from '../helpers/cli.ts';

describe('lqsim run --format ndjson', () => {
  it('tells a restarted worker process from the killed one (process 1, then 2), and each web request apart', async () => {
    // timeout-max-attempts: the alarm kills worker-1's first process at t+60 while the job runs;
    // supervisord starts a second process, whose polls from t+60 on are process 2.
    const { stdout } = await lqsim(['run', 'timeout-max-attempts', '--format', 'ndjson']);
    const rows = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { t: number; actor: string; process: number });
    const seen = [...new Set(rows.map((r) => `${r.actor}@${r.t - 1_700_000_000}:${r.process}`))];
    expect(seen).toEqual([
      'dispatcher@0:1',
      'worker-1@0:1',
      'worker-1@60:2',
      'worker-1@70:2',
      'worker-1@80:2',
      'worker-1@90:2',
    ]);
  });

  it('prints one JSON object per captured command with step, t, actor, process, source, db, args', async () => {
    const { stdout } = await lqsim(['run', 'success', '--format', 'ndjson']);
    const rows = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const r of rows)
      expect(Object.keys(r).slice(0, 7)).toEqual(['step', 't', 'actor', 'process', 'source', 'db', 'args']);
    // success: dispatch (SELECT, RPUSH), pop (SELECT + 3 EVALs with 1+1+2 lua lines), process (none), delete (ZREM).
    expect(rows.map((r) => [r.step, r.actor, r.source, (r.args as string[])[0]])).toEqual([
      [0, 'dispatcher', 'client', 'SELECT'],
      [0, 'dispatcher', 'client', 'RPUSH'],
      [1, 'worker-1', 'client', 'SELECT'],
      [1, 'worker-1', 'client', 'EVAL'],
      [1, 'worker-1', 'lua', 'zrangebyscore'],
      [1, 'worker-1', 'client', 'EVAL'],
      [1, 'worker-1', 'lua', 'zrangebyscore'],
      [1, 'worker-1', 'client', 'EVAL'],
      [1, 'worker-1', 'lua', 'lpop'],
      [1, 'worker-1', 'lua', 'zadd'],
      [3, 'worker-1', 'client', 'ZREM'],
    ]);
    expect(rows[1]).toMatchObject({ t: 1_700_000_000, db: 0 });
    expect(rows[10]).toMatchObject({ t: 1_700_000_002 });
    expect(rows[7]).toMatchObject({ script: 'pop' });
    // args are unescaped: the RPUSH payload parses as JSON.
    expect(JSON.parse((rows[1]!.args as string[])[2]!)).toMatchObject({
      displayName: 'App\\Jobs\\ResizeImage',
      attempts: 0,
    });
  });
});

describe('lqsim run (text)', () => {
  it('is plain when piped, coloured with FORCE_COLOR, plain again with NO_COLOR', async () => {
    const plain = await lqsim(['run', 'success']);
    expect(plain.stdout).not.toContain('\x1b');
    expect(plain.stdout).toContain('ZREM queues:default:reserved ‹ResizeImage#1 attempts:1›');
    expect(plain.stderr).toMatch(/using local redis-server \d+\.\d+\.\d+ on 127\.0\.0\.1:\d+/);
    const coloured = await lqsim(['run', 'success'], { env: { FORCE_COLOR: '1' } });
    expect(coloured.stdout).toContain('\x1b[');
    const noColor = await lqsim(['run', 'success'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(noColor.stdout).not.toContain('\x1b');
  });
});

describe('lqsim list', () => {
  it('lists the twenty-three documented scenarios', async () => {
    const { stdout } = await lqsim(['list']);
    const names = stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[0]);
    expect(names).toEqual([
      'block-for',
      'block-for-wakeup',
      'burst-and-priorities',
      'chain',
      'cluster-hash-tag',
      'cluster-prefix-hash-tag',
      'cluster-without-hash-tag',
      'dispatch',
      'dispatch-later',
      'failure-exhausted',
      'failure-release',
      'killed-mid-job',
      'migrate-chunking',
      'priority-queues',
      'queue-restart-deploy',
      'rate-limited-release',
      'reserve',
      'retry-after-vs-timeout',
      'success',
      'throttled-exceptions',
      'timeout-max-attempts',
      'unique-job-dropped',
      'without-overlapping-attempts',
    ]);
  });
});
