// The package as a user gets it: `npm pack` (of a copy of this clone, bench/package-size.ts), then
// `npm install <tgz>` into a fresh project from the registry, as a user's app would, with vitest
// beside it (the /vitest entry's optional peer) and nothing else. There:
// - no install-time script of ours is in the manifest, and no package of the tree has one (no
//   native build: the testcontainers stack is an optional peer dependency, left out);
// - `npx lqsim` runs its bundle: --version, list, and a run against a real redis-server, with
//   neither tsx nor testcontainers installed; with a Docker engine configured it says in one line
//   how to enable Docker, and goes on to the local binary;
// - no file names a source map that is missing, and no map names a source it neither carries nor
//   has beside it;
// - the library's entries import, and a Vitest test written against the README's library section
//   passes.
// Slow (a build and an install, ~40 s here), hence the long timeouts.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmEnv, packCopy, type PackedPackage } from '../../bench/package-size.ts';
import { lqsimEnv } from '../helpers/cli.ts';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  devDependencies: Record<string, string>;
};
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'];

const scratch = mkdtempSync(join(tmpdir(), 'lqsim-package-'));
const app = join(scratch, 'app');
const installed = join(app, 'node_modules', manifest.name);
let packed: PackedPackage;
let installLog: string;

beforeAll(() => {
  packed = packCopy(repo, scratch);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  const r = spawnSync(
    'npm',
    [
      'install',
      packed.file,
      `vitest@${manifest.devDependencies.vitest}`,
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--foreground-scripts',
    ],
    { cwd: app, env: npmEnv(), encoding: 'utf8', timeout: 150_000 },
  );
  installLog = `${r.stdout}${r.stderr}`;
  expect(r.status, installLog).toBe(0);
}, 320_000); // each sync step has its own timeout (150 s): Vitest's cannot interrupt them

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `npx --no <args>` in the app: only what is installed there. */
function npx(args: string[], env: Record<string, string> = {}) {
  return spawnSync('npx', ['--no', '--', ...args], {
    cwd: app,
    env: npmEnv(lqsimEnv(env)),
    encoding: 'utf8',
    timeout: 50_000,
  });
}

describe('the packed package', () => {
  it('packs the way it was packed: package.json put back as it was, nothing left aside', () => {
    expect(readFileSync(join(packed.copy, 'package.json'), 'utf8')).toBe(
      readFileSync(join(repo, 'package.json'), 'utf8'),
    );
    expect(existsSync(join(packed.copy, 'package.json.prepack'))).toBe(false);
  });

  it('is small: no source tree, no bundle maps (bounds with room; `npm run bench` prints the figures)', () => {
    // With the cache store on Redis: 2.01 MB packed, 7.8 MB unpacked, 848 entries (dist/src: a .js,
    // a .d.ts and a map per module of the library; dist/cli: the bundle's chunks, without maps).
    expect(packed.size).toBeLessThan(2_500_000);
    expect(packed.unpackedSize).toBeLessThan(10_000_000);
    expect(packed.entryCount).toBeLessThan(1000);
    expect(
      packed.paths.filter(
        (p) => p.startsWith('src/') || (p.startsWith('dist/cli/') && (p.endsWith('.map') || p.includes('code-cache'))),
      ),
    ).toEqual([]);
  });
});

describe('installed into a fresh project', () => {
  it('carries no install-time script, and none runs in its tree', () => {
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    expect(Object.keys(pkg.scripts ?? {}).filter((s) => INSTALL_SCRIPTS.includes(s))).toEqual([]);
    // npm's own view of the tree: no package with a script npm runs on install.
    for (const script of ['preinstall', 'install', 'postinstall']) {
      const found = JSON.parse(
        execFileSync('npm', ['query', `:attr(scripts, [${script}])`], { cwd: app, env: npmEnv(), encoding: 'utf8' }),
      ) as { name: string }[];
      expect(found.map((p) => p.name)).toEqual([]);
    }
    // --foreground-scripts prints every script it runs ("> name@version script").
    expect(installLog).not.toMatch(/^> /m);
    expect(installLog).not.toMatch(/install-scripts/);
  });

  it('brings neither tsx nor the testcontainers stack', () => {
    for (const name of ['tsx', 'testcontainers', '@testcontainers/redis', 'ssh2', 'cpu-features', 'esbuild'])
      expect(existsSync(join(app, 'node_modules', name)), name).toBe(false);
  });

  it('npx lqsim --version and list run from the bundle', () => {
    const version = npx(['lqsim', '--version']);
    expect(version.stderr).toBe('');
    expect(version.stdout).toBe(`${manifest.version}\n`);
    const list = npx(['lqsim', 'list']);
    expect(list.status).toBe(0);
    const names = readdirSync(join(repo, 'scenarios')).map((f) => f.replace(/\.yaml$/, ''));
    for (const name of names) expect(list.stdout).toMatch(new RegExp(`^${name} `, 'm'));
  });

  it('npx lqsim run dispatch replays against a local redis-server; a Docker engine without testcontainers gets one line on how to enable it', () => {
    const r = npx(['lqsim', 'run', 'dispatch', '--format', 'ndjson'], {
      LQSIM_REDIS: '',
      DOCKER_HOST: `unix://${join(scratch, 'no-docker.sock')}`,
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'lqsim: Docker not used: testcontainers is not installed; to use Docker: npm i -D testcontainers@11.14 @testcontainers/redis@11.14',
    );
    expect(lines[1]).toMatch(/^lqsim: using local redis-server /);
    // Laravel 5.7's dispatch (RedisQueue::pushRaw): the web request's connection selects db 0 and
    // RPUSHes the payload, attempts 0.
    const commands = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { args: string[] }).args);
    expect(commands.map((a) => a.slice(0, 2))).toEqual([
      ['SELECT', '0'],
      ['RPUSH', 'queues:default'],
    ]);
    expect(JSON.parse(commands[1]![2]!)).toMatchObject({ attempts: 0, displayName: 'App\\Jobs\\SendWelcomeEmail' });
  });

  it('names no source map that is missing, and no map names a source it neither carries nor has', () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else files.push(join(dir, e.name));
      }
    };
    walk(join(installed, 'dist'));
    const maps = files.filter((f) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const js of files.filter((f) => f.endsWith('.js'))) {
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(js, 'utf8'))?.[1];
      if (url !== undefined && !url.startsWith('data:')) expect(existsSync(resolve(dirname(js), url)), js).toBe(true);
    }
    for (const map of maps) {
      const m = JSON.parse(readFileSync(map, 'utf8')) as {
        sources: string[];
        sourceRoot?: string;
        sourcesContent?: (string | null)[];
      };
      m.sources.forEach((source, i) => {
        const carried = typeof m.sourcesContent?.[i] === 'string';
        const beside = existsSync(resolve(dirname(map), m.sourceRoot ?? '', source));
        expect(carried || beside, `${map}: ${source}`).toBe(true);
      });
    }
  });

  it('imports as a library, and a Vitest test written from the README passes', () => {
    const imports = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const lib = await import('laravel-queue-sim');
         const testing = await import('laravel-queue-sim/testing');
         const setup = await import('laravel-queue-sim/vitest-global-setup');
         console.log([typeof lib.runScenario, typeof lib.scenario, typeof lib.acquireRedis, typeof testing.payload, typeof setup.default].join(' '));`,
      ],
      { cwd: app, encoding: 'utf8' },
    );
    expect(imports.stderr).toBe('');
    expect(imports.stdout).toBe('function function function function function\n');

    writeFileSync(
      join(app, 'dispatch.test.js'),
      `import { afterAll, beforeAll, expect, it } from 'vitest';
import { acquireRedis, runScenario, scenario } from 'laravel-queue-sim';
import { payload } from 'laravel-queue-sim/testing';
import 'laravel-queue-sim/vitest';

const send = scenario('send', 'SendInvoice is dispatched').laravel('5.7')
  .connection('redis', { queue: 'default' })
  .job('SendInvoice', { class: 'App\\\\Jobs\\\\SendInvoice' })
  .dispatch('SendInvoice', { at: 0 })
  .build();
let redis;
let trace;
beforeAll(async () => {
  redis = await acquireRedis();
  trace = await runScenario(send, { redis });
});
afterAll(() => redis?.stop());
it('sends what Laravel 5.7 sends', () => {
  expect(trace).toMatchRedisCommands(['SELECT 0', ['RPUSH', 'queues:default', payload({ attempts: 0 })]]);
});
`,
    );
    const r = npx(['vitest', 'run', 'dispatch.test.js'], { LQSIM_REDIS: 'local', CI: '1' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/1 passed/);
  }, 60_000);
});
