// Runs the lqsim CLI as a user would (node bin/lqsim.js), for the tests that check its output and
// exit codes. Hermetic: a local redis-server, no colour unless asked, and none of REDIS_URL,
// NO_COLOR or CI leaking in from the shell that runs the suite (pass them in `env` to test them).
import { execFile } from 'node:child_process';

export const LQSIM_BIN = new URL('../../bin/lqsim.js', import.meta.url).pathname;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function lqsimEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base: Record<string, string | undefined> = { ...process.env, LQSIM_REDIS: 'local', FORCE_COLOR: '0' };
  delete base.REDIS_URL;
  delete base.NO_COLOR;
  delete base.CI;
  return { ...base, ...env } as NodeJS.ProcessEnv;
}

/** Runs `lqsim <args>`; a non-zero exit is a result (code), not a rejection. */
export function lqsim(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [LQSIM_BIN, ...args],
      { env: lqsimEnv(opts.env), cwd: opts.cwd, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
