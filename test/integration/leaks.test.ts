// Nothing the CLI starts may outlive it, however it ends: the CLI is started 30 times and killed
// after a random delay (seeded, so a failure can be replayed) with SIGINT, SIGTERM or SIGKILL, at
// every stage (loading, starting redis-server, mid-run, cleaning up). Afterwards no
// redis-server, no watchdog shell and no temp dir of those runs may remain. SIGKILL cannot be
// caught: there the watchdog started beside redis-server (local-server.ts) must do the cleanup.
// The runs get their own TMPDIR, so servers and dirs of anything else on the machine never count.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { processesIn, waitFor } from '../helpers/process.ts';

const cli = fileURLToPath(new URL('../../bin/lqsim.js', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'lqsim-leaks-'));
afterAll(() => {
  // A failed run of this test must not leave its leftovers running: end them by pid.
  for (const entry of leftovers()) {
    try {
      process.kill(Number(entry.split(':')[0]), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(scratch, { recursive: true, force: true });
});

const RUNS = 30;
const PARALLEL = 3;
const SEED = 6;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGKILL'] as const;

/** mulberry32: a tiny seeded PRNG, so the delays and signals are the same on every run. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Live processes whose cwd or command line points into the scratch TMPDIR. */
const leftovers = (): string[] => processesIn(scratch);

/** The temp dirs lqsim makes (lqsim-redis-*); tsx keeps its compile cache (tsx-0) there too. */
const ourDirs = (): string[] => readdirSync(scratch).filter((n) => n.startsWith('lqsim-'));

interface Outcome {
  signal: string;
  /** The kill came after the CLI announced its redis-server (else: while loading or starting it). */
  afterRedis: boolean;
  delayMs: number;
  exitedWithinMs: number;
}

const ANNOUNCED = /^lqsim: using local redis-server /m;

/**
 * One CLI, killed by a random signal: a third of the time at a random point of its start (the
 * server may or may not be up), else at a random point after it announced its redis-server
 * (mid-run, during cleanup, or after the run: timeout-max-attempts paced takes ~1 s).
 */
async function killOnce(random: () => number, first?: (typeof SIGNALS)[number]): Promise<Outcome> {
  const signal = first ?? SIGNALS[Math.floor(random() * SIGNALS.length)]!;
  const early = first !== undefined || random() < 1 / 3;
  // Each signal's first run is sent at once, before Node has loaded the CLI: the "before a
  // redis-server" case then never depends on how fast this machine starts one.
  const delayMs = first !== undefined ? 0 : Math.floor(random() * (early ? 1200 : 1500));
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: scratch, LQSIM_REDIS: 'local', FORCE_COLOR: '0' };
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [cli, 'run', 'timeout-max-attempts', '--pace', '100'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  let exited = false;
  const closed = new Promise<void>((r) => child.on('close', () => r()));
  void closed.then(() => (exited = true));
  if (!early) await waitFor(() => exited || ANNOUNCED.test(stderr), 20_000);
  await new Promise((r) => setTimeout(r, delayMs));
  const afterRedis = ANNOUNCED.test(stderr);
  const sentAt = Date.now();
  child.kill(signal);
  await closed;
  return { signal, afterRedis, delayMs, exitedWithinMs: Date.now() - sentAt };
}

describe('killing the CLI at random points', () => {
  it(`leaves no redis-server, watchdog or temp dir behind (${RUNS} runs, seed ${SEED})`, async () => {
    const random = prng(SEED);
    const outcomes: Outcome[] = [];
    outcomes.push(...(await Promise.all(SIGNALS.map((s) => killOnce(random, s)))));
    for (let i = SIGNALS.length; i < RUNS; i += PARALLEL) {
      outcomes.push(
        ...(await Promise.all(Array.from({ length: Math.min(PARALLEL, RUNS - i) }, () => killOnce(random)))),
      );
    }
    // Every signal was sent both before and after a redis-server was up.
    for (const s of SIGNALS) {
      expect(
        outcomes.filter((o) => o.signal === s && o.afterRedis).length,
        `${s} after redis-server started`,
      ).toBeGreaterThan(1);
      expect(outcomes.filter((o) => o.signal === s && !o.afterRedis).length, `${s} before`).toBeGreaterThan(0);
    }
    for (const o of outcomes) expect(o.exitedWithinMs, JSON.stringify(o)).toBeLessThan(5000);

    // A SIGKILLed CLI's watchdog needs a moment to notice; a caught signal cleans up before exit.
    await waitFor(() => leftovers().length === 0 && ourDirs().length === 0, 3000);
    expect(leftovers()).toEqual([]);
    expect(ourDirs()).toEqual([]);
  }, 240_000); // ~20 s on an idle 2-core machine; generous for a loaded one
});
