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
  /**
   * `line`: what showed it taken (the push, its release); `byRefusal`: the capture shows no release
   * of it, but the next try of the same lock, from another connection, was refused with none between.
   */
  | { taken: true; line: number; byRefusal?: true }
  /**
   * `line`: what showed it refused; `likely`: an overlap lock's job ended, then the capture did;
   * `silentFor`: a unique lock's connection sent nothing more while the capture went on this many seconds.
   */
  | { taken: false; line: number; likely?: true; silentFor?: number; heldSince?: number }
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
  /** `EX n`, or null (SETNX: no expiry). */
  ttl: number | null;
  /** A release or delete of the job since (a refused overlap lock's own, or a taken one's before its finally). */
  jobEnd?: number;
  /** A later try of the same lock from another connection, refused with no release of it between. */
  refusedAfter?: number;
  /** The lock was released (by anyone) since: a later refusal says nothing of this one. */
  releasedSince?: true;
  verdict?: LockVerdict;
}

/** Seconds of the capture after a unique lock's acquire with nothing from its connection: no push is coming. */
const SILENT = 1;

const POLL: ReadonlySet<string> = new Set(['migrate delayed', 'migrate reserved', 'pop', 'block']);

/** Locks known held (kept at most: a capture of any size). */
const HELD_KEPT = 4096;

export class LockLookahead {
  private readonly pending = new Map<number, Pending>();

  /**
   * @param processOf the connection a cache connection's process sends its queue commands on
   *   (configuration.ts pairs them): a worker's restart check there tells of its locks too.
   */
  constructor(private readonly processOf: (client: string) => string = (c) => c) {}

  /** Locks the capture shows taken and not yet released, by key: a try of one is refused (SET NX fails). */
  private readonly held = new Map<string, { line: number; until: number | null }>();

  /** A line as it is read (before it is explained): a lock taken starts a watch; others settle those watched. */
  read(entry: CapturedLine, r: Recognised | undefined): void {
    const { line } = entry;
    if (line.client === 'lua') return;
    const t = Number(line.time);
    const c = r?.cache;
    if (c?.action === 'lock-release' || c?.action === 'lock-force-release') {
      const key = line.args[c.action === 'lock-release' ? 3 : 1]!;
      this.held.delete(key);
      for (const p of this.pending.values()) if (p.key === key) p.releasedSince = true;
    }
    const process = this.processOf(line.client);
    for (const p of this.pending.values()) {
      if (p.verdict !== undefined) continue;
      if (p.client === line.client) this.decide(p, settle(p, entry, r));
      // Its worker's restart check on the cache connection comes after the job, its lock released before.
      else if (c?.action === 'restart-read' && process === this.processOf(p.client))
        this.decide(p, { taken: false, line: entry.lineNo });
      // A taken unique lock's push follows in the same PHP statement; a request whose dispatch was
      // dropped may send nothing more at all.
      else if (p.unique && t - p.t >= SILENT)
        this.decide(p, { taken: false, line: p.line, likely: true, silentFor: Math.floor(t - p.t) });
    }
    if (c?.action === 'lock-acquire' && (c.key.kind === 'overlap' || c.key.kind === 'unique')) {
      const args = line.args;
      const p: Pending = {
        line: entry.lineNo,
        t,
        client: line.client,
        key: args[1]!,
        owner: args[2] ?? '',
        unique: c.key.kind === 'unique',
        ttl: args[3] === 'EX' && Number.isFinite(Number(args[4])) ? Number(args[4]) : null,
      };
      this.pending.set(entry.lineNo, p);
      // Held since a line the capture shows, with no release since and not expired: refused.
      const held = this.held.get(p.key);
      if (held !== undefined && (held.until === null || t <= held.until))
        this.decide(p, { taken: false, line: held.line, heldSince: held.line });
    }
  }

  private decide(p: Pending, verdict: LockVerdict | undefined): void {
    if (verdict === undefined) return;
    p.verdict = verdict;
    if (verdict.taken === true) {
      // Held from its acquire until a release (the release that decided it released it already).
      if (verdict.line !== p.line && !p.releasedSince && (this.held.size < HELD_KEPT || this.held.has(p.key)))
        this.held.set(p.key, { line: p.line, until: p.ttl === null ? null : p.t + p.ttl });
      return;
    }
    if (verdict.taken !== false) return;
    // An undecided try of the same lock before this refused one, from another connection, with no
    // release between: it most likely holds the lock.
    for (const q of this.pending.values())
      if (q.verdict === undefined && q.key === p.key && q.line < p.line && q.client !== p.client && !q.releasedSince)
        q.refusedAfter ??= p.line;
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
    if (p.refusedAfter !== undefined) return { taken: true, line: p.refusedAfter, byRefusal: true };
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
