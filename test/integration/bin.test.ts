// bin/lqsim.js picks what to run: in a clone, the CLI bundle (dist/cli/, scripts/build-cli.mjs)
// only while it was built from the sources as they are, else the sources through tsx (an edit
// takes effect at once, never hidden behind a stale bundle); in a published package (no src/),
// the bundle. And the bundle itself does what the sources do, with a code cache that is only ever
// a cache.
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
  for (const f of ['lqsim.js', 'freshness.js', 'load-bundle.js', 'package.json'])
    copyFileSync(join(repo, 'bin', f), join(root, 'bin', f));
  // Without dev dependencies there is no tsx (and nothing else this layout needs).
  if (o.devDependencies === false) mkdirSync(join(root, 'node_modules'));
  else symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}');
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  writeFileSync(join(root, 'dist', 'cli', 'lqsim.cjs'), "console.log('bundle');\n");
  if (o.builtFrom !== undefined) writeFileSync(join(root, 'dist', 'cli', 'BUILT_FROM'), `${o.builtFrom.getTime()}\n`);
  if (o.source) {
    mkdirSync(join(root, 'src', 'cli'), { recursive: true });
    writeFileSync(join(root, 'src', 'cli.ts'), "const where: string = 'src';\nconsole.log(where);\n");
    writeFileSync(join(root, 'src', 'cli', 'args.ts'), 'export {};\n');
    copyFileSync(join(repo, 'tsconfig.json'), join(root, 'tsconfig.json'));
    for (const f of ['src/cli.ts', 'src/cli/args.ts', 'tsconfig.json', 'src/cli', 'src'])
      utimesSync(join(root, f), T0, T0);
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

  it('runs the sources when a source was deleted after the build (its directory changed, no file did)', () => {
    const root = layout('deleted', { source: true, builtFrom: T0 });
    expect(run(root)).toBe('bundle\n');
    rmSync(join(root, 'src', 'cli', 'args.ts'));
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

  it('runs the sources when the bundle is gone though BUILT_FROM is there (being replaced right now)', () => {
    const root = layout('replaced', { source: true, builtFrom: T0 });
    rmSync(join(root, 'dist', 'cli', 'lqsim.cjs'));
    expect(run(root)).toBe('src\n');
  });

  it('runs the sources when a source cannot be read (a dangling link: src/ is being edited), not the bundle', () => {
    const root = layout('dangling', { source: true, builtFrom: T0 });
    symlinkSync(join(root, 'src', 'gone.ts'), join(root, 'src', 'cli', 'moved.ts'));
    utimesSync(join(root, 'src', 'cli'), T0, T0); // only the link's stat tells
    expect(run(root)).toBe('src\n');
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
  const loader = join(repo, 'test', 'fixtures', 'run-bundle.mjs');
  beforeAll(() => {
    execFileSync(process.execPath, [join(repo, 'scripts', 'build-cli.mjs'), '--out', out], { stdio: 'ignore' });
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  const both = (args: string[]): [string, string] => {
    const env = lqsimEnv();
    // Through the loader bin/lqsim.js uses (with a code cache in `out`), as the CLI runs it.
    const bundle = execFileSync(process.execPath, [loader, join(out, 'lqsim.cjs'), ...args], { env, encoding: 'utf8' });
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

  it("holds node-redis' client without the Redis Stack modules' commands (redisClientOnly)", () => {
    const text = readFileSync(join(out, 'lqsim.cjs'), 'latin1');
    expect(text).toContain('node_modules/@redis/client/dist/lib/client/index.js');
    for (const stack of ['bloom', 'json', 'search', 'time-series'])
      expect(text).not.toContain(`node_modules/@redis/${stack}/`);
  });

  it('is ASCII, which bin/load-bundle.js decodes as Latin-1, ~10 ms faster than UTF-8', () => {
    expect(isAscii(readFileSync(join(out, 'lqsim.cjs')))).toBe(true);
  });

  it('runs without the loader too, as CommonJS by Node itself (no code cache)', () => {
    const r = spawnSync(process.execPath, [join(out, 'lqsim.cjs'), 'list'], { env: lqsimEnv(), encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('timeout-max-attempts');
  });

  describe('its code cache (bin/load-bundle.js)', () => {
    const cacheDir = join(out, 'code-cache');
    const caches = (): string[] => (existsSync(cacheDir) ? readdirSync(cacheDir).sort() : []);
    const inode = (name: string): number => statSync(join(cacheDir, name)).ino;
    const DISPATCH = ['run', 'dispatch', '--format', 'ndjson'];
    const lqsimAt = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [loader, join(out, 'lqsim.cjs'), ...args], {
        env: lqsimEnv(env),
        encoding: 'utf8',
      });
    const lqsimAsync = (args: string[]): Promise<string> =>
      new Promise((resolve, reject) =>
        execFile(process.execPath, [loader, join(out, 'lqsim.cjs'), ...args], { env: lqsimEnv() }, (e, stdout) =>
          e ? reject(e) : resolve(stdout),
        ),
      );
    beforeEach(() => rmSync(cacheDir, { recursive: true, force: true }));

    it("is written by a command's first run that succeeds, and read, not written again, by the next", () => {
      // A streaming run sets a V8 flag for the run and puts it back (src/cli/v8-flags.ts): a cache
      // made under another flag would be rejected, and is not written.
      const first = lqsimAt(DISPATCH);
      expect(first.status).toBe(0);
      const [file] = caches();
      expect(caches()).toEqual([expect.stringMatching(/^run-\d+-\d+-\d+-\d+\.bin$/)]);
      const before = inode(file!);
      const second = lqsimAt(DISPATCH);
      expect(second.status).toBe(0);
      expect(second.stdout).toBe(first.stdout);
      // Accepted by V8: a rejected cache is replaced (renamed over: a new inode).
      expect(caches()).toEqual([file]);
      expect(inode(file!)).toBe(before);
      // Another command has its own.
      expect(lqsimAt(['list']).status).toBe(0);
      expect(caches()).toEqual([expect.stringMatching(/^list-/), file]);
    });

    it('is written by explain too, whose V8 flag is put back after it', () => {
      const seed = fileURLToPath(new URL('../fixtures/seed-003-capture.txt', import.meta.url));
      expect(lqsimAt(['explain', seed]).status).toBe(0);
      expect(caches()).toEqual([expect.stringMatching(/^explain-/)]);
    });

    it('is not written by a run that fails (its path is not what a run that works needs), or with LQSIM_CODE_CACHE=0', () => {
      expect(lqsimAt(['run', 'no-such-scenario']).status).toBe(2);
      expect(lqsimAt(DISPATCH, { LQSIM_CODE_CACHE: '0' }).status).toBe(0);
      expect(caches()).toEqual([]);
    });

    it('one V8 rejects (damaged) is replaced, and the run is the same', () => {
      const first = lqsimAt(DISPATCH);
      const [file] = caches();
      const path = join(cacheDir, file!);
      const size = statSync(path).size;
      writeFileSync(path, Buffer.alloc(size, 0x5a));
      const before = inode(file!);
      const second = lqsimAt(DISPATCH);
      expect(second.status).toBe(0);
      expect(second.stdout).toBe(first.stdout);
      expect(caches()).toEqual([file]);
      expect(inode(file!)).not.toBe(before);
      expect(readFileSync(path).equals(Buffer.alloc(size, 0x5a))).toBe(false);
    });

    it("belongs to one bundle: an edited bundle does not read the old bundle's cache, and removes it", () => {
      expect(lqsimAt(DISPATCH).status).toBe(0);
      const [old] = caches();
      // V8 checks the source's length, not its text: the bundle's identity is in the cache's name.
      const bundle = join(out, 'lqsim.cjs');
      const later = new Date(statSync(bundle).mtimeMs + 1000);
      utimesSync(bundle, later, later);
      expect(lqsimAt(DISPATCH).status).toBe(0);
      expect(caches()).toEqual([expect.stringMatching(/^run-/)]);
      expect(caches()).not.toEqual([old]);
    });

    it('where it cannot be written, the command runs as ever and says nothing about it', () => {
      const reference = lqsimAt(DISPATCH, { LQSIM_CODE_CACHE: '0' });
      writeFileSync(cacheDir, 'not a directory');
      try {
        const r = lqsimAt(DISPATCH);
        expect(r.status).toBe(0);
        expect(r.stdout).toBe(reference.stdout);
        expect(r.stderr.replace(/127\.0\.0\.1:\d+ \(pid \d+\)/, '')).toBe(
          reference.stderr.replace(/127\.0\.0\.1:\d+ \(pid \d+\)/, ''),
        );
        expect(readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      } finally {
        rmSync(cacheDir, { force: true });
      }
    });

    it('first runs in parallel leave one whole cache, which the next run reads', async () => {
      const outputs = await Promise.all([lqsimAsync(DISPATCH), lqsimAsync(DISPATCH), lqsimAsync(DISPATCH)]);
      expect(new Set(outputs).size).toBe(1);
      const [file] = caches();
      expect(caches()).toEqual([expect.stringMatching(/^run-.*\.bin$/)]);
      const before = inode(file!);
      expect(lqsimAt(DISPATCH).stdout).toBe(outputs[0]);
      expect(inode(file!)).toBe(before);
    });
  });

  describe('its cache of validated scenarios (src/scenarios/spec-cache.ts)', () => {
    const specDir = join(out, 'spec-cache');
    const specs = (): string[] => (existsSync(specDir) ? readdirSync(specDir).sort() : []);
    const scenarioFile = join(scratch, 'one-invoice.yaml');
    const text = [
      'name: one-invoice',
      'title: one job',
      'workers: [{ name: worker-1, sleep: 0, stop_when_empty: true }]',
      'jobs: { SendInvoice: { class: App\\Jobs\\SendInvoice } }',
      'timeline: [{ at: 0, dispatch: SendInvoice }]',
      '',
    ].join('\n');
    const sha256 = (t: string): string => createHash('sha256').update(t).digest('hex');
    const runIt = (env: Record<string, string> = {}, file = scenarioFile) =>
      spawnSync(process.execPath, [loader, join(out, 'lqsim.cjs'), 'run', file, '--format', 'ndjson'], {
        env: lqsimEnv(env),
        encoding: 'utf8',
      });
    beforeEach(() => {
      rmSync(specDir, { recursive: true, force: true });
      writeFileSync(scenarioFile, text);
    });

    it("keeps a run's validated spec under the bundle's identity and the text's hash, and the next run reads it", () => {
      const first = runIt();
      expect(first.status).toBe(0);
      const { ino, size, mtimeNs } = statSync(join(out, 'lqsim.cjs'), { bigint: true });
      const name = `${ino}-${size}-${mtimeNs}-${sha256(text)}.bin`;
      expect(specs()).toEqual([name]);
      // Read, not validated again: a spec changed in the cache is what the next run replays (the
      // cache is trusted as the bundle is: both are the package's own files).
      const path = join(specDir, name);
      const cached = deserialize(readFileSync(path)) as {
        sha256: string;
        spec: { jobs: Record<string, { class: string }> };
      };
      expect(cached.sha256).toBe(sha256(text));
      cached.spec.jobs.SendInvoice!.class = 'App\\Jobs\\CachedSpecX';
      writeFileSync(path, serialize(cached));
      const second = runIt();
      expect(second.status).toBe(0);
      expect(second.stdout).toBe(first.stdout.replaceAll('SendInvoice', 'CachedSpecX'));
      expect(second.stdout).not.toBe(first.stdout);
    });

    it('replays what the text says once it changes: a new hash, a new entry', () => {
      const first = runIt();
      writeFileSync(scenarioFile, text.replace('dispatch: SendInvoice', 'dispatch: SendInvoice, count: 2'));
      const second = runIt();
      expect(second.status).toBe(0);
      expect(second.stdout).not.toBe(first.stdout);
      expect(specs()).toHaveLength(2);
      // And the same as the sources replay.
      const source = spawnSync(
        process.execPath,
        [join(repo, 'bin', 'lqsim.js'), 'run', scenarioFile, '--format', 'ndjson'],
        {
          env: lqsimEnv({ LQSIM_FROM_SOURCE: '1' }),
          encoding: 'utf8',
        },
      );
      expect(second.stdout).toBe(source.stdout);
    });

    it('a damaged entry, or one of another text, is not read: the text is validated again and the entry replaced', () => {
      const first = runIt();
      const [name] = specs();
      const path = join(specDir, name!);
      for (const damage of [
        Buffer.from('not a serialized value'),
        serialize({ sha256: sha256('another text'), spec: { name: 'another' } }),
      ]) {
        writeFileSync(path, damage);
        const again = runIt();
        expect(again.status).toBe(0);
        expect(again.stdout).toBe(first.stdout);
        expect(specs()).toEqual([name]);
        expect((deserialize(readFileSync(path)) as { sha256: string }).sha256).toBe(sha256(text));
      }
    });

    it('keeps nothing for a text that does not validate, and says what is wrong as ever', () => {
      writeFileSync(scenarioFile, text.replace('dispatch: SendInvoice', 'dispatch: SendInvoise'));
      const r = runIt();
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('one-invoice.yaml:5');
      expect(r.stderr).toContain('unknown job "SendInvoise"');
      expect(specs()).toEqual([]);
    });

    it("belongs to one bundle: an edited bundle validates again, and removes the old bundle's entries", () => {
      expect(runIt().status).toBe(0);
      const [old] = specs();
      const bundle = join(out, 'lqsim.cjs');
      const later = new Date(statSync(bundle).mtimeMs + 1000);
      utimesSync(bundle, later, later);
      expect(runIt().status).toBe(0);
      expect(specs()).toHaveLength(1);
      expect(specs()).not.toEqual([old]);
    });

    it('is neither read nor written with LQSIM_CODE_CACHE=0, by Node running the bundle itself, or by the sources', () => {
      expect(runIt({ LQSIM_CODE_CACHE: '0' }).status).toBe(0);
      const direct = spawnSync(process.execPath, [join(out, 'lqsim.cjs'), 'run', scenarioFile], {
        env: lqsimEnv(),
        encoding: 'utf8',
      });
      expect(direct.status).toBe(0);
      expect(specs()).toEqual([]);
      const sourceDir = join(repo, 'src', 'scenarios', 'spec-cache');
      const source = spawnSync(process.execPath, [join(repo, 'bin', 'lqsim.js'), 'run', scenarioFile], {
        env: lqsimEnv({ LQSIM_FROM_SOURCE: '1' }),
        encoding: 'utf8',
      });
      expect(source.status).toBe(0);
      expect(existsSync(sourceDir)).toBe(false);
    });

    it('where it cannot be written, the run is the same and says nothing about it', () => {
      const reference = runIt({ LQSIM_CODE_CACHE: '0' });
      writeFileSync(specDir, 'not a directory');
      try {
        const r = runIt();
        expect(r.status).toBe(0);
        expect(r.stdout).toBe(reference.stdout);
        expect(r.stderr.replace(/127\.0\.0\.1:\d+ \(pid \d+\)/, '')).toBe(
          reference.stderr.replace(/127\.0\.0\.1:\d+ \(pid \d+\)/, ''),
        );
      } finally {
        rmSync(specDir, { force: true });
      }
    });
  });
});
