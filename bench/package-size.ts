// The package as `npm pack` makes it, from a copy of this clone: the same sources, build and
// prepack, without rebuilding the clone's own dist/ (the package's bundle has no source maps) or
// touching its package.json. Used by `npm run bench` (its size) and test/integration/package.test.ts
// (installed into a fresh project).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Goal } from './measure.ts';

export interface PackedPackage {
  /** The .tgz written. */
  file: string;
  /** Bytes of the .tgz. */
  size: number;
  /** Bytes of its files, unpacked. */
  unpackedSize: number;
  entryCount: number;
  /** The packed paths, relative to the package root. */
  paths: string[];
  /** The copy it was packed from. */
  copy: string;
}

/** What the build reads besides the package's own `files`. */
const BUILD_INPUTS = ['package.json', 'README.md', 'tsconfig.json', 'tsconfig.build.json', 'src', 'scripts', 'bin'];

/**
 * The environment of an npm run nested in another one (`npm test`, `npm run bench`): without the
 * outer run's lifecycle and package variables, which would describe the wrong package.
 */
export function npmEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([k]) => !/^npm_(package_|lifecycle_|command$|config_local_prefix$)/i.test(k) && k !== 'INIT_CWD',
    ),
  );
}

/** Copies what the package is built from into `dir`/src-copy (its node_modules a link to the clone's) and packs it into `dir`. */
export function packCopy(root: string, dir: string): PackedPackage {
  const copy = join(dir, 'src-copy');
  mkdirSync(copy, { recursive: true });
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
  const tops = new Set([...BUILD_INPUTS, ...pkg.files.map((f) => f.split('/')[0]!).filter((f) => f !== 'dist')]);
  for (const top of tops) cpSync(join(root, top), join(copy, top), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: copy,
    env: npmEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    // A build takes ~20 s here; a hung one must not hold a test worker forever (a sync call
    // blocks Vitest's own timeouts).
    timeout: 150_000,
  });
  // npm pack --json prints the scripts' output too, before its JSON array.
  const [packed] = JSON.parse(out.slice(out.indexOf('\n[') + 1)) as [
    { filename: string; size: number; unpackedSize: number; entryCount: number; files: { path: string }[] },
  ];
  return {
    file: join(dir, packed.filename),
    size: packed.size,
    unpackedSize: packed.unpackedSize,
    entryCount: packed.entryCount,
    paths: packed.files.map((f) => f.path),
    copy,
  };
}

/** The package's size, and what installing it into an empty project brings (needs the registry). */
export function packageFigures(root: string, dir: string): { lines: string[]; goal: Goal | null } {
  const lines: string[] = [];
  let goal: Goal | null = null;
  const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(2)} MB`;
  try {
    const pack = packCopy(root, dir);
    lines.push(`${mb(pack.size)} packed, ${mb(pack.unpackedSize)} unpacked, ${pack.entryCount} files`);
    goal = {
      goal: '`npm pack` size',
      tool: `${mb(pack.size)} (${mb(pack.unpackedSize)} unpacked, ${pack.entryCount} files)`,
      reference: '',
      value: pack.size / 1e6,
      target: '≤ 2 MB packed',
      met: pack.size <= 2e6,
    };
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{"name":"app","private":true}');
    const t0 = performance.now();
    execFileSync('npm', ['install', pack.file, '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: app,
      env: npmEnv(),
      stdio: 'ignore',
    });
    const took = performance.now() - t0;
    // npm query '*' lists the project itself too.
    const packages =
      (JSON.parse(execFileSync('npm', ['query', '*'], { cwd: app, env: npmEnv(), encoding: 'utf8' })) as unknown[])
        .length - 1;
    lines.push(`npm install of it into an empty project: ${packages} packages, ${(took / 1000).toFixed(1)} s`);
  } catch (e) {
    lines.push(`not measured: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  return { lines, goal };
}
