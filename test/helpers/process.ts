// Checks on processes the tests started (redis-server, the CLI).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/**
 * Live (not zombie) processes whose command line or working directory points into `dir` (a
 * redis-server's --dir, a watchdog told it, a CLI started there), as "pid: command line".
 */
export function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${entry}/status`, 'utf8'))) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // not ours to read
      }
      if (cwd.startsWith(dir) || cmdline.includes(dir)) found.push(`${entry}: ${cmdline.trim()}`);
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}
