// bin/lqsim.js picks what to run: in a clone, the CLI bundle (dist/cli/, scripts/build-cli.mjs)
// only while it was built from the sources as they are, else the sources through tsx (an edit
// takes effect at once, never hidden behind a stale bundle); in a published package (no src/),
// the bundle. And the bundle itself does what the sources do.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lqsimEnv } from '../helpers/cli.ts';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'lqsim-bin-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const T0 = new Date('2026-01-01T00:00:00Z');
const T1 = new Date('2026-01-02T00:00:00Z');

/** A package directory with bin/, node_modules and a bundle that prints `bundle` (built from sources as of `builtFrom`). */
function layout(name: string, o: { source: boolean; builtFrom?: Date; devDependencies?: false }): string {
  const root = join(scratch, name);
  mkdirSync(join(root, 'bin'), { recursive: true });
  for (const f of ['lqsim.js', 'freshness.js']) copyFileSync(join(repo, 'bin', f), join(root, 'bin', f));
  // Without dev dependencies there is no tsx (and nothing else this layout needs).
  if (o.devDependencies === false) mkdirSync(join(root, 'node_modules'));
  else symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}');
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  writeFileSync(join(root, 'dist', 'cli', 'lqsim.js'), "console.log('bundle');\n");
  if (o.builtFrom !== undefined) writeFileSync(join(root, 'dist', 'cli', 'BUILT_FROM'), `${o.builtFrom.getTime()}\n`);
  if (o.source) {
    mkdirSync(join(root, 'src', 'cli'), { recursive: true });
    writeFileSync(join(root, 'src', 'cli.ts'), "const where: string = 'src';\nconsole.log(where);\n");
    writeFileSync(join(root, 'src', 'cli', 'args.ts'), 'export {};\n');
    copyFileSync(join(repo, 'tsconfig.json'), join(root, 'tsconfig.json'));
    for (const f of ['src/cli.ts', 'src/cli/args.ts', 'tsconfig.json']) utimesSync(join(root, f), T0, T0);
  }
  return root;
}

function spawnBin(root: string, env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [join(root, 'bin', 'lqsim.js')], {
    cwd: scratch,
    encoding: 'utf8',
    env: { ...process.env, LQSIM_FROM_SOURCE: '', ...env },
  });
}

function run(root: string, env: Record<string, string> = {}): string {
  const r = spawnBin(root, env);
  expect(r.stderr).toBe('');
  return r.stdout;
}

describe('bin/lqsim.js', () => {
  it('runs the bundle of a clone built from its sources as they are', () => {
    expect(run(layout('fresh', { source: true, builtFrom: T0 }))).toBe('bundle\n');
  });

  it('runs the sources when one of them changed after the build, however deep', () => {
    const root = layout('stale', { source: true, builtFrom: T0 });
    utimesSync(join(root, 'src', 'cli', 'args.ts'), T1, T1);
    expect(run(root)).toBe('src\n');
  });

  it('runs the sources when tsconfig.json (the JSX setting of the bundle) changed after the build', () => {
    const root = layout('tsconfig', { source: true, builtFrom: T0 });
    utimesSync(join(root, 'tsconfig.json'), T1, T1);
    expect(run(root)).toBe('src\n');
  });

  it('runs the sources of a clone with no bundle built (or one being replaced: no BUILT_FROM)', () => {
    expect(run(layout('unbuilt', { source: true }))).toBe('src\n');
  });

  it('runs the sources when LQSIM_FROM_SOURCE=1, fresh bundle or not', () => {
    expect(run(layout('forced', { source: true, builtFrom: T1 }), { LQSIM_FROM_SOURCE: '1' })).toBe('src\n');
  });

  it('runs the bundle in a published package, which has no src/', () => {
    expect(run(layout('package', { source: false }))).toBe('bundle\n');
  });

  it('runs the bundle of a clone without dev dependencies while it is fresh: tsx is not needed', () => {
    expect(run(layout('fresh-no-dev', { source: true, builtFrom: T0, devDependencies: false }))).toBe('bundle\n');
  });

  it('says in one line why and what to run when the sources need tsx and it is not installed', () => {
    const stale = layout('stale-no-dev', { source: true, builtFrom: T0, devDependencies: false });
    utimesSync(join(stale, 'src', 'cli', 'args.ts'), T1, T1);
    const unbuilt = layout('unbuilt-no-dev', { source: true, devDependencies: false });
    rmSync(join(unbuilt, 'dist'), { recursive: true });
    for (const [root, why] of [
      [stale, 'src/ changed since the CLI bundle (dist/cli) was built'],
      [unbuilt, 'the CLI bundle (dist/cli) is not built'],
    ] as const) {
      const r = spawnBin(root);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `lqsim: ${why}, and tsx, which runs the sources, is not installed (a dev dependency): run npm ci in ${root}/\n`,
      );
    }
  });
});

describe('the CLI bundle (scripts/build-cli.mjs)', () => {
  // Built inside the package (it finds scenarios/ by walking up), beside the real one, then removed.
  const out = join(repo, 'dist', `cli-test-${process.pid}`);
  beforeAll(() => {
    execFileSync(process.execPath, [join(repo, 'scripts', 'build-cli.mjs'), '--out', out], { stdio: 'ignore' });
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  const both = (args: string[]): [string, string] => {
    const env = lqsimEnv();
    const bundle = execFileSync(process.execPath, [join(out, 'lqsim.js'), ...args], { env, encoding: 'utf8' });
    const source = execFileSync(
      process.execPath,
      [join(repo, 'bin', 'lqsim.js'), ...args],
      // The sources, whatever state dist/cli is in.
      { env: { ...env, LQSIM_FROM_SOURCE: '1' }, encoding: 'utf8' },
    );
    return [bundle, source];
  };

  it('lists the scenarios as the sources do (from the catalog its build validated)', () => {
    const [bundle, source] = both(['list']);
    expect(bundle).toContain('timeout-max-attempts');
    expect(bundle).toBe(source);
  });

  it("loads what it imports only when needed, as the sources do: Laravel 13's xxh128 throttle key (hash-wasm)", () => {
    const [bundle, source] = both(['run', 'throttled-exceptions', '--laravel', '13', '--format', 'ndjson']);
    // Queue/Middleware/ThrottlesExceptions.php@v13.26.1:257-270: prefix . hash('xxh128', get_class($job));
    // PHP 8.2: php -r 'echo hash("xxh128", "App\\Jobs\\SyncCrm");' prints the hash below.
    expect(bundle).toContain('laravel_throttles_exceptions:39d018654e97f1ea8dd639fa5e9ae58f');
    expect(bundle).toBe(source);
  });

  it('replays a scenario command for command as the sources do', () => {
    const [bundle, source] = both(['run', 'timeout-max-attempts', '--format', 'ndjson']);
    expect(bundle.split('\n').length).toBeGreaterThan(20);
    expect(bundle).toBe(source);
  });
});
