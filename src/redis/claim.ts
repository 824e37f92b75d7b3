// A run on someone else's server (REDIS_URL) holds an exclusive claim on the logical db it writes
// to, for its whole life. Two runs on one URL (test files in parallel in CI) would otherwise pick
// the same empty db and corrupt each other's traces. The claim is a key in that db, taken by one
// script that checks the db is empty and sets the key with an expiry (scripts are atomic, so of two
// runs looking at one empty db only one gets it; the other finds it no longer empty and moves on).
// A heartbeat keeps it alive; the end of the run deletes it if it is still ours; a process that
// dies without deleting it leaves a key that expires by itself. Everything here goes through the
// observer connection, whose commands are never part of the trace.
import type { Client } from './connections.ts';
import { RedisRefusedError } from './errors.ts';

export const CLAIM_KEY = 'lqsim:claim';
/** How long a claim lives without a heartbeat. */
export const CLAIM_TTL_MS = 30_000;
/** Logical dbs tried; Redis has 16 unless configured otherwise (SELECT beyond them is an error). */
const MAX_DBS = 16;

const TAKE = `if redis.call('dbsize') == 0 then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`;

export interface DbClaim {
  db: number;
  /** The scenario's db was taken (by data or by another run), so the run claimed `db`. */
  moved: boolean;
  /** Set when a heartbeat found the claim gone (expired while the process stalled, or deleted). */
  lost(): string | null;
  /** Deletes the claim if it is still ours and stops the heartbeat. Safe to call twice. */
  release(): Promise<void>;
}

/**
 * Claims the scenario's db if it is empty, else the first empty one; refuses when none is. The
 * observer is left on the claimed db. `token` identifies this run (its connections' run id).
 */
export async function claimDatabase(
  observer: Client,
  wanted: number,
  token: string,
  ttlMs = CLAIM_TTL_MS,
): Promise<DbClaim> {
  const order = [wanted, ...Array.from({ length: MAX_DBS }, (_, i) => i).filter((i) => i !== wanted)];
  let tried = 0;
  for (const db of order) {
    try {
      await observer.sendCommand(['SELECT', String(db)]);
    } catch {
      if (db === wanted) continue; // the scenario's db does not exist here: the others may
      break; // beyond the server's `databases`
    }
    tried++;
    if (Number(await observer.sendCommand(['EVAL', TAKE, '1', CLAIM_KEY, token, String(ttlMs)])) === 1)
      return held(observer, db, db !== wanted, token, ttlMs);
  }
  throw new RedisRefusedError(
    `no empty db on this server (REDIS_URL; ${tried} tried): each run needs a db of its own, so that no other client or run shares its keys. Free one, or use a server of your own`,
  );
}

function held(observer: Client, db: number, moved: boolean, token: string, ttlMs: number): DbClaim {
  let lost: string | null = null;
  let released = false;
  let beat: Promise<unknown> = Promise.resolve();
  const timer = setInterval(
    () => {
      beat = observer
        .sendCommand(['EVAL', RENEW, '1', CLAIM_KEY, token, String(ttlMs)])
        .then((r) => {
          if (Number(r) !== 1 && !released)
            lost = `the claim on db ${db} (${CLAIM_KEY}) was lost: it expired or was deleted`;
        })
        .catch(() => undefined); // a closed connection ends the run by itself
    },
    Math.max(100, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    db,
    moved,
    lost: () => lost,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await beat;
      await observer.sendCommand(['EVAL', RELEASE, '1', CLAIM_KEY, token]);
    },
  };
}
