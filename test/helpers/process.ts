// Checks on processes the tests started (redis-server, the CLI).
import { readFileSync } from 'node:fs';

export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Gone, or a zombie waiting for a reaper (an orphan's reaper is not ours to control, and a zombie holds nothing). */
export function processEnded(pid: number): boolean {
  if (!processExists(pid)) return true;
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

/** Polls `check` every 25 ms for up to `ms`. */
export async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}
