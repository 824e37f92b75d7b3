// The cache store's keys as the model expects Redis to hold them: plain strings, each with the
// virtual instant it expires at. Laravel sets TTLs (SET ... EX, SETEX) that run out in the run's
// virtual time: the run persists them in Redis and deletes them when the virtual clock passes
// their expiry (src/redis/virtual-expiry.ts), as Redis would (a key expires once now > its expiry).
import { toMs } from '../clock.ts';
import type { Origin } from './keyspace.ts';

export interface StringEntry {
  /** The logical db and the key as sent. */
  db: number;
  key: string;
  value: string;
  /** Integer milliseconds of the virtual instant it expires at; null: never. */
  expiresAtMs: number | null;
  origin: Origin;
}

/** The keys of one logical db of the run's (the queue's, the cache's). */
export class StringKeys {
  private readonly entries = new Map<string, StringEntry>();

  constructor(
    /** Where the run keeps every db's keys: one model for all of them. */
    private readonly all: Map<string, StringEntry>,
    private readonly db: number,
  ) {
    this.entries = all;
  }

  private id(key: string): string {
    return `${this.db} ${key}`;
  }

  /** The entry as Redis holds it at `now` (exact unix seconds): gone once now is past its expiry. */
  entry(key: string, now: number): StringEntry | undefined {
    const id = this.id(key);
    const e = this.entries.get(id);
    if (e === undefined) return undefined;
    if (e.expiresAtMs !== null && toMs(now) > e.expiresAtMs) {
      this.entries.delete(id);
      return undefined;
    }
    return e;
  }

  get(key: string, now: number): string | null {
    return this.entry(key, now)?.value ?? null;
  }

  /** SET key value [EX seconds] [NX]: 'OK', or null when NX finds the key. */
  set(key: string, value: string, o: { ex?: number; nx?: boolean }, origin: Origin): 'OK' | null {
    if (o.nx === true && this.entry(key, origin.at) !== undefined) return null;
    this.entries.set(this.id(key), {
      db: this.db,
      key,
      value,
      expiresAtMs: o.ex === undefined ? null : toMs(origin.at) + o.ex * 1000,
      origin,
    });
    return 'OK';
  }

  /** INCRBY: the new value; a key that is not there counts from 0 and keeps no expiry. */
  incrby(key: string, by: number, origin: Origin): number {
    const e = this.entry(key, origin.at);
    const value = Number(e?.value ?? 0) + by;
    this.entries.set(this.id(key), {
      db: this.db,
      key,
      value: String(value),
      expiresAtMs: e?.expiresAtMs ?? null,
      origin: e?.origin ?? origin,
    });
    return value;
  }

  del(key: string, now: number): number {
    const had = this.entry(key, now) !== undefined;
    this.entries.delete(this.id(key));
    return had ? 1 : 0;
  }
}

/** Every db's string keys as the model holds them at `now`, for the state pane. */
export function heldStrings(all: Map<string, StringEntry>, now: number): StringEntry[] {
  const out: StringEntry[] = [];
  for (const [id, e] of all) {
    if (e.expiresAtMs !== null && toMs(now) > e.expiresAtMs) all.delete(id);
    else out.push(e);
  }
  return out;
}
