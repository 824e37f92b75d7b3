// The db rule of every comparison (assertTrace, the matchers, goldens, diff): on a shared server a
// run may claim another db than its scenario's (claim.ts), and Laravel's SELECT then names the
// claimed one. Compared in the scenario's terms, `SELECT <used>` reads as `SELECT <scenario>`, a
// command MONITOR saw in db <used> as one in db <scenario>, and a SELECT Laravel sent only because
// the used db is not 0 (phpredis under 5.x selects no db 0) is left out. Only SELECT's argument and
// the command's db carry the number; nothing else does. The trace itself keeps the real numbers.
import type { DatabaseUse } from '../scenarios/timeline.ts';

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

/** The rule for a run, or null when there is nothing to map (own server, own db, or exactDb). */
export function dbRule(use: DatabaseUse | undefined, options: DbOptions = {}): DbRule | null {
  if (use === undefined || use.used === use.scenario || options.exactDb === true) return null;
  const used = String(use.used);
  const note =
    use.extraSelect === true
      ? `SELECT ${used} left out, as the scenario's db ${use.scenario} sends no SELECT: this run claimed db ${used} on a shared server`
      : `SELECT ${used} compared as the scenario's db ${use.scenario}: this run claimed db ${used} on a shared server`;
  return {
    use,
    note,
    map(command) {
      const select = command.source === 'client' && isSelect(command.args) && command.args[1] === used;
      if (select && use.extraSelect === true) return null;
      if (!select && command.db !== use.used) return command;
      return {
        ...command,
        db: command.db === use.used ? use.scenario : command.db,
        args: select ? [command.args[0]!, String(use.scenario)] : command.args,
      };
    },
  };
}
