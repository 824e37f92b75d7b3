// The db rule of every comparison (assertTrace, the matchers, goldens, diff): on a shared server a
// run may claim another db than its scenario's (claim.ts), and Laravel's SELECT then names the
// claimed one. Compared in the scenario's terms, `SELECT <used>` reads as `SELECT <scenario>`, a
// command MONITOR saw in db <used> as one in db <scenario>, and a SELECT Laravel sent only because
// the used db is not 0 (phpredis under 5.x selects no db 0) is left out. Only SELECT's argument and
// the command's db carry the number; nothing else does. The trace itself keeps the real numbers.
// A run with its cache store on Redis may have moved its cache's db too: each as the queue's.
import type { DatabaseUse, DbMove } from '../scenarios/timeline.ts';

export interface DbOptions {
  /** Compare the dbs the run really used (`SELECT 3` stays 3). Default false: the scenario's db. */
  exactDb?: boolean;
}

/** How one run's dbs are read in its scenario's terms. */
export interface DbRule {
  readonly use: DatabaseUse;
  /** The command as the scenario's own db would give it; null when it would not be sent at all. */
  map<C extends { source: 'client' | 'lua'; db: number; args: readonly string[] }>(command: C): C | null;
  /** One line for a failure message's header. */
  readonly note: string;
}

function isSelect(args: readonly string[]): boolean {
  return args.length === 2 && args[0]!.toUpperCase() === 'SELECT';
}

/** The rule for a run, or null when there is nothing to map (own server, own dbs, or exactDb). */
export function dbRule(use: DatabaseUse | undefined, options: DbOptions = {}): DbRule | null {
  if (use === undefined || options.exactDb === true) return null;
  // A run with a cache store on Redis holds two dbs: each claimed db is read as its own scenario
  // db (the claim never gives two scenario dbs one db, so a used db names one scenario db).
  const moved = [use, ...(use.others ?? [])].filter((m) => m.used !== m.scenario);
  if (moved.length === 0) return null;
  const byUsed = new Map(moved.map((m) => [String(m.used), m]));
  return {
    use,
    note: moved.map(noteOf).join('; '),
    map(command) {
      const select = command.source === 'client' && isSelect(command.args) ? byUsed.get(command.args[1]!) : undefined;
      if (select?.extraSelect === true) return null;
      const inDb = byUsed.get(String(command.db));
      if (select === undefined && inDb === undefined) return command;
      return {
        ...command,
        db: inDb === undefined ? command.db : inDb.scenario,
        args: select === undefined ? command.args : [command.args[0]!, String(select.scenario)],
      };
    },
  };
}

/** What a comparison says of one moved db (the queue's as it always said it). */
function noteOf(m: DbMove): string {
  const which = m.field === undefined ? "the scenario's db" : `the scenario's ${m.field}`;
  return m.extraSelect === true
    ? `SELECT ${m.used} left out, as ${which} ${m.scenario} sends no SELECT: this run claimed db ${m.used} on a shared server`
    : `SELECT ${m.used} compared as ${which} ${m.scenario}: this run claimed db ${m.used} on a shared server`;
}
