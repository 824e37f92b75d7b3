// What changed inside a job payload between two versions of a command, field by field, so that a
// diff whose payloads are abbreviated (‹SendEmail#ID1 attempts:1›) still shows `attempts 1→2` or a
// new `createdAt`. Output is terminal-safe.
import { terminalSafe } from '../output/terminal-safe.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The payload object in `arg` (a JSON object with a string `job`), or null. */
export function parsePayload(arg: string): Record<string, Json> | null {
  if (arg.length < 2 || arg[0] !== '{') return null;
  try {
    const v = JSON.parse(arg) as Json;
    if (typeof v !== 'object' || v === null || Array.isArray(v) || typeof v.job !== 'string') return null;
    return v;
  } catch {
    return null;
  }
}

/** Leaf fields by dotted path; arrays and empty objects are leaves (as JSON). */
function flatten(v: Json, path: string, out: Map<string, string>): void {
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0) {
    for (const [k, x] of Object.entries(v)) flatten(x, path === '' ? k : `${path}.${k}`, out);
  } else out.set(path, typeof v === 'string' ? v : JSON.stringify(v));
}

const SHORT = 40;

function show(s: string): string {
  return terminalSafe(s.length > SHORT ? `${s.slice(0, SHORT - 1)}…` : s);
}

/** Both strings cut to a window around their first difference: `…ain";a:0:{}}` → `…ain";N;}`. */
export function excerptPair(a: string, b: string, context = 18): [string, string] {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  let endA = a.length;
  let endB = b.length;
  while (endA > i && endB > i && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const from = Math.max(0, i - context);
  const cut = (s: string, end: number) => {
    const to = Math.min(s.length, end + context, i + 2 * context);
    return terminalSafe(`${from > 0 ? '…' : ''}${s.slice(from, to)}${to < s.length ? '…' : ''}`);
  };
  return [cut(a, endA), cut(b, endB)];
}

/** `attempts 1→2`, `+createdAt T+0`, `-timeoutAt`, `data.command …x… → …y…`, in a's field order then b's new ones. */
export function payloadChanges(a: Record<string, Json>, b: Record<string, Json>): string[] {
  const fa = new Map<string, string>();
  const fb = new Map<string, string>();
  flatten(a, '', fa);
  flatten(b, '', fb);
  const out: string[] = [];
  for (const [k, va] of fa) {
    const vb = fb.get(k);
    if (vb === undefined) out.push(`-${terminalSafe(k)}`);
    else if (va !== vb) {
      if (va.length <= SHORT && vb.length <= SHORT) out.push(`${terminalSafe(k)} ${show(va)}→${show(vb)}`);
      else {
        const [x, y] = excerptPair(va, vb);
        out.push(`${terminalSafe(k)} ${x} → ${y}`);
      }
    }
  }
  for (const [k, vb] of fb) if (!fa.has(k)) out.push(`+${terminalSafe(k)} ${show(vb)}`);
  return out;
}
