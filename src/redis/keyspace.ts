// Where a run may write on a server the tool did not start (REDIS_URL). The keys Laravel uses
// (queues:default...) and the prefix are part of the trace, so they are never renamed; instead the
// run goes to an empty logical db: the scenario's own db if it is empty (then nothing in the trace
// differs), otherwise the first empty one, and only then Laravel's SELECT shows another number.
// An app of the server's owner working on its own db (a real queue:work on queues:default, say)
// then never sees our jobs, nor we theirs. Nothing is ever flushed: at the end only the run's own
// keys are deleted.
import type { Client } from './connections.ts';

export interface DatabaseChoice {
  db: number;
  /** The scenario's db held data, so the run moved to `db`. */
  moved: boolean;
  /** No empty db was found: the run shares `db` (the scenario's) with other data. */
  shared: boolean;
}

/** Logical dbs tried; Redis has 16 unless configured otherwise (SELECT beyond them is an error). */
const MAX_DBS = 16;

/** Leaves the observer on db 0; the caller SELECTs the chosen db. */
export async function chooseDatabase(observer: Client, wanted: number): Promise<DatabaseChoice> {
  const isEmpty = async (db: number): Promise<boolean | null> => {
    try {
      await observer.sendCommand(['SELECT', String(db)]);
    } catch {
      return null; // beyond the server's `databases` (or SELECT not allowed)
    }
    return Number(await observer.sendCommand(['DBSIZE'])) === 0;
  };
  try {
    if ((await isEmpty(wanted)) === true) return { db: wanted, moved: false, shared: false };
    for (let db = 0; db < MAX_DBS; db++) {
      if (db === wanted) continue;
      const empty = await isEmpty(db);
      if (empty === null) break;
      if (empty) return { db, moved: true, shared: false };
    }
    return { db: wanted, moved: false, shared: true };
  } finally {
    await observer.sendCommand(['SELECT', '0']);
  }
}
