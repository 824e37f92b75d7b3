// Golden files through the CLI on real runs: run --golden writes one, check passes against it,
// a changed golden fails with the step-aligned diff, --update rewrites it (never in CI), and a
// golden does not break when only the key order of cjson-encoded copies differs.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lqsim } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'lqsim-golden-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SLOW = 120_000;

/** The JSON argument of a golden command line (the last argument, a JSON object). */
const jsonOf = (line: string) => JSON.parse(line.slice(line.indexOf(' {') + 1)) as Record<string, unknown>;

describe('golden files', () => {
  it('run --golden into a directory that does not exist: exit 2 at once, one line, nothing run', async () => {
    const r = await lqsim(['run', 'dispatch', '--golden', join(dir, 'nodir', 'x.golden')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `lqsim: --golden ${join(dir, 'nodir', 'x.golden')}: no directory ${join(dir, 'nodir')} to write it in\n`,
    );
    expect(r.stdout).toBe('');
  });

  it('check --update into a directory that does not exist, or through a file: exit 2 at once, nothing run', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    try {
      for (const target of [join(dir, 'nodir', 'x.golden'), join(file, 'x.golden')]) {
        const r = await lqsim(['check', 'dispatch', '--golden', target, '--update']);
        expect(r.code).toBe(2);
        // Nothing ran: no Redis was started, and the line names the golden, not a temporary file.
        expect(r.stderr).toBe(`lqsim: --golden ${target}: no directory ${join(target, '..')} to write it in\n`);
        expect(r.stdout).toBe('');
      }
    } finally {
      rmSync(file);
    }
  });

  const golden = join(dir, 'timeout-max-attempts.golden');

  it(
    'run --golden writes the normalised trace beside the usual output, atomically',
    async () => {
      const run = await lqsim(['run', 'timeout-max-attempts', '--golden', golden]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('#9  t+90s   worker-1'); // the text trace is printed as without --golden
      expect(run.stderr).toContain(`lqsim: golden trace written to ${golden} (7 steps with commands)`);
      expect(readdirSync(dir)).toEqual(['timeout-max-attempts.golden']); // no temporary file left
      const text = readFileSync(golden, 'utf8');
      const lines = text.split('\n');
      expect(lines[0]).toBe('# lqsim normalised trace v1');
      expect(lines).toContain('# scenario: timeout-max-attempts');
      expect(lines).toContain('# profile: 5.7');
      // Hand-derived (5.7, seed 002): dispatch RPUSH at t+0; pop at t+0 reserves until t+90
      // (retry_after 90); the restarted worker polls at t+60, t+70, t+80; at t+90 the reservation
      // has expired, so it is migrated back, popped as attempts 2 until t+180, and ZREMed.
      expect(lines.filter((l) => l.startsWith('step ')).map((l) => l.split('  #')[0])).toEqual([
        'step 0 T+0 dispatcher',
        'step 1 T+0 worker-1',
        'step 5 T+60 worker-1',
        'step 6 T+70 worker-1',
        'step 7 T+80 worker-1',
        'step 8 T+90 worker-1',
        'step 9 T+90 worker-1',
      ]);
      const rpush = lines.find((l) => l.startsWith('  RPUSH queues:default {'))!;
      expect(jsonOf(rpush)).toMatchObject({ id: 'ID1', attempts: 0, displayName: 'App\\Jobs\\ImportCsv' });
      expect(lines).toContain('  [lua] zrangebyscore queues:default:reserved -inf T+90');
      // The reserved copy (cjson) is stored with sorted keys; the ZREM sends those same bytes back.
      const zadd = lines.find((l) => l.startsWith('  [lua] zadd queues:default:reserved T+180 {'))!;
      const zrem = lines.find((l) => l.startsWith('  ZREM queues:default:reserved {'))!;
      expect(Object.keys(jsonOf(zadd))).toEqual(Object.keys(jsonOf(zadd)).sort());
      expect(zrem.slice('  ZREM queues:default:reserved '.length)).toBe(
        zadd.slice('  [lua] zadd queues:default:reserved T+180 '.length),
      );
      expect(jsonOf(zrem)).toMatchObject({ id: 'ID1', attempts: 2 });
    },
    SLOW,
  );

  it(
    'check passes against it',
    async () => {
      const check = await lqsim(['check', 'timeout-max-attempts', '--golden', golden]);
      expect(check.code).toBe(0);
      expect(check.stdout).toBe(`${golden}: matches timeout-max-attempts@5.7 (7 steps)\n`);
    },
    SLOW,
  );

  it(
    'check still passes when the cjson copies in the golden have another key order',
    async () => {
      const text = readFileSync(golden, 'utf8');
      // Reverse the keys of every [lua] JSON and of the client ZREM of the copy, as another cjson might.
      const reorder = (json: string) =>
        JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(json) as object).reverse()));
      const copies = [
        ...new Set(
          text
            .split('\n')
            .filter((l) => l.startsWith('  [lua] ') && l.includes(' {'))
            .map((l) => l.slice(l.indexOf(' {') + 1)),
        ),
      ];
      // Two distinct copies: attempts 1 (the first zadd, and the migrate's rpush of it) and attempts 2.
      expect(copies.map((c) => (JSON.parse(c) as { attempts: number }).attempts)).toEqual([1, 2]);
      let edited = text;
      for (const c of copies) edited = edited.split(c).join(reorder(c));
      expect(edited).not.toBe(text);
      const other = join(dir, 'reordered.golden');
      writeFileSync(other, edited);
      const check = await lqsim(['check', 'timeout-max-attempts', '--golden', other]);
      expect(check.code).toBe(0);
      expect(check.stdout).toContain(': matches timeout-max-attempts@5.7 (7 steps)');
    },
    SLOW,
  );

  it(
    'check fails with a step-aligned diff when the golden differs; --update rewrites it, never in CI',
    async () => {
      const text = readFileSync(golden, 'utf8');
      // Pretend the golden recorded the final ZREM with attempts 3.
      const zrem = text.split('\n').find((l) => l.startsWith('  ZREM queues:default:reserved {'))!;
      const changed = join(dir, 'changed.golden');
      writeFileSync(changed, text.replace(zrem, zrem.replace('"attempts":2', '"attempts":3')));
      const check = await lqsim(['check', 'timeout-max-attempts', '--golden', changed]);
      expect(check.code).toBe(1);
      const out = check.stdout.split('\n');
      expect(out[0]).toBe(`--- a: ${changed} (golden)`);
      expect(out[1]).toBe('+++ b: timeout-max-attempts@5.7 (this run)');
      expect(out).toContain('~ #9 T+90 worker-1 | #9 T+90 worker-1');
      expect(out).toContain('    - ZREM queues:default:reserved ‹ImportCsv#ID1 attempts:3›');
      expect(out).toContain('    + ZREM queues:default:reserved ‹ImportCsv#ID1 attempts:2›');
      expect(out).toContain('        ID1: attempts 3→2');
      expect(out.filter((l) => l !== '').at(-1)).toBe('1 step differs (1 changed, 0 only in a, 0 only in b), 6 same');

      const ci = await lqsim(['check', 'timeout-max-attempts', '--golden', changed, '--update'], {
        env: { CI: 'true' },
      });
      expect(ci.code).toBe(2);
      expect(ci.stderr).toBe(
        'lqsim: check --update: refusing to rewrite a golden file in CI (CI is set); update it locally and commit it\n',
      );
      expect(readFileSync(changed, 'utf8')).not.toBe(text);

      const update = await lqsim(['check', 'timeout-max-attempts', '--golden', changed, '--update']);
      expect(update.code).toBe(0);
      expect(update.stdout).toBe(
        `${changed}: updated from timeout-max-attempts@5.7: 1 step differs (1 changed, 0 only in a, 0 only in b), 6 same\n`,
      );
      expect(readFileSync(changed, 'utf8')).toBe(text);
      expect((await lqsim(['check', 'timeout-max-attempts', '--golden', changed])).code).toBe(0);
    },
    SLOW,
  );

  it(
    'a missing golden is bad input, unless --update creates it',
    async () => {
      const missing = join(dir, 'missing.golden');
      const check = await lqsim(['check', 'dispatch', '--golden', missing]);
      expect(check.code).toBe(2);
      expect(check.stderr).toBe(
        `lqsim: ${missing}: no such golden file (write it with: lqsim run dispatch --golden ${missing})\n`,
      );
      const create = await lqsim(['check', 'dispatch', '--golden', missing, '--laravel', '8', '--update']);
      expect(create.code).toBe(0);
      expect(readFileSync(missing, 'utf8')).toContain('# profile: 8\n# prefix: laravel_database_\n');
      // Checked without --laravel, the scenario's own 5.7 runs: different, and the note says why.
      const other = await lqsim(['check', 'dispatch', '--golden', missing]);
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(
        `lqsim: note: ${missing}: this golden was written for Laravel 8, this run is Laravel 5.7\n`,
      );
      expect(other.stdout).toContain('~ key prefix: laravel_database_ → (none) (stripped from the keys below)\n');
      const mangled = join(dir, 'mangled.golden');
      writeFileSync(mangled, '# lqsim normalised trace v1\nstep zero\n');
      const bad = await lqsim(['check', 'dispatch', '--golden', mangled]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toBe(`lqsim: ${mangled}: line 2: expected "step <index> <time> <actor>"\n`);
    },
    SLOW,
  );
});
