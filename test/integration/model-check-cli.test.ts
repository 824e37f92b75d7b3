// `lqsim run` when another client takes the run's job: the run stops with the difference between the
// model and Redis named on stderr, and the CLI exits 1. The thief connects to the redis-server the
// CLI announces and LPOPs queues:default while the run is paced (--pace keeps each step on screen).
import { spawn } from 'node:child_process';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { LQSIM_BIN, lqsimEnv } from '../helpers/cli.ts';

const ANNOUNCE = /local redis-server \S+ on 127\.0\.0\.1:(\d+)/;

describe('lqsim run with a job taken by another client', () => {
  it('exits 1 naming the command, the expected and the actual reply', async () => {
    const child = spawn(process.execPath, [LQSIM_BIN, 'run', 'success', '--pace', '300'], {
      env: lqsimEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stolen: string | null = null;
    let thief: ReturnType<typeof createClient> | null = null;
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const port = new Promise<number>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (s: string) => {
        stderr += s;
        const m = ANNOUNCE.exec(stderr);
        if (m) resolve(Number(m[1]));
      });
    });
    child.stdout.resume();
    try {
      // No reconnecting or queueing once the CLI has stopped its server: a command then fails at once.
      thief = createClient({
        socket: { host: '127.0.0.1', port: await port, reconnectStrategy: false },
        disableOfflineQueue: true,
        RESP: 2,
      });
      thief.on('error', () => undefined);
      await thief.connect();
      // The request pushes ResizeImage#1 at t+0; take it before worker-1 pops it.
      let running = true;
      void exited.then(() => (running = false));
      while (running && stolen === null) {
        stolen = await thief.lPop('queues:default').catch(() => null);
        if (stolen === null) await new Promise((r) => setTimeout(r, 5));
      }
      const code = await exited;
      if (stolen === null) console.log(stderr);
      expect(stolen).toContain('App\\\\Jobs\\\\ResizeImage');
      expect(code).toBe(1);
      // Taken before the step's end read the sizes, or after it, before worker-1's pop: either way
      // the message names the command, what the model held and what Redis answered.
      expect(stderr).toMatch(
        /lqsim: run ended early after \d+ steps?: (worker-1's pop \(EVAL ‹pop› 2 queues:default queues:default:reserved 1700000090\) returned nothing, but queues:default should hold ResizeImage#1 \(attempts 0\) first \(pushed at t\+0s by dispatcher\)|at the end of step \d+ \(t\+0s, dispatcher\), LLEN queues:default returned 0, but queues:default should hold 1 job \(first ResizeImage#1 \(attempts 0\), pushed at t\+0s by dispatcher\)): another client took (it|a job from it) \(an app's queue:work on this server\?\); the trace is no longer Laravel's alone, so the run stops\n/,
      );
    } finally {
      await thief?.quit().catch(() => undefined);
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
    }
  });
});
