// What the tool needs from a server before it touches anything: a version with every command it
// sends, and a user allowed to run them. A server that says no gets a clear refusal up front
// instead of a run that fails half-way. The version check is pure (INFO text in, verdict out).
import type { Client } from './connections.ts';
import { RedisRefusedError } from './errors.ts';

/**
 * CLIENT INFO (how the observer learns its own address) arrived in 6.2; CLIENT UNBLOCK and
 * CLIENT LIST ID in 5.0; EVAL with cjson in 2.6. So 6.2 is the oldest server the tool can use.
 */
export const MIN_REDIS_VERSION = '6.2.0';

/** redis_version from INFO server text, or undefined if it has none. */
export function versionFromInfo(info: string): string | undefined {
  return /^redis_version:(\S+)\s*$/m.exec(info)?.[1];
}

/** -1, 0 or 1, comparing dotted numeric versions ("7.0.15" vs "6.2"); missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const pb = b.split('.').map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Why a server of this version cannot be used, or null when it can. */
export function versionProblem(version: string | undefined): string | null {
  if (version === undefined || !/^\d+(\.\d+)*/.test(version)) {
    return `the server did not report a redis_version in INFO; lqsim needs Redis ${MIN_REDIS_VERSION} or newer`;
  }
  if (compareVersions(version, MIN_REDIS_VERSION) < 0) {
    return `Redis ${version} is too old: lqsim needs ${MIN_REDIS_VERSION} or newer (CLIENT INFO, CLIENT UNBLOCK, EVAL)`;
  }
  return null;
}

/** A NOPERM (ACL) reply, or null for any other error. */
export function aclDenial(e: unknown): string | null {
  const message = e instanceof Error ? e.message : String(e);
  return /^NOPERM\b/.test(message) ? message : null;
}

/**
 * Refuses (RedisRefusedError) a server that is too old or whose user may not run scripts or the
 * CLIENT commands. MONITOR is checked where it starts (monitor.ts): trying it is the only
 * portable test, and it is the first thing a run does after this. Nothing here touches a key:
 * it runs in db 0, where another run may be (claim.ts); what a run does to keys (DEL included)
 * is tried in its own db, by the claim script and then the permission probe (permission-probe.ts).
 */
export async function preflight(observer: Client): Promise<void> {
  // Every check goes out at once (one round trip, none has an effect); each reply is read in turn,
  // so what is reported is what the first failing check says, the version's first.
  const info = observer.sendCommand(['INFO', 'server']);
  const checks: Array<[string[], string]> = [
    [['EVAL', 'return 1', '0'], 'run Lua scripts (EVAL), which Laravel uses to pop, release and migrate jobs'],
    [
      ['CLIENT', 'LIST', 'ID', '0'],
      'run CLIENT LIST, which tells whether a worker is still blocked and which clients share its db',
    ],
    // No client has id 0: nothing is unblocked.
    [
      ['CLIENT', 'UNBLOCK', '0', 'TIMEOUT'],
      'run CLIENT UNBLOCK, which ends a BLPOP when the scenario says it times out',
    ],
    [['ECHO', 'lqsim'], "run ECHO, which marks in MONITOR where each step's commands end"],
  ];
  const replies = checks.map(([command]) => observer.sendCommand(command));
  for (const reply of replies) reply.catch(() => undefined); // read in turn below
  const problem = versionProblem(versionFromInfo(String(await info)));
  if (problem) throw new RedisRefusedError(problem);
  for (const [i, [, what]] of checks.entries()) {
    try {
      await replies[i];
    } catch (e) {
      const denied = aclDenial(e);
      if (denied) throw new RedisRefusedError(`this server's user may not ${what} (${denied})`);
      throw e;
    }
  }
}
