// What the tests that drive the real CLI in tmux share.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The CLI as a person runs it. */
export const cli = join(repoRoot, 'bin', 'lqsim.js');

/**
 * A real terminal's environment: no CI variables (Ink would draw only its last frame), colours on,
 * a private redis-server (no REDIS_URL), no debug output.
 */
export function terminalEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color', LQSIM_REDIS: 'local' };
  for (const k of ['CI', 'CONTINUOUS_INTEGRATION', 'TMUX', 'NO_COLOR', 'FORCE_COLOR', 'REDIS_URL', 'LQSIM_DEBUG'])
    delete env[k];
  return env;
}
