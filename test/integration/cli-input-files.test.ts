// What is given as a scenario file but cannot be one gets its own reason, in one line, exit 2, and
// costs neither time nor memory: a 50 MB file (once 73 s and 4.3 GB, then V8's out-of-memory), a
// symlink loop, a directory, a FIFO (which must not block) and /dev/zero (which never ends).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LQSIM_BIN, lqsim, lqsimEnv } from '../helpers/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lqsim-input-files-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `lqsim validate <file>` under GNU time: the exit code, stderr, wall time and peak RSS in MB. */
function timedValidate(file: string): Promise<{ code: number; stderr: string; seconds: number; rssMb: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    execFile(
      '/usr/bin/time',
      ['-f', 'peak-rss-kb:%M', process.execPath, LQSIM_BIN, 'validate', file],
      { env: lqsimEnv(), timeout: 60_000 },
      (error, _stdout, stderr) => {
        const kb = Number(/peak-rss-kb:(\d+)/.exec(stderr)?.[1] ?? NaN);
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stderr: stderr.replace(/^.*Command exited with non-zero status.*\n/m, '').replace(/^peak-rss-kb:.*\n?/m, ''),
          seconds: (Date.now() - started) / 1000,
          rssMb: kb / 1024,
        });
      },
    );
  });
}

describe('a scenario file too big', () => {
  it('50 MB is refused before it is parsed: at once, in the memory of an empty run', async () => {
    const file = join(dir, 'huge.yaml');
    const entry = '  - { at: 1, dispatch: A, note: a line of a generated timeline }\n';
    await writeFile(file, `name: huge\ntitle: t\ntimeline:\n${entry.repeat(Math.ceil((50 << 20) / entry.length))}`);
    const r = await timedValidate(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `lqsim: ${file}: the file is 50.0 MiB; a scenario file may be at most 1048576 bytes (1 MiB)\n`,
    );
    // As much memory as validating a 700-byte scenario (~100 MB: node and the loader): the file is
    // never read (reading it whole would add ~55 MB; parsing it took 4.3 GB).
    const small = await timedValidate('dispatch');
    expect(small.code).toBe(0);
    expect(r.rssMb).toBeLessThan(small.rssMb + 25);
    expect(r.seconds).toBeLessThan(10);
  });
});

describe('a path that is no scenario file says what it is', () => {
  it.each([
    [
      'a symlink loop',
      'loop.yaml',
      'cannot read: a symlink loop (ELOOP): a symbolic link on the way points back to itself',
    ],
    ['a directory', 'folder.yaml', 'cannot read: is a directory, not a scenario file'],
    ['a FIFO, without waiting for a writer', 'pipe.yaml', 'cannot read: not a regular file but a FIFO (named pipe)'],
    ['/dev/zero, without reading it', '/dev/zero', 'cannot read: not a regular file but a character device'],
  ])('%s', async (_what, name, reason) => {
    const path = name.startsWith('/') ? name : join(dir, name);
    if (name === 'loop.yaml') {
      await symlink(join(dir, 'loop-b.yaml'), path);
      await symlink(path, join(dir, 'loop-b.yaml'));
    } else if (name === 'folder.yaml') {
      await mkdir(path);
    } else if (name === 'pipe.yaml') {
      await new Promise<void>((resolve, reject) => execFile('mkfifo', [path], (e) => (e ? reject(e) : resolve())));
    }
    for (const command of [['validate'], ['run']]) {
      const r = await lqsim([...command, path]);
      expect(r.code, r.stderr).toBe(2);
      // One line, and refused before any Redis is started.
      expect(r.stderr).toBe(`lqsim: ${path}: ${reason}\n`);
    }
  });

  it('a missing file still says no such file', async () => {
    const r = await lqsim(['validate', join(dir, 'missing.yaml')]);
    expect(r).toMatchObject({ code: 2, stderr: `lqsim: ${join(dir, 'missing.yaml')}: no such file\n` });
  });
});
