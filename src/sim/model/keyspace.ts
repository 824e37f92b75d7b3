// What the queue keys should hold, as Redis would hold them after the commands the model sent:
// lists and sorted sets with Redis' own semantics (RPUSH's reply, ZADD's count, ZRANGEBYSCORE's
// order, blocked BLPOPs served after the command that pushed), and where each entry came from, so
// a difference can be told in the run's terms. Pure: no I/O, no clock but the one handed in.

/** Who put an entry where it is, and when (the virtual instant): what an error message cites. */
export interface Origin {
  actor: string;
  /** Exact virtual instant (unix seconds). */
  at: number;
  /** "pushed", "migrated from queues:default:delayed", "reserved"... */
  how: string;
  /** A :notify entry's job: the payload whose push or migrate added it. */
  of?: string;
}

export interface ListEntry {
  value: string;
  origin: Origin;
}

export interface ZsetEntry {
  member: string;
  score: number;
  origin: Origin;
}

/** A list as a deque: RPUSH at the tail, LPOP at the head, both O(1). */
class List {
  private items: ListEntry[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(entry: ListEntry): void {
    this.items.push(entry);
  }

  /** An entry back at the head (a BLPOP the model served but Redis did not: see Keyspace.unserve). */
  unshift(entry: ListEntry): void {
    if (this.head > 0) this.items[--this.head] = entry;
    else this.items.unshift(entry);
  }

  peek(): ListEntry | undefined {
    return this.items[this.head];
  }

  at(i: number): ListEntry | undefined {
    return this.items[this.head + i];
  }

  shift(): ListEntry | undefined {
    if (this.head >= this.items.length) return undefined;
    const entry = this.items[this.head]!;
    this.items[this.head++] = undefined as unknown as ListEntry; // let the payload go
    // Compact once the consumed part dominates, so a long run's list does not keep growing.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return entry;
  }
}

/**
 * Redis' order of sorted-set members with equal scores: memcmp of their UTF-8 bytes, which is code
 * point order. JavaScript compares UTF-16 code units, which differ from code points only between a
 * surrogate (U+D800-DFFF, half of a character above U+FFFF) and U+E000-FFFF.
 */
export function compareMembers(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

function compareEntries(a: ZsetEntry, b: ZsetEntry): number {
  if (a === b) return 0;
  return a.score !== b.score ? a.score - b.score : compareMembers(a.member, b.member);
}

/** A sorted set: members by name, and in Redis' order (score, then member bytes) for ranges. */
class Zset {
  private readonly byMember = new Map<string, ZsetEntry>();
  private readonly sorted: ZsetEntry[] = [];

  get size(): number {
    return this.sorted.length;
  }

  has(member: string): boolean {
    return this.byMember.has(member);
  }

  get(member: string): ZsetEntry | undefined {
    return this.byMember.get(member);
  }

  /** ZADD's reply: 1 for a new member, 0 for one whose score was updated. */
  add(entry: ZsetEntry): 0 | 1 {
    const old = this.byMember.get(entry.member);
    if (old !== undefined) this.sorted.splice(this.indexOf(old), 1);
    this.byMember.set(entry.member, entry);
    this.sorted.splice(this.insertionPoint(entry), 0, entry);
    return old === undefined ? 1 : 0;
  }

  /** ZREM's reply: 1 when the member was there. */
  remove(member: string): 0 | 1 {
    const entry = this.byMember.get(member);
    if (entry === undefined) return 0;
    this.byMember.delete(member);
    this.sorted.splice(this.indexOf(entry), 1);
    return 1;
  }

  /** ZRANGEBYSCORE key -inf <max> [LIMIT 0 <count>] (a negative count: no limit). */
  rangeToScore(max: number, count: number): ZsetEntry[] {
    const out: ZsetEntry[] = [];
    for (const e of this.sorted) {
      if (e.score > max || (count >= 0 && out.length >= count)) break;
      out.push(e);
    }
    return out;
  }

  /** ZREMRANGEBYRANK key 0 <n-1>. */
  removeFirst(n: number): void {
    for (const e of this.sorted.splice(0, n)) this.byMember.delete(e.member);
  }

  private insertionPoint(entry: ZsetEntry): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareEntries(this.sorted[mid]!, entry) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private indexOf(entry: ZsetEntry): number {
    const i = this.insertionPoint(entry);
    if (this.sorted[i] !== entry) throw new Error(`sorted set out of order at ${entry.member.slice(0, 40)}`);
    return i;
  }
}

/** A BLPOP the server holds, and what a push has since handed it (Redis serves the oldest first). */
export interface Waiter {
  actor: string;
  key: string;
  /** The entry a push served it, or null while it still waits. */
  served: ListEntry | null;
}

export class Keyspace {
  private readonly lists = new Map<string, List>();
  private readonly zsets = new Map<string, Zset>();
  private readonly waiters = new Map<string, Waiter[]>();
  /** Lists that got entries during the current command while a BLPOP waits on them. */
  private readonly readyKeys = new Set<string>();
  private changes = 0;

  /**
   * How many times a key has changed so far: equal at two moments, the keys held the same then
   * (a step whose state need not be read again: step-collector.ts). A write that may change
   * nothing (a ZADD of a member already there) counts too.
   */
  get version(): number {
    return this.changes;
  }

  private list(key: string): List {
    let l = this.lists.get(key);
    if (l === undefined) this.lists.set(key, (l = new List()));
    return l;
  }

  private zset(key: string): Zset {
    let z = this.zsets.get(key);
    if (z === undefined) this.zsets.set(key, (z = new Zset()));
    return z;
  }

  llen(key: string): number {
    return this.lists.get(key)?.length ?? 0;
  }

  zcard(key: string): number {
    return this.zsets.get(key)?.size ?? 0;
  }

  /** The list's first entry (what an LPOP would take), without taking it. */
  head(key: string): ListEntry | undefined {
    return this.lists.get(key)?.peek();
  }

  /** The list's i-th entry from the head. */
  listAt(key: string, i: number): ListEntry | undefined {
    return this.lists.get(key)?.at(i);
  }

  zsetEntry(key: string, member: string): ZsetEntry | undefined {
    return this.zsets.get(key)?.get(member);
  }

  /** RPUSH: the list's length after the push (blocked BLPOPs are served after the command). */
  rpush(key: string, values: readonly string[], origin: Origin): number {
    const l = this.list(key);
    for (const value of values) l.push({ value, origin });
    if (values.length > 0) this.changes++;
    if (this.waiters.has(key)) this.readyKeys.add(key);
    return l.length;
  }

  lpop(key: string): ListEntry | null {
    const entry = this.lists.get(key)?.shift() ?? null;
    if (entry !== null) this.changes++;
    return entry;
  }

  zadd(key: string, score: number, member: string, origin: Origin): 0 | 1 {
    this.changes++;
    return this.zset(key).add({ member, score, origin });
  }

  zrem(key: string, member: string): 0 | 1 {
    const removed = this.zsets.get(key)?.remove(member) ?? 0;
    this.changes += removed;
    return removed;
  }

  zrangeToScore(key: string, max: number, count = -1): ZsetEntry[] {
    return this.zsets.get(key)?.rangeToScore(max, count) ?? [];
  }

  zremFirst(key: string, n: number): void {
    const z = this.zsets.get(key);
    if (z === undefined || n <= 0 || z.size === 0) return;
    z.removeFirst(n);
    this.changes++;
  }

  del(key: string): void {
    if (this.llen(key) > 0 || this.zcard(key) > 0) this.changes++;
    this.lists.delete(key);
    this.zsets.delete(key);
  }

  /**
   * BLPOP key: the head at once if the list has one (the waiter comes back served), else a waiter
   * the next push serves.
   */
  blpop(key: string, actor: string): Waiter {
    const head = this.lpop(key);
    const waiter: Waiter = { actor, key, served: head };
    if (head === null) {
      const queue = this.waiters.get(key);
      if (queue === undefined) this.waiters.set(key, [waiter]);
      else queue.push(waiter);
    }
    return waiter;
  }

  /** A waiting BLPOP ended without an element (timed out or cancelled): it no longer waits. */
  unblock(waiter: Waiter): void {
    const queue = this.waiters.get(waiter.key);
    const i = queue?.indexOf(waiter) ?? -1;
    if (i < 0) return;
    queue!.splice(i, 1);
    if (queue!.length === 0) this.waiters.delete(waiter.key);
  }

  /**
   * A BLPOP the model served that Redis had already timed out (its real-time timeout ran out
   * before the push): the entry is still in the list, at the head, since the list was empty when
   * the BLPOP began and what was pushed after it came after it.
   */
  unserve(waiter: Waiter): void {
    if (waiter.served === null) return;
    this.list(waiter.key).unshift(waiter.served);
    waiter.served = null;
    this.changes++;
  }

  /**
   * The end of a command (a plain command or a whole script): Redis then serves the BLPOPs blocked
   * on lists that got entries, oldest waiter first, each with the head of the list.
   */
  endCommand(): void {
    if (this.readyKeys.size === 0) return;
    for (const key of this.readyKeys) {
      const queue = this.waiters.get(key);
      if (queue === undefined) continue;
      const list = this.list(key);
      while (queue.length > 0 && list.length > 0) {
        queue.shift()!.served = list.shift()!;
        this.changes++;
      }
      if (queue.length === 0) this.waiters.delete(key);
    }
    this.readyKeys.clear();
  }
}
