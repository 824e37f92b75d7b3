// Redis Cluster's key slots: CRC16 of the key (of its hash tag, `{...}`, when it has one) mod 16384,
// from `cluster-key-slot` (ioredis' and node-redis' own), and which arguments of a command are keys.
import calculateSlot from 'cluster-key-slot';

export const SLOT_COUNT = 16384;

/** The slot of a key, as Redis and phpredis compute it (a non-empty `{tag}` alone is hashed). */
export function keySlot(key: string): number {
  return calculateSlot(key);
}

/**
 * The keys of a command as MONITOR shows it (name first), for the commands Laravel's queue and
 * cache store send and the ones their scripts run; [] for a command with no key (CLUSTER SLOTS,
 * ECHO) or one not known here.
 */
export function commandKeys(args: readonly string[]): string[] {
  const name = args[0]?.toUpperCase();
  if (name === undefined) return [];
  switch (name) {
    case 'EVAL':
    case 'EVALSHA': {
      const n = Number(args[2]);
      return Number.isInteger(n) && n > 0 ? args.slice(3, 3 + n) : [];
    }
    case 'BLPOP':
    case 'BRPOP':
      return args.slice(1, -1);
    case 'MGET':
    case 'DEL':
    case 'EXISTS':
    case 'UNLINK':
      return args.slice(1);
    case 'RPOPLPUSH':
      return args.slice(1, 3);
    case 'CLUSTER':
    case 'ECHO':
    case 'PING':
    case 'SELECT':
    case 'AUTH':
    case 'CLIENT':
    case 'INFO':
    case 'MULTI':
    case 'EXEC':
    case 'QUIT':
      return [];
    default:
      return args.length > 1 ? [args[1]!] : [];
  }
}

/**
 * The one slot all of a command's keys hash to; null when it has no key, 'cross' when its keys
 * span slots (what phpredis refuses for EVAL and the server answers with CROSSSLOT).
 */
export function commandSlot(args: readonly string[]): number | 'cross' | null {
  const keys = commandKeys(args);
  if (keys.length === 0) return null;
  const first = keySlot(keys[0]!);
  for (const key of keys.slice(1)) if (keySlot(key) !== first) return 'cross';
  return first;
}
