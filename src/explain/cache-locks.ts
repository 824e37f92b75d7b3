// Whether a lock was taken or refused. MONITOR shows no replies, so it is read from what the same
// connection sends next (research/cache-store.md §3.1, §4.1, §7.1):
// - a unique job's lock (PendingDispatch): taken when the push follows at once on that connection
//   (Dispatcher::dispatchToQueue, nothing between); refused when anything else follows: the
//   dispatch was dropped, nothing pushed, nothing raised;
// - WithoutOverlapping's: taken when its `EVAL releaseLock` (same key and owner) follows, from the
//   `finally` around the job, before the worker polls again; refused when the worker polls again
//   (or takes the lock again) without it: the middleware released the job (or, dontRelease,
//   deleted it) without running handle().
// The explainer holds the lines after an undecided lock until its connection says which (bounded).
import type { CapturedLine } from './capture.ts';
import type { Recognised } from './recognise.ts';

export type LockVerdict =
  | { taken: true; line: number }
  /**
   * `line`: what showed it refused; `likely`: an overlap lock's job ended, then the capture did;
   * `silentFor`: a unique lock's connection sent nothing more while the capture went on this many seconds.
   */
  | { taken: false; line: number; likely?: true; silentFor?: number }
  /** The capture ended before its connection said. */
  | { taken: null };

interface Pending {
  line: number;
  /** MONITOR's time of the acquire. */
  t: number;
  client: string;
  key: string;
  owner: string;
  unique: boolean;
  /** A release or delete of the job since (a refused overlap lock's own, or a taken one's before its finally). */
  jobEnd?: number;
  verdict?: LockVerdict;
}

/** Seconds of the capture after a unique lock's acquire with nothing from its connection: no push is coming. */
const SILENT = 1;

const POLL: ReadonlySet<string> = new Set(['migrate delayed', 'migrate reserved', 'pop', 'block']);

export class LockLookahead {
  private readonly pending = new Map<number, Pending>();

  /** A line as it is read (before it is explained): a lock taken starts a watch; others settle those watched. */
  read(entry: CapturedLine, r: Recognised | undefined): void {
    const { line } = entry;
    if (line.client === 'lua') return;
    const t = Number(line.time);
    for (const p of this.pending.values()) {
      if (p.verdict !== undefined) continue;
      if (p.client === line.client) p.verdict = settle(p, entry, r);
      // A taken unique lock's push follows in the same PHP statement; a request whose dispatch was
      // dropped may send nothing more at all.
      else if (p.unique && t - p.t >= SILENT)
        p.verdict = { taken: false, line: p.line, likely: true, silentFor: Math.floor(t - p.t) };
    }
    const c = r?.cache;
    if (c?.action === 'lock-acquire' && (c.key.kind === 'overlap' || c.key.kind === 'unique'))
      this.pending.set(entry.lineNo, {
        line: entry.lineNo,
        t,
        client: line.client,
        key: line.args[1]!,
        owner: line.args[2] ?? '',
        unique: c.key.kind === 'unique',
      });
  }

  /** Whether the lock taken on `lineNo` is decided yet (undefined: not a lock watched). */
  decided(lineNo: number): boolean | undefined {
    const p = this.pending.get(lineNo);
    return p === undefined ? undefined : p.verdict !== undefined;
  }

  /** The verdict on the lock of `lineNo`, once (the capture's end, or the lines held ran out, decides what is left). */
  take(lineNo: number): LockVerdict | undefined {
    const p = this.pending.get(lineNo);
    if (p === undefined) return undefined;
    this.pending.delete(lineNo);
    if (p.verdict !== undefined) return p.verdict;
    return !p.unique && p.jobEnd !== undefined ? { taken: false, line: p.jobEnd, likely: true } : { taken: null };
  }
}

function settle(p: Pending, entry: CapturedLine, r: Recognised | undefined): LockVerdict | undefined {
  const n = entry.lineNo;
  if (p.unique) return r?.op === 'push' || r?.op === 'later' ? { taken: true, line: n } : { taken: false, line: n };
  const c = r?.cache;
  const args = entry.line.args;
  if (c?.action === 'lock-release' && args[3] === p.key && args[4] === p.owner) return { taken: true, line: n };
  // The worker's next poll, its next try of the lock, or (a lock on the cache connection) its
  // restart check after the job: a taken lock is released before any of them.
  if (
    (r !== undefined && POLL.has(r.op)) ||
    (c?.action === 'lock-acquire' && args[1] === p.key) ||
    c?.action === 'restart-read'
  )
    return { taken: false, line: n };
  if (r?.op === 'release' || r?.op === 'delete') p.jobEnd ??= n;
  return undefined;
}
