// bin/lqsim.js picks what to run: the sources in a clone (so an edit takes effect at once, even
// with a dist/ left behind by `npm pack`), the compiled dist/ in a published package (no src/).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'lqsim-bin-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A package directory with bin/lqsim.js, node_modules, and a stale dist/ that says so. */
function layout(name: string, withSource: boolean): string {
  const root = join(scratch, name);
  mkdirSync(join(root, 'bin'), { recursive: true });
  copyFileSync(join(repo, 'bin', 'lqsim.js'), join(root, 'bin', 'lqsim.js'));
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}');
  mkdirSync(join(root, 'dist', 'src'), { recursive: true });
  writeFileSync(join(root, 'dist', 'src', 'cli.js'), "console.log('dist');\n");
  if (withSource) {
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'cli.ts'), "const where: string = 'src';\nconsole.log(where);\n");
    copyFileSync(join(repo, 'tsconfig.json'), join(root, 'tsconfig.json'));
  }
  return root;
}

describe('bin/lqsim.js', () => {
  it('runs the sources of a clone, not a dist/ that npm pack left behind', () => {
    const root = layout('clone', true);
    const r = spawnSync(process.execPath, [join(root, 'bin', 'lqsim.js')], { cwd: scratch, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('src\n');
  });

  it('runs dist/ in a published package, which has no src/', () => {
    const root = layout('package', false);
    const r = spawnSync(process.execPath, [join(root, 'bin', 'lqsim.js')], { cwd: scratch, encoding: 'utf8' });
    expect(r.stdout).toBe('dist\n');
  });
});
