// A command's name as Redis knows it, whatever case it was sent in ("rpush" from a script,
// "EVAL" from phpredis). Read for every line of a capture: String.prototype.toUpperCase goes
// through V8's runtime each time, a lookup of the few names a capture has does not.

const NAMES = new Map<string, string>();
/** Distinct spellings kept: Redis has a few hundred commands; a capture of garbage gets no more. */
const KEPT = 1024;

/** `name` upper-cased ("zadd" → "ZADD"). */
export function commandName(name: string): string {
  let upper = NAMES.get(name);
  if (upper === undefined) {
    upper = name.toUpperCase();
    if (NAMES.size < KEPT) NAMES.set(name, upper);
  }
  return upper;
}
