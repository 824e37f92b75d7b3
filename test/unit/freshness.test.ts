// bin/freshness.js: the sources' newest time (the build's BUILT_FROM, and bin/lqsim.js' check of
// it at every start of a clone).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { builtFrom, newestSourceMtimeMs } from '../../bin/freshness.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'lqsim-freshness-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A root with src/a.ts, src/deep/er/b.ts and tsconfig.json, each at its own time (seconds); the directories at 0. */
function tree(name: string, times: { a: number; b: number; tsconfig?: number }): string {
  const root = join(scratch, name);
  mkdirSync(join(root, 'src', 'deep', 'er'), { recursive: true });
  const put = (file: string, at: number): void => {
    writeFileSync(join(root, file), '');
    utimesSync(join(root, file), at, at);
  };
  put('src/a.ts', times.a);
  put('src/deep/er/b.ts', times.b);
  if (times.tsconfig !== undefined) put('tsconfig.json', times.tsconfig);
  for (const dir of ['src/deep/er', 'src/deep', 'src']) utimesSync(join(root, dir), 0, 0);
  return root;
}

describe('bin/freshness.js', () => {
  it('finds the newest time however deep', () => {
    const root = tree('deep', { a: 1_000, b: 2_000, tsconfig: 1_500 });
    expect(newestSourceMtimeMs(root)).toBe(2_000_000);
  });

  it('counts tsconfig.json (the JSX setting of the bundle), and an absent one as 0', () => {
    const newer = tree('tsconfig', { a: 1_000, b: 2_000, tsconfig: 3_000 });
    expect(newestSourceMtimeMs(newer)).toBe(3_000_000);
    const none = tree('no-tsconfig', { a: 1_000, b: 2_000 });
    expect(newestSourceMtimeMs(none)).toBe(2_000_000);
  });

  it("counts a directory's time: a file removed leaves the others as they were", () => {
    const root = tree('removed', { a: 1_000, b: 2_000 });
    rmSync(join(root, 'src', 'deep', 'er', 'b.ts'));
    utimesSync(join(root, 'src', 'deep', 'er'), 3_000, 3_000);
    expect(newestSourceMtimeMs(root)).toBe(3_000_000);
  });

  it("gives the project's own newest time: that of its newest file or directory under src/, or tsconfig.json", () => {
    // find(1)'s %T@ is seconds with a fraction; the walk's times are stat's, in ms.
    const listed = execFileSync('find', [join(repo, 'src'), join(repo, 'tsconfig.json'), '-printf', '%T@\\n'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .map((t) => Number(t) * 1000);
    expect(Math.abs(newestSourceMtimeMs(repo) - Math.max(...listed))).toBeLessThan(1);
  });

  it('fails on a source it cannot read (a dangling link) rather than call the bundle fresh', () => {
    const root = tree('dangling', { a: 1_000, b: 2_000 });
    symlinkSync(join(root, 'src', 'gone.ts'), join(root, 'src', 'deep', 'moved.ts'));
    expect(() => newestSourceMtimeMs(root)).toThrow(/ENOENT/);
  });

  it('fails when there is no src/ to walk', () => {
    expect(() => newestSourceMtimeMs(join(scratch, 'nowhere'))).toThrow(/ENOENT/);
  });

  it('follows a link to a file for its time, and does not walk into a linked directory', () => {
    const root = tree('links', { a: 1_000, b: 2_000 });
    const outside = join(scratch, 'links-outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'newer.ts'), '');
    utimesSync(join(outside, 'newer.ts'), 4_000, 4_000);
    utimesSync(outside, 1_500, 1_500);
    symlinkSync(outside, join(root, 'src', 'linked-dir'));
    utimesSync(join(root, 'src'), 0, 0); // the link's own making is not what is asked here
    expect(newestSourceMtimeMs(root)).toBe(2_000_000); // the directory's own time (1,500 s), not its file's
    symlinkSync(join(outside, 'newer.ts'), join(root, 'src', 'linked.ts'));
    utimesSync(join(root, 'src'), 0, 0);
    expect(newestSourceMtimeMs(root)).toBe(4_000_000);
  });

  it('reads BUILT_FROM: the time, or null where there is none or it is not a number', () => {
    const root = join(scratch, 'built');
    mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
    expect(builtFrom(root)).toBeNull();
    writeFileSync(join(root, 'dist', 'cli', 'BUILT_FROM'), '1767225600000\n');
    expect(builtFrom(root)).toBe(1_767_225_600_000);
    writeFileSync(join(root, 'dist', 'cli', 'BUILT_FROM'), 'half-written');
    expect(builtFrom(root)).toBeNull();
  });
});
