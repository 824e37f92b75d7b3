// `lqsim new`, `lqsim validate` and `lqsim schema` as a user runs them, and the scaffold itself:
// it must validate, run against a real Redis, and send what Laravel 5.7 sends for its flow.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExpectedCommand } from '../../src/testing/index.ts';
import { assertTrace, lua, payload, same, scoreAt, script } from '../../src/testing/index.ts';
import { lqsim } from '../helpers/cli.ts';
import { runFile, useRedis } from '../helpers/run.ts';

const repo = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'lqsim-scaffold-'));
/** lqsim run from the scratch directory, as a user in their project. */
const inDir = (args: string[]) => lqsim(args, { cwd: dir });
const redis = useRedis();

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lqsim new', () => {
  it('writes a commented scenario whose modeline points at the shipped schema, and never overwrites', async () => {
    const first = await inDir(['new', 'my-flow']);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const file = join(dir, 'my-flow.yaml');
    const text = readFileSync(file, 'utf8');
    const modeline = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text);
    expect(modeline).not.toBeNull();
    expect(resolve(dirname(file), modeline![1]!)).toBe(join(repo, 'schema', 'scenario.schema.json'));
    expect(text).toMatch(/^name: my-flow +# how lqsim names it in its output/m);
    expect(text.split('\n').filter((l) => l.includes('#')).length).toBeGreaterThan(10);

    writeFileSync(file, text + '# my own edit\n');
    const again = await inDir(['new', 'my-flow.yaml']);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`lqsim: new: ${file} already exists; not overwriting it\n`);
    expect(readFileSync(file, 'utf8')).toBe(text + '# my own edit\n');
  });

  it('refuses a name the scenario format would reject', async () => {
    const r = await inDir(['new', '9lives']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lqsim: new: "9lives" is not a scenario name: .*\n$/);
  });

  it('the scaffold validates, runs, and sends what Laravel 5.7 sends for a job released once', async () => {
    expect(await inDir(['validate', 'my-flow.yaml'])).toMatchObject({
      code: 0,
      stdout: 'my-flow.yaml: ok\n',
      stderr: '',
    });
    const run = await inDir(['run', 'my-flow.yaml', '--format', 'json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      jobs: [{ label: 'SendInvoice#1', outcome: 'succeeded', executions: 2 }],
    });

    // By hand, from the scaffold (5.7 profile, Predis, retry_after 90, --tries=3 --sleep=3
    // --delay=10; attempt 1 throws after 2 s, attempt 2 returns after 2 s):
    const poll = (
      t: number,
      o: { migrates?: string; reserves?: { attempts: number; as: string } } = {},
    ): ExpectedCommand[] => [
      ['EVAL', script('migrateExpiredJobs'), 2, 'queues:default:delayed', 'queues:default', scoreAt(t)],
      lua('zrangebyscore', 'queues:default:delayed', '-inf', scoreAt(t)),
      ...(o.migrates
        ? [lua('zremrangebyrank', 'queues:default:delayed', '0', '0'), lua('rpush', 'queues:default', same(o.migrates))]
        : []),
      ['EVAL', script('migrateExpiredJobs'), 2, 'queues:default:reserved', 'queues:default', scoreAt(t)],
      lua('zrangebyscore', 'queues:default:reserved', '-inf', scoreAt(t)),
      ['EVAL', script('pop'), 2, 'queues:default', 'queues:default:reserved', scoreAt(t + 90)],
      lua('lpop', 'queues:default'),
      ...(o.reserves
        ? [
            lua(
              'zadd',
              'queues:default:reserved',
              scoreAt(t + 90),
              payload({ attempts: o.reserves.attempts }, o.reserves.as),
            ),
          ]
        : []),
    ];
    const expected: ExpectedCommand[] = [
      // The web request: Predis' SELECT 0 on its new connection, RPUSH of the attempts-0 payload.
      'SELECT 0',
      ['RPUSH', 'queues:default', payload({ attempts: 0, displayName: 'App\\Jobs\\SendInvoice' })],
      // queue:work's own connection, and the pop that reserves it until t+90.
      'SELECT 0',
      ...poll(0, { reserves: { attempts: 1, as: 'r1' } }),
      // t+2: handle() throws; attempts 1 < 3, so handleJobException releases it for --delay 10.
      ['EVAL', script('release'), 2, 'queues:default:delayed', 'queues:default:reserved', same('r1'), scoreAt(12)],
      lua('zrem', 'queues:default:reserved', same('r1')),
      lua('zadd', 'queues:default:delayed', scoreAt(12), same('r1')),
      // The loop polls at once (t+2), then every --sleep=3 s: t+5, t+8, t+11 find nothing.
      ...poll(2),
      ...poll(5),
      ...poll(8),
      ...poll(11),
      // t+14: the released copy (due t+12) is migrated back and reserved with attempts 2.
      ...poll(14, { migrates: 'r1', reserves: { attempts: 2, as: 'r2' } }),
      // t+16: handle() returns; RedisJob::delete ZREMs the reserved copy. Every job settled: the end.
      ['ZREM', 'queues:default:reserved', same('r2')],
    ];
    const timeline = await runFile(join(dir, 'my-flow.yaml'), redis());
    assertTrace(timeline, expected);
  });
});

describe('lqsim validate', () => {
  it("prints ok per good file and the loader's one-line error for a bad one, exit 2", async () => {
    const bad = join(repo, 'test/fixtures/bad-scenarios/bad-indent.yaml');
    const r = await inDir(['validate', 'dispatch', bad]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(`${join(repo, 'scenarios/dispatch.yaml')}: ok\n`);
    expect(r.stderr).toMatch(
      new RegExp(`^lqsim: ${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: [^\\n]+\\n$`),
    );
  });

  it('says so for a file that does not exist', async () => {
    const r = await inDir(['validate', 'nope.yaml']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'lqsim: nope.yaml: no such file\n' });
  });
});

describe('lqsim schema', () => {
  it('prints the shipped JSON Schema file (test/unit/json-schema.test.ts keeps it equal to the zod schema)', async () => {
    const r = await inDir(['schema']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: 'laravel-queue-sim scenario',
    });
    expect(r.stdout).toBe(readFileSync(join(repo, 'schema/scenario.schema.json'), 'utf8'));
  });
});
