// The real `lqsim` binary as a child process: Ctrl-C (SIGINT) and SIGTERM mid-run must end it with
// the shell's 128+signo code (cleanup.ts) and take its redis-server and temp dir with it; a normal
// run must do the same; bad input must be one `lqsim: ...` line and exit 2 (cli.ts `report`).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { processEnded, waitFor } from '../helpers/process.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(repoRoot, 'bin', 'lqsim.js');
const SCENARIO = 'timeout-max-attempts';
// local-server.ts: mkdtempSync(join(tmpdir(), 'lqsim-redis-')).
const DIR_PREFIX = 'lqsim-redis-';
const ANNOUNCE = /^lqsim: using local redis-server \S+ on 127\.0\.0\.1:\d+ \(pid (\d+)\)$/m;
const STARTUP_MS = 20_000;
const EXIT_MS = 5_000;
const GONE_MS = 3_000;

/** Pins the local binary (no Docker probe, no REDIS_URL) so the stderr line names a pid we can watch. */
function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.REDIS_URL;
  delete env.LQSIM_DEBUG;
  return { ...env, LQSIM_REDIS: 'local', FORCE_COLOR: '0' };
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** The redis-server pid from the stderr announcement, once seen. */
  redisPid: () => number | undefined;
  /** That server's temp dir, read from /proc while it ran (redis-server chdirs into --dir). */
  redisDir: () => string | undefined;
  exited: Promise<Exit>;
}

const children: ChildProcess[] = [];
const redisPids: number[] = [];

function startCli(args: string[], opts: { detached?: boolean } = {}): CliRun {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: repoRoot,
    env: cliEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached ?? false,
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  let pid: number | undefined;
  let dir: string | undefined;
  child.stdout?.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    stderr += s;
    const m = pid === undefined ? ANNOUNCE.exec(stderr) : null;
    if (m) {
      pid = Number(m[1]);
      redisPids.push(pid);
      // Read at once: the server is up when announced, and a normal run stops it soon after.
      dir = cwdOf(pid);
    }
  });
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => stdout, stderr: () => stderr, redisPid: () => pid, redisDir: () => dir, exited };
}

function cwdOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined; // no /proc (macOS): the temp-dir check falls back to listing tmpdir()
  }
}

function tempDirs(): Set<string> {
  return new Set(
    readdirSync(tmpdir())
      .filter((n) => n.startsWith(DIR_PREFIX))
      .map((n) => join(tmpdir(), n)),
  );
}

async function exitWithin(run: CliRun, ms: number): Promise<Exit | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  try {
    return await Promise.race([run.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for the first step on stdout and the redis-server pid on stderr. */
async function waitForFirstStep(run: CliRun): Promise<number> {
  let closed = false;
  void run.exited.then(() => (closed = true));
  const ok = await waitFor(() => closed || (/^#0 /m.test(run.stdout()) && run.redisPid() !== undefined), STARTUP_MS);
  if (!ok || closed || run.redisPid() === undefined) {
    throw new Error(
      `lqsim did not reach step #0 with a redis-server pid (exited: ${closed})\nstderr:\n${run.stderr()}`,
    );
  }
  return run.redisPid()!;
}

/** The run's redis-server has ended and its temp dir is gone. */
async function expectRedisCleanedUp(run: CliRun, dirsBefore: Set<string>): Promise<void> {
  const pid = run.redisPid();
  expect(pid, `no redis-server announced on stderr:\n${run.stderr()}`).toBeTypeOf('number');
  expect(await waitFor(() => processEnded(pid!), GONE_MS), `redis-server pid ${pid} still running`).toBe(true);
  const dir = run.redisDir();
  if (dir !== undefined) {
    expect(dir.startsWith(join(tmpdir(), DIR_PREFIX)), `redis-server ran in ${dir}`).toBe(true);
    expect(existsSync(dir), `${dir} left behind`).toBe(false);
  } else {
    expect([...tempDirs()].filter((d) => !dirsBefore.has(d))).toEqual([]);
  }
}

afterEach(() => {
  // A failed assertion must not leak what this file started.
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const pid of redisPids.splice(0)) {
    if (!processEnded(pid)) process.kill(pid, 'SIGKILL');
  }
});

describe('lqsim run stopped by a signal mid-run', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: exits %i within seconds, stops its redis-server and removes its temp dir', async (signal, code) => {
    const dirsBefore = tempDirs();
    const run = startCli(['run', SCENARIO, '--pace', '300']);
    await waitForFirstStep(run);

    const sentAt = Date.now();
    run.child.kill(signal);
    const exit = await exitWithin(run, EXIT_MS);

    expect(exit, `stderr:\n${run.stderr()}`).toEqual({ code, signal: null });
    expect(Date.now() - sentAt).toBeLessThan(EXIT_MS);
    await expectRedisCleanedUp(run, dirsBefore);
  });

  it('Ctrl-C in a terminal (SIGINT to the whole process group, redis-server included): exits 130 and cleans up', async () => {
    const dirsBefore = tempDirs();
    const run = startCli(['run', SCENARIO, '--pace', '300'], { detached: true });
    await waitForFirstStep(run);

    process.kill(-run.child.pid!, 'SIGINT');
    const exit = await exitWithin(run, EXIT_MS);

    expect(exit, `stderr:\n${run.stderr()}`).toEqual({ code: 130, signal: null });
    await expectRedisCleanedUp(run, dirsBefore);
  });
});

describe('lqsim run whose reader goes away (lqsim run x | head -1)', () => {
  it('stops as SIGPIPE would: exit 141, no EPIPE stack trace, its redis-server and temp dir gone', async () => {
    const dirsBefore = tempDirs();
    const run = startCli(['run', 'migrate-chunking', '--pace', '100']);
    await waitForFirstStep(run);
    run.child.stdout!.destroy(); // what head does after its first line
    const exit = await exitWithin(run, EXIT_MS);
    expect(exit, `stderr:\n${run.stderr()}`).toEqual({ code: 141, signal: null });
    expect(run.stderr()).not.toMatch(/EPIPE|at .*\(|Unhandled/);
    await expectRedisCleanedUp(run, dirsBefore);
  });
});

describe('lqsim run to the end', () => {
  it('a json export larger than a pipe holds (64 KiB) reaches a slow reader whole', () => {
    // The reader starts reading after a second: by then the export is written, and a process that
    // exited without waiting for the pipe to drain would have lost all but the first 64 KiB.
    const r = spawnSync(
      'sh',
      ['-c', `'${process.execPath}' '${cli}' run killed-mid-job --format json | (sleep 1; cat)`],
      {
        cwd: repoRoot,
        env: cliEnv(),
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(65_536);
    expect((JSON.parse(r.stdout) as { scenario: { name: string } }).scenario.name).toBe('killed-mid-job');
  });

  it('exits 0 and leaves no redis-server or temp dir behind', async () => {
    const dirsBefore = tempDirs();
    const run = startCli(['run', SCENARIO]);
    const exit = await exitWithin(run, STARTUP_MS);

    expect(exit, `stderr:\n${run.stderr()}`).toEqual({ code: 0, signal: null });
    expect(run.stdout()).toMatch(/^#0 /m);
    await expectRedisCleanedUp(run, dirsBefore);
  });
});

describe('lqsim run with bad input', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'cli-signals-test-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** Exit 2, nothing on stdout, and exactly one `lqsim: ` line on stderr with no stack trace. */
  async function expectOneLineUsageError(args: string[]): Promise<string> {
    const run = startCli(args);
    const exit = await exitWithin(run, STARTUP_MS);
    const stderr = run.stderr();
    expect(exit, `stderr:\n${stderr}`).toEqual({ code: 2, signal: null });
    expect(run.stdout()).toBe('');
    expect(stderr).toMatch(/^lqsim: [^\n]+\n$/);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(run.redisPid()).toBeUndefined();
    return stderr;
  }

  it('a scenario path that does not exist: exit 2, one line naming the file', async () => {
    const file = join(scratch, 'missing.yaml');
    expect(await expectOneLineUsageError(['run', file])).toContain(file);
  });

  it('a scenario file that is not valid YAML: exit 2, one line naming the file', async () => {
    const file = join(scratch, 'broken.yaml');
    writeFileSync(file, 'name: broken\ntimeline: [\n  - at: 0\n');
    expect(await expectOneLineUsageError(['run', file])).toContain(file);
  });

  it('an unknown scenario name: exit 2, one line', async () => {
    expect(await expectOneLineUsageError(['run', 'nosuch'])).toContain('nosuch');
  });
});
