// Laravel's job ids come from Str::random(32): 32 characters of [A-Za-z0-9]. We draw them from a
// seeded generator so that a scenario produces the same ids, and so the same trace, every run.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** mulberry32: small, fast, good enough for ids that only need to look random and be stable. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Str::random($length) from a seeded source. */
export function strRandom(next: () => number, length = 32): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return out;
}

/** Str::uuid(): a version-4 UUID (lower-case hex), from the seeded source. */
export function uuid4(next: () => number): string {
  const b = Array.from({ length: 16 }, () => Math.floor(next() * 256));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
