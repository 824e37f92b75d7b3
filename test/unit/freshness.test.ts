// bin/freshness.js: the sources' newest time, read one stat after another (the build's
// BUILT_FROM) or on libuv's threads (bin/lqsim.js, while it compiles the bundle): the same answer.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { builtFrom, newestSourceMtimeMs, newestSourceMtimeMsLater } from '../../bin/freshness.js';

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
  it('finds the newest time however deep, the same one step by step and on the threads', async () => {
    const root = tree('deep', { a: 1_000, b: 2_000, tsconfig: 1_500 });
    expect(newestSourceMtimeMs(root)).toBe(2_000_000);
    await expect(newestSourceMtimeMsLater(root)).resolves.toBe(2_000_000);
  });

  it('counts tsconfig.json (the JSX setting of the bundle), and an absent one as 0', async () => {
    const newer = tree('tsconfig', { a: 1_000, b: 2_000, tsconfig: 3_000 });
    expect(newestSourceMtimeMs(newer)).toBe(3_000_000);
    await expect(newestSourceMtimeMsLater(newer)).resolves.toBe(3_000_000);
    const none = tree('no-tsconfig', { a: 1_000, b: 2_000 });
    expect(newestSourceMtimeMs(none)).toBe(2_000_000);
    await expect(newestSourceMtimeMsLater(none)).resolves.toBe(2_000_000);
  });

  it("counts a directory's time: a file removed leaves the others as they were", async () => {
    const root = tree('removed', { a: 1_000, b: 2_000 });
    rmSync(join(root, 'src', 'deep', 'er', 'b.ts'));
    utimesSync(join(root, 'src', 'deep', 'er'), 3_000, 3_000);
    expect(newestSourceMtimeMs(root)).toBe(3_000_000);
    await expect(newestSourceMtimeMsLater(root)).resolves.toBe(3_000_000);
  });

  it('gives the same time for the project itself both ways', async () => {
    await expect(newestSourceMtimeMsLater(repo)).resolves.toBe(newestSourceMtimeMs(repo));
  });

  it('fails on a source it cannot read (a dangling link), both ways, rather than call the bundle fresh', async () => {
    const root = tree('dangling', { a: 1_000, b: 2_000 });
    symlinkSync(join(root, 'src', 'gone.ts'), join(root, 'src', 'deep', 'moved.ts'));
    expect(() => newestSourceMtimeMs(root)).toThrow(/ENOENT/);
    await expect(newestSourceMtimeMsLater(root)).rejects.toThrow(/ENOENT/);
  });

  it('fails at once when there is no src/ to walk', async () => {
    await expect(newestSourceMtimeMsLater(join(scratch, 'nowhere'))).rejects.toThrow(/ENOENT/);
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
